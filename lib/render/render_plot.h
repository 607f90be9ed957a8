/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Grids of groups, as markdown and as gnuplot data, and the plots drawn from them
 * (render_plot.c). Every .gp file is written here; gnuplot runs on them later, in
 * a private directory (plotdir.h).
 */
#ifndef AB_RENDER_PLOT_H
#define AB_RENDER_PLOT_H

#include <stdio.h>

struct ab_render;
struct ab_group;

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
/* What the bracket after a median is for a group of fewer than AB_MIN_REPS_CI values:
 * the min-max range (never called a CI); from AB_MIN_REPS_CI on, a 95% CI. */
#define AB_MINMAX_LABEL "min-max, fewer than 6 repetitions"
/* The same for every cell of m: "95% CI" when all have AB_MIN_REPS_CI values,
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
/* Clustered bars with error bars of a grid's .dat; title, ylabel and the key are escaped;
 * the key's title says what the bars are (ab_grid_interval). The key goes beside the
 * panel, panel_w pixels wide, or below it when it would take over a third of that. */
void ab_plot_bars(FILE *f, const struct ab_grid *m, const char *dat, const char *title,
		  const char *ylabel, const char *key_prefix, int panel_w);
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
 * from below the lowest instead (ab_gp_yrange_auto). Then "set ylabel", escaped, with
 * AB_PLOT_LOG_SCALE after it on a log axis. */
void ab_plot_yrange(FILE *f, const struct ab_grid *m, const char *ylabel);
/* The y values a figure draws, for a figure not drawn from a grid (compare's): each
 * point's median and interval added (ab_yspan_add), then the y range and label set as
 * ab_plot_yrange sets them: log when the medians span more than AB_GP_LOG_SPREAD. */
struct ab_yspan {
	double top, low, lowmed, topmed;
};
struct ab_summary;
void ab_yspan_init(struct ab_yspan *y);
void ab_yspan_add(struct ab_yspan *y, const struct ab_summary *s);
void ab_yspan_axis(FILE *f, const struct ab_yspan *y, const char *ylabel);
/* What a log axis's label ends with: each panel says whether its axis is log. */
#define AB_PLOT_LOG_SCALE ", log scale"
/* A data file NAME (e.g. "x.dat") in r->dir for a figure of one's own (NULL after a
 * message, r->failed set); closed by ab_plot_file_close, which says when the write failed. */
FILE *ab_plot_file(struct ab_render *r, const char *name);
void ab_plot_file_close(struct ab_render *r, FILE *f, const char *name);
/* "set terminal ... set output '../NAME.png'" (svg 0) or ../NAME.svg (svg 1): a .gp
 * runs in figures/src/ and draws into figures/. */
void ab_plot_terminal(FILE *f, const char *name, int svg, int width, int height);
/* gnuplot "set KEYWORD 'text' noenhanced" (title, xlabel, ylabel) with text escaped. */
void ab_plot_set(FILE *f, const char *keyword, const char *text);

#endif
