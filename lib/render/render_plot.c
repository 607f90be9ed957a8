// SPDX-License-Identifier: GPL-2.0
/*
 * Grids and plots of the renderer (see render_plot.h). Every .gp file is written
 * here, with titles, labels and keys through lib/render/gpscript's escaper, and run
 * by gnuplot with no shell in between, in a private directory (plotdir.c).
 */
#include "render/render_plot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "render/beside.h"
#include "render/gpscript.h"
#include "sys/proc.h"
#include "render/render.h"
#include "render/plotdir.h"
#include "render/desc.h"

/* ---- grids ---- */

static int holds(const char *config, const char *const *fixed)
{
	for (int k = 0; fixed && fixed[k]; k++)
		if (!ab_cfg_matches(config, fixed[k]))
			return 0;
	return 1;
}

static void grid_drop_empty(struct ab_grid *m)
{
	struct ab_grid o = *m;
	int keepc[AB_GRID_COLS] = { 0 };

	m->nr = m->nc = 0;
	for (int c = 0; c < o.nc; c++)
		for (int r = 0; r < o.nr; r++)
			keepc[c] |= o.g[r][c] != NULL;
	for (int c = 0; c < o.nc; c++)
		if (keepc[c])
			memcpy(m->cols[m->nc++], o.cols[c], sizeof(o.cols[c]));
	for (int r = 0; r < o.nr; r++) {
		int any = 0, k = 0;
		for (int c = 0; c < o.nc; c++)
			any |= o.g[r][c] != NULL;
		if (!any)
			continue;
		memcpy(m->rows[m->nr], o.rows[r], sizeof(o.rows[r]));
		for (int c = 0; c < o.nc; c++)
			if (keepc[c])
				m->g[m->nr][k++] = o.g[r][c];
		m->nr++;
	}
}

void ab_grid_build(struct ab_render *r, struct ab_grid *m, const char *metric, const char *rkey,
		   const char *ckey, const char *const *fixed)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->rkey, sizeof(m->rkey), "%.31s", rkey);
	m->nr = ab_r_distinct(r, metric, rkey, m->rows, AB_GRID_ROWS);
	m->nc = ab_r_distinct(r, metric, ckey, m->cols, AB_GRID_COLS);
	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		char rv[AB_VALUE_LEN], cv[AB_VALUE_LEN];
		if (strcmp(g->bench, r->desc->name) || strcmp(g->metric, metric) ||
		    !holds(g->config, fixed))
			continue;
		ab_cfg_get(g->config, rkey, rv, sizeof(rv));
		ab_cfg_get(g->config, ckey, cv, sizeof(cv));
		for (int a = 0; a < m->nr; a++)
			for (int c = 0; c < m->nc; c++)
				if (!m->g[a][c] && !strcmp(m->rows[a], rv) && !strcmp(m->cols[c], cv))
					m->g[a][c] = g;
	}
	grid_drop_empty(m);
}

const char *ab_grid_interval(const struct ab_grid *m)
{
	int few = 0, ci = 0;

	for (int a = 0; a < m->nr; a++)
		for (int c = 0; c < m->nc; c++)
			if (m->g[a][c] && m->g[a][c]->n >= AB_MIN_REPS_CI)
				ci = 1;
			else if (m->g[a][c])
				few = 1;
	if (few && ci)
		return "95% CI; ~ = " AB_MINMAX_LABEL;
	return few ? AB_MINMAX_LABEL : "95% CI";
}

void ab_grid_md(struct ab_render *r, const struct ab_grid *m, const char *corner, int with_ci)
{
	FILE *f = r->out;
	int mixed = strchr(ab_grid_interval(m), '~') != NULL;
	const char *cols[AB_GRID_COLS + 1] = { NULL };

	for (int c = 0; c < m->nc; c++)
		cols[c] = m->cols[c];
	ab_r_beside_head(r, corner, cols);
	for (int a = 0; a < m->nr; a++) {
		fprintf(f, "| %s |", m->rows[a]);
		for (int c = 0; c < m->nc; c++) {
			const struct ab_group *g = m->g[a][c];
			struct ab_summary s;
			if (!g) {
				fprintf(f, " - |");
			} else if (with_ci) {
				char a[32], b[32], c[32];
				ab_summarize(g->v, g->n, &s);
				fprintf(f, " %s [%s, %s]%s |", ab_r_num(a, sizeof(a), s.median),
					ab_r_num(b, sizeof(b), s.ci.lo), ab_r_num(c, sizeof(c), s.ci.hi),
					mixed && g->n < AB_MIN_REPS_CI ? " ~" : "");
			} else {
				char a[32];
				fprintf(f, " %s |", ab_r_num(a, sizeof(a), ab_r_median(g)));
			}
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

FILE *ab_plot_file(struct ab_render *r, const char *name)
{
	char path[PATH_MAX];

	if (!r->dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	FILE *f = fopen(path, "we");
	if (!f) {
		ab_msg("plot: %s: %s", path, strerror(errno));
		r->failed = 1;
	}
	return f;
}

void ab_plot_file_close(struct ab_render *r, FILE *f, const char *name)
{
	if (ferror(f) | fclose(f)) {
		ab_msg("plot: writing %s/%s failed: %s", r->dir, name, strerror(errno));
		r->failed = 1;
	}
}

void ab_grid_dat(struct ab_render *r, const struct ab_grid *m, const char *name)
{
	char file[96];

	snprintf(file, sizeof(file), "%s.dat", name);
	FILE *f = ab_plot_file(r, file);
	if (!f)
		return;
	fprintf(f, "# row, then median ci_lo ci_hi per column:");
	for (int c = 0; c < m->nc; c++)
		fprintf(f, " %s", m->cols[c]);
	fprintf(f, "\n");
	for (int a = 0; a < m->nr; a++) {
		char *end;
		double x = strtod(m->rows[a], &end);
		if (end != m->rows[a] && !*end && isfinite(x))
			fprintf(f, "%s", m->rows[a]);	/* a number: an x value, not a label */
		else
			ab_gp_label(f, m->rows[a]);
		for (int c = 0; c < m->nc; c++) {
			struct ab_summary s;
			if (m->g[a][c]) {
				ab_summarize(m->g[a][c]->v, m->g[a][c]->n, &s);
				fprintf(f, " %.6g %.6g %.6g", s.median, s.ci.lo, s.ci.hi);
			} else {
				fprintf(f, " NaN NaN NaN");
			}
		}
		fprintf(f, "\n");
	}
	ab_plot_file_close(r, f, file);
}

/* ---- plots ---- */

static char *body;	/* one plot at a time */
static size_t body_len;

FILE *ab_plot_begin(struct ab_render *r)
{
	(void)r;
	free(body);
	body = NULL;
	return open_memstream(&body, &body_len);
}

void ab_plot_set(FILE *f, const char *keyword, const char *text)
{
	fprintf(f, "set %s ", keyword);
	ab_gp_string(f, text);
	fputs(" noenhanced\n", f);	/* an underscore is an underscore, not a subscript */
}

/* The key's title: what the error bars are ("error bars: 95% CI", from
 * ab_grid_interval), or that there are none when every point has one value. */
static const char *key_title(const struct ab_grid *m, char *t, size_t len)
{
	size_t most = 0;

	for (int a = 0; a < m->nr; a++)
		for (int c = 0; c < m->nc; c++)
			if (m->g[a][c] && m->g[a][c]->n > most)
				most = m->g[a][c]->n;
	/* one value per point: a min-max bar has no length, so no key for it */
	if (most < 2)
		snprintf(t, len, "n=1: no error bars");
	else
		snprintf(t, len, "error bars: %s", ab_grid_interval(m));
	return t;
}

/* The key's title, then "plot" of a grid's .dat, one bar set (lines 0) or line with
 * error bars (lines 1) per column, each keyed key_prefix and the column, escaped. */
static void plot_cols(FILE *f, const struct ab_grid *m, const char *dat, const char *key_prefix,
		      int lines)
{
	char t[96];

	ab_plot_set(f, "key title", key_title(m, t, sizeof(t)));
	fprintf(f, "plot ");
	for (int c = 0; c < m->nc; c++) {
		char key[96];
		snprintf(key, sizeof(key), "%s%s", key_prefix, m->cols[c]);
		if (lines)
			fprintf(f, "%s'%s' using 1:%d:%d:%d with yerrorlines title ", c ? ", " : "",
				dat, 2 + 3 * c, 3 + 3 * c, 4 + 3 * c);
		else
			fprintf(f, "%s'%s' using %d:%d:%d%s title ", c ? ", " : "", dat, 2 + 3 * c,
				3 + 3 * c, 4 + 3 * c, c ? "" : ":xtic(1)");
		ab_gp_string(f, key);
	}
	fprintf(f, "\n");
}

/* About the pixels a character of a key takes at gnuplot's 10 pt, and a line's
 * sample with its gaps */
#define KEY_CHAR_W 9
#define KEY_SAMPLE_W 80

/* Beside the panel when the key takes at most a third of its width, else below:
 * a key wider than that (a long title, "min-max, fewer than 6 repetitions")
 * squeezed the bars to a strip and pushed the x label off the figure's edge. */
static void key_place(FILE *f, const struct ab_grid *m, const char *key_prefix, int panel_w)
{
	char t[96];
	size_t w = strlen(key_title(m, t, sizeof(t))) * KEY_CHAR_W;

	for (int c = 0; c < m->nc; c++) {
		size_t e = (strlen(key_prefix) + strlen(m->cols[c])) * KEY_CHAR_W + KEY_SAMPLE_W;
		w = e > w ? e : w;
	}
	fprintf(f, "set key outside %s noenhanced\n", w * 3 > (size_t)panel_w ?
		"bottom center horizontal" : "right top vertical");
}

void ab_plot_bars(FILE *f, const struct ab_grid *m, const char *dat, const char *title,
		  const char *ylabel, const char *key_prefix, int panel_w)
{
	ab_plot_set(f, "title", title);
	ab_plot_yrange(f, m, ylabel);
	fprintf(f, "set style data histograms\n"
		   "set style histogram errorbars gap 1 lw 1\nset style fill solid 0.6 border -1\n"
		   "set xtics nomirror noenhanced\n");
	key_place(f, m, key_prefix, panel_w);
	plot_cols(f, m, dat, key_prefix, 0);
}

static int have_pngcairo(void)
{
	static int have = -1;

	if (have < 0) {
		char *av[] = { "gnuplot", "-e", "set terminal pngcairo", NULL };
		have = ab_run(NULL, av, NULL, AB_GNUPLOT_TIMEOUT_NS) == 0;
	}
	return have;
}

void ab_yspan_init(struct ab_yspan *y)
{
	/* top from -inf: bars all below zero (crafted records) give a top below zero, which
	 * ab_gp_yrange draws down from 0, where [0:*] would hold no point and fail */
	*y = (struct ab_yspan){ .top = -INFINITY, .low = INFINITY, .lowmed = INFINITY };
}

void ab_yspan_add(struct ab_yspan *y, const struct ab_summary *s)
{
	y->top = fmax(y->top, isfinite(s->median) ? s->median : 0);
	y->top = fmax(y->top, isfinite(s->ci.hi) ? s->ci.hi : y->top);
	if (s->median > 0) {
		y->low = fmin(y->low, s->ci.lo > 0 ? fmin(s->ci.lo, s->median) : s->median);
		y->lowmed = fmin(y->lowmed, s->median);
		y->topmed = fmax(y->topmed, s->median);
	}
}

void ab_yspan_axis(FILE *f, const struct ab_yspan *y, const char *ylabel)
{
	/* the medians decide: a wide interval alone is no reason for a log axis */
	double low = y->topmed > y->lowmed * AB_GP_LOG_SPREAD ? y->low : 0;
	int log = ab_gp_yrange_auto(f, low, y->top);
	char l[192];

	/* beside a linear panel, a log one reads as the same scale unless it says so */
	snprintf(l, sizeof(l), "%s%s", ylabel, log ? AB_PLOT_LOG_SCALE : "");
	ab_plot_set(f, "ylabel", l);
}

void ab_plot_yrange(FILE *f, const struct ab_grid *m, const char *ylabel)
{
	struct ab_yspan y;

	ab_yspan_init(&y);
	for (int a = 0; a < m->nr; a++)
		for (int c = 0; c < m->nc; c++) {
			struct ab_summary s;
			if (!m->g[a][c] || !m->g[a][c]->n)
				continue;
			ab_summarize(m->g[a][c]->v, m->g[a][c]->n, &s);
			ab_yspan_add(&y, &s);
		}
	ab_yspan_axis(f, &y, ylabel);
}

void ab_plot_terminal(FILE *f, const char *name, int svg, int width, int height)
{
	char out[96];

	if (ab_test_hook("AFFBENCH_PLOT_TEXT"))
		fprintf(f, "set terminal dumb size 79,24\n");
	else if (svg)
		fprintf(f, "set terminal svg size %d,%d\n", width, height);
	else
		fprintf(f, "set terminal %s size %d,%d\n", have_pngcairo() ? "pngcairo" : "png", width,
			height);
	ab_gp_palette(f);
	/* drawn from figures/src/, where the .gp and .dat are, into figures/ */
	fprintf(f, "set output '../%s'\n", ab_plot_output(out, sizeof(out), name, svg));
}

void ab_plot_end(struct ab_render *r, FILE *b, const char *name, int width, int height)
{
	char file[96];

	if (ferror(b) | fclose(b) || !r->dir) {
		r->failed |= r->dir != NULL;
		return;
	}
	snprintf(file, sizeof(file), "%s.gp", name);
	FILE *f = ab_plot_file(r, file);
	if (!f)
		return;
	fprintf(f, "# regenerate with: gnuplot %s.gp (in this directory; draws into ..)\n"
		   "set encoding utf8\n"
		   "set grid ytics\n", name);
	ab_plot_terminal(f, name, 0, width, height);
	fprintf(f, "%sreset\nset grid ytics\n", body);
	ab_plot_terminal(f, name, 1, width, height);
	fprintf(f, "%sunset output\nreset\n", body);
	ab_plot_file_close(r, f, file);
	if (r->nfig < (int)AB_ARRAY_SIZE(r->figures))
		snprintf(r->figures[r->nfig++], sizeof(r->figures[0]), "%s", name);
}

/* ---- the common figure ---- */

int ab_grid_plot(struct ab_render *r, const struct ab_grid *m, const char *name, const char *title,
		 const char *ylabel, const char *key_prefix, int width, int height)
{
	char dat[96];

	if (!m->nr)
		return 0;
	ab_grid_dat(r, m, name);
	FILE *b = ab_plot_begin(r);
	if (!b) {
		r->failed = 1;
		return 0;
	}
	snprintf(dat, sizeof(dat), "%s.dat", name);
	if (m->rkey[0])
		ab_plot_set(b, "xlabel", m->rkey);
	ab_plot_bars(b, m, dat, title, ylabel, key_prefix, width);
	ab_plot_end(r, b, name, width, height);
	return 1;
}

void ab_plot_lines(FILE *f, const struct ab_grid *m, const char *dat, const char *key_prefix)
{
	plot_cols(f, m, dat, key_prefix, 1);
}
