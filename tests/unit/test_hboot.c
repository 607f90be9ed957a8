// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/hboot.c: the two-level bootstrap's coverage on synthetic two-level
 * data with a known truth, against the one-level interval, and its errors.
 *
 * Coverage: 400 simulated runs (fixed seed), each K invocations of W windows,
 * value = truth + invocation effect + window noise, both normal, so the median of
 * the population is the truth. A stated 95% must cover it in 0.90 .. 0.99 of the
 * runs: at a true 95%, 400 runs land outside that less than once in 10^4.
 */
#include "stats_fx.h"
#include "rng_fx.h"

#include <errno.h>

#include "record/hboot.h"

#define SIMS 400
#define K 10
#define W 5

struct sim {
	double x[K * W];
	int inv[K * W];
	struct ab_levels s;
};

/* One run: K invocations, each shifted by sd_between x N(0,1), of W windows, each
 * sd_within x N(0,1) about its invocation's level. */
static void simulate(struct sim *m, double truth, double sd_between, double sd_within,
		     uint64_t *rng)
{
	for (int i = 0; i < K; i++) {
		double level = truth + sd_between * rng_gauss(rng);
		for (int w = 0; w < W; w++) {
			m->x[i * W + w] = level + sd_within * rng_gauss(rng);
			m->inv[i * W + w] = 100 + 7 * i;	/* ids need not be 0.. */
		}
	}
	m->s = (struct ab_levels){ m->x, m->inv, K * W };
}

static int covers(const struct ab_ci *c, double truth)
{
	return c->lo <= truth && truth <= c->hi;
}

/* Coverage of the two-level and the one-level 95% intervals of the median. */
static void median_coverage(double sd_between, double sd_within, double *two, double *one)
{
	uint64_t rng = 36;
	int n2 = 0, n1 = 0;

	for (int r = 0; r < SIMS; r++) {
		struct sim m;
		struct ab_ci c;
		simulate(&m, 100, sd_between, sd_within, &rng);
		assert_int_equal(ab_hboot_median_ci(&m.s, 0.95, &c), 0);
		n2 += covers(&c, 100);
		assert_int_equal(ab_median_ci(m.x, K * W, 0.95, &c), 0);
		n1 += covers(&c, 100);
	}
	*two = (double)n2 / SIMS;
	*one = (double)n1 / SIMS;
}

static void check_coverage(const char *what, double got)
{
	if (!(got >= 0.90 && got <= 0.99))
		fail_msg("%s: a stated 95%% covered the truth in %.3f of %d runs, not 0.90..0.99",
			 what, got, SIMS);
}

/* Invocations differ 5x more than windows: the two-level interval holds its 95%,
 * the one-level one, taking 50 values for 50 independent draws, falls far short. */
static void test_between_dominates(void **state)
{
	double two, one;

	(void)state;
	median_coverage(5, 1, &two, &one);
	check_coverage("two-level, between dominates", two);
	if (!(one < 0.80))
		fail_msg("one-level interval covered %.3f: it should under-cover (< 0.80)", one);
}

/* Windows differ 5x more than invocations: the two-level interval still holds. */
static void test_within_dominates(void **state)
{
	double two, one;

	(void)state;
	median_coverage(0.5, 2.5, &two, &one);
	check_coverage("two-level, within dominates", two);
}

/* The ratio of two medians: a's truth 200, b's 100, each two-level. */
static void test_ratio_coverage(void **state)
{
	uint64_t rng = 3636;
	int n = 0, sig = 0;

	(void)state;
	for (int r = 0; r < SIMS; r++) {
		struct sim a, b;
		struct ab_ci c;
		double p;
		simulate(&a, 200, 10, 2, &rng);
		simulate(&b, 100, 5, 1, &rng);
		assert_int_equal(ab_hboot_ratio_ci(&a.s, &b.s, 0.95, &c, &p), 0);
		n += covers(&c, 2);
		sig += p < 0.05;
		/* p < 0.05 exactly when the interval leaves out 1 */
		assert_int_equal(p < 0.05, !covers(&c, 1));
	}
	check_coverage("two-level ratio", (double)n / SIMS);
	assert_int_equal(sig, SIMS);	/* 2 against 1 at these spreads: always told apart */
}

/* Same inputs, same interval, bit for bit; constants collapse onto their value. */
static void test_repeats_and_constants(void **state)
{
	struct sim m;
	struct ab_ci c1, c2;
	uint64_t rng = 1;

	(void)state;
	simulate(&m, 50, 1, 1, &rng);
	assert_int_equal(ab_hboot_median_ci(&m.s, 0.95, &c1), 0);
	assert_int_equal(ab_hboot_median_ci(&m.s, 0.95, &c2), 0);
	assert_memory_equal(&c1, &c2, sizeof(c1));
	assert_true(c1.lo < c1.hi);
	check_close("level", c1.level, 0.95, 0);
	simulate(&m, 50, 0, 0, &rng);
	assert_int_equal(ab_hboot_median_ci(&m.s, 0.95, &c1), 0);
	check_close("constant lo", c1.lo, 50, 0);
	check_close("constant hi", c1.hi, 50, 0);
}

static void test_errors(void **state)
{
	const double x[] = { 1, 2, 3, 4 }, z[] = { 0, 0, 0, 0 };
	const int one[] = { 5, 5, 5, 5 }, two[] = { 1, 1, 2, 2 };
	struct ab_levels single = { x, one, 4 }, s = { x, two, 4 }, empty = { x, two, 0 };
	struct ab_levels zero = { z, two, 4 };
	struct ab_ci c;
	double p;

	(void)state;
	errno = 0;
	assert_int_equal(ab_hboot_median_ci(&single, 0.95, &c), -1);
	assert_int_equal(errno, EDOM);	/* one invocation: nothing of the level between */
	assert_true(isnan(c.lo) && isnan(c.hi));
	assert_int_equal(ab_hboot_median_ci(&empty, 0.95, &c), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ab_hboot_median_ci(&s, 1.0, &c), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ab_hboot_ratio_ci(&s, &zero, 0.95, &c, &p), -1);
	assert_int_equal(errno, EDOM);
	assert_true(isnan(p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_between_dominates),
		cmocka_unit_test(test_within_dominates),
		cmocka_unit_test(test_ratio_coverage),
		cmocka_unit_test(test_repeats_and_constants),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
