// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU monitor's numbers (cpumon.h): the difference of its two snapshots,
 * per operation, as shares of the window, per CPU on small boxes; and what it
 * cannot count, said once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kstats/cpumon_i.h"
#include "sys/common.h"
#include "record/record.h"

/* The begin row matching end row e, or NULL (a row that appeared mid-window). */
const struct row *ab_cpumon_before(const struct ab_cpumon *m, const struct row *e)
{
	for (int i = 0; i < m->s[0].n; i++)
		if (m->s[0].r[i].kind == e->kind && !strcmp(m->s[0].r[i].name, e->name))
			return &m->s[0].r[i];
	return NULL;
}

/* Counter difference on CPU slot i (0 if it went backwards: a CPU went offline). */
static double diff(const struct row *b, const struct row *e, int i)
{
	return e->v[i] >= b->v[i] ? (double)(e->v[i] - b->v[i]) : 0;
}

static double total(const struct ab_cpumon *m, const struct row *b, const struct row *e)
{
	double t = 0;

	for (int i = 0; i < m->ncpu; i++)
		t += diff(b, e, i);
	return t;
}

/* The window's numbers as they are made: into v, at most max. */
struct sink {
	struct ab_cpumon_val *v;
	int n, max;
};

static void rec(struct sink *o, const char *stem, const char *suffix, double v, const char *unit)
{
	if (o->n == o->max || !isfinite(v))
		return;
	struct ab_cpumon_val *x = &o->v[o->n++];
	snprintf(x->metric, sizeof(x->metric), "mon_%s%s", stem, suffix);
	snprintf(x->unit, sizeof(x->unit), "%s", unit);
	x->v = v;
}

/* A share of the window, in %: the reads sit just outside the window, so a fully idle CPU
 * may overshoot by the reads' own time; that is cut at 100. */
static double window_pct(const struct ab_cpumon *m, double us, int ncpu)
{
	return fmin(100, us / (m->window_s * 1e4 * ncpu));
}

/* /proc/stat's idle ticks on CPU slot i (all slots: -1) in the window, in us; NAN without them. */
static double stat_idle_us(const struct ab_cpumon *m, int i)
{
	static long hz;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	for (int k = 0; k < m->s[1].n && hz > 0; k++) {
		const struct row *e = &m->s[1].r[k], *b = ab_cpumon_before(m, e);
		if (e->kind == R_STAT_IDLE && b)
			return (i < 0 ? total(m, b, e) : diff(b, e, i)) * 1e6 / (double)hz;
	}
	return NAN;
}

/* Per-CPU split: idle share (/proc/stat, on every machine) and IPIs received (rescheduling +
 * function call). */
static void per_cpu(const struct ab_cpumon *m, struct sink *o, double ops)
{
	for (int i = 0; i < m->ncpu && m->ncpu <= AB_CPUMON_PER_CPU; i++) {
		double ipi = 0;
		int have_ipi = 0;
		char name[32];
		for (int k = 0; k < m->s[1].n; k++) {
			const struct row *e = &m->s[1].r[k], *b = ab_cpumon_before(m, e);
			if (b && e->kind == R_NAMED && (!strcmp(e->name, "res") || !strcmp(e->name, "cal"))) {
				ipi += diff(b, e, i);
				have_ipi = 1;
			}
		}
		snprintf(name, sizeof(name), "cpu%d_", m->cpu[i]);
		rec(o, name, "idle_pct", window_pct(m, stat_idle_us(m, i), 1), "%");
		if (have_ipi)
			rec(o, name, "ipi_per_op", ipi / ops, "1/op");
	}
}

int ab_cpumon_values(const struct ab_cpumon *m, double ops_per_s, struct ab_cpumon_val *v, int max)
{
	double idle_entries = 0, ops = m ? ops_per_s * m->window_s : 0;
	int have_idle = 0;
	struct sink sk = { v, 0, max }, *o = &sk;

	if (!m || !m->done || !(ops > 0))
		return 0;
	for (int k = 0; k < m->s[1].n; k++) {
		const struct row *e = &m->s[1].r[k], *b = ab_cpumon_before(m, e);
		if (!b)
			continue;
		switch (e->kind) {
		case R_TASK:
			if (!m->tasks_ok)
				break;
			/* fall through */
		case R_CTXT:
			rec(o, e->name, "_per_op", diff(b, e, 0) / ops, "1/op");
			break;
		case R_TASKID:
		case R_STAT_IDLE:	/* per CPU and for all of them, below */
			break;
		case R_SPIN:	/* --idle busy's price: the CPU time its spinners burnt */
			rec(o, "spinner_", "cpu_pct", window_pct(m, diff(b, e, 0) / 1e3, m->ncpu), "%");
			break;
		case R_IRQ:
		case R_NAMED:
		case R_SOFTIRQ:
			rec(o, e->name, "_per_op", total(m, b, e) / ops, "1/op");
			break;
		case R_IDLE_USAGE:
			idle_entries += total(m, b, e);
			have_idle = 1;
			break;
		case R_IDLE_TIME: {	/* a share of the window on the monitored CPUs */
			char st[ROWNAME + 8];
			snprintf(st, sizeof(st), "idle_%s", e->name);
			rec(o, st, "_pct", window_pct(m, total(m, b, e), m->ncpu), "%");
			break;
		}
		case R_FREQ: {
			double khz = 0;
			for (int i = 0; i < m->ncpu; i++)
				khz += (double)(b->v[i] + e->v[i]) / 2;
			rec(o, "cpu_", "mhz", khz / m->ncpu / 1000, "MHz");
			break;
		}
		}
	}
	if (have_idle)
		rec(o, "idle_entries", "_per_op", idle_entries / ops, "1/op");
	/* all monitored CPUs at once, whatever their number: what the levers table reads */
	rec(o, "allcpus_", "idle_pct", window_pct(m, stat_idle_us(m, -1), m->ncpu), "%");
	per_cpu(m, o, ops);
	return sk.n;
}

void ab_cpumon_record(const struct ab_cpumon *m, struct ab_out *o, const struct ab_config *c,
		      int rep, double ops_per_s)
{
	struct ab_cpumon_val *v = calloc(AB_CPUMON_VALS, sizeof(*v));
	int n = v ? ab_cpumon_values(m, ops_per_s, v, AB_CPUMON_VALS) : 0;

	for (int i = 0; i < n; i++)
		ab_record(o, c, rep, v[i].metric, v[i].v, v[i].unit);
	free(v);
	ab_cpumon_tell(ab_cpumon_missing(m));	/* each reason once, --quiet or not */
}

const char *ab_cpumon_missing(const struct ab_cpumon *m)
{
	return m ? m->missing : "";
}

void ab_cpumon_tell(const char *missing)
{
	static char told[2048];
	char line[1024] = "", copy[512], *save = NULL;
	size_t o = 0;

	snprintf(copy, sizeof(copy), "%s", missing ? missing : "");
	for (char *r = strtok_r(copy, ";", &save); r; r = strtok_r(NULL, ";", &save)) {
		r += strspn(r, " ");
		if (!*r || strstr(told, r))
			continue;
		size_t t = strlen(told);
		snprintf(told + t, sizeof(told) - t, "%s|", r);
		o += (size_t)snprintf(line + o, o < sizeof(line) ? sizeof(line) - o : 0, "%s%s",
				      o ? "; " : "", r);
	}
	if (line[0])
		ab_msg("CPU monitor: not counted on this machine: %s", line);
}
