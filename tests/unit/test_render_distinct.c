// SPDX-License-Identifier: GPL-2.0
/*
 * lib/render/render.c: a key's values as tables and plots order them (ab_r_distinct).
 * Numbers go in numeric order (1, 2, 10, not 1, 10, 2: the bs column of a table, the
 * x axis of a plot); words in the order first seen; only the descriptor's benchmark
 * and the metric asked for count, each value once, at most max.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sys/common.h"
#include "render/render.h"
#include "render/desc.h"

static const struct {
	const char *bench, *config, *metric;
} rows[] = {
	{ "ddpar", "bs=65536;transport=uring", "m" },
	{ "ddpar", "bs=4096;transport=libfuse", "m" },
	{ "ddpar", "bs=131072;transport=uring", "m" },
	{ "ddpar", "bs=512;transport=dev", "m" },
	{ "ddpar", "bs=4096;transport=uring", "m" },
	{ "ddpar", "bs=-8;transport=x", "other" },	/* another metric */
	{ "fdget", "bs=3;transport=y", "m" },		/* another benchmark */
	{ "ddpar", "transport=uring", "m" },		/* no bs */
};

static void fill(struct ab_results *res)
{
	ab_results_init(res);
	for (size_t i = 0; i < AB_ARRAY_SIZE(rows); i++)
		assert_int_equal(ab_results_add(res, rows[i].bench, rows[i].config, 1,
						rows[i].metric, 1, "us"), 0);
}

static void test_distinct(void **state)
{
	static const struct ab_bench_desc desc = { .name = "ddpar" };
	struct ab_results res;
	struct ab_render r = { .desc = &desc };
	char vals[8][32];

	(void)state;
	fill(&res);
	r.res = &res;
	assert_int_equal(ab_r_distinct(&r, "m", "bs", vals, 8), 4);
	assert_string_equal(vals[0], "512");
	assert_string_equal(vals[1], "4096");
	assert_string_equal(vals[2], "65536");
	assert_string_equal(vals[3], "131072");

	/* words: as first seen */
	assert_int_equal(ab_r_distinct(&r, "m", "transport", vals, 8), 3);
	assert_string_equal(vals[0], "uring");
	assert_string_equal(vals[1], "libfuse");
	assert_string_equal(vals[2], "dev");

	/* at most max: the first seen */
	assert_int_equal(ab_r_distinct(&r, "m", "bs", vals, 2), 2);
	assert_string_equal(vals[0], "4096");
	assert_string_equal(vals[1], "65536");
	ab_results_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distinct),
	};

	return cmocka_run_group_tests_name("render_distinct", tests, NULL, NULL);
}
