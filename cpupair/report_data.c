// SPDX-License-Identifier: GPL-2.0
/*
 * What cpupair's report reads from the records, shared by its files (report_i.h):
 * the metrics table (the descriptor's, which main.c records by), the methods, the
 * classes, and the selectors and medians over pairs. They call only lib/, so the
 * report's files form no circle.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/reading.h"
#include "render/render.h"
#include "render/desc.h"
#include "cpupair.h"
#include "report_i.h"

/* Units and directions: round trips, lower is better. */
const struct ab_metric_desc cp_metrics[CP_NM + 1] = {
	[CP_LINE] = { CP_M_LINE, "ns", 1 },
	[CP_FUTEX] = { CP_M_FUTEX, "us", 1 },
	[CP_PIPE] = { CP_M_PIPE, "us", 1 },
	[CP_FUTEX_SLEPT] = { CP_M_FUTEX_SLEPT, "%", 0 },
	[CP_PIPE_SLEPT] = { CP_M_PIPE_SLEPT, "%", 0 },
	[CP_LINE_INVOL] = { CP_M_LINE_INVOL, "1", 1 },
	[CP_LINE_WAIT] = { CP_M_LINE_WAIT, "%", 1 },
	[CP_NM] = { NULL, NULL, 0 },
};
const struct cp_meth cp_meth[CP_NMETHOD] = {
	[CP_LINE] = { "cache-line round trip", "cpupair_line", -1 },
	[CP_FUTEX] = { "futex wake-up round trip", "cpupair_futex", CP_FUTEX_SLEPT },
	[CP_PIPE] = { "pipe wake-up round trip", "cpupair_pipe", CP_PIPE_SLEPT },
};

const char *const cp_classes[CP_NCLASS] = { CP_CLASS_SAME, "smt", "llc", "cross-llc",
					    "cross-node", CP_CLASS_UNKNOWN };
const char *const cp_where[CP_NCLASS] = {
	"on one CPU (a CPU with itself)", "between SMT siblings", "within one LLC",
	"across LLCs of one node", "across NUMA nodes",
	"between CPUs whose cache relation is unknown (no cache topology in sysfs)",
};

int cp_mine(const struct ab_render *r, const struct ab_group *g, const char *metric)
{
	return !strcmp(g->bench, r->desc->name) && !strcmp(g->metric, metric) && g->n > 0;
}

/* The median of metric k of g's config; NAN when not recorded. */
static double median_of(const struct ab_render *r, const struct ab_group *g, int k)
{
	const struct ab_metric_desc *m = &cp_metrics[k];
	const struct ab_group *x = ab_results_get(r->res, r->desc->name, g->config, m->name,
						  m->unit);

	return x && x->n ? ab_r_median(x) : NAN;
}

int cp_flagged(const struct ab_render *r, const struct ab_group *g)
{
	if (strcmp(g->metric, CP_M_LINE))
		return 0;
	return cp_line_disturbed(median_of(r, g, CP_LINE_WAIT), median_of(r, g, CP_LINE_INVOL)) ||
	       ab_r_median(g) > CP_DESCHED_SHARE * median_of(r, g, CP_FUTEX) * 1000;
}

/* The config without the pair's keys: the setting the pair was measured under
 * ("" alone, "idle=poll" when a plan sweeps more), one matrix per setting. */
const char *cp_rest_of(const char *config, char *buf, size_t len)
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
int cp_settings(const struct ab_render *r, char rest[][AB_CONFIG_LEN], int max)
{
	char buf[AB_CONFIG_LEN];
	int n = 0;

	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		int m, seen = 0;
		for (m = 0; m < CP_NMETHOD && !cp_mine(r, g, cp_metrics[m].name); m++)
			;
		if (m == CP_NMETHOD)
			continue;
		cp_rest_of(g->config, buf, sizeof(buf));
		for (int k = 0; k < n && !seen; k++)
			seen = !strcmp(rest[k], buf);
		if (!seen && n < max)
			snprintf(rest[n++], sizeof(rest[0]), "%s", buf);
	}
	return n;
}

double cp_class_median(const struct ab_render *r, const char *metric, const char *rest,
		       const char *cls, int *npairs)
{
	double *m = malloc(sizeof(*m) * (r->res->n ? r->res->n : 1)), v = NAN;
	size_t n = 0;
	char buf[32], rbuf[AB_CONFIG_LEN];

	for (size_t i = 0; m && i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		if (!cp_mine(r, g, metric) || cp_flagged(r, g) ||
		    strcmp(cp_rest_of(g->config, rbuf, sizeof(rbuf)), rest))
			continue;
		ab_cfg_get(g->config, CP_K_CLASS, buf, sizeof(buf));
		if (cls ? !strcmp(buf, cls) : !!strcmp(buf, CP_CLASS_SAME))
			m[n++] = ab_r_median(g);
	}
	if (n)
		v = ab_median(m, n);
	free(m);
	*npairs = (int)n;
	return v;
}

int cp_line_recorded(const struct ab_render *r, const char *rest, const char *cls)
{
	char buf[AB_CONFIG_LEN], c[32];

	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		if (cp_mine(r, g, CP_M_LINE) && !strcmp(cp_rest_of(g->config, buf, sizeof(buf)), rest) &&
		    (!cls || !strcmp(ab_cfg_get(g->config, CP_K_CLASS, c, sizeof(c)), cls)))
			return 1;
	}
	return 0;
}
