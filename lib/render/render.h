/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One renderer for every benchmark. A benchmark describes its report once, in
 * a descriptor (<bench>/report.c, render/desc.h): the post's table layout and its
 * grids, the reading of the data, and the plots. The benchmark prints those tables on
 * stdout from its own results; the harness writes the same tables into
 * tables.md, the readings into report.md and the plots next to them, from
 * raw.csv. Nothing is written twice, and the harness knows benchmarks only
 * through the registry (harness/registry.def).
 *
 * Verdicts are honest at small n: a ratio is judged (significant or not) only
 * when both sides have AB_MIN_REPS_CI repetitions, the fewest for which a 95%
 * interval of a median exists; below that the text says "too few repetitions
 * to judge" and shows the estimate alone.
 *
 * The renderer's files and their headers:
 *   render.c      the render state, lookups, numbers, verdicts, published numbers (here)
 *   desc.c        what a descriptor says (desc.h)
 *   beside.c      the post's table beside ours (beside.h)
 *   render_plot.c grids and plots (render_plot.h)
 *   render_heat.c heatmaps (render_heat.h)
 *   plotdir.c     where figures are made and gnuplot runs (plotdir.h)
 *   render_breakdown*.c  the request breakdown (render_breakdown.h; the parts share
 *                 render_breakdown_i.h)
 *   reading.c     sentences of a reading (reading.h)
 *   levers.c      the levers table (levers.h)
 *   gpscript.c    gnuplot text, escaped (gpscript.h)
 */
#ifndef AB_RENDER_H
#define AB_RENDER_H

#include <stdio.h>

#include "record/results.h"
#include "record/stats.h"

#define AB_MIN_REPS_CI 6

struct ab_bench_desc;

/* A point its benchmark skipped (exit 4: the machine lacks what it needs), from the run's
 * failures.csv, its reason made table-safe by the harness: a lever that cannot act here is
 * said so in the levers table, never left out or shown as a share. */
struct ab_skip {
	char bench[AB_BENCH_LEN];
	char config[AB_CONFIG_LEN];
	char reason[400];
};
#define AB_SKIPS_MAX 64

struct ab_render {
	const struct ab_bench_desc *desc;
	const struct ab_results *res;
	FILE *out;		/* tables or reading go here */
	int markdown;		/* 1: tables.md / report.md; 0: a terminal (no fences) */
	const char *dir;	/* where .dat and .gp files go (ab_plotdir); NULL: none */
	int ncpu;		/* CPUs of the machine that measured (0: unknown) */
	int failed;		/* a plot or a write failed */
	char figures[8][64];	/* plots made, for the report to show */
	int nfig;
	int ntables;		/* numbered tables so far (ab_r_table_no) */
	const struct ab_skip *skips;	/* the run's skipped points (NULL: none known) */
	int nskips;
};

/* ---- rendering ---- */
/* The tables of one benchmark to f, as its own stdout (markdown 0) or tables.md shows them. */
int ab_render_tables(const struct ab_bench_desc *d, const struct ab_results *res, FILE *f,
		     int markdown);
/* A benchmark's end of output: in table format, its tables from the records o kept
 * (o->keep); csv and json printed every record already. 0 or -1. */
struct ab_out;
int ab_out_tables(const struct ab_out *o, const struct ab_bench_desc *d);
/* Does res hold any record of d's benchmark? */
int ab_render_has(const struct ab_bench_desc *d, const struct ab_results *res);

/* ---- lookups for descriptors (restricted to r->desc's benchmark) ---- */
/* First group of metric whose config holds every "k=v" of want (NULL-terminated);
 * unless want names an idle policy ("idle=poll"), only records of as-found. */
const struct ab_group *ab_r_find(const struct ab_render *r, const char *metric,
				 const char *const *want);
/* The same for "k1=v1" and "k2=v2" (k2 NULL: k1 alone); values are cut at 31 characters. */
const struct ab_group *ab_r_find_kv(const struct ab_render *r, const char *metric, const char *k1,
				    const char *v1, const char *k2, const char *v2);
/* Distinct values of key among groups of metric, sorted (numerically when all are numbers).
 * A value of AB_DISTINCT_LEN characters or more is left out, never cut: cut, it would not
 * find its records again, and two values cut alike would read as one (ab_r_too_long
 * counts them, so that a table can say so). */
#define AB_DISTINCT_LEN 32
int ab_r_distinct(const struct ab_render *r, const char *metric, const char *key, char vals[][32],
		  int max);
/* How many groups of metric hold a value of key that ab_r_distinct leaves out. */
int ab_r_too_long(const struct ab_render *r, const char *metric, const char *key);
double ab_r_median(const struct ab_group *g);
/* A number for a human table (report.md, details.md, tables.md, a terminal), at most
 * 17 characters: in plain notation from AB_NUM_PLAIN_MIN up to AB_NUM_PLAIN_MAX (whole
 * from 1000 on, 3 significant digits below: 0.0000197, never e-notation), which holds
 * every quantity measured here; beyond it %.3g's e-notation (1e+40, -1.23e-12), never
 * digits cut. "0" for 0 and -0, "inf" and "-inf", "-" for NAN. */
#define AB_NUM_PLAIN_MIN 1e-9
#define AB_NUM_PLAIN_MAX 1e15
const char *ab_r_num(char *buf, size_t len, double v);
/* A ratio we computed, as every human text shows one: ab_r_num and "x" ("0.846x", "1.92x",
 * "1234x"); "-" for NAN. The one notation of a ratio in report.md, tables.md and on a
 * terminal: a ratio printed in two places reads the same in both. */
const char *ab_r_x(char *buf, size_t len, double q);
/* The next number of a numbered table ("1)", "2)", ...): counted as they are printed,
 * so a run without some of a benchmark's tables still starts at 1. */
int ab_r_table_no(struct ab_render *r);
/* "```" in markdown, nothing on a terminal. */
void ab_r_fence(struct ab_render *r);

/* ---- verdicts ---- */
enum ab_verdict { AB_V_NONE, AB_V_FEW, AB_V_UP, AB_V_DOWN, AB_V_SAME };
/*
 * Two points of one run, a / b. A harness run interleaves its repetitions: round r
 * runs repetition r of every point, so a busy spell of the host lands on both values
 * of a round alike. Where AB_MIN_REPS_CI or more repetitions hold both (as
 * ab_r_round_ratios pairs them), the ratio is the median of the per-round ratios with
 * the distribution-free 95% CI of that median: what the round did to both divides
 * out (a complete block design; the points run in the plan's order within a round).
 * Otherwise it is ab_r_ratio_apart's. The repetitions --precision adds are numbered by
 * their round too (harness/run/run.h), so only the points a round ran pair in it.
 * AB_V_NONE when either is missing or b's median is 0; AB_V_FEW with too few values
 * to judge.
 */
enum ab_verdict ab_r_ratio(const struct ab_group *a, const struct ab_group *b, double *ratio,
			   struct ab_ci *ci);
/* What ab_r_ratio and ab_r_ratio_apart are: a caller that picks one holds it as this. */
typedef enum ab_verdict ab_r_ratio_fn(const struct ab_group *a, const struct ab_group *b,
				      double *ratio, struct ab_ci *ci);
/* Two samples measured apart (two runs): the ratio of medians a/b with its bootstrap 95%
 * CI, the two resampled independently; AB_V_FEW when either has fewer than
 * AB_MIN_REPS_CI values. _p also gives the bootstrap's two-sided p-value of a ratio of 1
 * (NAN unless the verdict is AB_V_UP, AB_V_DOWN or AB_V_SAME): one bootstrap gives both. */
enum ab_verdict ab_r_ratio_apart(const struct ab_group *a, const struct ab_group *b,
				 double *ratio, struct ab_ci *ci);
enum ab_verdict ab_r_ratio_apart_p(const struct ab_group *a, const struct ab_group *b,
				   double *ratio, struct ab_ci *ci, double *p);
/* Groups of more values than this are never paired (their ratio is ab_r_ratio_apart's). */
#define AB_PAIRS_MAX 1024
/* The ratios a / b of the repetitions (1 and up) both hold, in repetition order, into q
 * (AB_PAIRS_MAX slots), each repetition once; how many. 0 when either group holds more
 * than AB_PAIRS_MAX values, or b's value in a shared repetition is not above 0. */
size_t ab_r_round_ratios(const struct ab_group *a, const struct ab_group *b, double *q);
/* The median of per-repetition ratios a/b (pairs of one repetition) with its
 * distribution-free 95% CI, however few pairs: AB_V_FEW under AB_MIN_REPS_CI. A group
 * of more than AB_PAIRS_MAX values gets ab_r_ratio_apart's verdict instead. */
enum ab_verdict ab_r_paired(const struct ab_group *a, const struct ab_group *b, double *ratio,
			    struct ab_ci *ci);
/* "1.92x [1.71, 2.1] 95% CI, significant" (ab_r_x, ab_r_num), "1.92x (too few
 * repetitions to judge: n=3, 6 needed)" or "not compared: not both measured in this
 * run"; pct: as a change in percent. */
const char *ab_r_ratio_text(char *buf, size_t len, enum ab_verdict v, double ratio,
			    const struct ab_ci *ci, int pct);
/* " *" for a significant verdict, "" otherwise. */
const char *ab_r_star(enum ab_verdict v);
/* A markdown cell of a lever beside its cost: " MEDIAN (CPU us, RATIOx*) |", the ratio to
 * base (none when g is base or cannot be judged), or " not measured |" when g is NULL. */
void ab_r_cost_cell(struct ab_render *r, const struct ab_group *g, const struct ab_group *cpu,
		    const struct ab_group *base);

/* ---- published numbers (lib/render/published.tsv) ---- */
double ab_pub(const char *post, const char *key);		/* NAN when absent */
const char *ab_pub_text(const char *post, const char *key);	/* "" when absent */

#endif
