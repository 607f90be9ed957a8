// SPDX-License-Identifier: GPL-2.0
/*
 * The context switches of one thread of this process, read from
 * /proc/self/task/TID/status at a window's edges (never per round trip):
 * voluntary ones are sleeps (a wait that slept), involuntary ones a thread
 * the scheduler took off its CPU (a spinner descheduled).
 */
#include <errno.h>
#include <fcntl.h>
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

int cp_switches(pid_t tid, struct cp_switches *s)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (field(buf, "voluntary_ctxt_switches:", &s->vol) < 0 ||
	    field(buf, "nonvoluntary_ctxt_switches:", &s->invol) < 0)
		return -1;
	return 0;
}
