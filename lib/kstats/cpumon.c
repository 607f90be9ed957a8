// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU monitor (cpumon.h): two snapshots of the kernel's counters around a
 * window, and their difference per operation. A snapshot is a small table of
 * rows ("ctxt", "irq", "ipi_res", "softirq_timer", "idle_usage_c1", ...), each
 * with one value per monitored CPU.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats/cpumon.h"
#include "kstats/cpumon_i.h"
#include "record/record.h"
#include "sys/common.h"
#include "sys/idle_policy.h"
#include "sys/sysfs.h"

/* ---- snapshots ---- */

static struct row *row(struct ab_cpumon *m, struct snap *s, const char *name, enum row_kind k)
{
	for (int i = 0; i < s->n; i++)
		if (s->r[i].kind == k && !strcmp(s->r[i].name, name))
			return &s->r[i];
	if (s->n == ROWS)
		return NULL;
	struct row *r = &s->r[s->n];
	r->v = calloc((size_t)m->ncpu, sizeof(*r->v));
	if (!r->v)
		return NULL;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = k;
	s->n++;
	return r;
}

/* Position of cpu among the monitored CPUs, or -1. */
static int slot(const struct ab_cpumon *m, int cpu)
{
	int lo = 0, hi = m->ncpu - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (m->cpu[mid] == cpu)
			return mid;
		if (m->cpu[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* A metric-name stem from kernel text: lower case, [a-z0-9_] only. */
static void stem(char *dst, size_t len, const char *prefix, const char *src, size_t srclen)
{
	size_t o = (size_t)snprintf(dst, len, "%s", prefix);

	for (size_t i = 0; i < srclen && o + 1 < len; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[o++] = isalnum(c) ? (char)tolower(c) : '_';
	}
	dst[o] = '\0';
}

/* Test hook AFFBENCH_CPUMON_HIDE ("cpuidle,cpufreq,interrupts,softirqs"): read as missing. */
int ab_cpumon_hidden(const char *facility)
{
	const char *h = ab_test_hook("AFFBENCH_CPUMON_HIDE");
	size_t n = strlen(facility);

	for (const char *p = h; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncmp(p, facility, n))
			return 1;
	return 0;
}

static void note(struct ab_cpumon *m, const char *why)
{
	size_t o = strlen(m->missing);

	if (!strstr(m->missing, why))
		snprintf(m->missing + o, sizeof(m->missing) - o, "%s%s", o ? "; " : "", why);
}

/* The named rows of /proc/interrupts worth a metric: IPIs by kind (x86's RES, CAL, TLB,
 * IWI; arm64's IPI0..n), the local timer and hypervisor callbacks. NMI, spurious,
 * thermal and the like stay out: they are not what a placement changes. */
static int ipi_row(const char *name)
{
	static const char *const keep[] = { "res", "cal", "tlb", "iwi", "loc", "hyp" };

	for (size_t i = 0; i < AB_ARRAY_SIZE(keep); i++)
		if (!strcmp(name, keep[i]))
			return 1;
	return !strncmp(name, "ipi", 3);
}

/* /proc/interrupts and /proc/softirqs: a header of CPUn columns, then rows "NAME: counts...". */
static int per_cpu_table(struct ab_cpumon *m, struct snap *s, const char *path, int softirq)
{
	FILE *f = ab_cpumon_hidden(softirq ? "softirqs" : "interrupts") ? NULL : fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int col[AB_MAX_CPUS > 8192 ? 8192 : AB_MAX_CPUS], ncol = 0;

	if (!f)
		return -1;
	if (getline(&line, &cap, f) > 0)
		for (char *p = line; (p = strstr(p, "CPU")) && ncol < (int)AB_ARRAY_SIZE(col); p += 3)
			col[ncol++] = slot(m, atoi(p + 3));
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':'), *p, name[ROWNAME];
		if (!colon)
			continue;
		char *lab = line + strspn(line, " ");
		int numbered = isdigit((unsigned char)*lab);
		if (softirq)
			stem(name, sizeof(name), "softirq_", lab, (size_t)(colon - lab));
		else if (numbered)
			snprintf(name, sizeof(name), "irq");
		else
			stem(name, sizeof(name), "", lab, (size_t)(colon - lab));
		if (!softirq && !numbered && !ipi_row(name))
			continue;
		struct row *r = row(m, s, name, softirq ? R_SOFTIRQ : numbered ? R_IRQ : R_NAMED);
		p = colon + 1;
		for (int c = 0; r && c < ncol; c++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;	/* ERR/MIS have one column; a description follows the counts */
			if (col[c] >= 0)
				r->v[col[c]] += v;
			p = end;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

static int read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	int ok = ab_sysfs_read(path, buf, sizeof(buf)) == 0 && isdigit((unsigned char)buf[0]);

	if (ok)
		*v = strtoull(buf, NULL, 10);
	return ok ? 0 : -1;
}

/* One "cpuN user nice system idle iowait ..." line of /proc/stat: N's idle and iowait ticks
 * into the stat_idle row, when N is monitored. Every kernel has these, with a cpuidle
 * driver or without one. */
static void stat_cpu(struct ab_cpumon *m, struct row *r, const char *line)
{
	unsigned long long t[5];
	int cpu, i;

	if (!r || sscanf(line, "cpu%d %llu %llu %llu %llu %llu", &cpu, &t[0], &t[1], &t[2], &t[3],
			 &t[4]) != 6 || (i = slot(m, cpu)) < 0)
		return;
	r->v[i] = t[3] + t[4];
}

/* /proc/stat: context switches (the whole machine) and each monitored CPU's idle ticks. */
static void ctxt(struct ab_cpumon *m, struct snap *s)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	struct row *r = row(m, s, "ctxsw", R_CTXT), *idle = row(m, s, "stat_idle", R_STAT_IDLE);
	int start = 1;	/* the intr line is longer than line[]: only a line's start is parsed */

	while (f && fgets(line, sizeof(line), f)) {
		if (start && r && !strncmp(line, "ctxt ", 5))
			r->v[0] = strtoull(line + 5, NULL, 10);
		else if (start && !strncmp(line, "cpu", 3) && isdigit((unsigned char)line[3]))
			stat_cpu(m, idle, line);
		start = strchr(line, '\n') != NULL;
	}
	if (f)
		fclose(f);
	else
		note(m, "idle share by CPU: /proc/stat unreadable");
}

/* --idle busy: what its spinners burnt, from their process's CPU clock (sys/idle_policy.h). */
static void spinners(struct ab_cpumon *m, struct snap *s)
{
	long long ns = ab_idle_busy_cpu_ns();
	struct row *r = ns >= 0 ? row(m, s, "spinner_cpu", R_SPIN) : NULL;

	if (r)
		r->v[0] = (uint64_t)ns;
}

static void idle_states(struct ab_cpumon *m, struct snap *s)
{
	int any = 0;

	for (int i = 0; i < m->ncpu && !ab_cpumon_hidden("cpuidle"); i++)
		for (int st = 0; st < 16; st++) {
			char path[128], name[32], stemmed[ROWNAME];
			uint64_t usage, us;
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name",
				 m->cpu[i], st);
			if (ab_sysfs_read(path, name, sizeof(name)) < 0)
				break;
			int ok = name[0] != '\0';
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage",
				 m->cpu[i], st);
			ok = ok && read_u64(path, &usage) == 0;
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/time",
				 m->cpu[i], st);
			if (!ok || read_u64(path, &us) < 0)
				continue;
			stem(stemmed, sizeof(stemmed), "", name, strlen(name));
			struct row *u = row(m, s, stemmed, R_IDLE_USAGE), *t = row(m, s, stemmed, R_IDLE_TIME);
			if (u && t) {
				u->v[i] = usage;
				t->v[i] = us;
				any = 1;
			}
		}
	if (!any)
		note(m, "idle entries and time: no cpuidle states in /sys/devices/system/cpu/cpuN/cpuidle "
			"(no cpuidle driver)");
}

static void freq(struct ab_cpumon *m, struct snap *s)
{
	struct row *r = NULL;

	for (int i = 0; i < m->ncpu && !ab_cpumon_hidden("cpufreq"); i++) {
		char path[128];
		uint64_t khz;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
			 m->cpu[i]);
		if (read_u64(path, &khz) < 0)
			continue;
		if (!r && !(r = row(m, s, "freq", R_FREQ)))
			return;
		r->v[i] = khz;
	}
	if (!r)
		note(m, "frequency: no cpufreq (/sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq)");
}

/* se.nr_migrations and nr_switches summed over every thread of the tasks, and which
 * threads those were (their number and the sum of their ids). */
static void tasks(struct ab_cpumon *m, struct snap *s)
{
	struct row *mig = NULL, *sw = NULL, *nid = row(m, s, "task_n", R_TASKID);
	struct row *idsum = row(m, s, "task_idsum", R_TASKID);

	for (int t = 0; t < m->ntask; t++) {
		char dir[64], path[400], line[256];
		snprintf(dir, sizeof(dir), "/proc/%d/task", (int)m->task[t]);
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "%s/%s/sched", dir, de->d_name);
			FILE *f = fopen(path, "re");
			if (f && nid && idsum) {
				nid->v[0]++;
				idsum->v[0] += strtoull(de->d_name, NULL, 10);
			}
			while (f && fgets(line, sizeof(line), f)) {
				char *colon = strchr(line, ':');
				int is_mig = !strncmp(line, "se.nr_migrations", 16);
				if (!colon || (!is_mig && strncmp(line, "nr_switches ", 12)))
					continue;
				if (!mig && (!(mig = row(m, s, "task_migrations", R_TASK)) ||
					     !(sw = row(m, s, "task_ctxsw", R_TASK))))
					break;
				(is_mig ? mig : sw)->v[0] += strtoull(colon + 1, NULL, 10);
			}
			if (f)
				fclose(f);
		}
		if (d)
			closedir(d);
	}
}

static int snapshot(struct ab_cpumon *m, struct snap *s)
{
	for (int i = 0; i < s->n; i++)
		memset(s->r[i].v, 0, (size_t)m->ncpu * sizeof(*s->r[i].v));
	ctxt(m, s);
	if (per_cpu_table(m, s, "/proc/interrupts", 0) < 0)
		note(m, "IRQs and IPIs: /proc/interrupts unreadable");
	if (per_cpu_table(m, s, "/proc/softirqs", 1) < 0)
		note(m, "softirqs: /proc/softirqs unreadable");
	idle_states(m, s);
	spinners(m, s);
	freq(m, s);
	tasks(m, s);
	return s->n ? 0 : -1;
}

/* ---- the monitor ---- */

struct ab_cpumon *ab_cpumon_new(const struct ab_cpuset *cpus)
{
	struct ab_cpuset allowed;
	struct ab_cpumon *m = calloc(1, sizeof(*m));
	int c, i = 0;

	if (!m)
		return NULL;
	if (!cpus && ab_cpuset_allowed(&allowed) == 0)
		cpus = &allowed;
	m->ncpu = cpus ? ab_cpuset_count(cpus) : 0;
	m->cpu = calloc((size_t)(m->ncpu ? m->ncpu : 1), sizeof(*m->cpu));
	if (!m->cpu) {
		free(m);
		return NULL;
	}
	if (cpus)
		ab_cpuset_for_each(c, cpus) m->cpu[i++] = c;
	note(m, "wake-ups local vs remote: no counter outside schedstats (/proc/schedstat) or BPF "
		"(the kstats breakdown counts them in instrumented repetitions)");
	return m;
}

void ab_cpumon_free(struct ab_cpumon *m)
{
	if (!m)
		return;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < m->s[k].n; i++)
			free(m->s[k].r[i].v);
	free(m->cpu);
	free(m);
}

int ab_cpumon_add_task(struct ab_cpumon *m, pid_t pid)
{
	if (!m || m->ntask == AB_CPUMON_TASKS || pid <= 0) {
		errno = E2BIG;
		return -1;
	}
	m->task[m->ntask++] = pid;
	return 0;
}

int ab_cpumon_begin(struct ab_cpumon *m)
{
	if (!m)
		return -1;
	m->done = 0;
	return snapshot(m, &m->s[0]);
}

/* Did the same threads run at both edges? A thread that ended would take its counts with
 * it and one that began would bring counts from before the window. */
static int same_threads(const struct ab_cpumon *m)
{
	for (int k = 0; k < m->s[1].n; k++) {
		const struct row *e = &m->s[1].r[k], *b = ab_cpumon_before(m, e);
		if (e->kind == R_TASKID && (!b || b->v[0] != e->v[0]))
			return 0;
	}
	return 1;
}

int ab_cpumon_end(struct ab_cpumon *m, double window_s)
{
	if (!m || snapshot(m, &m->s[1]) < 0)
		return -1;
	m->tasks_ok = same_threads(m);
	if (!m->tasks_ok)
		note(m, "the benchmark's own migrations and switches: a thread began or ended inside "
			"the window");
	m->window_s = window_s;
	m->done = window_s > 0;
	return m->done ? 0 : -1;
}
