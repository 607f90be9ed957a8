/*
 * cpupair's report: per class (smt, llc, cross-llc, cross-node) the median
 * over pairs of each pair's median round trip, the pairs themselves when they
 * are few, a reading that sets the wake-ups against the cache-line floor, and
 * one heatmap per method, pairs in topology order (the pos_a/pos_b keys the
 * benchmark recorded, so the harness needs no sysfs of the measuring machine).
 * A run that swept a setting beside the pairs (an idle policy: every key but
 * the pair's) gets each of it apart: its rows, sentences and heatmaps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/reading.h"
#include "report/render.h"
#include "sys/topo.h"
#include "cpupair.h"

#define MAX_PAIR_ROWS 24	/* list the pairs one by one up to this many */

static const struct {
	const char *metric, *unit, *what, *fig;
} meth[CP_NMETHOD] = {
	[CP_LINE] = { CP_M_LINE, "ns", "cache-line round trip", "cpupair_line" },
	[CP_FUTEX] = { CP_M_FUTEX, "us", "futex wake-up round trip", "cpupair_futex" },
	[CP_PIPE] = { CP_M_PIPE, "us", "pipe wake-up round trip", "cpupair_pipe" },
};

static const enum ab_placement classes[] = { AB_PL_SMT, AB_PL_LLC, AB_PL_CROSS_LLC,
					     AB_PL_CROSS_NODE };
static const char *const where[] = { "between SMT siblings", "within one LLC",
				     "across LLCs of one node", "across NUMA nodes" };

static int mine(const struct ab_render *r, const struct ab_group *g, const char *metric)
{
	return !strcmp(g->bench, r->desc->name) && !strcmp(g->metric, metric) && g->n > 0;
}

/* The config without the pair's keys: the setting the pair was measured under
 * ("" alone, "idle=poll" when a plan sweeps more), one matrix per setting. */
static const char *rest_of(const char *config, char *buf, size_t len)
{
	static const char *const pair_keys[] = { CP_K_A, CP_K_B, CP_K_POS_A, CP_K_POS_B, CP_K_CLASS };
	const char *p = config;

	buf[0] = 0;
	while (*p) {
		size_t n = strcspn(p, ";"), k = strcspn(p, "=");
		int drop = 0;
		for (size_t i = 0; i < AB_ARRAY_SIZE(pair_keys); i++)
			drop |= k < n && k == strlen(pair_keys[i]) && !strncmp(p, pair_keys[i], k);
		if (!drop)
			ab_r_addf(buf, len, "%s%.*s", buf[0] ? ";" : "", (int)n, p);
		p += n + (p[n] == ';');
	}
	return buf;
}

/* Distinct settings of the records, in the order first recorded; how many (at most max). */
static int settings(const struct ab_render *r, char rest[][AB_CONFIG_LEN], int max)
{
	char buf[AB_CONFIG_LEN];
	int n = 0;

	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		int m, seen = 0;
		for (m = 0; m < CP_NMETHOD && !mine(r, g, meth[m].metric); m++)
			;
		if (m == CP_NMETHOD)
			continue;
		rest_of(g->config, buf, sizeof(buf));
		for (int k = 0; k < n && !seen; k++)
			seen = !strcmp(rest[k], buf);
		if (!seen && n < max)
			snprintf(rest[n++], sizeof(rest[0]), "%s", buf);
	}
	return n;
}

/* Median over the pairs of class cls (NULL: all) measured under setting rest of each
 * pair's median; *npairs set. */
static double class_median(const struct ab_render *r, const char *metric, const char *rest,
			   const char *cls, int *npairs)
{
	double *m = malloc(sizeof(*m) * (r->res->n ? r->res->n : 1)), v = NAN;
	size_t n = 0;
	char buf[32], rbuf[AB_CONFIG_LEN];

	for (size_t i = 0; m && i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		if (mine(r, g, metric) && (!cls || !strcmp(ab_cfg_get(g->config, CP_K_CLASS, buf,
									 sizeof(buf)), cls)) &&
		    !strcmp(rest_of(g->config, rbuf, sizeof(rbuf)), rest))
			m[n++] = ab_r_median(g);
	}
	if (n)
		v = ab_median(m, n);
	free(m);
	*npairs = (int)n;
	return v;
}

/* One table for every setting: a first column names it when there are several. */
static void class_table(struct ab_render *r, char rest[][AB_CONFIG_LEN], int nrest)
{
	char num[32];
	int np;

	fprintf(r->out, "%d) per class: the median over its pairs of each pair's median\n\n",
		ab_r_table_no(r));
	fprintf(r->out, "|%s class | pairs |", nrest > 1 ? " setting |" : "");
	for (int m = 0; m < CP_NMETHOD; m++)
		fprintf(r->out, " %s (%s) |", meth[m].what, meth[m].unit);
	fprintf(r->out, "\n|%s---|---|---|---|---|\n", nrest > 1 ? "---|" : "");
	for (int k = 0; k < nrest; k++)
	for (size_t c = 0; c < AB_ARRAY_SIZE(classes); c++) {
		const char *cls = ab_placement_name(classes[c]);
		int most = 0;
		double v[CP_NMETHOD];
		for (int m = 0; m < CP_NMETHOD; m++) {
			v[m] = class_median(r, meth[m].metric, rest[k], cls, &np);
			most = np > most ? np : most;
		}
		if (!most)
			continue;
		if (nrest > 1)
			fprintf(r->out, "| %s ", rest[k][0] ? rest[k] : "as found");
		fprintf(r->out, "| %s | %d |", cls, most);
		for (int m = 0; m < CP_NMETHOD; m++)
			fprintf(r->out, " %s |", isnan(v[m]) ? "not measured" : ab_r_num(num, sizeof(num), v[m]));
		fprintf(r->out, "\n");
	}
	fprintf(r->out, "\n");
}

/* The pairs, in the order first recorded (topology order), when there are few. */
static void pair_table(struct ab_render *r, int nrest)
{
	char cfg[MAX_PAIR_ROWS + 1][AB_CONFIG_LEN], num[32], a[32], b[32], cls[32], rest[AB_CONFIG_LEN];
	int n = 0;

	for (size_t i = 0; i < r->res->n && n <= MAX_PAIR_ROWS; i++) {
		const struct ab_group *g = &r->res->g[i];
		int m, seen = 0;
		for (m = 0; m < CP_NMETHOD && !mine(r, g, meth[m].metric); m++)
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
		fprintf(r->out, " %s (%s) |", meth[m].what, meth[m].unit);
	fprintf(r->out, "\n|%s---|---|---|---|---|---|\n", nrest > 1 ? "---|" : "");
	for (int k = 0; k < n; k++) {
		if (nrest > 1)
			fprintf(r->out, "| %s ", rest_of(cfg[k], rest, sizeof(rest))[0] ? rest : "as found");
		fprintf(r->out, "| %s | %s | %s |", ab_cfg_get(cfg[k], CP_K_A, a, sizeof(a)),
			ab_cfg_get(cfg[k], CP_K_B, b, sizeof(b)),
			ab_cfg_get(cfg[k], CP_K_CLASS, cls, sizeof(cls)));
		for (int m = 0; m < CP_NMETHOD; m++) {
			const struct ab_group *g = ab_results_get(r->res, r->desc->name, cfg[k],
								  meth[m].metric, meth[m].unit);
			fprintf(r->out, " %s |", g ? ab_r_num(num, sizeof(num), ab_r_median(g)) : "not measured");
		}
		fprintf(r->out, "\n");
	}
	fprintf(r->out, "\n");
}

#define MAX_SETTINGS 4	/* settings (e.g. idle policies) rendered apart */

static void tables(struct ab_render *r)
{
	char rest[MAX_SETTINGS][AB_CONFIG_LEN];
	int nrest = settings(r, rest, MAX_SETTINGS);

	fprintf(r->out, "## cpupair: round trips between two CPUs\n\n");
	class_table(r, rest, nrest);
	pair_table(r, nrest);
}

/* "A cache-line round trip across an LLC costs X ns vs Y within one", or per class. */
static void read_line(struct ab_render *r, const char *rest)
{
	double v[AB_ARRAY_SIZE(classes)];
	int np[AB_ARRAY_SIZE(classes)], any = 0;
	char x[32], y[32];

	for (size_t c = 0; c < AB_ARRAY_SIZE(classes); c++) {
		v[c] = class_median(r, CP_M_LINE, rest, ab_placement_name(classes[c]), &np[c]);
		any |= np[c] > 0;
	}
	if (!any)
		return;
	if (np[1] && np[2]) {
		fprintf(r->out, "A cache-line round trip across an LLC costs %s ns vs %s ns within "
			"one (medians of %d and %d pairs).", ab_r_num(x, sizeof(x), v[2]),
			ab_r_num(y, sizeof(y), v[1]), np[2], np[1]);
	} else {
		fprintf(r->out, "A cache-line round trip costs");
		for (size_t c = 0, k = 0; c < AB_ARRAY_SIZE(classes); c++)
			if (np[c])
				fprintf(r->out, "%s %s ns %s (median of %d pair%s)", k++ ? ";" : "",
					ab_r_num(x, sizeof(x), v[c]), where[c], np[c], np[c] == 1 ? "" : "s");
		fprintf(r->out, ".");
	}
	for (size_t c = 0; c < AB_ARRAY_SIZE(classes); c++)
		if (np[c] && np[1] && np[2] && c != 1 && c != 2)
			fprintf(r->out, " %s it costs %s ns.", c ? "Across NUMA nodes" : "Between SMT siblings",
				ab_r_num(x, sizeof(x), v[c]));
	fprintf(r->out, " ");
}

/* The wake-ups against the cache-line floor, over every pair measured. */
static void read_wake(struct ab_render *r, const char *rest)
{
	int nl, nf, np;
	double line = class_median(r, CP_M_LINE, rest, NULL, &nl);
	double fu = class_median(r, CP_M_FUTEX, rest, NULL, &nf);
	double pi = class_median(r, CP_M_PIPE, rest, NULL, &np);
	char a[32], b[32], c[32];

	if (!nf && !np)
		return;
	fprintf(r->out, "Over the pairs measured, a wake-up round trip costs");
	if (nf)
		fprintf(r->out, " %s µs through a futex", ab_r_num(a, sizeof(a), fu));
	if (nf && np)
		fprintf(r->out, " and");
	if (np)
		fprintf(r->out, " %s µs through a pipe", ab_r_num(b, sizeof(b), pi));
	if (nl && line > 0) {
		double x = (nf ? fu : pi) * 1e3 / line;
		fprintf(r->out, ", %sx the cache-line round trip (%s ns): %s", ab_r_num(c, sizeof(c), x),
			ab_r_num(a, sizeof(a), line),
			x >= 10 ? "nearly all of a handoff's cost here is waking the other side, not "
				  "moving its data" :
			x >= 1 ? "moving the data is a visible part of a handoff's cost here" :
				 "a spin slower than a sleep means a spinning side lost its CPU to other "
				 "work, so the cache-line figures are not the hardware's here");
	}
	fprintf(r->out, ".");
}

static void reading(struct ab_render *r)
{
	char rest[MAX_SETTINGS][AB_CONFIG_LEN];
	int nrest = settings(r, rest, MAX_SETTINGS);

	if (!nrest)
		return;
	for (int k = 0; k < nrest; k++) {	/* a paragraph per setting */
		if (nrest > 1)
			fprintf(r->out, "With %s: ", rest[k][0] ? rest[k] : "the idle policy as found");
		read_line(r, rest[k]);
		read_wake(r, rest[k]);
		fprintf(r->out, "\n\n");
	}
}

/* The place in topology order recorded under key, or -1 when it is not one. */
static int pos_of(const char *config, const char *key)
{
	char buf[32], *end;
	long v = strtol(ab_cfg_get(config, key, buf, sizeof(buf)), &end, 10);

	return buf[0] && !*end && v >= 0 && v < AB_HEAT_MAX ? (int)v : -1;
}

static int cpu_of(const char *config, const char *key)
{
	char buf[32], *end;
	long v = strtol(ab_cfg_get(config, key, buf, sizeof(buf)), &end, 10);

	return buf[0] && !*end && v >= 0 && v < AB_MAX_CPUS ? (int)v : -1;
}

/* Is g a record of method m under setting rest, at places *pa, *pb in the matrix? */
static int cell(const struct ab_render *r, const struct ab_group *g, int m, const char *rest,
		int *pa, int *pb)
{
	char buf[AB_CONFIG_LEN];

	*pa = pos_of(g->config, CP_K_POS_A);
	*pb = pos_of(g->config, CP_K_POS_B);
	return mine(r, g, meth[m].metric) && *pa >= 0 && *pb >= 0 && !strcmp(g->unit, meth[m].unit) &&
	       !strcmp(rest_of(g->config, buf, sizeof(buf)), rest);
}

/* The matrix of method m under setting k (rest); named NAME, or NAME_K past the first. */
static void heatmap(struct ab_render *r, int m, int k, const char *rest)
{
	struct ab_heat h;
	int n = 0, pa, pb;
	char title[AB_CONFIG_LEN + 96], unit[48], name[64];

	for (size_t i = 0; i < r->res->n; i++)
		if (cell(r, &r->res->g[i], m, rest, &pa, &pb))
			n = pa >= n ? pa + 1 : pb >= n ? pb + 1 : n;
	if (n == 0 || ab_heat_init(&h, n) < 0)
		return;
	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		if (!cell(r, g, m, rest, &pa, &pb))
			continue;
		h.v[(size_t)pa * (size_t)n + (size_t)pb] = ab_r_median(g);
		h.label[pa] = cpu_of(g->config, CP_K_A);
		h.label[pb] = cpu_of(g->config, CP_K_B);
	}
	snprintf(title, sizeof(title), "cpupair: %s, CPUs in topology order%s%.300s", meth[m].what,
		 rest[0] ? ", " : "", rest);
	snprintf(unit, sizeof(unit), "%s (%s, median)", meth[m].metric, meth[m].unit);
	if (k)
		snprintf(name, sizeof(name), "%s_%d", meth[m].fig, k + 1);
	else
		snprintf(name, sizeof(name), "%s", meth[m].fig);
	ab_heat_plot(r, &h, name, title, "answering CPU (b)", "pinging CPU (a)", unit);
	ab_heat_free(&h);
}

static void plots(struct ab_render *r)
{
	char rest[MAX_SETTINGS][AB_CONFIG_LEN];
	int nrest = settings(r, rest, MAX_SETTINGS);

	for (int k = 0; k < nrest; k++)
		for (int m = 0; m < CP_NMETHOD; m++)
			heatmap(r, m, k, rest[k]);
}

static const char *const headline[] = { CP_M_LINE, CP_M_FUTEX, CP_M_PIPE, NULL };
/* Units and directions: round trips, lower is better. */
static const struct ab_metric_desc metrics[] = {
	{ CP_M_LINE, "ns", 1 }, { CP_M_FUTEX, "us", 1 }, { CP_M_PIPE, "us", 1 }, { NULL, NULL, 0 },
};

const struct ab_bench_desc ab_desc_cpupair = {
	.name = "cpupair",
	.question = "what a handoff between two CPUs costs",
	.post = "",
	.headline = headline,
	.duration_each = 1,
	.metrics = metrics,
	.op = "one futex round trip, on the pair's two CPUs (futex windows only)",
	.tables = tables,
	.reading = reading,
	.plots = plots,
};
