/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One renderer for every benchmark. A benchmark describes its report once, in
 * a descriptor (<bench>/report.c): the post's table layout and its grids, the
 * reading of the data, and the plots. The benchmark prints those tables on
 * stdout from its own results; the harness writes the same tables into
 * tables.md, the readings into report.md and the plots next to them, from
 * raw.csv. Nothing is written twice, and the harness knows benchmarks only
 * through the registry (harness/registry.def).
 *
 * Verdicts are honest at small n: a ratio is judged (significant or not) only
 * when both sides have AB_MIN_REPS_CI repetitions, the fewest for which a 95%
 * interval of a median exists; below that the text says "too few repetitions
 * to judge" and shows the estimate alone.
 */
#ifndef AB_RENDER_H
#define AB_RENDER_H

#include <stdio.h>

#include "record/results.h"
#include "record/stats.h"

#define AB_MIN_REPS_CI 6

struct ab_render;
struct ab_breakdown_bar;

/* One metric a benchmark records, as the harness judges it. */
struct ab_metric_desc {
	const char *name;	/* as in raw.csv ("stat_per_s") */
	const char *unit;	/* as in raw.csv ("1/s") */
	int lower_better;	/* 1: a rise is a regression (ns_per_op); 0: a drop is */
};

/* A config key a record writes only when it is not at its default: a config without it
 * holds value, as a config without idle holds as-found (ab_cfg_absent_as). */
struct ab_key_absent {
	const char *key, *value;
};

/* A ratio a benchmark's readings name (other/same, uring/libfuse, rq on/off): median of
 * subject / median of base, both groups of one run. */
struct ab_named_ratio {
	char name[96];
	const struct ab_group *subject, *base;
};

struct ab_bench_desc {
	const char *name;		/* folder, program and record bench name; what it
					 * measures is said once, in its ab_prog_info.summary */
	const char *post;		/* id of the post it reproduces in lib/render/published.tsv */
	const char *const *headline;	/* metrics users compare (noise warnings, compare plots) */
	const char *discover;		/* argument the harness runs once for machine.txt, or NULL */
	const char *probes;		/* option whose value "off" drops the instrumented repetitions
					 * (the harness's 'instrumented' plan key), or NULL */
	int duration_each;		/* 1: --duration times each of many items (e.g. each CPU
					 * pair), so a short one is no warning; 0: the whole run */
	const char *op;			/* what a per-op figure (mon_*_per_op) is per
					 * ("one stat()"), or NULL: "one operation" */
	const struct ab_metric_desc *metrics;	/* units and directions, ended by a NULL
						 * name: every metric the bench records but
						 * mon_* and histogram tails (ab_desc_has_metric) */
	/* The roles of its config keys (each NULL-terminated, or NULL for none): */
	const char *const *compared;	/* what a CDF's lines and the breakdown's sentences
					 * compare, in order; every other key but follow is a
					 * panel (NULL: a line per config) */
	const char *const *follow;	/* keys that change with the compared ones (a
					 * placement's CPUs): neither a panel nor a label */
	const char *const *not_cpus;	/* keys named *_cpu or *_cpus that choose a policy
					 * (uring_cpu=queue), not CPU numbers */
	const struct ab_key_absent *absent_as;	/* keys left out at their default (ended by
						 * a NULL key), or NULL */
	const char *baseline_key;	/* the key whose values in baselines name one, or NULL */
	const char *const *baselines;	/* those values: a baseline is a reference measured
					 * beside the subject (a kernel file), not compared */
	const char *const *breakdown_keys;	/* what the request breakdown's sentences
						 * compare, in order; a bar's label keeps them */
	/* Its own reading of the request breakdown, after the generic one (NULL: none). */
	void (*breakdown_reading)(struct ab_render *r, const struct ab_breakdown_bar *bars, int n);
	void (*tables)(struct ab_render *r);	/* the post's layout and grids */
	/* report.md's section of it, in this order: "## NAME: QUESTION", the post's table
	 * beside ours, the readings, its first figures. */
	const char *question;			/* what the section answers */
	void (*beside)(struct ab_render *r);	/* the post's numbers beside ours, or NULL */
	void (*reading)(struct ab_render *r);	/* what the data say, for report.md */
	void (*plots)(struct ab_render *r);	/* .dat and .gp files (harness only) */
	/* The within-run ratios its readings name, as measured in r->res (the ones people
	 * trust across machines), at most max into out; how many. harness compare sets
	 * them side by side across runs. NULL: none. */
	int (*ratios)(struct ab_render *r, struct ab_named_ratio *out, int max);
};

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

/* ---- what a descriptor says ---- */
/* Is key one of list (NULL-terminated, may be NULL)? keylen: key's length. */
int ab_desc_in(const char *const *list, const char *key, size_t keylen);
/* Is a lower value of metric better (d may be NULL: higher is better)? */
int ab_desc_lower_better(const struct ab_bench_desc *d, const char *metric);
/* Can d's benchmark record metric: one its list names, a what-the-CPUs-did mon_*
 * metric, or a tail (p90, p999, max) of a listed _p50_ one? 0 when d is NULL. */
int ab_desc_has_metric(const struct ab_bench_desc *d, const char *metric);
/* Is cfg (a record's config) one of d's baselines? */
int ab_desc_is_baseline(const struct ab_bench_desc *d, const char *cfg);
/* Does cfg hold kv ("key=value", as ab_cfg_matches takes it), a key that cfg lacks
 * counting as its default (d's absent_as, then ab_cfg_absent_as)? d may be NULL. */
int ab_desc_cfg_matches(const struct ab_bench_desc *d, const char *cfg, const char *kv);
/* The value a config of d without key holds (d's absent_as, then ab_cfg_absent_as), or
 * NULL when key has none. */
const char *ab_desc_absent_as(const struct ab_bench_desc *d, const char *key, size_t keylen);
/* Does key (keylen bytes) of d's configs hold CPU numbers: named *_cpu or *_cpus and
 * not one of d->not_cpus (d may be NULL)? */
int ab_desc_is_cpu_key(const struct ab_bench_desc *d, const char *key, size_t keylen);

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
/* Ratio of medians a/b with its bootstrap 95% CI. AB_V_NONE when either is missing or
 * b's median is 0; AB_V_FEW when either has fewer than AB_MIN_REPS_CI values. */
enum ab_verdict ab_r_ratio(const struct ab_group *a, const struct ab_group *b, double *ratio,
			   struct ab_ci *ci);
/* ab_r_ratio with the bootstrap's two-sided p-value of a ratio of 1 in *p (NAN unless
 * the verdict is AB_V_UP, AB_V_DOWN or AB_V_SAME): one bootstrap gives both. */
enum ab_verdict ab_r_ratio_p(const struct ab_group *a, const struct ab_group *b, double *ratio,
			     struct ab_ci *ci, double *p);
/* The median of per-repetition ratios a/b (pairs of one repetition) with its CI. */
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

/* ---- the post's table beside ours (a descriptor's beside callback, lib/render/beside.c) ---- */
/* "| corner | col... |" and its rule; cols NULL-terminated. */
void ab_r_beside_head(struct ab_render *r, const char *corner, const char *const *cols);
/* A row: its label, then one cell per column, then ab_r_beside_row_end. */
void ab_r_beside_row(struct ab_render *r, const char *label);
void ab_r_beside_row_end(struct ab_render *r);
void ab_r_cell_text(struct ab_render *r, const char *text);	/* NULL or "": "not measured" */
void ab_r_cell_not_in_post(struct ab_render *r);		/* "not in the post" */
/* The post's number as it printed it, and a ratio of two of them ("1.93x"). */
void ab_r_cell_pub(struct ab_render *r, const char *post, const char *key);
void ab_r_cell_pub_ratio(struct ab_render *r, const char *post, const char *num, const char *den);
/* This run: g's median (ab_r_num), and a / b as "7.75x [7.03, 12.4] *" (paired: the
 * median of per-repetition ratios), "7.75x (n < 6)" when too few to judge. */
void ab_r_cell_median(struct ab_render *r, const struct ab_group *g);
void ab_r_cell_ratio(struct ab_render *r, const struct ab_group *a, const struct ab_group *b,
		     int paired);
/* The same ratio for a list or a cell: "0.761x [0.643, 0.888] *", "0.761x (n < 6)", or
 * "not measured" when not both were. */
const char *ab_r_ratio_brief(char *buf, size_t len, enum ab_verdict v, double q,
			     const struct ab_ci *ci);
/* Under the table: the post's source, and what the brackets are. */
void ab_r_beside_note(struct ab_render *r, const char *post);

/* ---- grids: rows x columns of groups, as markdown and as gnuplot data ---- */
#define AB_GRID_ROWS 24
#define AB_GRID_COLS 8
struct ab_grid {
	int nr, nc;
	char rkey[32];		/* what the rows are (ab_grid_build's rkey): ab_grid_plot's x label */
	char rows[AB_GRID_ROWS][32], cols[AB_GRID_COLS][32];
	const struct ab_group *g[AB_GRID_ROWS][AB_GRID_COLS];
};
/* Rows: values of rkey, columns: values of ckey, among groups of metric that also hold
 * every "k=v" of fixed (may be NULL); empty rows and columns dropped. */
void ab_grid_build(struct ab_render *r, struct ab_grid *m, const char *metric, const char *rkey,
		   const char *ckey, const char *const *fixed);
/* What the bracket after a median is: a 95% CI from AB_MIN_REPS_CI values on, the
 * min-max range below (never called a CI). */
#define AB_MINMAX_LABEL "min-max, fewer than 6 repetitions"
/* For every cell of m: "95% CI" when all have AB_MIN_REPS_CI values,
 * AB_MINMAX_LABEL when none has, and for a mix "95% CI; ~ = min-max, ..." with
 * ab_grid_md marking those cells "~". */
const char *ab_grid_interval(const struct ab_grid *m);
/* Medians (with their interval, ab_grid_interval, when with_ci), "-" where missing. */
void ab_grid_md(struct ab_render *r, const struct ab_grid *m, const char *corner, int with_ci);
/* NAME.dat: row label, then median ci_lo ci_hi per column. */
void ab_grid_dat(struct ab_render *r, const struct ab_grid *m, const char *name);

/* ---- plots ---- */
/* The plot body (gnuplot commands) goes to the returned stream; ab_plot_end writes
 * NAME.gp drawing it to PNG and SVG and lists the figure in r->figures; nothing is
 * drawn until ab_plots_draw runs gnuplot on them. */
FILE *ab_plot_begin(struct ab_render *r);
void ab_plot_end(struct ab_render *r, FILE *body, const char *name, int width, int height);
/* "set key title": what the error bars are ("error bars: 95% CI", from
 * ab_grid_interval), or that there are none when every point has one value. */
void ab_plot_key_title(FILE *f, const struct ab_grid *m);
/* Clustered bars with error bars of a grid's .dat; title, ylabel and the key are escaped;
 * the key's title says what the bars are (ab_grid_interval). */
void ab_plot_bars(FILE *f, const struct ab_grid *m, const char *dat, const char *title,
		  const char *ylabel, const char *key_prefix);
/* A descriptor's usual figure in one call: NAME.dat from m and NAME.gp drawing it as
 * ab_plot_bars does, the x axis labelled with m->rkey, width x height pixels. Nothing
 * when m has no rows. 1: made, 0: not. */
int ab_grid_plot(struct ab_render *r, const struct ab_grid *m, const char *name, const char *title,
		 const char *ylabel, const char *key_prefix, int width, int height);
/* "plot" of a grid's .dat as lines with error bars, one per column, x the row (a number);
 * each line's key is key_prefix and the column, escaped; the key's title says what the
 * bars are. */
void ab_plot_lines(FILE *f, const struct ab_grid *m, const char *dat, const char *key_prefix);
/* "set yrange [0:TOP]" with TOP above every median and interval end of m, so that no
 * error bar is cut off ("[0:*]" when m has no number); finite, at most AB_GP_YMAX
 * (ab_gp_yrange). When the values span more than AB_GP_LOG_SPREAD, a log y axis
 * from below the lowest instead (ab_gp_yrange_auto). */
void ab_plot_yrange(FILE *f, const struct ab_grid *m);
/* A data file NAME (e.g. "x.dat") in r->dir for a figure of one's own (NULL after a
 * message, r->failed set); closed by ab_plot_file_close, which says when the write failed. */
FILE *ab_plot_file(struct ab_render *r, const char *name);
void ab_plot_file_close(struct ab_render *r, FILE *f, const char *name);
/* "set terminal ... set output '../NAME.png'" (svg 0) or ../NAME.svg (svg 1): a .gp
 * runs in figures/src/ and draws into figures/. */
void ab_plot_terminal(FILE *f, const char *name, int svg, int width, int height);
/* The file NAME's figure is drawn to: NAME.png or NAME.svg (NAME.png.txt, NAME.svg.txt
 * under the test hook AFFBENCH_PLOT_TEXT: the fuzz test draws thousands of plots;
 * text keeps it fast). buf. */
const char *ab_plot_output(char *buf, size_t len, const char *name, int svg);
#define AB_GNUPLOT_TIMEOUT_NS (60 * AB_NS)
/*
 * A heatmap: an n x n matrix (e.g. one value per pair of CPUs), rows and
 * columns in the caller's order, each row or column named by a number (a CPU,
 * -1 for none). n is at most AB_HEAT_MAX, so a matrix built from records read
 * from elsewhere stays bounded (2 MiB of doubles).
 */
#define AB_HEAT_MAX 512
struct ab_heat {
	int n;
	int *label;	/* n numbers naming the rows and columns, -1: none */
	double *v;	/* n * n, v[row * n + column], NAN: not measured */
	double cbmax;	/* the colour scale's top (it starts at 0); NAN: the largest cell */
	const char *diag;	/* the key's word for the marked diagonal; NULL: not marked */
};
/* All NAN, labels -1: 0, or -1 (n outside 1..AB_HEAT_MAX, out of memory). */
int ab_heat_init(struct ab_heat *h, int n);
void ab_heat_free(struct ab_heat *h);
/* NAME.dat and NAME.gp drawing h "with image", row 0 at the top; title and labels
 * escaped. Nothing when no cell holds a number. 1: made, 0: not. */
int ab_heat_plot(struct ab_render *r, const struct ab_heat *h, const char *name, const char *title,
		 const char *xlabel, const char *ylabel, const char *cblabel);
/*
 * Where figures go in a run directory (and in compare's --out): the PNG and
 * SVG in figures/, the .gp and .dat they are drawn from in figures/src/. A .gp
 * is run in figures/src/ and draws into "..". report.md and tables.md link
 * AB_FIG_DIR "/NAME.png".
 */
#define AB_FIG_DIR "figures"
#define AB_FIG_SRC_DIR "figures/src"
/*
 * Where figures are made: a private directory (0700, under $TMPDIR) whose src/
 * holds the .dat and .gp files (ab_render.dir and path point there) and whose
 * top holds whatever gnuplot draws, since gnuplot opens its outputs by name and
 * would follow a link planted in the run directory. ab_plotdir_close makes
 * dest/figures/src (refused when either is a link or not a directory), moves
 * each file there or into dest/figures (never through a link: lib/sys/outfile)
 * and removes the private directory: 0, or -1 when
 * a file could not be moved (each said). With replace set, a figure file of
 * dest/figures and figures/src that this plot did not write (an earlier plot's
 * figure or .dat that this one no longer draws) is removed too: only regular
 * files with a figure's name, never a link; the figure of a script that failed
 * to draw stays as it was.
 */
struct ab_plotdir {
	int fd;			/* path: where .dat and .gp go and gnuplot runs */
	int top;		/* root: where gnuplot draws (../NAME.png from path) */
	char root[1024];	/* $TMPDIR/affbench-plot.XXXXXX */
	char path[1040];	/* root/src */
	const char *dest;
	int replace;		/* set after open: the plot is dest's whole set of figures */
};
int ab_plotdir_open(struct ab_plotdir *p, const char *dest);
int ab_plotdir_close(struct ab_plotdir *p);
/* Run gnuplot in the private directory's src/ on NAME.gp for each of names (one process
 * for all; when it fails, each alone to find which); its messages are appended to
 * dest/log/gnuplot.log when dest has a log/. ok[i]: drawn, its PNG and SVG both
 * non-empty. A figure not drawn has its outputs removed from the private directory,
 * so that ab_plotdir_close leaves dest's previous version. Returns how many failed,
 * each named in a message; without gnuplot none is drawn, one message says so, and
 * that is not a failure (ab_have_gnuplot tells). */
#define AB_PLOTS_MAX 64
int ab_plots_draw(struct ab_plotdir *p, char names[][64], int n, int *ok);
int ab_have_gnuplot(void);
/* gnuplot "set KEYWORD 'text' noenhanced" (title, xlabel, ylabel) with text escaped. */
void ab_plot_set(FILE *f, const char *keyword, const char *text);

#endif
