// SPDX-License-Identifier: GPL-2.0
/*
 * The context switches of one thread of this process, read from
 * /proc/self/task/TID/status at a window's edges (never per round trip):
 * voluntary ones are sleeps (a wait that slept), involuntary ones a thread
 * the scheduler took off its CPU (a spinner descheduled). Beside them, from
 * /proc/self/task/TID/schedstat, how long the thread waited on a run queue: how
 * much of a window the scheduler took, which a count of switches does not say.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpupair.h"

static int field(const char *buf, const char *name, unsigned long *v)
{
	const char *p = strstr(buf, name);
	char *end;

	if (!p || (p != buf && p[-1] != '\n'))
		return -1;
	errno = 0;
	*v = strtoul(p + strlen(name), &end, 10);
	return errno || end == p + strlen(name) ? -1 : 0;
}

/* /proc/self/task/TID/<name> into buf (NUL-terminated); -1 when not readable. */
static int read_task(pid_t tid, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)tid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* schedstat's second field: ns spent on a run queue; NAN when not there. */
static double run_queue_wait(pid_t tid)
{
	char buf[128];
	unsigned long long run, wait;

	if (read_task(tid, "schedstat", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return NAN;
	return (double)wait;
}

int cp_switches(pid_t tid, struct cp_switches *s)
{
	char buf[4096];

	if (read_task(tid, "status", buf, sizeof(buf)) < 0 ||
	    field(buf, "voluntary_ctxt_switches:", &s->vol) < 0 ||
	    field(buf, "nonvoluntary_ctxt_switches:", &s->invol) < 0)
		return -1;
	s->wait_ns = run_queue_wait(tid);
	return 0;
}
