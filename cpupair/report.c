// SPDX-License-Identifier: GPL-2.0
/*
 * cpupair's report: per class (smt, llc, cross-llc, cross-node) the median
 * over pairs of each pair's median round trip, the pairs themselves when they
 * are few, a reading that sets the wake-ups against the cache-line floor, and
 * one heatmap per method, pairs in topology order (the pos_a/pos_b keys the
 * benchmark recorded, so the harness needs no sysfs of the measuring machine).
 * A run that swept a setting beside the pairs (an idle policy: every key but
 * the pair's) gets each of it apart: its rows, sentences and heatmaps. The
 * diagonal (class same: one CPU with itself, the wake-ups alone) is a row of
 * its own, never in a median over pairs; each wake-up figure carries the share
 * of its waits that slept. The reading is report_read.c's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/reading.h"
#include "render/render.h"
#include "render/desc.h"
#include "render/render_heat.h"
#include "sys/topo.h"
#include "cpupair.h"
#include "report_i.h"

#define MAX_PAIR_ROWS 24	/* list the pairs one by one up to this many */

/* One cell of a table: the line's number; a wake-up's with the share of its waits that
 * slept (the medians of the same pairs), "88.3 (100% slept)" or "5.4 (a mix: 40% slept)",
 * or the number alone when the share was not recorded (records from before it). */
static const char *cell_text(char *buf, size_t len, int m, double v, double slept)
{
	char x[32];

	if (isnan(v))
		return "not measured";
	if (m == CP_LINE || isnan(slept))
		return ab_r_num(buf, len, v);
	snprintf(buf, len, "%s (%s%.0f%% slept)", ab_r_num(x, sizeof(x), v),
		 slept >= CP_SLEPT_MIN ? "" : "a mix: ", slept < 100 ? slept : 100);
	return buf;
}

/* One table for every setting: a first column names it when there are several. */
static void class_table(struct ab_render *r, char rest[][AB_CONFIG_LEN], int nrest)
{
	char num[64];
	int np, ns;

	fprintf(r->out, "%d) per class: the median over its pairs of each pair's median (a "
		"wake-up's with the share of its waits that slept; same: a CPU with itself)\n\n",
		ab_r_table_no(r));
	fprintf(r->out, "|%s class | pairs |", nrest > 1 ? " setting |" : "");
	for (int m = 0; m < CP_NMETHOD; m++)
		fprintf(r->out, " %s (%s) |", cp_meth[m].what, cp_metrics[m].unit);
	fprintf(r->out, "\n|%s---|---|---|---|---|\n", nrest > 1 ? "---|" : "");
	for (int k = 0; k < nrest; k++)
	for (int c = 0; c < CP_NCLASS; c++) {
		int most = 0;
		double v[CP_NMETHOD], sl[CP_NMETHOD];
		for (int m = 0; m < CP_NMETHOD; m++) {
			v[m] = cp_class_median(r, cp_metrics[m].name, rest[k], cp_classes[c], &np);
			sl[m] = cp_meth[m].slept >= 0 ? cp_class_median(r, cp_metrics[cp_meth[m].slept].name,
									 rest[k], cp_classes[c], &ns) : NAN;
			most = np > most ? np : most;
		}
		if (!most)
			continue;
		if (nrest > 1)
			fprintf(r->out, "| %s ", rest[k][0] ? rest[k] : "as found");
		fprintf(r->out, "| %s | %d |", cp_classes[c], most);
		for (int m = 0; m < CP_NMETHOD; m++)
			fprintf(r->out, " %s |", m == CP_LINE && isnan(v[m]) &&
				cp_line_recorded(r, rest[k], cp_classes[c]) ?
				"every pair flagged (a spinner lost its CPU)" :
				cell_text(num, sizeof(num), m, v[m], sl[m]));
		fprintf(r->out, "\n");
	}
	fprintf(r->out, "\n");
}

/* The pairs, in the order first recorded (topology order), when there are few. */
static void pair_table(struct ab_render *r, int nrest)
{
	char cfg[MAX_PAIR_ROWS + 1][AB_CONFIG_LEN], num[64], a[32], b[32], cls[32], rest[AB_CONFIG_LEN];
	int n = 0;

	for (size_t i = 0; i < r->res->n && n <= MAX_PAIR_ROWS; i++) {
		const struct ab_group *g = &r->res->g[i];
		int m, seen = 0;
		for (m = 0; m < CP_NMETHOD && !cp_mine(r, g, cp_metrics[m].name); m++)
			;
		for (int k = 0; k < n && !seen; k++)
			seen = !strcmp(cfg[k], g->config);
		if (m < CP_NMETHOD && !seen)
			snprintf(cfg[n++], sizeof(cfg[0]), "%s", g->config);
	}
	if (n == 0 || n > MAX_PAIR_ROWS)
		return;
	fprintf(r->out, "%d) per pair (a pings, b answers): medians\n\n|%s a | b | class |",
		ab_r_table_no(r), nrest > 1 ? " setting |" : "");
	for (int m = 0; m < CP_NMETHOD; m++)
		fprintf(r->out, " %s (%s) |", cp_meth[m].what, cp_metrics[m].unit);
	fprintf(r->out, "\n|%s---|---|---|---|---|---|\n", nrest > 1 ? "---|" : "");
	for (int k = 0; k < n; k++) {
		if (nrest > 1)
			fprintf(r->out, "| %s ", cp_rest_of(cfg[k], rest, sizeof(rest))[0] ? rest : "as found");
		fprintf(r->out, "| %s | %s | %s |", ab_cfg_get(cfg[k], CP_K_A, a, sizeof(a)),
			ab_cfg_get(cfg[k], CP_K_B, b, sizeof(b)),
			ab_cfg_get(cfg[k], CP_K_CLASS, cls, sizeof(cls)));
		for (int m = 0; m < CP_NMETHOD; m++) {
			const struct ab_group *g = ab_results_get(r->res, r->desc->name, cfg[k],
								  cp_metrics[m].name, cp_metrics[m].unit);
			int sm = cp_meth[m].slept;
			const struct ab_group *sg = sm >= 0 ? ab_results_get(r->res, r->desc->name,
				cfg[k], cp_metrics[sm].name, cp_metrics[sm].unit) : NULL;
			fprintf(r->out, " %s%s |", cell_text(num, sizeof(num), m, g ? ab_r_median(g) : NAN,
							    sg ? ab_r_median(sg) : NAN),
				g && cp_flagged(r, g) ? " (flagged: a spinner lost its CPU)" : "");
		}
		fprintf(r->out, "\n");
	}
	fprintf(r->out, "\n");
}

static void tables(struct ab_render *r)
{
	char rest[MAX_SETTINGS][AB_CONFIG_LEN];
	int nrest = cp_settings(r, rest, MAX_SETTINGS);

	fprintf(r->out, "## cpupair: round trips between two CPUs\n\n");
	class_table(r, rest, nrest);
	pair_table(r, nrest);
}

/* Is g a record of method m under setting rest (drawn where cp_cells_place says)? */
static int cell(const struct ab_render *r, const struct ab_group *g, int m, const char *rest)
{
	char buf[AB_CONFIG_LEN];

	return cp_mine(r, g, cp_metrics[m].name) && !strcmp(g->unit, cp_metrics[m].unit) &&
	       !strcmp(cp_rest_of(g->config, buf, sizeof(buf)), rest);
}

/* The matrix of method m under setting k (rest); named NAME, or NAME_K past the first;
 * its colour scale from 0 to top, one for every setting (a lever and as found read alike).
 * As large as the largest place of a or of b drawn. */
static void heatmap(struct ab_render *r, struct cp_cells *c, int m, int k, const char *rest,
		    double top)
{
	const struct ab_group **take = malloc(sizeof(*take) * (r->res->n ? r->res->n : 1));
	struct ab_heat h;
	int n = 0, pa, pb;
	size_t nt = 0;
	char title[AB_CONFIG_LEN + 96], unit[96], name[64];

	if (k)
		snprintf(name, sizeof(name), "%s_%d", cp_meth[m].fig, k + 1);
	else
		snprintf(name, sizeof(name), "%s", cp_meth[m].fig);
	cp_cells_start(c, name);
	for (size_t i = 0; take && i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		if (!cell(r, g, m, rest) || cp_cells_place(c, g, &pa, &pb) < 0)
			continue;
		take[nt++] = g;
		n = pa >= n ? pa + 1 : n;
		n = pb >= n ? pb + 1 : n;
	}
	if (n > 0 && ab_heat_init(&h, n) == 0) {
		h.cbmax = top;
		h.diag = m == CP_LINE ? "diagonal: a CPU with itself, not measured for the line" :
					"diagonal: a CPU with itself (the same-CPU round trip)";
		snprintf(title, sizeof(title), "cpupair: %s, CPUs in topology order%s%.300s",
			 cp_meth[m].what, rest[0] ? ", " : "", rest);
		snprintf(unit, sizeof(unit), "%s (%s, median, from 0)", cp_metrics[m].name,
			 cp_metrics[m].unit);
		if (cp_cells_draw(c, take, nt, &h) == 0)
			ab_heat_plot(r, &h, name, title, "answering CPU (b)", "pinging CPU (a)",
				     unit);
		ab_heat_free(&h);
	}
	cp_cells_end(c);
	free(take);
}

/* The largest median of method m in any setting: the top of its heatmaps' one scale. */
static double method_top(const struct ab_render *r, int m)
{
	double top = NAN;

	for (size_t i = 0; i < r->res->n; i++)
		if (cp_mine(r, &r->res->g[i], cp_metrics[m].name) && !(ab_r_median(&r->res->g[i]) <= top))
			top = ab_r_median(&r->res->g[i]);
	return top;
}

/* The futex's first (the wake-up a lever such as an idle policy moves, each setting
 * beside the other), then the line's and the pipe's: report.md shows the first. */
static void plots(struct ab_render *r)
{
	static const int order[] = { CP_FUTEX, CP_LINE, CP_PIPE };
	char rest[MAX_SETTINGS][AB_CONFIG_LEN];
	int nrest = cp_settings(r, rest, MAX_SETTINGS);
	struct cp_cells *c = cp_cells_new();	/* 100 KB: not on the stack */

	for (size_t i = 0; c && i < AB_ARRAY_SIZE(order); i++)
		for (int k = 0; k < nrest; k++)
			heatmap(r, c, order[i], k, rest[k], method_top(r, order[i]));
	free(c);
}

static const char *const headline[] = { CP_M_LINE, CP_M_FUTEX, CP_M_PIPE, NULL };

const struct ab_bench_desc ab_desc_cpupair = {
	.name = CP_BENCH,
	.question = "what a handoff between two CPUs costs",
	.post = "",
	.headline = headline,
	.duration_each = 1,
	.metrics = cp_metrics,
	.op = "one futex round trip, on the pair's two CPUs (futex windows only)",
	.tables = tables,
	.reading = cp_reading,
	.plots = plots,
};
