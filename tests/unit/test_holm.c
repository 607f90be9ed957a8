// SPDX-License-Identifier: GPL-2.0
/*
 * Multiple comparisons (lib/record/holm.c): Holm-Bonferroni adjusted p-values
 * against R's p.adjust(p, method = "holm"), worked by hand below, and the
 * bootstrap p-value of a ratio of medians (lib/record/ratio_ci.c) at its
 * known ends: identical samples give 1, samples that do not overlap give 0.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "record/stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAXP 8

struct holm_case {
	const char *name;
	size_t n;
	double p[MAXP], want[MAXP];	/* want NAN: must be NAN */
	long counted;
};

/* sorted p, times (m - j), running maximum, capped at 1 */
static const struct holm_case holm_cases[] = {
	{ "one p: unchanged", 1, { 0.03 }, { 0.03 }, 1 },
	{ "R's example order", 4, { 0.01, 0.04, 0.03, 0.005 }, { 0.03, 0.06, 0.06, 0.02 }, 4 },
	/* 0.001*3 = 0.003, 0.02*2 = 0.04, 0.04*1 = 0.04 */
	{ "three", 3, { 0.04, 0.001, 0.02 }, { 0.04, 0.003, 0.04 }, 3 },
	/* monotone: 0.01*3 = 0.03, 0.011*2 = 0.022 -> 0.03, 0.5 */
	{ "running maximum", 3, { 0.011, 0.01, 0.5 }, { 0.03, 0.03, 0.5 }, 3 },
	{ "capped at 1", 2, { 0.6, 0.7 }, { 1, 1 }, 2 },
	/* NAN: not judged, left out of the count: 2 comparisons, not 3 */
	{ "NAN left out", 3, { 0.02, NAN, 0.01 }, { 0.02, NAN, 0.02 }, 2 },
	{ "ties keep their order", 2, { 0.01, 0.01 }, { 0.02, 0.02 }, 2 },
	{ "zeros stay 0", 3, { 0, 0.2, 0 }, { 0, 0.2, 0 }, 3 },
	{ "nothing", 0, { 0 }, { 0 }, 0 },
};

static void test_holm(void **state)
{
	(void)state;
	for (size_t c = 0; c < N(holm_cases); c++) {
		const struct holm_case *t = &holm_cases[c];
		double adj[MAXP];
		long m = ab_holm(t->p, t->n, adj);
		if (m != t->counted)
			fail_msg("%s: counted %ld, want %ld", t->name, m, t->counted);
		for (size_t i = 0; i < t->n; i++) {
			if (isnan(t->want[i]) ? !isnan(adj[i]) : !(fabs(adj[i] - t->want[i]) < 1e-12))
				fail_msg("%s: adj[%zu] = %.17g, want %.17g", t->name, i, adj[i],
					 t->want[i]);
		}
		double in[MAXP];	/* adjusted in place, adj == p: the same */
		memcpy(in, t->p, sizeof(in));
		assert_int_equal(ab_holm(in, t->n, in), t->counted);
		for (size_t i = 0; i < t->n; i++)
			if (isnan(adj[i]) ? !isnan(in[i]) : in[i] != adj[i])
				fail_msg("%s in place: adj[%zu] = %.17g, want %.17g", t->name, i,
					 in[i], adj[i]);
	}
}

/* Holm steps down: of 0.01, 0.02, 0.03 it rejects all three at 0.05 (0.01 x 3 = 0.03,
 * 0.02 x 2 = 0.04, 0.03 x 1 raised to 0.04), where Bonferroni (x 3) keeps only 0.01. */
static void test_holm_step_down(void **state)
{
	double p[] = { 0.01, 0.02, 0.03 }, adj[3];
	(void)state;
	assert_int_equal(ab_holm(p, 3, adj), 3);
	for (int i = 0; i < 3; i++)
		assert_true(adj[i] <= 0.05);
	assert_true(p[2] * 3 > 0.05);	/* Bonferroni would not reject it */
}

struct pv_case {
	const char *name;
	size_t na, nb;
	double a[16], b[16];
	double lo, hi;	/* the p-value lies in [lo, hi] */
};

static const struct pv_case pv_cases[] = {
	{ "identical samples: p = 1", 6, 6, { 1, 2, 3, 4, 5, 6 }, { 1, 2, 3, 4, 5, 6 }, 1, 1 },
	{ "a all above b: p = 0", 6, 6, { 10, 11, 12, 13, 14, 15 }, { 1, 2, 3, 4, 5, 6 }, 0, 0 },
	{ "a all below b: p = 0", 6, 6, { 1, 2, 3, 4, 5, 6 }, { 10, 11, 12, 13, 14, 15 }, 0, 0 },
	{ "overlapping: strictly between", 6, 6, { 1, 2, 3, 4, 5, 6 }, { 2, 3, 4, 5, 6, 7 }, 0.05, 0.999 },
	/* sampled bootstrap (n > 12): never an honest 0, (0 + 1) / 2001 * 2 */
	{ "sampled, no overlap: 2/2001", 13, 13, { 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 },
	  { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 }, 2.0 / 2001 - 1e-12, 2.0 / 2001 + 1e-12 },
};

static void test_ratio_p(void **state)
{
	(void)state;
	for (size_t c = 0; c < N(pv_cases); c++) {
		const struct pv_case *t = &pv_cases[c];
		struct ab_ci ci;
		double p;
		if (ab_ratio_ci_p(t->a, t->na, t->b, t->nb, 0.95, &ci, &p) < 0)
			fail_msg("%s: failed", t->name);
		if (!(p >= t->lo && p <= t->hi))
			fail_msg("%s: p = %.17g, want [%g, %g]", t->name, p, t->lo, t->hi);
		/* the 95% CI excludes 1 exactly when p < 0.05 */
		int excl = ci.lo > 1 || ci.hi < 1;
		if (excl != (p < 0.05))
			fail_msg("%s: CI [%g, %g] and p = %g disagree", t->name, ci.lo, ci.hi, p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_holm_step_down),
		cmocka_unit_test(test_ratio_p),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
