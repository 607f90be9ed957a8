// SPDX-License-Identifier: GPL-2.0
/*
 * A knob journal replay's open entries (lib/knob/pending.c) cost a bounded
 * number of steps a line, whatever the pids (issue 32, finding 12: replay was
 * quadratic): 200,000 lines behind 4,000 entries left open, the pids all
 * multiples of 1, 2 or 1024 (which a hash on the pid's low bits crowds into a
 * few slots). The work is counted (struct kp_tab's steps), never timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "knob/journal_i.h"
#include "knob/pending_i.h"

#define NOPEN 4000	/* under KNOB_PENDING_MAX */

/* The steps a replay's table takes for `lines` lines: NOPEN entries of pids stride,
 * 2 * stride, ... left open, then entries of 90 other pids each closed by a done line. */
static unsigned long long steps_for(pid_t stride, size_t lines)
{
	struct kp_tab t = { 0 };
	struct kp_line l = { .boot = "unknown", .path = "/proc/sys/kernel/x", .orig = "1" };
	size_t n = 0;

	for (pid_t i = 1; i <= NOPEN; i++) {
		l.lineno = ++n;
		l.pid = i * stride;
		assert_int_equal(kp_add(&t, &l), 0);
	}
	for (size_t i = 0; n < lines; i++) {
		l.lineno = ++n;
		l.pid = (pid_t)(NOPEN + 1 + i % 90) * stride;
		l.done = 0;
		assert_int_equal(kp_add(&t, &l), 0);
		l.lineno = ++n;
		l.done = 1;
		assert_int_equal(kp_add(&t, &l), 0);
	}
	assert_int_equal(t.open, NOPEN);
	unsigned long long s = t.steps;
	kp_free(&t);
	return s;
}

/* At most 8 steps a line on average, at 200,000 lines, for every stride. */
static void test_steps_per_line(void **state)
{
	static const pid_t stride[] = { 1, 2, 1024 };

	(void)state;
	for (size_t k = 0; k < sizeof(stride) / sizeof(stride[0]); k++) {
		unsigned long long s = steps_for(stride[k], 200000);
		print_message("stride %d: %llu steps for 200000 lines\n", (int)stride[k], s);
		if (s > 8ull * 200000)
			fail_msg("stride %d: %llu steps for 200,000 lines", (int)stride[k], s);
	}
}

/* Ten times the lines, at most twelve times the steps. */
static void test_linear(void **state)
{
	(void)state;
	unsigned long long a = steps_for(1024, 20000), b = steps_for(1024, 200000);

	if (b > 12 * a)
		fail_msg("%llu steps for 20,000 lines, %llu for 200,000", a, b);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps_per_line),
		cmocka_unit_test(test_linear),
	};

	return cmocka_run_group_tests_name("knob_pending", tests, NULL, NULL);
}
