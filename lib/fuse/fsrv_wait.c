// SPDX-License-Identifier: GPL-2.0
/*
 * How fsrv's serving threads wait for requests (ab_fsrv_wait_cfg, parsed
 * here) and what their CPU time is (struct ab_fsrv_cpu): the serving process
 * names itself, and the caller reads its CPU clock from outside.
 */
#include "fuse/fsrv_i.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/common.h"

int ab_fsrv_wait_parse(const char *s, struct ab_fsrv_wait_cfg *w, char *err, size_t len)
{
	unsigned long us = 0;
	const char *p;

	memset(w, 0, sizeof(*w));
	if (!strcmp(s, "block"))
		return 0;
	if (!strcmp(s, "poll")) {
		w->mode = AB_FSRV_WAIT_POLL;
		return 0;
	}
	if (strncmp(s, "spin:", 5))
		return ab_err(err, len, "expected %s", AB_FSRV_WAIT_FORMS);
	/* decimal digits only: no sign, blank, exponent or hex; overflow stops at the cap */
	for (p = s + 5; *p >= '0' && *p <= '9' && us <= AB_FSRV_SPIN_MAX_US; p++)
		us = us * 10 + (unsigned long)(*p - '0');
	if (p == s + 5 || (*p && (*p < '0' || *p > '9')))
		return ab_err(err, len, "spin:US takes microseconds as a whole decimal number");
	if (us < 1 || us > AB_FSRV_SPIN_MAX_US)
		return ab_err(err, len, "spin:US takes 1 to %d microseconds", AB_FSRV_SPIN_MAX_US);
	w->mode = AB_FSRV_WAIT_SPIN;
	w->spin_us = (uint32_t)us;
	return 0;
}

const char *ab_fsrv_wait_name(const struct ab_fsrv_wait_cfg *w, char *buf, size_t len)
{
	if (w->mode == AB_FSRV_WAIT_SPIN)
		snprintf(buf, len, "spin:%u", (unsigned)w->spin_us);
	else
		snprintf(buf, len, "%s", w->mode == AB_FSRV_WAIT_POLL ? "poll" : "block");
	return buf;
}

uint64_t ab_fsrv_cpu_sum(const struct ab_fsrv_cpu *c, int n)
{
	struct timespec ts;
	clockid_t id;
	pid_t pid = c && n > 0 ? atomic_load_explicit(&((struct ab_fsrv_cpu *)c)->pid,
						      memory_order_relaxed) : 0;

	if (pid <= 0 || clock_getcpuclockid(pid, &id) || clock_gettime(id, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void fsrv_cpu_serving(const struct fsrv *s)
{
	if (s->cfg->cpu && s->cfg->ncpu > 0)
		atomic_store(&s->cfg->cpu[0].pid, (int32_t)getpid());
}
