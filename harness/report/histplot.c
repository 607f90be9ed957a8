// SPDX-License-Identifier: GPL-2.0
/*
 * The "Distributions" of details.md: from DIR/hist.csv (record/histio.h), one
 * CDF figure per benchmark and latency metric, every repetition of a config
 * pooled. A figure has a panel per setting that is not compared (cputestfs's
 * daemon or transport, ddpar's mode and procs) and, in each, a line per setting
 * that is (cputestfs's placement, ddpar's transport), so the lines of a panel
 * differ in one thing. Which keys are compared, and which follow them, each
 * benchmark's descriptor says (compared, follow: lib/render/desc.h). Drawn
 * through the harness's gnuplot path: .dat and .gp files in the private plot
 * directory, every outside text through lib/render/gpscript, file names from
 * checked names only.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "report.h"
#include "render/gpscript.h"
#include "record/hindex.h"
#include "record/histio.h"
#include "record/record.h"
#include "render/desc.h"
#include "render/render_plot.h"
#include "render/plotdir.h"
#include "record/results.h"

/* hist.csv may come from anyone: at most this many (bench, metric, config) histograms
 * (15 KiB each) are kept, the rest reported once and left out. */
#define CDF_GROUPS_MAX 2048
#define CDF_PANELS_MAX 16
#define CDF_LINES_MAX 10
#define BAD_ROWS_SHOWN 20	/* bad rows named with file:line; the rest only counted */
#define PANEL_W 560
#define PANEL_H 460	/* the key goes below */
#define KEY_CHAR_W 9	/* pixels a character of a key label takes, at gnuplot's 10 pt */
#define KEY_SAMPLE_W 200	/* the line's sample, the gaps and the y axis's labels */
#define MIN_W 760

struct cdf_group {
	char bench[AB_BENCH_LEN], metric[AB_METRIC_LEN], unit[AB_UNIT_LEN], config[AB_CONFIG_LEN];
	struct ab_hist h;
	uint64_t total;		/* h's count, at most AB_HIST_TOTAL_MAX */
	size_t line;		/* where it first appears in hist.csv */
	int done;		/* drawn (or left out) with its figure */
};

/* hist.csv's histograms, found by hash whatever order the rows come in. */
struct cdf_set {
	struct cdf_group *g;
	size_t n;
	size_t bad, dropped;
	int oom;
	struct ab_hindex idx;		/* each group, by (bench, metric, config) */
	struct ab_hindex metrics;	/* the first group of each (bench, metric) */
};

/* 1: key is a line key of bench, one its descriptor's compared (every key is, for a bench
 * that names none: a line per config); 2: a follow key, which changes with them (a
 * placement's CPUs) and is neither a panel nor a label; 0: a panel key. */
static int key_role(const char *bench, const char *key)
{
	const struct ab_bench_desc *d = h_desc(bench);
	size_t kl = strlen(key);

	if (!d || !d->compared)
		return 1;
	return ab_desc_in(d->compared, key, kl) ? 1 : ab_desc_in(d->follow, key, kl) ? 2 : 0;
}

/* Does key have another value (or none) in any of the n groups' configs than in the first? */
static int varies(const struct cdf_group *const *g, int n, const char *key)
{
	char v0[AB_VALUE_LEN], v[AB_VALUE_LEN];

	ab_cfg_get(g[0]->config, key, v0, sizeof(v0));
	for (int i = 1; i < n; i++)
		if (strcmp(ab_cfg_get(g[i]->config, key, v, sizeof(v)), v0))
			return 1;
	return 0;
}

/* The config's keys of one role ("k=v k=v"), in the config's order; with among (n of
 * them), only the keys that vary among those. */
static void keys_of(const char *bench, const char *config, int role, char *buf, size_t len,
		    const struct cdf_group *const *among, int n)
{
	struct ab_config c;

	buf[0] = '\0';
	if (ab_config_parse(&c, config) < 0)
		return;
	for (int i = 0; i < c.n; i++)
		if (key_role(bench, c.kv[i].key) == role && (!among || varies(among, n, c.kv[i].key))) {
			size_t at = strlen(buf);
			snprintf(buf + at, len - at, "%s%s=%s", at ? " " : "", c.kv[i].key, c.kv[i].val);
		}
}

/* A group of s with bench, metric and (unless config is NULL) config, or NULL;
 * by the hash of those found through x. */
static struct cdf_group *find(const struct cdf_set *s, const struct ab_hindex *x, uint64_t h,
			      char *const *f, int with_config)
{
	size_t pos = 0, e;

	while ((e = ab_hindex_next(x, h, &pos))) {
		struct cdf_group *g = &s->g[e - 1];
		if (!strcmp(g->metric, f[3]) && !strcmp(g->bench, f[0]) &&
		    (!with_config || !strcmp(g->config, f[1])))
			return g;
	}
	return NULL;
}

/* The histogram of a checked row (f: hist.csv's fields), made when new; NULL with why
 * (in buf) when the row's unit is not its metric's, or NULL and why NULL when it is
 * one histogram too many (counted in s->dropped) or out of memory (s->oom). */
static struct cdf_group *group_of(struct cdf_set *s, char *const *f, size_t lineno,
				  const char **why, char *buf, size_t len)
{
	uint64_t hm = ab_hash_str(ab_hash_str(AB_HASH_INIT, f[0]), f[3]);
	uint64_t hg = ab_hash_str(hm, f[1]);
	struct cdf_group *m = find(s, &s->metrics, hm, f, 0), *g;

	*why = NULL;
	if (m && strcmp(m->unit, f[4])) {	/* one figure per metric: one unit */
		snprintf(buf, len, "%s %s is in %s since line %zu, not in %s: a metric has one "
			 "unit per run", f[0], f[3], m->unit, m->line, f[4]);
		*why = buf;
		return NULL;
	}
	if ((g = find(s, &s->idx, hg, f, 1)))
		return g;
	if (s->n == CDF_GROUPS_MAX) {
		s->dropped++;
		return NULL;
	}
	g = &s->g[s->n];
	memset(g, 0, sizeof(*g));
	snprintf(g->bench, sizeof(g->bench), "%s", f[0]);
	snprintf(g->config, sizeof(g->config), "%s", f[1]);
	snprintf(g->metric, sizeof(g->metric), "%s", f[3]);
	snprintf(g->unit, sizeof(g->unit), "%s", f[4]);
	g->line = lineno;
	if (ab_hindex_add(&s->idx, hg, s->n) < 0 || (!m && ab_hindex_add(&s->metrics, hm, s->n) < 0)) {
		s->oom = 1;
		return NULL;
	}
	return &s->g[s->n++];
}

static void bad_row(struct cdf_set *s, const char *path, size_t lineno, const char *why)
{
	if (s->bad++ < BAD_ROWS_SHOWN)
		ab_msg("report: %s:%zu: %s (skipped)", path, lineno, why);
}

/* One row: checked, then added to its histogram; a bad row adds nothing and is counted. */
static void take_row(struct cdf_set *s, const char *path, size_t lineno, char *line)
{
	char *f[AB_HIST_FIELDS + 1], buf[256];
	uint64_t lo, hi, n;
	const char *why = ab_csv_split(line, f, AB_HIST_FIELDS + 1) != AB_HIST_FIELDS ?
			  "not 8 CSV fields" : NULL;

	if (!why)
		why = ab_hist_row_check(f, &lo, &hi, &n);
	struct cdf_group *g = why ? NULL : group_of(s, f, lineno, &why, buf, sizeof(buf));
	if (g)
		why = ab_hist_row_put(&g->h, &g->total, lo, hi, n);
	if (why)
		bad_row(s, path, lineno, why);
}

/* DIR/hist.csv into s: 0 (also when there is none), or -1 after a message. */
static int load(struct cdf_set *s, const char *dir)
{
	char path[PATH_MAX], err[PATH_MAX + 128], *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/hist.csv", dir);
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_HIST, err, sizeof(err));
	if (!f) {
		if (errno == ENOENT)
			return 0;
		ab_msg("report: %s", err);
		return -1;
	}
	s->g = calloc(CDF_GROUPS_MAX, sizeof(*s->g));
	while (s->g && !s->oom && (len = ab_infile_line(f, &line, &cap)) != -1) {
		lineno++;
		if (len < 0 || memchr(line, '\0', (size_t)len)) {
			bad_row(s, path, lineno, "an over-long line or a NUL byte");
			continue;
		}
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] && strncmp(line, "bench,config,rep,", 17))
			take_row(s, path, lineno, line);
	}
	int rc = !s->g || s->oom || ferror(f) ? -1 : 0;
	if (rc)
		ab_msg("report: reading %s failed: %s", path,
		       s->g && !s->oom ? strerror(EIO) : strerror(ENOMEM));
	if (s->bad > 1)
		ab_msg("report: %s: %zu bad rows skipped in all", path, s->bad);
	if (s->dropped)
		ab_msg("report: %s: over %d histograms; %zu rows of the rest not drawn", path,
		       CDF_GROUPS_MAX, s->dropped);
	free(line);
	fclose(f);
	return rc;
}

/* ---- one figure: a benchmark's metric ---- */

struct panel {
	char key[AB_CONFIG_LEN];	/* the config's other keys: what the panel holds fixed */
	size_t line[CDF_LINES_MAX];
	int nlines, more;
};

struct figure {
	char name[64];
	struct panel p[CDF_PANELS_MAX];
	int np, more_panels, more_lines;
};

static void collect(struct cdf_set *s, size_t first, struct figure *fig)
{
	const struct cdf_group *g0 = &s->g[first];

	for (size_t i = first; i < s->n; i++) {
		struct cdf_group *g = &s->g[i];
		char key[AB_CONFIG_LEN];
		int k;

		if (g->done || strcmp(g->bench, g0->bench) || strcmp(g->metric, g0->metric) ||
		    strcmp(g->unit, g0->unit))
			continue;
		g->done = 1;
		keys_of(g->bench, g->config, 0, key, sizeof(key), NULL, 0);
		for (k = 0; k < fig->np && strcmp(fig->p[k].key, key); k++)
			;
		if (k == fig->np) {
			if (fig->np == CDF_PANELS_MAX) {
				fig->more_panels++;
				continue;
			}
			snprintf(fig->p[fig->np++].key, sizeof(fig->p[0].key), "%s", key);
		}
		struct panel *p = &fig->p[k];
		if (p->nlines == CDF_LINES_MAX)
			fig->more_lines++;
		else
			p->line[p->nlines++] = i;
	}
}

/* The CDF of one histogram: (bucket_hi, share of values under it), from its first bucket's lo.
 * x[0] and x[1] widened to its first and last x; x[2] and x[3] to the x where its drawn line
 * first reaches a share of 1/4 and of 3/4 (the band its ticks must reach, as drawn). */
static void cdf_points(FILE *f, const struct ab_hist *h, double *x)
{
	uint64_t n = ab_hist_count(h), cum = 0;
	int first = 1, exact = ab_hist_max_exact(h), q1 = 0, q3 = 0;

	for (unsigned i = 0; i < AB_HIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		if (first) {
			uint64_t lo = ab_hist_bucket_lo(i) ? ab_hist_bucket_lo(i) : 1;
			fprintf(f, "%llu 0\n", (unsigned long long)lo);
			x[0] = fmin(x[0], (double)lo);
		}
		first = 0;
		cum += h->b[i];
		uint64_t hi = ab_hist_bucket_hi(i);
		/* the top bucket ends at the max, as hist.csv says; whole numbers throughout:
		 * the top bucket's max, 2^64 - 2, is not a double, nor its max + 1 a uint64_t */
		if (cum == n && exact && h->max < hi - 1)
			hi = h->max + 1;
		fprintf(f, "%llu %.9g\n", (unsigned long long)hi, (double)cum / (double)n);
		x[1] = fmax(x[1], (double)hi);
		if (!q1 && (q1 = 4 * cum >= n))
			x[2] = fmin(x[2], (double)hi);
		if (!q3 && (q3 = 4 * cum >= 3 * n))
			x[3] = fmax(x[3], (double)hi);
	}
	fprintf(f, "\n\n");	/* the next line is gnuplot's next index */
}

/* widest: the longest key label so far, in characters (the panel's width follows it) */
static void plot_panel(FILE *f, const struct cdf_set *s, const struct figure *fig, int k,
		       int *index, const double *x, int *widest)
{
	const struct panel *p = &fig->p[k];
	const struct cdf_group *g0 = &s->g[p->line[0]], *lines[CDF_LINES_MAX], *panels[CDF_PANELS_MAX];
	char label[AB_CONFIG_LEN + 32], xl[AB_METRIC_LEN + AB_UNIT_LEN + 64];

	for (int i = 0; i < fig->np; i++)
		panels[i] = &s->g[fig->p[i].line[0]];
	for (int l = 0; l < p->nlines; l++)
		lines[l] = &s->g[p->line[l]];
	if (fig->np > 1) {	/* what sets this panel apart from the others */
		keys_of(g0->bench, g0->config, 0, label, sizeof(label), panels, fig->np);
		fputs("set title ", f);	/* smaller than the figure's: a panel is narrow */
		ab_gp_string(f, label[0] ? label : p->key);
		fputs(" noenhanced font ',9'\n", f);
	}
	/* a log axis has no 0: a zero is drawn at 1, and the label says so */
	snprintf(xl, sizeof(xl), "%s (%s, log scale%s; k = 10^3, M = 10^6)", g0->metric, g0->unit,
		 x[4] ? ", 0 at 1" : "");
	ab_plot_set(f, "xlabel", xl);
	ab_plot_set(f, "ylabel", "share of samples under x");
	/* one x range for every panel, fitted to the data: side by side they compare */
	if (x[0] > 0 && x[1] > x[0] && isfinite(x[1])) {
		fprintf(f, "set xrange [%.6g:%.6g]\n", x[0] / 1.1, x[1] * 1.1);
		ab_gp_logtics_band(f, "x", x[0] / 1.1, x[1] * 1.1, x[2], x[3]);
	}
	fprintf(f, "set logscale x\nset format x '%%.0s%%c'\nset yrange [0:1]\n"
		   "set grid xtics ytics\nset key outside bottom center vertical noenhanced\nplot ");
	for (int l = 0; l < p->nlines; l++) {
		const struct cdf_group *g = lines[l];
		char keys[AB_CONFIG_LEN];
		keys_of(g->bench, g->config, 1, keys, sizeof(keys), lines, p->nlines);
		snprintf(label, sizeof(label), "%s n=%llu", keys[0] ? keys : "all",
			 (unsigned long long)ab_hist_count(&g->h));
		*widest = (int)strlen(label) > *widest ? (int)strlen(label) : *widest;
		fprintf(f, "%s'%s.dat' index %d using 1:2 with lines lw 2 title ", l ? ", " : "",
			fig->name, (*index)++);
		ab_gp_string(f, label);
	}
	fprintf(f, "\n");
}

/* cols: the panels a row */
static void plot_body(FILE *f, const struct cdf_set *s, const struct figure *fig, const char *title,
		      const double *x, int cols, int *widest)
{
	int index = 0;

	if (fig->np > 1) {
		fprintf(f, "set multiplot layout %d,%d title ", (fig->np + cols - 1) / cols, cols);
		ab_gp_string(f, title);
		fprintf(f, " noenhanced\n");
	} else {
		ab_plot_set(f, "title", title);
	}
	for (int k = 0; k < fig->np; k++)
		plot_panel(f, s, fig, k, &index, x, widest);
	if (fig->np > 1)
		fprintf(f, "unset multiplot\n");
}

/* NAME.dat and NAME.gp in the private directory pdir. 0 or -1 after a message. */
static int write_figure(const char *pdir, const struct cdf_set *s, const struct figure *fig)
{
	char path[PATH_MAX], title[256], *body = NULL;
	size_t blen = 0;
	const struct cdf_group *g0 = &s->g[fig->p[0].line[0]];
	int cols = 1, rows, rc = 0, widest = 0;
	/* the x range of every line of every panel; the band of their central halves as drawn
	 * (from the lowest line's 1/4 to the highest one's 3/4); whether any holds a 0 */
	double x[5] = { INFINITY, 0, INFINITY, 0, 0 };

	snprintf(path, sizeof(path), "%s/%s.dat", pdir, fig->name);
	FILE *d = fopen(path, "we");
	if (!d)
		return ab_msg("report: %s: %s", path, strerror(errno)), -1;
	for (int k = 0; k < fig->np; k++) {
		for (int l = 0; l < fig->p[k].nlines; l++) {
			const struct ab_hist *h = &s->g[fig->p[k].line[l]].h;
			cdf_points(d, h, x);
			x[4] = x[4] || h->b[0];	/* a 0 is drawn at 1 */
		}
	}
	rc |= ferror(d) | fclose(d) ? -1 : 0;
	snprintf(title, sizeof(title), "%s: CDF of %s per sample (%s), every repetition pooled",
		 g0->bench, g0->metric, g0->unit);
	FILE *b = open_memstream(&body, &blen);
	if (!b)
		return -1;
	while (cols * cols < fig->np)
		cols++;
	plot_body(b, s, fig, title, x, cols, &widest);
	rc |= ferror(b) | fclose(b) ? -1 : 0;
	rows = (fig->np + cols - 1) / cols;
	/* a key below a panel is centred on it: a panel at least as wide as its longest
	 * label (about KEY_CHAR_W pixels a character, and the line's sample) keeps the
	 * key of the last column inside the figure */
	int panel_w = widest * KEY_CHAR_W + KEY_SAMPLE_W > PANEL_W ? widest * KEY_CHAR_W + KEY_SAMPLE_W
								    : PANEL_W;
	int width = cols * panel_w > MIN_W ? cols * panel_w : MIN_W;	/* room for the title */
	snprintf(path, sizeof(path), "%s/%s.gp", pdir, fig->name);
	FILE *f = rc ? NULL : fopen(path, "we");
	if (f) {
		fprintf(f, "# regenerate with: gnuplot %s.gp (in this directory; draws into ..)\n"
			   "set encoding utf8\n",
			fig->name);
		ab_plot_terminal(f, fig->name, 0, width, rows * PANEL_H + 40);
		fprintf(f, "%sreset\n", body);
		ab_plot_terminal(f, fig->name, 1, width, rows * PANEL_H + 40);
		fprintf(f, "%sunset output\nreset\n", body);
		rc |= ferror(f) | fclose(f) ? -1 : 0;
	}
	free(body);
	if (!f || rc)
		ab_msg("report: writing %s failed: %s", path, strerror(errno ? errno : EIO));
	return f && !rc ? 0 : -1;
}

int h_hist_plots(const char *dir, const char *pdir, char names[][64], int max, int *failed)
{
	struct cdf_set s = { 0 };
	int n = 0;

	*failed = load(&s, dir) < 0;
	for (size_t i = 0; i < s.n && n < max; i++) {
		struct figure fig = { .np = 0 };
		if (s.g[i].done)
			continue;
		collect(&s, i, &fig);
		/* bench and metric passed the record grammar: [a-z0-9_-] and [A-Za-z0-9_] */
		if (snprintf(fig.name, sizeof(fig.name), "cdf-%s-%s", s.g[i].bench, s.g[i].metric) >=
		    (int)sizeof(fig.name) - 8) {
			ab_msg("report: %s %s: name too long for a figure, not drawn", s.g[i].bench,
			       s.g[i].metric);
			continue;
		}
		if (fig.more_panels || fig.more_lines)
			ab_msg("report: %s: %d panels and %d lines over the figure's %d x %d not drawn",
			       fig.name, fig.more_panels, fig.more_lines, CDF_PANELS_MAX, CDF_LINES_MAX);
		if (!pdir || write_figure(pdir, &s, &fig) < 0) {
			*failed = 1;
			continue;
		}
		snprintf(names[n++], 64, "%s", fig.name);
	}
	free(s.g);
	ab_hindex_free(&s.idx);
	ab_hindex_free(&s.metrics);
	return n;
}

void h_hist_section(FILE *f, char names[][64], const int *ok, int n)
{
	int drawn = 0;

	for (int i = 0; i < n; i++)
		drawn += ok[i];
	if (!drawn)
		return;
	fprintf(f, "## Distributions\n\n"
		   "Each latency metric's distribution, from `hist.csv` (every repetition of a "
		   "config pooled): the share of samples under x, x on a log scale. A panel holds "
		   "the other settings fixed; its lines differ in the ones its benchmark compares "
		   "(such as a placement or a transport), n says how many samples each line has. A "
		   "histogram bucket is at most 1/32 of its values wide, so a percentile read off a "
		   "line is within 1.6%%; where lines part near the top is the tail the medians "
		   "hide.\n\n");
	for (int i = 0; i < n; i++)
		if (ok[i])
			fprintf(f, "![%s](" AB_FIG_DIR "/%s.png)\n\n", names[i], names[i]);
}
