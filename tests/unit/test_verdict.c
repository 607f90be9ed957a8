// SPDX-License-Identifier: GPL-2.0
/*
 * lib/render/render.c's verdicts on a ratio of two points: ab_r_ratio pairs them
 * by round (the repetitions both hold) where AB_MIN_REPS_CI or more rounds do,
 * else it is ab_r_ratio_apart's ratio of medians.
 *
 * Coverage: SIMS simulated runs (fixed seed) of ROUNDS rounds; in round r both
 * points are scaled by one round effect exp(sd_round x N(0,1)) and each by its own
 * exp(sd_noise x N(0,1)), so the median of the per-round ratio is the truth, 1.2.
 * A stated 95% must cover it in 0.90 .. 0.99 of the runs.
 */
#include "stats_fx.h"
#include "rng_fx.h"

#include "record/results.h"
#include "render/render.h"

#define SIMS 400
#define ROUNDS 9
#define TRUTH 1.2

struct pt {
	double v[AB_PAIRS_MAX + 1];
	int rep[AB_PAIRS_MAX + 1];
	struct ab_group g;
};

/* n values v[i] of repetitions rep[i] */
static void make(struct pt *p, const double *v, const int *rep, size_t n)
{
	memcpy(p->v, v, n * sizeof(*v));
	memcpy(p->rep, rep, n * sizeof(*rep));
	p->g = (struct ab_group){ .bench = "b", .config = "c", .metric = "m", .unit = "u",
				  .n = n, .v = p->v, .rep = p->rep };
}

static const int reps6[] = { 1, 2, 3, 4, 5, 6 };

/* b's values in another order than a's: each ratio is of one repetition */
static void test_pairs_by_repetition(void **state)
{
	struct pt a, b;
	double q[AB_PAIRS_MAX];
	const double va[] = { 10, 20, 30, 40, 50, 60 }, vb[] = { 30, 10, 20, 5, 6, 4 };
	const int rb[] = { 6, 2, 4, 1, 5, 3 };

	(void)state;
	make(&a, va, reps6, 6);
	make(&b, vb, rb, 6);
	assert_int_equal(ab_r_round_ratios(&a.g, &b.g, q), 6);
	check_close("round 1", q[0], 10.0 / 5, 1e-12);
	check_close("round 6", q[5], 60.0 / 30, 1e-12);
}

/* How many ratios ab_r_round_ratios pairs from six values a side. */
static size_t pairs6(const double *va, const int *ra, const double *vb, const int *rb)
{
	struct pt a, b;
	double q[AB_PAIRS_MAX];

	make(&a, va, ra, 6);
	make(&b, vb, rb, 6);
	return ab_r_round_ratios(&a.g, &b.g, q);
}

static const double v6[] = { 1, 2, 3, 4, 5, 6 };

/* a repetition only one side holds pairs with nothing */
static void test_unshared_rounds_left_out(void **state)
{
	const int rb[] = { 2, 3, 4, 5, 6, 7 };

	(void)state;
	assert_int_equal(pairs6(v6, reps6, v6, rb), 5);
}

/* a per-invocation summary (repetition 0) is no round */
static void test_rep_zero_no_round(void **state)
{
	const int r0[] = { 0, 2, 3, 4, 5, 6 };

	(void)state;
	assert_int_equal(pairs6(v6, r0, v6, r0), 5);
}

/* a base value of 0 in a shared round: no pairing at all (the ratio of medians judges) */
static void test_zero_base_unpaired(void **state)
{
	const double vb[] = { 1, 0, 3, 4, 5, 6 };

	(void)state;
	assert_int_equal(pairs6(v6, reps6, vb, reps6), 0);
}

/* a repetition held three times a side (in-memory results do not refuse it) pairs once */
static void test_repeated_rep_once(void **state)
{
	const int r[] = { 1, 1, 1, 2, 3, 4 };

	(void)state;
	assert_int_equal(pairs6(v6, r, v6, r), 4);
}

/* a group past AB_PAIRS_MAX values is never paired (bounded work and memory) */
static void test_big_group_unpaired(void **state)
{
	static struct pt a, b;
	static double v[AB_PAIRS_MAX + 1];
	static int rep[AB_PAIRS_MAX + 1];
	double q[AB_PAIRS_MAX];

	(void)state;
	for (int i = 0; i <= AB_PAIRS_MAX; i++) {
		v[i] = 1 + i % 7;
		rep[i] = i + 1;
	}
	make(&a, v, rep, AB_PAIRS_MAX + 1);
	make(&b, v, rep, AB_PAIRS_MAX);
	assert_int_equal(ab_r_round_ratios(&a.g, &b.g, q), 0);
}

/* ... and ab_r_paired judges such groups as ab_r_ratio_apart does, not "not compared" */
static void test_big_group_judged_apart(void **state)
{
	static struct pt a, b;
	static double va[AB_PAIRS_MAX + 1], vb[AB_PAIRS_MAX + 1];
	static int rep[AB_PAIRS_MAX + 1];
	struct ab_ci c1, c2;
	double r1 = NAN, r2 = NAN;

	(void)state;
	for (int i = 0; i <= AB_PAIRS_MAX; i++) {
		va[i] = 2 * (1 + i % 7);
		vb[i] = 1 + i % 5;
		rep[i] = i + 1;
	}
	make(&a, va, rep, AB_PAIRS_MAX + 1);
	make(&b, vb, rep, AB_PAIRS_MAX + 1);
	assert_int_equal(ab_r_paired(&a.g, &b.g, &r1, &c1), ab_r_ratio_apart(&a.g, &b.g, &r2, &c2));
	check_close("big groups' ratio", r1, r2, 0);
}

/* a's values twice b's in every round, the rounds apart by 4x */
static const double round_b[] = { 1, 4, 2, 3, 1.5, 2.5 }, round_a[] = { 2, 8, 4, 6, 3, 5 };

/* the verdict, ratio and CI of judge (ab_r_ratio or ab_r_ratio_apart) on those */
static enum ab_verdict judge_rounds(ab_r_ratio_fn *judge, double *r)
{
	struct pt a, b;
	struct ab_ci ci;

	make(&a, round_a, reps6, 6);
	make(&b, round_b, reps6, 6);
	return judge(&a.g, &b.g, r, &ci);
}

/* paired, the ratio is exactly 2 */
static void test_round_divides_out(void **state)
{
	double r = NAN;

	(void)state;
	assert_int_equal(judge_rounds(ab_r_ratio, &r), AB_V_UP);
	check_close("paired ratio", r, 2, 1e-12);
}

/* the same values unpaired: the rounds' spread hides the 2x */
static void test_apart_keeps_round_spread(void **state)
{
	double r = NAN;

	(void)state;
	assert_int_equal(judge_rounds(ab_r_ratio_apart, &r), AB_V_SAME);
}

/* six values a side but five rounds in common: the ratio of medians, as apart */
static void test_few_rounds_falls_back(void **state)
{
	struct pt a, b;
	struct ab_ci c1, c2;
	double r1 = NAN, r2 = NAN;
	const int rb[] = { 2, 3, 4, 5, 6, 7 };

	(void)state;
	make(&a, round_a, reps6, 6);
	make(&b, round_b, rb, 6);
	enum ab_verdict v1 = ab_r_ratio(&a.g, &b.g, &r1, &c1);
	enum ab_verdict v2 = ab_r_ratio_apart(&a.g, &b.g, &r2, &c2);
	assert_int_equal(v1, v2);
	check_close("fallback ratio", r1, r2, 0);
	check_close("fallback lo", c1.lo, c2.lo, 0);
}

/* One simulated run: ROUNDS rounds of a (truth TRUTH x b) and b. */
static void simulate(struct pt *a, struct pt *b, double sd_round, double sd_noise,
		     uint64_t *rng)
{
	double va[ROUNDS], vb[ROUNDS];
	int rep[ROUNDS];

	for (int r = 0; r < ROUNDS; r++) {
		double round = exp(sd_round * rng_gauss(rng));
		va[r] = 100 * TRUTH * round * exp(sd_noise * rng_gauss(rng));
		vb[r] = 100 * round * exp(sd_noise * rng_gauss(rng));
		rep[r] = r + 1;
	}
	make(a, va, rep, ROUNDS);
	make(b, vb, rep, ROUNDS);
}

static int covers(const struct ab_ci *c)
{
	return c->lo <= TRUTH && TRUTH <= c->hi;
}

/* The round's spread 5x the points' own: the paired interval holds its 95% */
static void test_paired_coverage(void **state)
{
	uint64_t rng = 4242;
	int n = 0;

	(void)state;
	for (int s = 0; s < SIMS; s++) {
		struct pt a, b;
		struct ab_ci ci;
		double r;
		simulate(&a, &b, 0.15, 0.03, &rng);
		assert_int_not_equal(ab_r_ratio(&a.g, &b.g, &r, &ci), AB_V_FEW);
		n += covers(&ci);
	}
	double got = (double)n / SIMS;
	if (!(got >= 0.90 && got <= 0.99))
		fail_msg("paired: a stated 95%% covered %.3f of %d runs, not 0.90..0.99", got,
			 SIMS);
}

/* ... and is far narrower than the unpaired one on the same runs */
static void test_paired_narrower(void **state)
{
	uint64_t rng = 4343;
	double wp[SIMS], wa[SIMS];

	(void)state;
	for (int s = 0; s < SIMS; s++) {
		struct pt a, b;
		struct ab_ci cp, ca;
		double r;
		simulate(&a, &b, 0.15, 0.03, &rng);
		ab_r_ratio(&a.g, &b.g, &r, &cp);
		ab_r_ratio_apart(&a.g, &b.g, &r, &ca);
		wp[s] = log(cp.hi / cp.lo);
		wa[s] = log(ca.hi / ca.lo);
	}
	double p = ab_median(wp, SIMS), u = ab_median(wa, SIMS);
	if (!(p < 0.5 * u))
		fail_msg("paired median width %.4f not under half the unpaired %.4f", p, u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_by_repetition),
		cmocka_unit_test(test_unshared_rounds_left_out),
		cmocka_unit_test(test_rep_zero_no_round),
		cmocka_unit_test(test_zero_base_unpaired),
		cmocka_unit_test(test_repeated_rep_once),
		cmocka_unit_test(test_big_group_unpaired),
		cmocka_unit_test(test_big_group_judged_apart),
		cmocka_unit_test(test_round_divides_out),
		cmocka_unit_test(test_apart_keeps_round_spread),
		cmocka_unit_test(test_few_rounds_falls_back),
		cmocka_unit_test(test_paired_coverage),
		cmocka_unit_test(test_paired_narrower),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
