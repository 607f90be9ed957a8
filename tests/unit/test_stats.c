// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/stats.c against values worked out by hand: type-7 percentiles, sample
 * stddev (also far from zero), binomial coverage of order-statistic CIs of the
 * median and the sign test (sums of C(n, i) / 2^n). The ratio CI and histogram: test_stats_ratio.c.
 */
#include "stats_fx.h"

/* --- percentiles (type 7: h = (n-1) p / 100, linear between neighbours) --- */

static const struct {
	struct sample s;
	double p, want;
} pct_cases[] = {
	{ { "1..4", 4, { 4, 1, 3, 2 } }, 50, 2.5 },
	{ { "1..4", 4, { 4, 1, 3, 2 } }, 25, 1.75 },	/* h = 0.75 */
	{ { "1..4", 4, { 4, 1, 3, 2 } }, 75, 3.25 },	/* h = 2.25 */
	{ { "1..4", 4, { 4, 1, 3, 2 } }, 90, 3.7 },	/* h = 2.7 */
	{ { "1..4", 4, { 4, 1, 3, 2 } }, 0, 1 },
	{ { "1..4", 4, { 4, 1, 3, 2 } }, 100, 4 },
	{ { "five", 5, { 40, 15, 50, 20, 35 } }, 40, 29 },	/* h = 1.6: 20 + 0.6 * 15 */
	{ { "five", 5, { 40, 15, 50, 20, 35 } }, 10, 17 },	/* h = 0.4: 15 + 0.4 * 5 */
	{ { "five", 5, { 40, 15, 50, 20, 35 } }, 99, 49.6 },	/* h = 3.96: 40 + 0.96 * 10 */
	{ { "five", 5, { 40, 15, 50, 20, 35 } }, 50, 35 },
	{ { "one", 1, { 7 } }, 0, 7 },
	{ { "one", 1, { 7 } }, 63, 7 },
	{ { "one", 1, { 7 } }, 100, 7 },
	{ { "ties", 4, { 2, 2, 2, 9 } }, 50, 2 },
	{ { "bad p", 4, { 4, 1, 3, 2 } }, -1, NAN },
	{ { "bad p", 4, { 4, 1, 3, 2 } }, 100.5, NAN },
	{ { "bad p", 4, { 4, 1, 3, 2 } }, NAN, NAN },
	{ { "empty", 0, { 0 } }, 50, NAN },
};

static void test_percentile(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(pct_cases); i++) {
		double before[MAXN];
		char what[64];

		memcpy(before, pct_cases[i].s.x, sizeof(before));
		snprintf(what, sizeof(what), "percentile %s p%g", pct_cases[i].s.name, pct_cases[i].p);
		check_close(what, ab_percentile(pct_cases[i].s.x, pct_cases[i].s.n, pct_cases[i].p),
			    pct_cases[i].want, 1e-12);
		/* the input is left untouched (not sorted in place) */
		assert_memory_equal(before, pct_cases[i].s.x, sizeof(before));
	}
}

/* --- median, mean, stddev, cv, min, max --- */

static const struct {
	struct sample s;
	double median, mean, stddev, cv, min, max;
} moment_cases[] = {
	{ { "1..4", 4, { 1, 2, 3, 4 } }, 2.5, 2.5, 1.2909944487358056, 0.5163977794943222, 1, 4 },
	/* deviations from 5: -3 -1 -1 -1 0 0 2 4, sum of squares 32, var 32/7 */
	{ { "classic", 8, { 2, 4, 4, 4, 5, 5, 7, 9 } }, 4.5, 5, 2.138089935299395,
	  0.427617987059879, 2, 9 },
	{ { "odd", 3, { 3, 1, 2 } }, 2, 2, 1, 0.5, 1, 3 },
	{ { "negative", 2, { -1, -3 } }, -2, -2, 1.4142135623730951, -0.7071067811865476, -3, -1 },
	{ { "constant", 3, { 10, 10, 10 } }, 10, 10, 0, 0, 10, 10 },
	{ { "mean 0", 2, { -1, 1 } }, 0, 0, 1.4142135623730951, NAN, -1, 1 },
	/* one value: no sample stddev */
	{ { "one", 1, { 5 } }, 5, 5, NAN, NAN, 5, 5 },
	{ { "empty", 0, { 0 } }, NAN, NAN, NAN, NAN, NAN, NAN },
};

static void test_moments(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(moment_cases); i++) {
		const struct sample *s = &moment_cases[i].s;
		struct ab_summary sum;
		char what[64];

#define CHECK(field, fn)                                                              \
	do {                                                                          \
		snprintf(what, sizeof(what), "%s %s", #field, s->name);               \
		check_close(what, fn(s->x, s->n), moment_cases[i].field, 1e-12);      \
		snprintf(what, sizeof(what), "summary %s %s", #field, s->name);       \
		check_close(what, sum.field, moment_cases[i].field, 1e-12);           \
	} while (0)
		ab_summarize(s->x, s->n, &sum);
		assert_int_equal(sum.n, s->n);
		CHECK(median, ab_median);
		CHECK(mean, ab_mean);
		CHECK(stddev, ab_stddev);
		CHECK(cv, ab_cv);
		CHECK(min, ab_min);
		CHECK(max, ab_max);
#undef CHECK
	}
}

/* The two-pass stddev keeps every digit where a naive sum of squares loses them all. */
static void test_stddev_offset(void **state)
{
	static const double x[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4, 1e9 + 5 };

	(void)state;
	/* 1..5 has sample stddev sqrt(2.5) */
	check_close("offset by hand", ab_stddev(x, N(x)), sqrt(2.5), 1e-6);
}

/* --- distribution-free CI of the median --- */

/* 1..n in a scrambled order (k * 7 mod n is a permutation when gcd(7, n) = 1). */
static double *scrambled(size_t n)
{
	double *x = malloc(n * sizeof(*x));

	assert_non_null(x);
	for (size_t i = 0; i < n; i++)
		x[i] = (double)((i * 7) % n + 1);
	return x;
}

static const struct {
	size_t n;
	double level;
	double lo, hi, reached;
} mci_cases[] = {
	/* n = 5: even [min, max] reaches only 1 - 2/32 < 0.95 */
	{ 5, 0.95, 1, 5, 0.9375 },
	/* n = 6: [min, max] = 1 - 2/64; x(2), x(5) would be 1 - 2 * 7/64 = 0.78 */
	{ 6, 0.95, 1, 6, 0.96875 },
	/* n = 20: sum C(20, i), i = 0..5 = 21700; 1 - 2 * 21700 / 2^20. k = 7 adds 38760: 0.885 */
	{ 20, 0.95, 6, 15, 0.95861053466796875 },
	/* n = 10 at 90%: k = 2 gives 1 - 2 * 11/1024; k = 3 gives 1 - 2 * 56/1024 = 0.89 */
	{ 10, 0.90, 2, 9, 0.978515625 },
	/* n = 1: the single value, no coverage at all */
	{ 1, 0.95, 1, 1, 0 },
	/* n = 2: [min, max] covers with 1/2 */
	{ 2, 0.95, 1, 2, 0.5 },
};

static void test_median_ci(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(mci_cases); i++) {
		double *x = scrambled(mci_cases[i].n);
		struct ab_ci ci;
		char what[64];

		snprintf(what, sizeof(what), "median ci n=%zu", mci_cases[i].n);
		assert_int_equal(ab_median_ci(x, mci_cases[i].n, mci_cases[i].level, &ci), 0);
		check_close(what, ci.lo, mci_cases[i].lo, 0);
		check_close(what, ci.hi, mci_cases[i].hi, 0);
		check_close(what, ci.level, mci_cases[i].reached, 1e-12);
		free(x);
	}
}

/* Large n: 2^-n underflows a naive pmf; the CI must still be ~ median +- 1.96 sqrt(n)/2. */
static void test_median_ci_large(void **state)
{
	const size_t n = 2001;
	double *x = scrambled(n);
	struct ab_ci ci;

	(void)state;
	assert_int_equal(ab_median_ci(x, n, 0.95, &ci), 0);
	assert_true(ci.level >= 0.95 && ci.level < 0.96);
	/* median 1001, half-width about 1.96 * sqrt(2001) / 2 = 43.8 ranks */
	assert_true(ci.lo >= 1001 - 46 && ci.lo <= 1001 - 42);
	assert_true(ci.hi <= 1001 + 46 && ci.hi >= 1001 + 42);
	assert_true(1001 - ci.lo == ci.hi - 1001);
	free(x);
}

static void test_median_ci_errors(void **state)
{
	static const struct {
		size_t n;
		double level;
	} bad[] = { { 0, 0.95 }, { 5, 0 }, { 5, 1 }, { 5, -0.5 }, { 5, NAN } };
	double x[5] = { 1, 2, 3, 4, 5 };

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		struct ab_ci ci = { 0, 0, 0 };

		assert_int_equal(ab_median_ci(x, bad[i].n, bad[i].level, &ci), -1);
		assert_true(isnan(ci.lo) && isnan(ci.hi) && isnan(ci.level));
	}
}

/* A median's relative half-width at the level asked: of 1..9 (median 5), the 95% CI is
 * the 2nd to the 8th value (+-60%), the 97.5% one the whole range (+-80%); 6 values
 * reach no 97.5% pair. */
static void test_median_ci_rel_level(void **state)
{
	double x[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, w;
	struct ab_ci ci;

	(void)state;
	assert_int_equal(ab_median_ci_rel(x, 9, 0.95, &ci, &w), 0);
	check_close("95% half-width", w, 0.6, 1e-12);
	assert_int_equal(ab_median_ci_rel(x, 9, 0.975, &ci, &w), 0);
	check_close("97.5% half-width", w, 0.8, 1e-12);
	assert_int_equal(ab_median_ci_rel(x, 6, 0.975, &ci, &w), -1);
}

/* The sign test: twice the smaller binomial(n, 1/2) tail, at most 1 (sums of C(n, i) / 2^n). */
static void test_sign_p(void **state)
{
	static const struct {
		size_t below, above;
		double want;
	} cases[] = {
		{ 0, 10, 2.0 / 1024 },		/* all above: 2 x 1 / 2^10 */
		{ 10, 0, 2.0 / 1024 },		/* symmetric */
		{ 3, 7, 2 * 176.0 / 1024 },	/* 1 + 10 + 45 + 120 = 176 */
		{ 5, 5, 1 },			/* 2 x 638 / 1024, capped at 1 */
		{ 1, 0, 1 },
		{ 0, 12, 2.0 / 4096 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		check_close("sign p", ab_sign_p(cases[i].below, cases[i].above), cases[i].want,
			    1e-12);
}

static void test_sign_p_none(void **state)
{
	(void)state;
	assert_true(isnan(ab_sign_p(0, 0)));	/* no vote: no test */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_moments),
		cmocka_unit_test(test_stddev_offset),
		cmocka_unit_test(test_median_ci),
		cmocka_unit_test(test_median_ci_large),
		cmocka_unit_test(test_median_ci_errors),
		cmocka_unit_test(test_median_ci_rel_level),
		cmocka_unit_test(test_sign_p),
		cmocka_unit_test(test_sign_p_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
