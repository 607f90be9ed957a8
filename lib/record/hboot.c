// SPDX-License-Identifier: GPL-2.0
/*
 * The two-level bootstrap of a median and of a ratio of two medians; the
 * method and its limits are described in hboot.h.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

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

/* AB_BOOT_RESAMPLES resampled medians of ga into v, or (gb not NULL) ratios of ga's to
 * gb's, the two resampled independently. 0, or -1 with errno (ENOMEM, EDOM). */
static int resamples(const struct grouped *ga, const struct grouped *gb, double *v)
{
	double *ba = malloc(ga->k * ga->wmax * sizeof(*ba));
	double *bb = gb ? malloc(gb->k * gb->wmax * sizeof(*bb)) : NULL;
	uint64_t rng = AB_BOOT_SEED;
	int ret = -1;

	if (!ba || (gb && !bb)) {
		errno = ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < AB_BOOT_RESAMPLES; i++) {
		v[i] = resample_median(ga, ba, &rng);
		if (!gb)
			continue;
		double mb = resample_median(gb, bb, &rng);
		if (mb == 0) {	/* a resample whose median of b is 0 has no ratio */
			errno = EDOM;
			goto out;
		}
		v[i] /= mb;
	}
	ret = 0;
out:
	free(ba);
	free(bb);
	return ret;
}

/* The CI of a's median, or (b not NULL) of median(a) / median(b) with its p. */
static int hboot_ci(const struct ab_levels *a, const struct ab_levels *b, double level,
		    struct ab_ci *ci, double *p)
{
	struct grouped ga, gb = { 0 };
	int ret = -1;

	ci->lo = ci->hi = ci->level = NAN;
	if (check_args(a, level, &ga) < 0)
		return -1;
	if (b && check_args(b, level, &gb) < 0) {
		grouped_free(&ga);
		return -1;
	}
	double *v = malloc(AB_BOOT_RESAMPLES * sizeof(*v));
	if (!v)
		errno = ENOMEM;
	else if (resamples(&ga, b ? &gb : NULL, v) == 0) {
		ab_boot_ci(v, level, ci, p);
		ret = 0;
	}
	free(v);
	grouped_free(&ga);
	grouped_free(&gb);
	return ret;
}

int ab_hboot_median_ci(const struct ab_levels *s, double level, struct ab_ci *ci)
{
	return hboot_ci(s, NULL, level, ci, NULL);
}

int ab_hboot_ratio_ci(const struct ab_levels *a, const struct ab_levels *b, double level,
		      struct ab_ci *ci, double *p)
{
	*p = NAN;
	return hboot_ci(a, b, level, ci, p);
}
