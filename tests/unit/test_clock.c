// SPDX-License-Identifier: GPL-2.0
/* Whether a clock read enters the kernel (sys/clock.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sys/clock.h"

static void test_no_vdso_names(void **state)
{
	(void)state;
	assert_true(ab_clocksource_no_vdso("hpet"));
	assert_true(ab_clocksource_no_vdso("acpi_pm"));
	assert_false(ab_clocksource_no_vdso("tsc"));
	assert_false(ab_clocksource_no_vdso("kvm-clock"));
	assert_false(ab_clocksource_no_vdso(""));
	assert_false(ab_clocksource_no_vdso(NULL));
}

/* hpet is dear whatever the prices say: the kernel never maps it for the vDSO. */
static void test_dear_by_name(void **state)
{
	(void)state;
	assert_true(ab_clock_is_dear("hpet", 20, 1000));
}

/* A read that costs as much as a syscall is one, whatever the clocksource's name. */
static void test_dear_by_price(void **state)
{
	(void)state;
	assert_true(ab_clock_is_dear("kvm-clock", 1300, 1200));
	assert_true(ab_clock_is_dear("kvm-clock", 900, 1200));
	assert_false(ab_clock_is_dear("kvm-clock", 25, 1200));
	assert_false(ab_clock_is_dear("tsc", 20, 45));	/* bare metal, no mitigations */
}

static void test_unknown_prices(void **state)
{
	(void)state;
	assert_false(ab_clock_is_dear("tsc", -1, 1200));
	assert_false(ab_clock_is_dear("tsc", 1300, -1));
	assert_false(ab_clock_is_dear(NULL, 0, 0));
}

/* Here, the stride is one of its two values, and the same when asked again. */
static void test_stride(void **state)
{
	(void)state;
	unsigned s = ab_lat_stride();
	assert_true(s == 1 || s == AB_CLOCK_STRIDE_DEAR);
	assert_int_equal(ab_lat_stride(), s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_vdso_names),
		cmocka_unit_test(test_dear_by_name),
		cmocka_unit_test(test_dear_by_price),
		cmocka_unit_test(test_unknown_prices),
		cmocka_unit_test(test_stride),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
