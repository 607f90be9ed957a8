// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare's plots: per headline metric, an overlay of the runs by
 * config (one bar per run, baselines left out) and a trend across the runs
 * (trend.c), prepared in a private directory, drawn, then moved into
 * --out DIR/figures (sources in figures/src) and linked from compare.md.
 * Directory names are outside text: quoted as gnuplot strings wherever they
 * are written.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "render/gpscript.h"
#include "render/desc.h"
#include "render/render_plot.h"
#include "render/plotdir.h"
#include "record/stats.h"
#include "compare.h"

/* A legend row: the label as the plot shows it (ab_gp_label's characters), its config. */
static void legend_row(FILE *leg, const char *label, const char *config)
{
	char *shown = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&shown, &len);

	if (!f)
		ab_fail("compare: out of memory");
	ab_gp_label(f, label);
	if (fclose(f))
		ab_fail("compare: out of memory");
	shown[len - 1] = '\0';	/* without its quotes */
	fputs("| ", leg);
	h_md_cell(leg, shown + 1);
	fputs(" | ", leg);
	h_md_cell(leg, config);
	fputs(" |\n", leg);
	free(shown);
}

/* NAME.dat and NAME.gp for one headline metric, bars labelled by the values of the config
 * keys that vary, baselines left out; each label and its config into leg, the plot's legend
 * in compare.md. 1 when there was something to plot. */
static int overlay(struct cmp *c, const char *bench, const char *metric, const char *name,
		   FILE *leg)
{
	char path[PATH_MAX], title[200], label[AB_CONFIG_LEN], unit[AB_UNIT_LEN] = "";
	char ylabel[AB_METRIC_LEN + AB_UNIT_LEN + 8];
	int rows = 0, left_out = 0, cpus = h_cmp_cpus_tell_apart(c, bench);
	struct ab_yspan y;	/* every bar and its interval: log past 10x */

	snprintf(path, sizeof(path), "%s/%s.dat", c->pd.path, name);
	FILE *dat = fopen(path, "we");
	if (!dat)
		return 0;
	fprintf(dat, "# config, then median ci_lo ci_hi per run\n");
	ab_yspan_init(&y);
	for (size_t i = 0; i < c->d[0].n && rows < 40; i++) {
		const struct ab_group *a = &c->d[0].g[i];
		int all = !strcmp(a->bench, bench) && !strcmp(a->metric, metric);
		for (int k = 1; all && k < c->nr; k++)
			all = h_cmp_match(c, 0, a, k) != NULL;	/* only what all runs hold */
		if (!all)
			continue;
		/* a baseline (its descriptor's baselines): orders of magnitude above the rest,
		 * its bar would squash every other one, so it is left out and said so */
		if (ab_desc_is_baseline(h_desc(bench), a->config)) {
			left_out++;
			continue;
		}
		snprintf(unit, sizeof(unit), "%s", a->unit);
		ab_gp_label(dat, h_cmp_short_cfg(c, a, label, sizeof(label)));
		/* CPU numbers only where they tell configs apart, as in the labels */
		legend_row(leg, label, cpus ? a->config : h_cmp_bare(c, 0, a));
		for (int k = 0; k < c->nr; k++) {
			const struct ab_group *b = k ? h_cmp_match(c, 0, a, k) : a;
			struct ab_summary s;
			ab_summarize(b->v, b->n, &s);
			ab_yspan_add(&y, &s);
			fprintf(dat, " %.6g %.6g %.6g", s.median, s.ci.lo, s.ci.hi);
		}
		fprintf(dat, "\n");
		rows++;
	}
	int bad = ferror(dat) | fclose(dat);
	if (!rows || bad) {
		unlink(path);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s.gp", c->pd.path, name);
	FILE *gp = fopen(path, "we");
	if (!gp)
		return 0;
	/* gnuplot centres a title over the plot, not the figure: a short one stays
	 * inside whatever the key's width; what the error bars are goes in the key */
	snprintf(title, sizeof(title), "%s %s by config, one bar per run%s", bench, metric,
		 left_out ? "; baselines left out" : "");
	for (int term = 0; term < 2; term++) {
		fprintf(gp, "reset\n");
		ab_plot_terminal(gp, name, term, 1200, 600);
		fprintf(gp, "set title ");
		ab_gp_string(gp, title);
		fprintf(gp, " noenhanced\n");
		snprintf(label, sizeof(label),
			 "%s config: the keys that vary (legend under the figure in compare.md)", bench);
		ab_plot_set(gp, "xlabel", label);
		fprintf(gp, "set style data histograms\nset style histogram errorbars gap 1 "
			    "lw 1\nset style fill solid 0.6 border -1\nset xtics rotate by -30 font ',8' "
			    "noenhanced\nset key outside noenhanced\n");
		/* one run's passthrough at 60x the others flattened every other bar */
		snprintf(ylabel, sizeof(ylabel), "%s (%s)", metric, unit);
		ab_yspan_axis(gp, &y, ylabel);
		ab_plot_set(gp, "key title", "error bars: 95% CI (min-max below 6 reps)");
		fprintf(gp, "plot ");
		for (int k = 0; k < c->nr; k++) {
			fprintf(gp, "%s'%s.dat' using %d:%d:%d%s title ", k ? ", " : "", name, 2 + 3 * k,
				3 + 3 * k, 4 + 3 * k, k ? "" : ":xtic(1)");
			char l[16];	/* the run's label, as the trend plots and compare.md have it */
			snprintf(label, sizeof(label), "run %s", h_cmp_run_label(l, sizeof(l), k));
			ab_gp_string(gp, label);
		}
		fprintf(gp, "\n");
	}
	return !(ferror(gp) | fclose(gp));
}

/* The figure's link in compare.md, and under an overlay its legend: each x label, the
 * values of the keys that vary, and the config it stands for. */
static void plot_md(struct cmp *c, const char *name, const char *bench, const char *legend)
{
	fprintf(c->md, "\n![%s](" AB_FIG_DIR "/%s.png)\n", name, name);
	if (!legend)
		return;
	fprintf(c->md, "\nLegend of %s: the bars are runs A, B, ... (The runs); an x label is "
		       "the values of ", name);
	h_cmp_keys_md(c->md, c, bench);
	fprintf(c->md, " joined by _ ('-': a config without that key):\n\n| label | config |\n"
		       "|---|---|\n%s", legend);
}

int h_cmp_plots(struct cmp *c)
{
	char names[AB_PLOTS_MAX][64], *legend[AB_PLOTS_MAX] = { 0 };
	const char *bench_of[AB_PLOTS_MAX] = { 0 };
	int n = 0, ok[AB_PLOTS_MAX];

	if (ab_plotdir_open(&c->pd, c->out) < 0)
		return -1;
	if (c->nr > 2)	/* with two runs a trend is the ratios table again */
		n = h_compare_trends(c->md, c->pd.path, c, names, AB_PLOTS_MAX / 2);
	for (int b = 0; h_registry[b]; b++)
		for (int k = 0; h_registry[b]->headline && h_registry[b]->headline[k] && n < AB_PLOTS_MAX; k++) {
			const char *bench = h_registry[b]->name;
			size_t len = 0;
			FILE *leg = open_memstream(&legend[n], &len);
			if (!leg)
				ab_fail("compare: out of memory");
			snprintf(names[n], sizeof(names[n]), "compare_%s_%s", bench,
				 h_registry[b]->headline[k]);
			int made = overlay(c, bench, h_registry[b]->headline[k], names[n], leg);
			bench_of[n] = bench;
			if (fclose(leg))
				ab_fail("compare: out of memory");
			if (!made) {
				free(legend[n]);
				legend[n] = NULL;
			}
			n += made;
		}
	int bad = ab_plots_draw(&c->pd, names, n, ok);
	bad |= ab_plotdir_close(&c->pd);
	for (int i = 0, said = 0; i < n; i++) {
		if (ok[i] && legend[i] && !said++)	/* the overlays: a section of their own */
			fprintf(c->md, "\n## The runs side by side\n\nPer headline metric, a bar per "
				       "run and config (baselines left out).\n");
		if (ok[i])
			plot_md(c, names[i], bench_of[i], legend[i]);
	}
	for (int i = 0; i < n; i++)
		free(legend[i]);
	return bad;
}
