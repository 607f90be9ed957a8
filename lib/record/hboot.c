// SPDX-License-Identifier: GPL-2.0
/*
 * The two-level bootstrap of a median and of a ratio of two medians; the
 * method and its limits are described in hboot.h.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/hboot.h"

struct pair {
	int inv;
	double x;
};

/* A sample grouped by invocation: invocation i's windows are x[start[i] .. start[i] + len[i]). */
struct grouped {
	size_t k, wmax;
	size_t *start, *len;
	double *x;
};

static int cmp_pair(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;

	return (a->inv > b->inv) - (a->inv < b->inv);
}

static void grouped_free(struct grouped *g)
{
	free(g->start);
	free(g->len);
	free(g->x);
}

static int grouped_build(const struct ab_levels *s, struct grouped *g)
{
	struct pair *p;

	*g = (struct grouped){ 0 };
	if (!s->n || !s->x || !s->inv) {
		errno = EINVAL;
		return -1;
	}
	p = malloc(s->n * sizeof(*p));
	g->start = malloc(s->n * sizeof(*g->start));
	g->len = malloc(s->n * sizeof(*g->len));
	g->x = malloc(s->n * sizeof(*g->x));
	if (!p || !g->start || !g->len || !g->x) {
		free(p);
		grouped_free(g);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < s->n; i++)
		p[i] = (struct pair){ s->inv[i], s->x[i] };
	qsort(p, s->n, sizeof(*p), cmp_pair);
	for (size_t i = 0; i < s->n; i++) {
		g->x[i] = p[i].x;
		if (i == 0 || p[i].inv != p[i - 1].inv) {
			g->start[g->k] = i;
			g->len[g->k++] = 0;
		}
		if (++g->len[g->k - 1] > g->wmax)
			g->wmax = g->len[g->k - 1];
	}
	free(p);
	return 0;
}

/* The median of one two-level resample of g; buf: k x wmax slots. */
static double resample_median(const struct grouped *g, double *buf, uint64_t *rng)
{
	size_t m = 0;

	for (size_t i = 0; i < g->k; i++) {
		size_t j = ab_boot_draw(rng, g->k);
		for (size_t w = 0; w < g->len[j]; w++)
			buf[m++] = g->x[g->start[j] + ab_boot_draw(rng, g->len[j])];
	}
	return ab_boot_median(buf, m);
}

static int check_args(const struct ab_levels *s, double level, struct grouped *g)
{
	if (!(level > 0 && level < 1)) {
		errno = EINVAL;
		return -1;
	}
	if (s->n > AB_BOOT_MAX_N) {
		errno = E2BIG;
		return -1;
	}
	if (grouped_build(s, g) < 0)
		return -1;
	if (g->k < 2) {
		grouped_free(g);
		errno = EDOM;
		return -1;
	}
	return 0;
}

int ab_hboot_median_ci(const struct ab_levels *s, double level, struct ab_ci *ci)
{
	struct grouped g;
	uint64_t rng = AB_BOOT_SEED;

	ci->lo = ci->hi = ci->level = NAN;
	if (check_args(s, level, &g) < 0)
		return -1;
	double *buf = malloc(g.k * g.wmax * sizeof(*buf));
	double *med = malloc(AB_BOOT_RESAMPLES * sizeof(*med));
	int ret = -1;
	if (!buf || !med) {
		errno = ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < AB_BOOT_RESAMPLES; i++)
		med[i] = resample_median(&g, buf, &rng);
	ab_boot_ci(med, level, ci, NULL);
	ret = 0;
out:
	free(buf);
	free(med);
	grouped_free(&g);
	return ret;
}

static int ratio_resamples(const struct grouped *ga, const struct grouped *gb, double *ratio)
{
	double *ba = malloc(ga->k * ga->wmax * sizeof(*ba));
	double *bb = malloc(gb->k * gb->wmax * sizeof(*bb));
	uint64_t rng = AB_BOOT_SEED;
	int ret = -1;

	errno = ENOMEM;
	for (size_t i = 0; ba && bb && i < AB_BOOT_RESAMPLES; i++) {
		double ma = resample_median(ga, ba, &rng), mb = resample_median(gb, bb, &rng);
		if (mb == 0) {	/* a resample whose median of b is 0 has no ratio */
			errno = EDOM;
			goto out;
		}
		ratio[i] = ma / mb;
	}
	ret = ba && bb ? 0 : -1;
out:
	free(ba);
	free(bb);
	return ret;
}

int ab_hboot_ratio_ci(const struct ab_levels *a, const struct ab_levels *b, double level,
		      struct ab_ci *ci, double *p)
{
	struct grouped ga, gb;
	int ret = -1;

	*p = ci->lo = ci->hi = ci->level = NAN;
	if (check_args(a, level, &ga) < 0)
		return -1;
	if (check_args(b, level, &gb) < 0) {
		grouped_free(&ga);
		return -1;
	}
	double *ratio = malloc(AB_BOOT_RESAMPLES * sizeof(*ratio));
	if (!ratio)
		errno = ENOMEM;
	else if (ratio_resamples(&ga, &gb, ratio) == 0) {
		ab_boot_ci(ratio, level, ci, p);
		ret = 0;
	}
	free(ratio);
	grouped_free(&ga);
	grouped_free(&gb);
	return ret;
}
