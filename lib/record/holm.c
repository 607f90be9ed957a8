// SPDX-License-Identifier: GPL-2.0
/*
 * Holm-Bonferroni adjusted p-values (stats.h): many ratios compared at once
 * make some "significant" by chance; Holm's step-down keeps the chance of any
 * false verdict at alpha, uniformly more powerful than plain Bonferroni and
 * valid whatever the dependence between the comparisons (configs of one run
 * share a machine, so they are not independent).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "record/stats.h"

struct idx {
	double p;
	size_t i;
};

static int cmp_idx(const void *pa, const void *pb)
{
	const struct idx *a = pa, *b = pb;
	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	return (a->i > b->i) - (a->i < b->i);	/* ties in input order: results repeat */
}

long ab_holm(const double *p, size_t n, double *adj)
{
	struct idx *s = malloc((n ? n : 1) * sizeof(*s));
	size_t m = 0;

	if (!s) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isnan(p[i]))
			s[m++] = (struct idx){ p[i], i };
		adj[i] = NAN;	/* after p[i] is read: adj may be p */
	}
	qsort(s, m, sizeof(*s), cmp_idx);
	double run = 0;	/* running maximum: adjusted p-values never fall down the order */
	for (size_t j = 0; j < m; j++) {
		double a = (double)(m - j) * s[j].p;
		if (a > 1)
			a = 1;
		if (a > run)
			run = a;
		adj[s[j].i] = run;
	}
	free(s);
	return (long)m;
}
