// SPDX-License-Identifier: GPL-2.0
/*
 * Cycles and instructions per operation through perf_event_open, counted for
 * the calling thread only, user and kernel (the cost under test is in the
 * kernel). Many VMs expose no hardware PMU (ENOENT) and perf_event_paranoid
 * may forbid kernel counting (EACCES): the caller then skips these metrics
 * with the reason, never the run.
 */
#include "fdget.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/common.h"

static int open_counter(uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.disabled = 1;
	a.exclude_hv = 1;
	/* O_CLOEXEC: the spawn helpers must not inherit it. */
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int fdget_perf_open(struct fdget_perf *p, char *why, size_t whylen)
{
	p->fd_instr = -1;
	p->fd_cycles = open_counter(PERF_COUNT_HW_CPU_CYCLES);
	if (p->fd_cycles < 0)
		return ab_err(why, whylen, "perf_event_open(PERF_COUNT_HW_CPU_CYCLES): %s%s",
			      strerror(errno),
			      errno == ENOENT ? " (no hardware PMU, as in many VMs)" :
			      errno == EACCES || errno == EPERM ?
			      " (lower /proc/sys/kernel/perf_event_paranoid or run as root)" : "");
	p->fd_instr = open_counter(PERF_COUNT_HW_INSTRUCTIONS);
	if (p->fd_instr < 0) {
		int e = errno;
		close(p->fd_cycles);
		p->fd_cycles = -1;
		return ab_err(why, whylen, "perf_event_open(PERF_COUNT_HW_INSTRUCTIONS): %s", strerror(e));
	}
	return 0;
}

void fdget_perf_start(struct fdget_perf *p)
{
	if (p->fd_cycles < 0)
		return;
	ioctl(p->fd_cycles, PERF_EVENT_IOC_RESET, 0);
	ioctl(p->fd_instr, PERF_EVENT_IOC_RESET, 0);
	ioctl(p->fd_cycles, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(p->fd_instr, PERF_EVENT_IOC_ENABLE, 0);
}

int fdget_perf_stop(struct fdget_perf *p, struct fdget_perf_val *v)
{
	if (p->fd_cycles < 0)
		return -1;
	ioctl(p->fd_cycles, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(p->fd_instr, PERF_EVENT_IOC_DISABLE, 0);
	if (read(p->fd_cycles, &v->cycles, sizeof(v->cycles)) != sizeof(v->cycles) ||
	    read(p->fd_instr, &v->instr, sizeof(v->instr)) != sizeof(v->instr))
		return -1;
	return 0;
}

void fdget_perf_close(struct fdget_perf *p)
{
	if (p->fd_cycles >= 0)
		close(p->fd_cycles);
	if (p->fd_instr >= 0)
		close(p->fd_instr);
	p->fd_cycles = p->fd_instr = -1;
}
