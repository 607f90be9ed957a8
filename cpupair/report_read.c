// SPDX-License-Identifier: GPL-2.0
/*
 * cpupair's reading (report_i.h): per setting, what a cache-line round trip
 * costs in each class (a class comes only from sysfs: without its cache
 * topology a pair is "unknown", never "within one LLC"), which pairs are
 * flagged (a window the scheduler disturbed, cp_line_disturbed, or a cache-line round
 * trip above CP_DESCHED_SHARE of the pair's futex round trip: its line figure
 * is the scheduler's and stays out of the medians), and what a wake-up costs: a
 * round trip only when its waits slept (CP_SLEPT_MIN), never a mix, beside
 * the same-CPU one the diagonal measured.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "record/record.h"
#include "render/reading.h"
#include "render/render.h"
#include "report_i.h"

#define MAX_FLAGGED 6	/* pairs named one by one */

/* "A cache-line round trip costs X ns within one LLC (...); ..." */
static void read_line(struct ab_render *r, const char *rest)
{
	double v[CP_NCLASS];
	int np[CP_NCLASS], k = 0;
	char x[32];

	for (int c = 1; c < CP_NCLASS; c++)	/* no line on the diagonal */
		v[c] = cp_class_median(r, CP_M_LINE, rest, cp_classes[c], &np[c]);
	for (int c = 1; c < CP_NCLASS; c++) {
		if (!np[c])
			continue;
		fprintf(r->out, "%s %s ns %s (median of %d pair%s)", k++ ? ";" :
			"A cache-line round trip costs", ab_r_num(x, sizeof(x), v[c]), cp_where[c],
			np[c], np[c] == 1 ? "" : "s");
	}
	if (k)
		fprintf(r->out, ". ");
	else if (cp_line_recorded(r, rest, NULL))
		fprintf(r->out, "No cache-line round trip is given here: every pair's was flagged. ");
}

/* The pairs whose line figure is flagged, named (the first few) and counted. */
static void read_flagged(struct ab_render *r, const char *rest)
{
	char buf[AB_CONFIG_LEN], a[32], b[32];
	int n = 0;

	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		if (!cp_mine(r, g, CP_M_LINE) || !cp_flagged(r, g) ||
		    strcmp(cp_rest_of(g->config, buf, sizeof(buf)), rest))
			continue;
		if (n == 0)
			fprintf(r->out, "Flagged, their cache-line figure left out of the medians (a "
				"spinning side lost its CPU: waited for it in its window, or a "
				"cache-line round trip above %.0f%% of the pair's futex round trip):",
				100 * CP_DESCHED_SHARE);
		if (n++ < MAX_FLAGGED)
			fprintf(r->out, " %s->%s", ab_cfg_get(g->config, CP_K_A, a, sizeof(a)),
				ab_cfg_get(g->config, CP_K_B, b, sizeof(b)));
	}
	if (n > MAX_FLAGGED)
		fprintf(r->out, " and %d more", n - MAX_FLAGGED);
	if (n)
		fprintf(r->out, " (%d pair%s). ", n, n == 1 ? "" : "s");
}

/* One method's wake-up over the pairs: its cost, or why it is none. */
static void read_method(struct ab_render *r, int m, const char *rest, int first)
{
	int n, ns, nd, nds;
	const char *metric = cp_metrics[m].name, *slept = cp_metrics[cp_meth[m].slept].name;
	double v = cp_class_median(r, metric, rest, NULL, &n);
	double sl = cp_class_median(r, slept, rest, NULL, &ns);
	double d = cp_class_median(r, metric, rest, CP_CLASS_SAME, &nd);
	double dsl = cp_class_median(r, slept, rest, CP_CLASS_SAME, &nds);
	const char *name = m == CP_FUTEX ? "a futex" : "a pipe";
	char a[32], b[32];

	if (!n)
		return;
	fprintf(r->out, "%s", first ? "" : "; ");
	if (ns && sl < CP_SLEPT_MIN) {
		fprintf(r->out, "through %s no wake-up cost can be given: only %.0f%% of its waits "
			"slept (the other side answered before it slept), so its %s us is a mix",
			name, sl, ab_r_num(a, sizeof(a), v));
		return;
	}
	fprintf(r->out, "%s us through %s (%s)", ab_r_num(a, sizeof(a), v), name,
		ns ? "every wait slept" : "the share of its waits that slept was not recorded");
	if (nd && !(nds && dsl < CP_SLEPT_MIN))
		fprintf(r->out, ", against %s us on one CPU alone", ab_r_num(b, sizeof(b), d));
}

/* The wake-ups against the cache-line floor, over every pair measured. */
static void read_wake(struct ab_render *r, const char *rest)
{
	int nl, nf, np, ns;
	double line = cp_class_median(r, CP_M_LINE, rest, NULL, &nl);
	double fu = cp_class_median(r, CP_M_FUTEX, rest, NULL, &nf);
	double sl = cp_class_median(r, CP_M_FUTEX_SLEPT, rest, NULL, &ns);
	char a[32], c[32];

	cp_class_median(r, CP_M_PIPE, rest, NULL, &np);
	if (!nf && !np)
		return;
	fprintf(r->out, "Over the pairs measured, a wake-up round trip costs ");
	read_method(r, CP_FUTEX, rest, 1);
	read_method(r, CP_PIPE, rest, !nf);
	/* the futex's against the line, when it is a wake-up's (or says nothing of it) */
	if (nl && line > 0 && nf && (!ns || sl >= CP_SLEPT_MIN)) {
		double x = fu * 1e3 / line;
		fprintf(r->out, "; the futex's is %sx the cache-line round trip (%s ns): %s",
			ab_r_num(c, sizeof(c), x), ab_r_num(a, sizeof(a), line),
			x >= 10 ? "nearly all of a handoff's cost here is waking the other side, not "
				  "moving its data" :
				  "moving the data is a visible part of a handoff's cost here");
	}
	fprintf(r->out, ".");
}

void cp_reading(struct ab_render *r)
{
	char rest[MAX_SETTINGS][AB_CONFIG_LEN];
	int nrest = cp_settings(r, rest, MAX_SETTINGS);

	for (int k = 0; k < nrest; k++) {	/* a paragraph per setting */
		if (nrest > 1)
			fprintf(r->out, "With %s: ", rest[k][0] ? rest[k] : "the idle policy as found");
		read_line(r, rest[k]);
		read_flagged(r, rest[k]);
		read_wake(r, rest[k]);
		fprintf(r->out, "\n\n");
	}
}
