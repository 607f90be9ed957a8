/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness compare: the compare/ part. Its files:
 *   compare.c   harness compare: the runs loaded, each ratio judged, compare.md
 *   rows.c      a ratio's rows: compare.csv, compare.md, the terminal table
 *   trusted.c   the first table: the ratios inside each run that descriptors name
 *   agree.c     do two runs' headline medians agree as their intervals say?
 *   label.c     run labels, the configs' short labels, legends, cells
 *   plot.c      the overlay plots of the runs
 *   trend.c     the trend tables and plots of the headline metrics
 *   missing.c   why a result is in one run only
 *   match.c     a config matched across runs: the same CPUs, else the one config
 *               a side that differs in CPU numbers only
 *   machines.c  what differs between the runs' machines
 *   sort.c      --sort: the runs in the order of a machine.txt fact
 *   gate.c      the regression gate of --gate FILE
 * compare uses report/ (raw.csv loaded) and harness.h; never run/.
 */
#ifndef H_COMPARE_H
#define H_COMPARE_H

#include <stdio.h>

#include "render/render.h"
#include "render/desc.h"
#include "render/plotdir.h"
#include "record/results.h"
#include "../report/report.h"

/* harness compare (compare.c): argc/argv start at the name. An exit code. */
int cmd_compare(int argc, char **argv);

/* ---- what compare.c shares with label.c and plot.c ---- */
/* Why a result is in one run only (h_cmp_why_missing). */
enum { H_WHY_PLAN, H_WHY_FAILED, H_WHY_UNKNOWN, H_WHY_METRIC, H_WHY_N };

struct cmp {
	int nr;
	char **dirs;
	struct ab_results *d;	/* nr runs, d[0] the base */
	const char *out;
	const char *gate;	/* --gate FILE */
	int strict;		/* --strict: a rule that cannot be judged fails the gate */
	int sort;		/* --sort: H_SORT_* */
	struct ab_plotdir pd;	/* overlays are made here, then moved into out */
	FILE *md, *csv;
	int machines_differ;
	int judged, sig, sig_raw, tests, few, only_a, only_b, no_ratio;
	int subsampled;		/* ratios with a side past AB_BOOT_MAX_N values */
	int cpu_matched;	/* ratios of configs matched across CPU numbers (match.c) */
	struct cmp_bare *bare;	/* match.c's index, per run */
	struct shortkeys {	/* per benchmark, the config keys that vary in the base */
		char bench[AB_BENCH_LEN];
		char key[16][AB_KEY_LEN];
		int n;
	} sk[16];
	int nsk;
	struct run_points {	/* per run, its runs.csv: points not ok, by benchmark */
		char bench[16][AB_BENCH_LEN];
		int notok[16], nb;
		int known;	/* a runs.csv was read */
	} *pts;
	int why_a[H_WHY_N], why_b[H_WHY_N];	/* results in one run only, by H_WHY_* */
	struct cfg_set {	/* per run, its groups sorted by bench and config (lazily) */
		const struct ab_group **g;
		size_t n;
	} *cfgs;
};

/* The terminal table fits 100 columns: configs as the values of the keys that vary
 * ("fuse/single/same/libfuse"), a legend per benchmark names those keys; a config or
 * metric longer than its column is written whole on a line above its rows (rows.c). */
#define TERM_ROW "%-9.9s %-23.23s %-19.19s %-4.4s %9s %9s %s\n"	/* medians never cut */
#define TERM_RATIO_W 21	/* 79 columns before the ratio, written 0.9x as everywhere */

/* ---- rows.c: one ratio run/A, its class and its rows ---- */
enum { CLS_HEADLINE, CLS_OTHER, CLS_MONITOR };	/* Holm's family; described apart */
/* One ratio run/A, judged before any is printed: the correction needs them all. */
struct pair {
	const struct ab_group *a, *b;
	int k;			/* the run */
	int cls;		/* CLS_* */
	enum ab_verdict v;
	double r, p, adj;	/* ratio, bootstrap p, Holm-adjusted p */
	struct ab_ci ci;
};

#define ALPHA 0.05

/* a's class: CLS_MONITOR (mon_*), CLS_HEADLINE (its descriptor's headline), CLS_OTHER. */
int h_cmp_pair_class(const struct ab_group *a);
/* A headline ratio: its compare.csv, compare.md and terminal rows, counted in c. */
void h_cmp_one_pair(struct cmp *c, const struct pair *q);
/* A ratio described apart: its compare.csv row, and compare.md's unless a counter. */
void h_cmp_other_pair(struct cmp *c, const struct pair *q);
/* compare.md's section on the monitor counters of q[0..n-1]: how many, the largest. */
void h_cmp_monitor_said(struct cmp *c, const struct pair *q, size_t n);

/* ---- trusted.c ---- */
/* compare.md's first table and the terminal's: the ratios each descriptor names (its
 * ratios callback) in A and each other run, side by side, the change judged. */
void h_cmp_trusted(struct cmp *c);

/* ---- agree.c ---- */
/* compare.md's paragraph per run after A, and two lines on the terminal: how many
 * headline medians of each lie in the other's 95% CI, how many the widths lead one to
 * expect, each benchmark's move as a whole, and the counts with it divided out.
 * q[0..n-1]: every ratio, judged. */
void h_cmp_agree(struct cmp *c, const struct pair *q, size_t n);

/* ---- match.c ---- */
/* g, a group of run from, in run to: the group of the same bench, config, metric and unit;
 * else the one group of run to whose config differs from g's in CPU numbers only, when
 * run from has no other such either (two machines placed one config on other CPUs).
 * NULL when neither. */
const struct ab_group *h_cmp_match(const struct cmp *c, int from, const struct ab_group *g,
				   int to);
/* g's config (g a group of run k) without its CPU numbers. */
const char *h_cmp_bare(const struct cmp *c, int k, const struct ab_group *g);
/* Does the base hold two configs of bench that differ in CPU numbers only? */
int h_cmp_cpus_tell_apart(const struct cmp *c, const char *bench);
/* The index h_cmp_match uses, over every run in c->d; 0, or -1 out of memory. */
int h_cmp_index(struct cmp *c);
void h_cmp_index_free(struct cmp *c);

/* g's config as the values of the keys that vary among its benchmark's configs in the
 * base ("fuse/single/same/libfuse"); the terminal table's legend names the keys. */
const char *h_cmp_short_cfg(struct cmp *c, const struct ab_group *g, char *buf, size_t len);

/* Run k's label everywhere compare writes: A, B, ... Z, then #26, #27, ... */
const char *h_cmp_run_label(char *buf, size_t len, int k);

/* compare.md's config cell: "daemon=single, placement=none", the keys that vary. */
void h_cmp_md_cfg(FILE *f, struct cmp *c, const struct ab_group *g);
/* The terminal's legends: each benchmark's varying keys, and "run B: DIR" within 100 columns. */
void h_cmp_term_legend(struct cmp *c);
void h_cmp_run_legend(struct cmp *c, int k);
/* The keys whose values make bench's short configs, "daemon/placement/transport", into f. */
void h_cmp_keys_md(FILE *f, struct cmp *c, const char *bench);

/* ---- missing.c ---- */
/* Why a result of bench is missing from run k (its runs.csv, read once into c->pts[k]):
 * H_WHY_PLAN (the run's plan had no such config: none of bench's points failed or was
 * skipped), H_WHY_FAILED (some were), H_WHY_UNKNOWN (no readable runs.csv). */
/* H_WHY_METRIC: run k ran g's config but recorded no g->metric there: its machine lacks
 * what that metric needs (a cpuidle driver, a tracepoint, a PMU), never another plan. */
int h_cmp_why_missing(struct cmp *c, int k, const struct ab_group *g);
/* "N of configs ...; M of ..." for the counts of why[], into md. */
void h_cmp_why_said(FILE *md, const int *why, const char *run);

/* The trend and overlay plots, drawn into c->out, linked from compare.md; 0 or -1. */
int h_cmp_plots(struct cmp *c);

/*
 * ---- gate.c ----
 * The regression gate of harness compare --gate FILE: rules, one a line,
 *   BENCH METRIC [KEY=VALUE ...] max-regression|max-drop|max-rise N%
 * each judged over every config of BENCH's METRIC that holds all KEY=VALUE,
 * new run against the base: a rule is violated when a config's ratio new/base
 * is worse than N% (max-regression: a drop for a metric where higher is
 * better, a rise for one its descriptor marks lower_better; max-drop and
 * max-rise say the direction themselves) and the two-sided
 * bootstrap p-value of "the ratio is the threshold", Holm-corrected over the k
 * configs the rule judged in that run, is at most 0.05 (with one config: the
 * whole 95% CI beyond the threshold). It cannot be judged when a pair has fewer
 * than AB_MIN_REPS_CI repetitions a side or nothing matches.
 */
#define H_EXIT_GATE 3		/* a rule violated (or, with --strict, not judged) */
#define H_GATE_RULES 256
#define H_GATE_FILTERS 8

struct h_gate_rule {
	int line;
	char bench[AB_BENCH_LEN], metric[AB_METRIC_LEN];
	char filter[H_GATE_FILTERS][AB_KEY_LEN + AB_VALUE_LEN + 1];
	int nfilter;
	int rise;		/* 1: a rise is worse (max-rise, or max-regression of a
				 * lower-is-better metric), 0: a drop is */
	double pct;		/* the threshold in percent */
	char text[256];		/* the rule as written, whitespace squeezed, for messages */
};

struct h_gate {
	const char *file;
	int n;
	struct h_gate_rule r[H_GATE_RULES];
};

/* Read and check FILE (sys/infile.h: a regular file, bounded); a bad line exits 2
 * with FILE:LINE and what is wrong. */
void h_gate_load(struct h_gate *g, const char *file);
/* A rule whose metric or filters match nothing in the base run d[0]: FILE:LINE, exit 2. */
void h_gate_check(const struct h_gate *g, const struct ab_results *base);

/*
 * Judge every rule for each run c->d[1..] against c->d[0] (configs matched by
 * h_cmp_match), names as written in c->dirs. One line on stdout per violated or
 * unjudged rule and run, a summary on stderr. 0, or H_EXIT_GATE when a rule was
 * violated (or, with c->strict, not judged).
 */
int h_gate_judge(const struct h_gate *g, const struct cmp *c);

/* ---- machines.c: the table of what differs between the runs' machines ---- */
/* "## The machines" into md: a row per run in dirs and a column per machine.txt fact
 * that differs between them (tables of at most 120 characters a row), then a sentence
 * saying what the verdicts compare. 1 when the machines
 * differ (or one is unknown), 0 when they agree. */
int h_compare_machines(FILE *md, char *const *dirs, int nr);

/* --sort: the order of the runs (H_SORT_GIVEN: as given). */
enum { H_SORT_GIVEN, H_SORT_KERNEL, H_SORT_DATE, H_SORT_HOST };
#define H_SORT_CHOICES "given|kernel|date|host"
/* Sort dirs by machine.txt's kernel release (version order), date (UTC) or host; ties
 * and runs without the fact keep their given order, the unknown last. */
void h_compare_sort(char **dirs, int nr, int by);

/* ---- trend.c: trend tables and plots of the headline metrics ---- */
/*
 * "## Trends of the headline metrics" into md: per headline metric of every
 * registered benchmark, a table of the runs (c->d[0] the base) by config; with
 * plotdir, NAME.dat and NAME.gp there for a trend plot of each, their names in
 * names (at most max). Returns how many plots were prepared.
 */
int h_compare_trends(FILE *md, const char *plotdir, const struct cmp *c, char names[][64],
		     int max);

#endif
