// SPDX-License-Identifier: GPL-2.0
/*
 * details.md's "what the CPUs did" table for any benchmark that wrote the CPU
 * monitor's records (mon_*, lib/kstats/cpumon.h): per config, the medians per
 * operation of the counters that tell a wake-up across CPUs from one on the
 * same CPU (context switches, rescheduling and function-call IPIs, idle
 * entries, the benchmark's own migrations), the idle share of each CPU the
 * benchmark ran on (whatever their numbers) and the time in each idle state.
 * Rows are labelled by the config keys that vary, so the table stays narrow.
 * Under it, what the benchmark said it could not count ("CPU monitor: not
 * counted ..." in its logs, log/<bench>-*.log), each reason once: a machine
 * without a facility shows why a column is missing, never a zero.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "sys/common.h"
#include "sys/infile.h"
#include "kstats/cpumon.h"
#include "render/render.h"
#include "render/desc.h"
#include "record/results.h"
#include "record/stats.h"

#define MON_ROWS 64
#define MON_REASONS 16
#define MON_REASON_LEN 480
#define MON_LOGS_MAX 4096	/* log files read at most: reasons repeat across points */

static const struct {
	const char *metric, *head;
} cols[] = {
	{ "mon_ctxsw_per_op", "switches/op" },
	{ "mon_task_migrations_per_op", "migrations/op" },
	{ "mon_res_per_op", "resched IPIs/op" },
	{ "mon_cal_per_op", "call IPIs/op" },
	{ "mon_idle_entries_per_op", "idle entries/op" },
	{ "mon_irq_per_op", "IRQs/op" },
	{ "mon_io_irq_local_pct", "IO IRQs on a reader's CPU %" },
	{ "mon_io_complete_local_pct", "IO completed on a reader's CPU %" },
	{ "mon_spinner_cpu_pct", "--idle busy spinners' CPU %" },
};

struct reasons {
	int n;
	char r[MON_REASONS][MON_REASON_LEN];
};

/* The "; "-separated reasons after "CPU monitor: not counted...: " in line, each once. */
static void add_reasons(struct reasons *rs, const char *line)
{
	const char *p = strstr(line, "CPU monitor: not counted");
	char copy[4096], *save = NULL;

	if (!p || !(p = strstr(p, ": ")) || !(p = strstr(p + 2, ": ")))
		return;
	snprintf(copy, sizeof(copy), "%s", p + 2);
	for (char *r = strtok_r(copy, ";", &save); r && rs->n < MON_REASONS;
	     r = strtok_r(NULL, ";", &save)) {
		r += strspn(r, " ");
		int seen = !*r;
		for (int i = 0; i < rs->n && !seen; i++)
			seen = !strncmp(rs->r[i], r, MON_REASON_LEN - 1);
		if (!seen)
			snprintf(rs->r[rs->n++], MON_REASON_LEN, "%s", r);
	}
}

/* Every reason bench's logs in dir/log give. Logs are read like any run input: regular
 * files only, no link followed, bounded. */
static void log_reasons(const char *dir, const char *bench, struct reasons *rs)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0, blen = strlen(bench);
	int files = 0;

	struct stat st;

	rs->n = 0;
	if (!dir || snprintf(path, sizeof(path), "%s/log", dir) >= (int)sizeof(path) ||
	    lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return;	/* none, or a link: a planted one is not followed */
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d)) && files < MON_LOGS_MAX && rs->n < MON_REASONS) {
		size_t l = strlen(e->d_name);
		if (strncmp(e->d_name, bench, blen) || e->d_name[blen] != '-' || l < 4 ||
		    strcmp(e->d_name + l - 4, ".log"))
			continue;
		files++;
		if (snprintf(path, sizeof(path), "%s/log/%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		FILE *in = ab_infile_open(path, AB_INFILE_MAX_SMALL, NULL, 0);
		while (in && ab_infile_line(in, &line, &cap) != -1)
			if (line && strstr(line, "CPU monitor: not counted"))
				add_reasons(rs, line);
		if (in)
			fclose(in);
	}
	if (d)
		closedir(d);
	free(line);
}

static void print_reasons(FILE *f, const struct reasons *rs)
{
	if (!rs->n)
		return;
	fputs("Not counted here, and why (never written as 0):\n\n", f);
	for (int i = 0; i < rs->n; i++) {
		fputs("- ", f);
		h_md_cell(f, rs->r[i]);
		fputc('\n', f);
	}
	fputc('\n', f);
}

/* Does key take more than one value among the configs? */
static int varies(char cfg[][AB_CONFIG_LEN], int n, const char *key)
{
	char a[AB_VALUE_LEN], b[AB_VALUE_LEN];

	ab_cfg_get(cfg[0], key, a, sizeof(a));
	for (int i = 1; i < n; i++)
		if (strcmp(ab_cfg_get(cfg[i], key, b, sizeof(b)), a))
			return 1;
	return 0;
}

struct rows {
	char (*cfg)[AB_CONFIG_LEN];
	int n;
	const char *bench;
};

/* A row label keeps the keys that vary, CPU numbers left out (a policy such as
 * uring_cpu=queue, named in the descriptor's not_cpus, stays). */
static int label_key(const char *key, void *ctx)
{
	const struct rows *r = ctx;

	return !h_cfg_is_cpu_numbers(r->bench, key, strlen(key)) && varies(r->cfg, r->n, key);
}

/* Families of records with a name in the middle, one cell each: the idle share of every
 * CPU the monitor watched (mon_cpu<N>_idle_pct: CPUs 12 and 13 on a big box) and the
 * share of the window in each idle state (mon_idle_<state>_pct). */
static const struct family {
	const char *prefix, *suffix, *head;
	int numeric;	/* the middle is a CPU number: sorted as numbers */
} families[] = {
	{ "mon_cpu", "_idle_pct", "idle, by CPU", 1 },
	{ "mon_idle_", "_pct", "time per idle state (mean of CPUs)", 0 },
};

static const char *middle(const struct family *fm, const char *metric, size_t *len)
{
	size_t lp = strlen(fm->prefix), ls = strlen(fm->suffix), lm = strlen(metric);

	if (lm <= lp + ls || strncmp(metric, fm->prefix, lp) || strcmp(metric + lm - ls, fm->suffix))
		return NULL;
	*len = lm - lp - ls;
	if (fm->numeric && strspn(metric + lp, "0123456789") != *len)
		return NULL;
	return metric + lp;
}

struct member {
	char name[AB_METRIC_LEN];
	double median;
};

static int member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	size_t lx = strlen(x->name), ly = strlen(y->name);

	/* equal-length digit strings sort as numbers; shorter numbers first */
	if (isdigit((unsigned char)x->name[0]) && isdigit((unsigned char)y->name[0]) && lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* "CPU 0 98.9%, CPU 1 0%" for one config, or nothing: returns the count written. */
static int family_cell(FILE *f, const struct family *fm, const struct ab_results *d,
		       const char *bench, const char *cfg)
{
	struct member m[AB_CPUMON_PER_CPU * 2];
	int n = 0;

	for (size_t i = 0; i < d->n && n < (int)AB_ARRAY_SIZE(m); i++) {
		const struct ab_group *g = &d->g[i];
		size_t len;
		const char *mid = middle(fm, g->metric, &len);
		if (!mid || !g->n || strcmp(g->bench, bench) || strcmp(g->config, cfg))
			continue;
		snprintf(m[n].name, sizeof(m[n].name), "%.*s", (int)len, mid);
		m[n++].median = ab_median(g->v, g->n);
	}
	qsort(m, (size_t)n, sizeof(m[0]), member_cmp);
	for (int i = 0; f && i < n; i++) {
		fprintf(f, "%s%s", i ? ", " : " ", fm->numeric ? "CPU " : "");
		h_md_cell(f, m[i].name);
		char num[48];
		fprintf(f, " %s%%", ab_r_num(num, sizeof(num), m[i].median));
	}
	return n;
}

void h_monitor_table(FILE *f, const char *dir, const char *bench, const struct ab_results *d)
{
	static char cfg[MON_ROWS][AB_CONFIG_LEN];
	static struct reasons rs;
	const struct ab_bench_desc *desc = h_desc(bench);	/* it says what one operation is */
	int n = 0, have[AB_ARRAY_SIZE(cols)] = { 0 }, fam[AB_ARRAY_SIZE(families)] = { 0 };

	log_reasons(dir, bench, &rs);
	for (size_t i = 0; i < d->n && n < MON_ROWS; i++) {
		const struct ab_group *g = &d->g[i];
		if (strcmp(g->bench, bench) || strcmp(g->metric, cols[0].metric))
			continue;
		snprintf(cfg[n++], sizeof(cfg[0]), "%s", g->config);
	}
	if (!n) {
		fprintf(f, "What the CPUs did in %s's measured windows: not recorded in this run (no "
			   "mon_* records).\n\n", bench);
		print_reasons(f, &rs);
		return;
	}
	for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++)
		for (int r = 0; r < n && !have[c]; r++)
			have[c] = ab_results_get(d, bench, cfg[r], cols[c].metric, "1/op") ||
				  ab_results_get(d, bench, cfg[r], cols[c].metric, "%");
	for (size_t c = 0; c < AB_ARRAY_SIZE(families); c++)
		for (int r = 0; r < n && !fam[c]; r++)
			fam[c] = family_cell(NULL, &families[c], d, bench, cfg[r]) > 0;
	fprintf(f, "What the CPUs did in %s's measured windows (medians over repetitions, per "
		   "operation: %s; from the kernel's counters, read outside the timed window; "
		   "machine-wide on the allowed CPUs):\n\n| config |", bench,
		desc && desc->op ? desc->op : "one operation");
	for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++)
		if (have[c])
			fprintf(f, " %s |", cols[c].head);
	for (size_t c = 0; c < AB_ARRAY_SIZE(families); c++)
		if (fam[c])
			fprintf(f, " %s |", families[c].head);
	fputs("\n|---|", f);
	for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++)
		if (have[c])
			fputs("---:|", f);
	for (size_t c = 0; c < AB_ARRAY_SIZE(families); c++)
		if (fam[c])
			fputs("---|", f);
	fputc('\n', f);
	for (int r = 0; r < n; r++) {
		fputs("| ", f);
		h_md_cfg_label(f, cfg[r], label_key, &(struct rows){ cfg, n, bench });
		fputs(" |", f);
		for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++) {
			if (!have[c])
				continue;
			const struct ab_group *g = ab_results_get(d, bench, cfg[r], cols[c].metric, "1/op");
			if (!g)
				g = ab_results_get(d, bench, cfg[r], cols[c].metric, "%");
			char num[48];
			if (g)
				fprintf(f, " %s |", ab_r_num(num, sizeof(num), ab_median(g->v, g->n)));
			else
				fputs(" not measured |", f);
		}
		for (size_t c = 0; c < AB_ARRAY_SIZE(families); c++) {
			if (!fam[c])
				continue;
			if (!family_cell(f, &families[c], d, bench, cfg[r]))
				fputs(" not measured", f);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
	print_reasons(f, &rs);
}
