// SPDX-License-Identifier: GPL-2.0
/*
 * lib/render/reading.c: every outcome of a comparison reads as one whole
 * sentence (significant, not significant, too few repetitions, not measured),
 * and a sweep's summary names its points with zero counts left out and a
 * single point in the singular; numbers and ratios have one plain notation.
 * Table-driven: each row an outcome and the exact sentence it must give.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "render/reading.h"
#include "render/render.h"

static const struct ab_claim io = { "IO rate", "readers off the IRQ CPU", "readers on it", 0 };
static const struct ab_claim ns = { "time per call", "pread with an idle thread",
				    "pread single-threaded", 1 };

static void test_sentence(void **state)
{
	static const struct {
		const struct ab_claim *c;
		enum ab_verdict v;
		double q, lo, hi;
		const char *want;
	} rows[] = {
		{ &io, AB_V_SAME, 0.846, 0.642, 1.03,
		  "The IO rate of readers off the IRQ CPU is 0.846x that of readers on it (95% CI "
		  "[0.642x, 1.03x]); the difference is not significant." },
		{ &io, AB_V_DOWN, 0.73, 0.70, 0.75,
		  "The IO rate of readers off the IRQ CPU is 0.73x that of readers on it (95% CI "
		  "[0.7x, 0.75x]); the difference is significant." },
		/* a ratio past 1000 is digits, never 1.76e+03x */
		{ &io, AB_V_UP, 1760, 1500, 2049.6,
		  "The IO rate of readers off the IRQ CPU is 1760x that of readers on it (95% CI "
		  "[1500x, 2050x]); the difference is significant." },
		{ &io, AB_V_FEW, 0.846, NAN, NAN,
		  "The IO rate of readers off the IRQ CPU is 0.846x that of readers on it; with fewer "
		  "than 6 repetitions a side, that cannot be judged." },
		{ &io, AB_V_NONE, NAN, NAN, NAN,
		  "The IO rate of readers off the IRQ CPU was not compared with that of readers on it: "
		  "not both were measured in this run." },
		{ &ns, AB_V_UP, 1.032, 1.01, 1.05,
		  "The time per call of pread with an idle thread is 3.2% higher than that of pread "
		  "single-threaded (95% CI [+1.0%, +5.0%]); the difference is significant." },
		{ &ns, AB_V_SAME, 0.99, 0.97, 1.01,
		  "The time per call of pread with an idle thread is 1.0% lower than that of pread "
		  "single-threaded (95% CI [-3.0%, +1.0%]); the difference is not significant." },
		{ &ns, AB_V_FEW, 1.0, NAN, NAN,
		  "The time per call of pread with an idle thread is the same as that of pread "
		  "single-threaded; with fewer than 6 repetitions a side, that cannot be judged." },
	};
	char buf[512];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ab_ci ci = { rows[i].lo, rows[i].hi, 0.95 };
		assert_string_equal(ab_r_sentence(buf, sizeof(buf), rows[i].c, rows[i].v, rows[i].q, &ci),
				    rows[i].want);
	}
	/* a buffer too small is cut, never overrun */
	struct ab_ci ci = { 0.5, 1.1, 0.95 };
	assert_int_equal(strlen(ab_r_sentence(buf, 20, &io, AB_V_SAME, 0.8, &ci)), 19);
}

/* One format per quantity: a number (ab_r_num) and a ratio (ab_r_x, ab_r_ratio_text) read
 * the same wherever they are printed: 3 significant figures, plain notation. */
static void test_numbers(void **state)
{
	static const struct {
		double v;
		const char *num, *x;
	} rows[] = {
		{ 0.005349, "0.00535", "0.00535x" },	/* issue 26: once 0.01, 0.005349, 0.0% */
		{ 0.0000197, "0.0000197", "0.0000197x" },
		{ 0.846, "0.846", "0.846x" },
		{ 1.0, "1", "1x" },
		{ 1.5, "1.5", "1.5x" },
		{ 62.54, "62.5", "62.5x" },
		{ 999.4, "999", "999x" },
		{ 1760.4, "1760", "1760x" },
		{ 88819.21812, "88819", "88819x" },
		{ -0.25, "-0.25", "-0.25x" },
		{ 0, "0", "0x" },
		{ NAN, "-", "-" },
		/* plain from 1e-9 up to 1e15 (AB_NUM_PLAIN_*), e-notation past: never cut */
		{ -0.0, "0", "0x" },
		{ 1e-9, "0.000000001", "0.000000001x" },
		{ -1.234e-9, "-0.00000000123", "-0.00000000123x" },
		{ 9.99e-10, "9.99e-10", "9.99e-10x" },
		{ 1e-30, "1e-30", "1e-30x" },		/* once 0 */
		{ -1.5e-31, "-1.5e-31", "-1.5e-31x" },
		{ 4.9406564584124654e-324, "4.94e-324", "4.94e-324x" },
		{ 1e-310, "1e-310", "1e-310x" },	/* a denormal */
		{ -1e-300, "-1e-300", "-1e-300x" },
		{ 1e300, "1e+300", "1e+300x" },
		{ 999.5, "1000", "1000x" },		/* rounds up into the next form */
		{ 999999999999999.6, "1000000000000000", "1000000000000000x" },
		{ 999999999999999, "999999999999999", "999999999999999x" },
		{ -999999999999999, "-999999999999999", "-999999999999999x" },
		{ 1e15, "1e+15", "1e+15x" },
		{ 1e31, "1e+31", "1e+31x" },
		{ 1e40, "1e+40", "1e+40x" },	/* once 1000000000000000030378602842700 */
		{ -1.2345e40, "-1.23e+40", "-1.23e+40x" },
		{ DBL_MAX, "1.8e+308", "1.8e+308x" },
		{ INFINITY, "inf", "infx" },
		{ -INFINITY, "-inf", "-infx" },
	};
	char a[32], b[32], buf[160];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_string_equal(ab_r_num(a, sizeof(a), rows[i].v), rows[i].num);
		assert_string_equal(ab_r_x(b, sizeof(b), rows[i].v), rows[i].x);
	}
	struct ab_ci ci = { 1500, 2049.6, 0.95 };
	assert_string_equal(ab_r_ratio_text(buf, sizeof(buf), AB_V_UP, 1760, &ci, 0),
			    "1760x [1500, 2050] 95% CI, significant");
	ci = (struct ab_ci){ 0.00051, 0.0012, 0.95 };
	assert_string_equal(ab_r_ratio_text(buf, sizeof(buf), AB_V_SAME, 0.000912, &ci, 0),
			    "0.000912x [0.00051, 0.0012] 95% CI, not significant");
}

static void test_sweep(void **state)
{
	static const struct ab_sweep s = { "clone_fd", "was significantly faster",
					   "was significantly slower", "made no significant difference",
					   "process", "processes" };
	static const struct {
		int n;
		enum ab_verdict v[6];
		const char *want;
	} rows[] = {
		{ 6, { AB_V_SAME, AB_V_SAME, AB_V_SAME, AB_V_UP, AB_V_UP, AB_V_FEW },
		  "clone_fd was significantly faster at 8 and 16 processes, made no significant "
		  "difference at 1, 2 and 4, and could not be judged at 32 (fewer than 6 repetitions)." },
		{ 6, { AB_V_SAME, AB_V_SAME, AB_V_SAME, AB_V_SAME, AB_V_SAME, AB_V_SAME },
		  "clone_fd made no significant difference at 1, 2, 4, 8, 16 and 32 processes." },
		{ 6, { AB_V_FEW, AB_V_FEW, AB_V_NONE, AB_V_NONE, AB_V_NONE, AB_V_NONE },
		  "clone_fd could not be judged at 1 and 2 processes (fewer than 6 repetitions)." },
		{ 1, { AB_V_DOWN }, "clone_fd was significantly slower at 1 process." },
		{ 6, { AB_V_NONE, AB_V_NONE, AB_V_NONE, AB_V_UP, AB_V_NONE, AB_V_NONE },
		  "clone_fd was significantly faster at 8 processes." },
		{ 6, { AB_V_DOWN, AB_V_NONE, AB_V_NONE, AB_V_UP, AB_V_NONE, AB_V_NONE },
		  "clone_fd was significantly faster at 8 processes and was significantly slower at 1." },
		{ 0, { AB_V_NONE }, "clone_fd was not compared: not measured in this run." },
		{ 2, { AB_V_NONE, AB_V_NONE }, "clone_fd was not compared: not measured in this run." },
	};
	char label[6][32] = { "1", "2", "4", "8", "16", "32" }, buf[512];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_string_equal(ab_r_sweep(buf, sizeof(buf), &s, rows[i].v, label, rows[i].n),
				    rows[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sentence),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
