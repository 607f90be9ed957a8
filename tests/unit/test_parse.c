// SPDX-License-Identifier: GPL-2.0
/*
 * lib/sys/parse.c at its edges: lists of integers at both bounds and one past them,
 * ranges of one value, the list's size limit; sizes at the largest that fits; decimals
 * as records read them back. Each refusal names the bad value (test_opts.c: the
 * option layer over these).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sys/common.h"
#include "sys/parse.h"

static const struct {
	const char *s;
	int min, max;
	int n;		/* values wanted; -1: refused */
	const char *says;	/* in the refusal, or the values "first..last" */
} list_cases[] = {
	{ "0,1", 0, 1, 2, "0..1" },		/* both bounds are inside */
	{ "1", 1, 1, 1, "1..1" },
	{ "0-1", 0, 1, 2, "0..1" },
	{ "3-3", 0, 9, 1, "3..3" },		/* a range of one value */
	{ "7", 0, 9, 1, "7..7" },
	{ "2", 0, 1, -1, "2 is outside 0..1" },	/* one past max */
	{ "0-2", 0, 1, -1, "2 is outside 0..1" },
	{ "0", 1, 4, -1, "0 is outside 1..4" },	/* one below min */
	{ "-5,100000", 0, 0, 2, "-5..100000" },	/* min = max = 0: unbounded */
	{ "4-3", 0, 9, -1, "range 4-3 is reversed" },
	{ "1,2,1", 0, 9, -1, "1 is given twice" },
	{ "1,", 0, 9, -1, "trailing comma" },
	{ "1,,2", 0, 9, -1, "empty entry" },
	{ "", 0, 9, -1, "empty list" },
	{ "x", 0, 9, -1, "'x' is not a number" },
	{ "0-63", 0, 100, 64, "0..63" },		/* AB_INTLIST_MAX values */
	{ "0-64", 0, 100, -1, "more than 64 values" },
};

static void test_intlist(void **state)
{
	(void)state;
	assert_int_equal(AB_INTLIST_MAX, 64);
	for (size_t i = 0; i < AB_ARRAY_SIZE(list_cases); i++) {
		struct ab_intlist l;
		char err[256] = "", got[64] = "";
		int r = ab_parse_intlist(list_cases[i].s, &l, list_cases[i].min, list_cases[i].max,
					 err, sizeof(err));

		if (r == 0)
			snprintf(got, sizeof(got), "%d..%d", l.v[0], l.v[l.n - 1]);
		int ok = list_cases[i].n < 0
				 ? r == -1 && strstr(err, list_cases[i].says)
				 : r == 0 && l.n == list_cases[i].n && !strcmp(got, list_cases[i].says);

		if (!ok)
			fail_msg("list '%s' in %d..%d: r=%d n=%d '%s', err '%s'; want %d, '%s'",
				 list_cases[i].s, list_cases[i].min, list_cases[i].max, r,
				 r ? -1 : l.n, got, err, list_cases[i].n, list_cases[i].says);
	}
}

static void test_size_edges(void **state)
{
	static const struct {
		const char *s;
		int ok;
		size_t v;
	} cases[] = {
		/* 2^34 - 1 G is the largest count of G that fits 64 bits */
		{ "17179869183G", 1, (size_t)17179869183ULL << 30 },
		{ "17179869184G", 0, 0 },
		{ "1Ki", 1, 1024 }, { "1KB", 1, 1024 }, { "1i", 0, 0 }, { "1B", 0, 0 },
		{ "18446744073709551615", 1, SIZE_MAX }, { "18446744073709551616", 0, 0 },
	};

	(void)state;
	assert_true(sizeof(size_t) == 8);
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		size_t v = 0;
		char err[128] = "";
		int r = ab_parse_size(cases[i].s, &v, err, sizeof(err));

		if ((r == 0) != cases[i].ok || (cases[i].ok && v != cases[i].v))
			fail_msg("size '%s': r=%d v=%zu (%s)", cases[i].s, r, v, err);
		if (!cases[i].ok && !strstr(err, cases[i].s))
			fail_msg("size '%s': the refusal '%s' does not name it", cases[i].s, err);
	}
}

/* Records read back: ".5" is a number, "5." is not (lkp parse's Float agrees); digits
 * 0 and 9 after the point both count; below the smallest double is 0, above is refused. */
static void test_decimal_edges(void **state)
{
	static const struct {
		const char *s;
		int ok;
		double v;
	} cases[] = {
		{ ".5", 1, 0.5 }, { "2.9", 1, 2.9 }, { "2.0", 1, 2.0 }, { "5.", 0, 0 },
		{ "5.e3", 0, 0 }, { "1e-400", 1, 0 }, { "1e999", 0, 0 }, { "-0.25", 1, -0.25 },
		{ "0x1p3", 0, 0 }, { "1e+2", 1, 100 },
	};

	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		double v = -1;
		int r = ab_parse_decimal(cases[i].s, &v);

		if ((r == 0) != cases[i].ok || (cases[i].ok && v != cases[i].v))
			fail_msg("decimal '%s': r=%d v=%g", cases[i].s, r, v);
	}
	/* the command line's form refuses what is below the smallest double */
	double v;
	assert_int_equal(ab_parse_double("1e-400", &v), -1);
	assert_int_equal(ab_parse_double("1e+2", &v), 0);
}

static void test_long_edges(void **state)
{
	long v = 0;

	(void)state;
	assert_int_equal(ab_parse_long("-9223372036854775808", &v), 0);
	assert_true(v == LONG_MIN);
	assert_int_equal(ab_parse_long("+7", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(ab_parse_long("-", &v), -1);
	assert_int_equal(ab_parse_long("1e3", &v), -1);
	assert_int_equal(ab_parse_long("", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intlist),
		cmocka_unit_test(test_size_edges),
		cmocka_unit_test(test_decimal_edges),
		cmocka_unit_test(test_long_edges),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
