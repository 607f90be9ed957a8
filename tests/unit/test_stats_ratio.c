// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/stats.c: the bootstrap CI of a ratio of medians (hand-worked cases,
 * brute-force medians, large-n bounds, errors) and the log2 histogram (buckets,
 * relative error, percentiles).
 */
#include "stats_fx.h"

/* --- bootstrap CI of a ratio of medians --- */

/* The interval alone (the p-value has tests of its own). */
static int ratio_ci(const double *a, size_t na, const double *b, size_t nb, double level,
		    struct ab_ci *ci)
{
	double p;

	return ab_ratio_ci_p(a, na, b, nb, level, ci, &p);
}

static const struct {
	const char *name;
	struct sample a, b;
	double ratio;	/* true ratio of medians */
	int exact;	/* constant samples: the CI collapses onto the ratio */
} ratio_cases[] = {
	{ "constants", { "a", 5, { 10, 10, 10, 10, 10 } }, { "b", 4, { 5, 5, 5, 5 } }, 2, 1 },
	{ "constants <1", { "a", 3, { 3, 3, 3 } }, { "b", 6, { 12, 12, 12, 12, 12, 12 } }, 0.25, 1 },
	{ "scaled", { "a", 10, { 2, 4, 6, 8, 10, 12, 14, 16, 18, 20 } },
	  { "b", 10, { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 } }, 2, 0 },
	{ "noisy", { "a", 8, { 101, 99, 103, 98, 100, 102, 97, 100 } },
	  { "b", 8, { 50, 51, 49, 50, 52, 48, 50, 50 } }, 2, 0 },
};

static void test_ratio_ci(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(ratio_cases); i++) {
		const struct sample *a = &ratio_cases[i].a, *b = &ratio_cases[i].b;
		struct ab_ci c1, c2;

		assert_int_equal(ratio_ci(a->x, a->n, b->x, b->n, 0.95, &c1), 0);
		assert_int_equal(ratio_ci(a->x, a->n, b->x, b->n, 0.95, &c2), 0);
		/* fixed seed: the same inputs give the same interval, bit for bit */
		assert_memory_equal(&c1, &c2, sizeof(c1));
		check_close(ratio_cases[i].name, c1.level, 0.95, 0);
		if (!(c1.lo <= ratio_cases[i].ratio && ratio_cases[i].ratio <= c1.hi))
			fail_msg("%s: [%g, %g] misses %g", ratio_cases[i].name, c1.lo, c1.hi,
				 ratio_cases[i].ratio);
		if (ratio_cases[i].exact) {
			check_close(ratio_cases[i].name, c1.lo, ratio_cases[i].ratio, 1e-15);
			check_close(ratio_cases[i].name, c1.hi, ratio_cases[i].ratio, 1e-15);
		} else {
			/* a real spread, and narrower at 50% than at 95% */
			struct ab_ci c50;

			assert_true(c1.lo < c1.hi);
			assert_int_equal(ratio_ci(a->x, a->n, b->x, b->n, 0.5, &c50), 0);
			assert_true(c50.lo >= c1.lo && c50.hi <= c1.hi);
			assert_true(c50.hi - c50.lo < c1.hi - c1.lo);
		}
	}
}

/*
 * Up to 12 values the bootstrap distribution is computed exactly: it must be
 * what resampling converges to. Brute force here, 200,000 resamples of both
 * samples: the exact 2.5% and 97.5% quantiles fall within the brute force's
 * 2.0-3.0% and 97.0-98.0% quantiles, for odd and even sizes alike.
 */
static int cmp_d(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

static double brute_median(const double *x, size_t n, unsigned *seed)
{
	double r[16];

	for (size_t i = 0; i < n; i++)
		r[i] = x[(size_t)rand_r(seed) % n];
	return ab_median(r, n);
}

static void test_ratio_ci_exact(void **state)
{
	enum { DRAWS = 200000 };
	static const double a[12] = { 10.3, 9.1, 11.7, 10.0, 12.2, 9.6, 10.9, 8.8, 11.1, 10.4, 9.9, 13.0 };
	static const double b[12] = { 5.2, 4.9, 5.6, 5.0, 4.4, 5.3, 6.1, 4.8, 5.1, 5.5, 4.7, 5.8 };
	static double r[DRAWS];
	unsigned seed = 12345;

	(void)state;
	for (size_t n = 1; n <= 12; n++) {
		size_t nb = n > 2 ? n - 1 : n;	/* unequal sizes too */
		struct ab_ci ci;

		assert_int_equal(ratio_ci(a, n, b, nb, 0.95, &ci), 0);
		for (size_t i = 0; i < DRAWS; i++)
			r[i] = brute_median(a, n, &seed) / brute_median(b, nb, &seed);
		qsort(r, DRAWS, sizeof(*r), cmp_d);
		double lo0 = ab_percentile(r, DRAWS, 2.0), lo1 = ab_percentile(r, DRAWS, 3.0);
		double hi0 = ab_percentile(r, DRAWS, 97.0), hi1 = ab_percentile(r, DRAWS, 98.0);
		if (!(ci.lo >= lo0 && ci.lo <= lo1 && ci.hi >= hi0 && ci.hi <= hi1))
			fail_msg("n=%zu/%zu: exact [%g, %g], resampled 2-3%% [%g, %g], 97-98%% [%g, %g]",
				 n, nb, ci.lo, ci.hi, lo0, lo1, hi0, hi1);
	}
}

/*
 * A resample holds at most AB_BOOT_MAX_N values a side. Within the bound nothing
 * changed: the intervals and p-values below are those of the whole-sample
 * bootstrap before the bound, bit for bit. Past it a side is resampled
 * AB_BOOT_MAX_N out of n: 100,000 values give about the CI that 10,000 of the
 * same spread give (the whole-sample bootstrap's would be sqrt(10) times
 * narrower), still around the ratio, and repeatable.
 */
static double spread(uint64_t i, double base)
{
	uint64_t z = i * 0x9e3779b97f4a7c15ULL;

	z ^= z >> 29;
	return base + (double)(z % 1000) / 10;
}

static const struct {
	size_t n;
	double lo, hi, p;
} within_bound[] = {
	{ 13, 0x1.b38c87c5a177ap-1, 0x1.5a0cacb674ef2p+0, 0x1.1b8199653288ep-1 },
	{ 40, 0x1.96fca32e1fd97p-1, 0x1.026d987e337a1p+0, 0x1.26c3bdfc29738p-4 },
	{ AB_BOOT_MAX_N, 0x1.10080ccd665e3p+0, 0x1.14a1b357b0452p+0, 0x1.0603538acf832p-10 },
};

static void test_ratio_ci_large(void **state)
{
	enum { BIG = 10 * AB_BOOT_MAX_N };
	double *a = malloc(BIG * sizeof(*a)), *b = malloc(BIG * sizeof(*b));
	struct ab_ci ci, c2, small;
	double p, p2;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < BIG; i++) {
		a[i] = spread(i, 110);
		b[i] = spread(i + 77777, 100);
	}
	for (size_t i = 0; i < N(within_bound); i++) {
		size_t n = within_bound[i].n;
		assert_int_equal(ab_ratio_ci_p(a, n, b, n - 1, 0.95, &ci, &p), 0);
		if (ci.lo != within_bound[i].lo || ci.hi != within_bound[i].hi || p != within_bound[i].p)
			fail_msg("n=%zu: [%a, %a] p %a, want [%a, %a] p %a", n, ci.lo, ci.hi, p,
				 within_bound[i].lo, within_bound[i].hi, within_bound[i].p);
	}
	assert_int_equal(ab_ratio_ci_p(a, AB_BOOT_MAX_N, b, AB_BOOT_MAX_N, 0.95, &small, &p), 0);
	assert_int_equal(ab_ratio_ci_p(a, BIG, b, BIG, 0.95, &ci, &p), 0);
	assert_int_equal(ab_ratio_ci_p(a, BIG, b, BIG, 0.95, &c2, &p2), 0);
	assert_memory_equal(&ci, &c2, sizeof(ci));
	assert_true(p == p2);
	double r = ab_median(a, BIG) / ab_median(b, BIG);
	if (!(ci.lo < r && r < ci.hi))
		fail_msg("[%g, %g] misses the ratio %g", ci.lo, ci.hi, r);
	double w = ci.hi - ci.lo, ws = small.hi - small.lo;
	if (!(w > 0.7 * ws && w < 1.4 * ws))
		fail_msg("100,000 a side: CI width %g, not that of 10,000 (%g)", w, ws);
	free(a);
	free(b);
}

static void test_ratio_ci_errors(void **state)
{
	static const struct {
		const char *name;
		struct sample a, b;
		double level;
	} bad[] = {
		{ "empty a", { "a", 0, { 0 } }, { "b", 2, { 1, 2 } }, 0.95 },
		{ "empty b", { "a", 2, { 1, 2 } }, { "b", 0, { 0 } }, 0.95 },
		{ "median b 0", { "a", 2, { 1, 2 } }, { "b", 3, { 0, 0, 1 } }, 0.95 },
		/* median of b is 1, but resamples of it have median 0 */
		{ "resample b 0", { "a", 2, { 1, 2 } }, { "b", 3, { 0, 1, 1 } }, 0.95 },
		{ "level 1", { "a", 2, { 1, 2 } }, { "b", 2, { 1, 2 } }, 1 },
		{ "level 0", { "a", 2, { 1, 2 } }, { "b", 2, { 1, 2 } }, 0 },
	};

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		struct ab_ci ci = { 0, 0, 0 };

		if (ratio_ci(bad[i].a.x, bad[i].a.n, bad[i].b.x, bad[i].b.n, bad[i].level, &ci) != -1)
			fail_msg("%s: accepted", bad[i].name);
		assert_true(isnan(ci.lo) && isnan(ci.hi) && isnan(ci.level));
	}
}

/* --- log2 histogram --- */

static void test_hist_buckets(void **state)
{
	static const struct {
		uint64_t v;
		unsigned bucket;
	} cases[] = {
		{ 0, 0 }, { 1, 1 }, { 31, 31 },			/* exact below 32 */
		{ 32, 32 }, { 33, 33 }, { 63, 63 },		/* 32..63: width 1 */
		{ 64, 64 }, { 65, 64 }, { 66, 65 },		/* 64..127: width 2 */
		{ 1000, 32 * 5 + 30 }, { 1024, 32 * 6 },	/* 512..1023 in steps of 16; 1024.. of 32 */
		{ UINT64_MAX, AB_HIST_BUCKETS - 1 }, { 1ULL << 63, AB_HIST_BUCKETS - 32 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		static struct ab_hist h;

		memset(&h, 0, sizeof(h));
		ab_hist_add(&h, cases[i].v);
		if (h.b[cases[i].bucket] != 1)
			fail_msg("%llu: not in bucket %u (got %u)", (unsigned long long)cases[i].v,
				 cases[i].bucket, ab_hist_bucket(cases[i].v));
		assert_int_equal(ab_hist_count(&h), 1);
	}
}

/* The promise of stats.h: any value comes back within 1.6% of itself. */
static void test_hist_error(void **state)
{
	static struct ab_hist h;
	uint64_t v = 1;

	(void)state;
	for (int i = 0; i < 4000; i++, v = v + v / 7 + 1) {
		memset(&h, 0, sizeof(h));
		ab_hist_add(&h, v);
		double got = ab_hist_percentile(&h, 50);
		if (fabs(got - (double)v) > 0.016 * (double)v)
			fail_msg("%llu came back as %g", (unsigned long long)v, got);
		if (v > UINT64_MAX / 2)
			break;
	}
}

static void test_hist_percentile(void **state)
{
	/* 90 x 100, 9 x 1000, 1 x 1e6, in two halves merged */
	static const struct {
		double p, want;
	} cases[] = {
		{ 0, 100.5 },		/* 100 is in [100, 102): middle 100.5 */
		{ 50, 100.5 },
		{ 90, 100.5 },		/* rank 90: still the 100s */
		{ 90.5, 999.5 },	/* rank 91: 1000 is in [992, 1008) */
		{ 99, 999.5 },
		{ 99.5, 999712 },	/* rank 100: [999424, 1015808), known to end at the max 1e6: */
		{ 100, 999712 },	/* the middle of 999424 .. 1e6 */
		{ -1, NAN },
		{ 101, NAN },
	};
	static struct ab_hist h1, h2;

	(void)state;
	memset(&h1, 0, sizeof(h1));
	memset(&h2, 0, sizeof(h2));
	for (int i = 0; i < 90; i++)
		ab_hist_add(i % 2 ? &h1 : &h2, 100);
	for (int i = 0; i < 9; i++)
		ab_hist_add(&h1, 1000);
	ab_hist_add(&h2, 1000000);
	ab_hist_merge(&h1, &h2);
	assert_int_equal(ab_hist_count(&h1), 100);
	for (size_t i = 0; i < N(cases); i++) {
		char what[32];
		double got = ab_hist_percentile(&h1, cases[i].p);

		snprintf(what, sizeof(what), "hist p%g", cases[i].p);
		check_close(what, got, cases[i].want, 1e-9);
	}
	memset(&h2, 0, sizeof(h2));
	check_close("hist empty", ab_hist_percentile(&h2, 50), NAN, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ratio_ci),
		cmocka_unit_test(test_ratio_ci_errors),
		cmocka_unit_test(test_ratio_ci_exact),
		cmocka_unit_test(test_ratio_ci_large),
		cmocka_unit_test(test_hist_buckets),
		cmocka_unit_test(test_hist_percentile),
		cmocka_unit_test(test_hist_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
