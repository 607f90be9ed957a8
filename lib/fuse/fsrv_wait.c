/*
 * How fsrv's serving threads wait for requests (ab_fsrv_wait_cfg, parsed
 * here) and what their CPU time is (struct ab_fsrv_cpu): each thread reads
 * its own CPU clock and adds what it used since its last reading. The
 * transports call fsrv_cpu_add just before they sleep and fsrv_cpu_tick
 * while they look for a request without sleeping.
 */
#include "fuse/fsrv_i.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

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
	uint64_t sum = 0;

	for (int i = 0; c && i < n; i++)
		sum += atomic_load_explicit(&((struct ab_fsrv_cpu *)c)[i].ns, memory_order_relaxed);
	return sum;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void fsrv_cpu_init(struct fsrv_cpuacct *a, const struct fsrv *s, int i)
{
	const struct ab_fsrv_cfg *cfg = s->cfg;

	memset(a, 0, sizeof(*a));
	if (!cfg->cpu || cfg->ncpu <= 0)
		return;
	a->slot = &cfg->cpu[i % cfg->ncpu];
	a->last = thread_cpu_ns();
}

void fsrv_cpu_add(struct fsrv_cpuacct *a)
{
	if (!a->slot)
		return;
	uint64_t now = thread_cpu_ns();
	if (now > a->last)
		atomic_fetch_add_explicit(&a->slot->ns, now - a->last, memory_order_relaxed);
	a->last = now;
}

void fsrv_cpu_tick(struct fsrv_cpuacct *a, uint64_t now_ns)
{
	if (!a->slot || now_ns < a->next_tick)
		return;
	fsrv_cpu_add(a);
	a->next_tick = now_ns + AB_FSRV_CPU_EVERY_NS;
}
