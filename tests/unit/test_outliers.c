// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/stats.c: the MAD and the outlier rule (farther than k robust SDs,
 * 1.4826 x MAD, from the median), on hand-worked samples.
 */
#include "stats_fx.h"

static void test_mad(void **state)
{
	const double x[] = { 1, 2, 3, 4, 100 };	/* median 3, deviations 2 1 0 1 97 */

	(void)state;
	check_close("mad", ab_mad(x, 5), 1, 0);
	check_close("mad of nothing", ab_mad(x, 0), NAN, 0);
}

static void test_outliers(void **state)
{
	/* median 10, MAD 1, robust SD 1.4826: 3 SDs = 4.4478 from 10 */
	const double x[] = { 9, 10, 11, 10, 9, 11, 14.4, 14.5, 5.5 };
	unsigned char out[9];

	(void)state;
	assert_int_equal(ab_outliers(x, 9, 3, out), 2);
	for (int i = 0; i < 9; i++)	/* 14.4 is within 4.4478, 14.5 and 5.5 beyond */
		assert_int_equal(out[i], i == 7 || i == 8);
	assert_int_equal(ab_outliers(x, 9, 3, NULL), 2);
	/* a larger k flags fewer */
	assert_int_equal(ab_outliers(x, 9, 4, NULL), 0);
}

/* Over half the values equal: MAD 0, and no value is called an outlier. */
static void test_mad_zero(void **state)
{
	const double x[] = { 5, 5, 5, 5, 9 };
	unsigned char out[5] = { 7, 7, 7, 7, 7 };

	(void)state;
	assert_int_equal(ab_outliers(x, 5, 3, out), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(out[i], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mad),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_mad_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
