// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare: per headline metric (the descriptors' headline lists), a
 * trend across the runs, as a table in compare.md and as a plot (metric vs
 * run, CI bars, one line per config). Configs are shortened to the keys whose
 * values vary among the metric's configs, the fixed ones said once. Baselines
 * (baseline=kernel, baseline=pipe) stay in the table but are left out of the
 * plot: their scale (a kernel stat is 10x a FUSE one) would flatten the rest.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/gpscript.h"
#include "render/render.h"
#include "render/desc.h"
#include "render/render_plot.h"
#include "record/stats.h"
#include "compare.h"

#define MAXCFG 12	/* configs per table and plot; more are counted, not shown */

struct trend {
	const struct ab_group *g[MAXCFG];	/* the base's groups of the metric */
	char shortcfg[MAXCFG][AB_CONFIG_LEN];
	char fixed[AB_CONFIG_LEN];		/* the keys that do not vary */
	int n, more;
};

/* Does key take more than one value among t's configs? */
static int varies(const struct trend *t, const char *key)
{
	char v0[AB_VALUE_LEN], v[AB_VALUE_LEN];
	ab_cfg_get(t->g[0]->config, key, v0, sizeof(v0));
	for (int i = 1; i < t->n; i++)
		if (strcmp(ab_cfg_get(t->g[i]->config, key, v, sizeof(v)), v0))
			return 1;
	return 0;
}

/* Do two of t's configs differ in CPU numbers only (so that those keys tell them apart)? */
static int cpus_tell_apart(const struct cmp *c, const struct trend *t)
{
	for (int i = 0; i < t->n; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(h_cmp_bare(c, 0, t->g[i]), h_cmp_bare(c, 0, t->g[j])))
				return 1;
	return 0;
}

/* Each config as the keys that vary among t's; CPU numbers only where they tell two
 * apart (elsewhere they follow the placement, which is shown). */
static void shorten(const struct cmp *c, struct trend *t)
{
	int cpus = cpus_tell_apart(c, t);

	size_t fo = 0;
	t->fixed[0] = '\0';
	for (int i = 0; i < t->n; i++)
		t->shortcfg[i][0] = '\0';
	char tmp[AB_CONFIG_LEN], *save = NULL;
	snprintf(tmp, sizeof(tmp), "%s", t->g[0]->config);
	for (char *kv = strtok_r(tmp, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char key[AB_KEY_LEN], val[AB_VALUE_LEN];
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(kv, "="), kv);
		int cpu = h_cfg_is_cpu_numbers(t->g[0]->bench, key, strlen(key));
		if (!cpus && cpu && varies(t, key))
			continue;
		if (!varies(t, key)) {
			fo += (size_t)snprintf(t->fixed + fo, fo < sizeof(t->fixed) ? sizeof(t->fixed) - fo : 0,
					       "%s%s", fo ? ";" : "", kv);
			continue;
		}
		for (int i = 0; i < t->n; i++) {
			size_t o = strlen(t->shortcfg[i]);
			ab_cfg_get(t->g[i]->config, key, val, sizeof(val));
			snprintf(t->shortcfg[i] + o, sizeof(t->shortcfg[i]) - o, "%s%s=%s", o ? ";" : "",
				 key, val);
		}
	}
	for (int i = 0; i < t->n; i++)	/* keys only some configs hold: the whole config */
		if (!t->shortcfg[i][0])
			snprintf(t->shortcfg[i], sizeof(t->shortcfg[i]), "%s", t->g[i]->config[0] ?
				 t->g[i]->config : "(none)");
}

static void collect(const struct cmp *c, const char *bench, const char *metric,
		    struct trend *t)
{
	const struct ab_results *base = &c->d[0];

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < base->n; i++) {
		const struct ab_group *g = &base->g[i];
		if (strcmp(g->bench, bench) || strcmp(g->metric, metric))
			continue;
		if (t->n < MAXCFG)
			t->g[t->n++] = g;
		else
			t->more++;
	}
	if (t->n)
		shorten(c, t);
}

/* One row: the run's median, its 95% CI (6+ values) or min-max, the ratio to A. */
static void row(FILE *md, int k, const struct ab_group *b, const struct ab_group *a)
{
	struct ab_summary s;
	char l[16], m[32], lo[32], hi[32], x[32];

	fprintf(md, "| %s | ", h_cmp_run_label(l, sizeof(l), k));
	if (!b) {
		fputs("- | - | - (not in this run) |\n", md);
		return;
	}
	ab_summarize(b->v, b->n, &s);
	ab_r_num(m, sizeof(m), s.median);
	if (b->n >= AB_MIN_REPS_CI)
		fprintf(md, "%s | [%s, %s] | ", m, ab_r_num(lo, sizeof(lo), s.ci.lo),
			ab_r_num(hi, sizeof(hi), s.ci.hi));
	else
		fprintf(md, "%s | min-max %s-%s, n=%zu | ", m, ab_r_num(lo, sizeof(lo), s.min),
			ab_r_num(hi, sizeof(hi), s.max), b->n);
	struct ab_ci ci;
	double r = NAN;
	enum ab_verdict v = k ? ab_r_ratio_apart(b, a, &r, &ci) : AB_V_NONE;
	if (!k)
		fputs("1 (the base) |\n", md);
	else if (v == AB_V_NONE)
		fputs("- (A's median is 0) |\n", md);
	else if (v == AB_V_FEW)
		fprintf(md, "%s (too few repetitions for a CI) |\n", ab_r_x(x, sizeof(x), r));
	else
		fprintf(md, "%s [%s, %s] |\n", ab_r_x(x, sizeof(x), r),
			ab_r_num(lo, sizeof(lo), ci.lo), ab_r_num(hi, sizeof(hi), ci.hi));
}

/* Per config a table, a row per run: 50 runs make 50 short rows, not 50 columns. */
static void table(FILE *md, const struct cmp *c, const char *bench, const char *metric,
		  const struct trend *t)
{
	fprintf(md, "\n### %s %s (%s)\n\n", bench, metric, t->g[0]->unit);
	if (t->fixed[0])
		fprintf(md, "All configs hold %s.\n\n", t->fixed);
	if (t->more)
		fprintf(md, "%d more configs not shown (compare.csv has them).\n\n", t->more);
	fprintf(md, "A table per config, a row per run: the median, its 95%% CI (min-max below "
		    "6 repetitions), the ratio to A with its 95%% CI.\n");
	for (int i = 0; i < t->n; i++) {
		fputs("\nConfig `", md);
		h_md_cell(md, t->shortcfg[i]);
		fprintf(md, "`:\n\n| run | median | 95%% CI | ratio to A [95%% CI] |\n"
			    "|---|---|---|---|\n");
		for (int k = 0; k < c->nr; k++)
			row(md, k, k ? h_cmp_match(c, 0, t->g[i], k) : t->g[i], t->g[i]);
	}
}

/* NAME.dat (x: the run, then median lo hi per plotted config) and NAME.gp; 1: made. */
static int plot(const char *dir, const struct cmp *c, const char *bench, const char *metric,
		const struct trend *t, const char *name)
{
	int nr = c->nr;
	char path[PATH_MAX], title[200], ylabel[160];
	int col[MAXCFG], nc = 0;
	struct ab_yspan y;	/* every point and its bar: log past 10x */

	for (int i = 0; i < t->n; i++)
		if (!ab_desc_is_baseline(h_desc(bench), t->g[i]->config))
			col[nc++] = i;
	if (!nc)
		return 0;
	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	FILE *dat = fopen(path, "we");	/* dir: the private plot directory */
	if (!dat)
		return 0;
	fprintf(dat, "# run, then median ci_lo ci_hi per config ('?': absent)\n");
	ab_yspan_init(&y);
	for (int k = 0; k < nr; k++) {
		fprintf(dat, "%d", k);
		for (int j = 0; j < nc; j++) {
			const struct ab_group *a = t->g[col[j]];
			const struct ab_group *b = k ? h_cmp_match(c, 0, a, k) : a;
			struct ab_summary s;
			if (!b) {
				fprintf(dat, " ? ? ?");
				continue;
			}
			ab_summarize(b->v, b->n, &s);
			if (b->n < AB_MIN_REPS_CI)	/* no CI: the bars span min-max */
				s.ci.lo = s.min, s.ci.hi = s.max;
			ab_yspan_add(&y, &s);
			fprintf(dat, " %.6g %.6g %.6g", s.median, s.ci.lo, s.ci.hi);
		}
		fputc('\n', dat);
	}
	if (ferror(dat) | fclose(dat))
		return 0;
	snprintf(path, sizeof(path), "%s/%s.gp", dir, name);
	FILE *gp = fopen(path, "we");
	if (!gp)
		return 0;
	snprintf(title, sizeof(title), "%s %s across runs (error bars: 95%% CI, min-max below 6 reps%s)",
		 bench, metric, nc < t->n ? "; baselines left out" : "");
	snprintf(ylabel, sizeof(ylabel), "%s (%s)", metric, t->g[0]->unit);
	for (int svg = 0; svg < 2; svg++) {
		fprintf(gp, "reset\nset datafile missing '?'\nset grid ytics\n");
		ab_plot_terminal(gp, name, svg, 1000, 700);
		ab_plot_set(gp, "title", title);
		ab_plot_set(gp, "xlabel", "run (A, the base; compare.md lists them)");
		fprintf(gp, "set xrange [-0.5:%d.5]\nset xtics (", nr - 1);
		for (int k = 0, step = nr > 20 ? 5 : 1; k < nr; k += step) {	/* 50 would overlap */
			char l[16];
			fprintf(gp, "%s\"%s\" %d", k ? ", " : "", h_cmp_run_label(l, sizeof(l), k), k);
		}
		fprintf(gp, ")\nset key below noenhanced\n");
		ab_yspan_axis(gp, &y, ylabel);
		fprintf(gp, "plot ");
		for (int j = 0; j < nc; j++) {
			fprintf(gp, "%s'%s.dat' using 1:%d:%d:%d with yerrorlines title ", j ? ", " : "",
				name, 2 + 3 * j, 3 + 3 * j, 4 + 3 * j);
			ab_gp_string(gp, t->shortcfg[col[j]]);
		}
		fputc('\n', gp);
	}
	return !(ferror(gp) | fclose(gp));
}

int h_compare_trends(FILE *md, const char *plotdir, const struct cmp *c, char names[][64],
		     int max)
{
	int n = 0;

	fprintf(md, "\n## Trends of the headline metrics\n\nThe runs are labelled as in The runs (A, "
		    "the base); the plots' x axis uses the same labels.\n");
	for (int b = 0; h_registry[b]; b++)
		for (int k = 0; h_registry[b]->headline && h_registry[b]->headline[k]; k++) {
			const char *bench = h_registry[b]->name, *metric = h_registry[b]->headline[k];
			struct trend t;
			collect(c, bench, metric, &t);
			if (!t.n)
				continue;
			table(md, c, bench, metric, &t);
			if (!plotdir || n >= max)
				continue;
			snprintf(names[n], 64, "trend_%s_%s", bench, metric);
			n += plot(plotdir, c, bench, metric, &t, names[n]);
		}
	return n;
}
