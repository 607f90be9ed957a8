// SPDX-License-Identifier: GPL-2.0
/*
 * fdget's pure helpers, through its header: --mode list parsing, the
 * calibration step and the workers per mode. The measured loops run in the
 * program itself; tests/integration/fdget.sh drives them (every op both ways,
 * a file so small that read wraps at EOF, a closed fd, a window too short).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../fdget/fdget.h"

static const struct {
	const char *in;
	int ok;
	int want[MODE_COUNT];	/* single, idle-thread, shared-fd, private-fd, procs */
	const char *err_has;	/* substring of the message on error */
} mode_cases[] = {
	{ "single", 1, { 1, 0, 0, 0, 0 }, NULL },
	{ "idle-thread", 1, { 1, 1, 0, 0, 0 }, NULL },	/* single is always added */
	{ "single,idle-thread", 1, { 1, 1, 0, 0, 0 }, NULL },
	{ "procs,shared-fd", 1, { 1, 0, 1, 0, 1 }, NULL },
	{ "all", 1, { 1, 1, 1, 1, 1 }, NULL },
	{ "private-fd,all", 1, { 1, 1, 1, 1, 1 }, NULL },
	{ "", 0, { 0 }, "''" },
	{ "bogus", 0, { 0 }, "'bogus'" },
	{ "single,bogus", 0, { 0 }, "'bogus'" },
	{ "single,", 0, { 0 }, "trailing comma" },
	{ ",single", 0, { 0 }, "empty entry" },
	{ "single,,procs", 0, { 0 }, "empty entry" },
	{ "Single", 0, { 0 }, "'Single'" },
	{ "idle", 0, { 0 }, "'idle'" },
	{ "alll", 0, { 0 }, "'alll'" },
};

static void test_parse_modes(void **state)
{
	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(mode_cases); i++) {
		int want[MODE_COUNT];
		char err[256] = "";
		int r = fdget_parse_modes(mode_cases[i].in, want, err, sizeof(err));

		if (mode_cases[i].ok) {
			if (r != 0)
				fail_msg("'%s': unexpected error %s", mode_cases[i].in, err);
			for (int m = 0; m < MODE_COUNT; m++)
				if (want[m] != mode_cases[i].want[m])
					fail_msg("'%s': mode %s is %d, want %d", mode_cases[i].in,
						 fdget_mode_name(m), want[m], mode_cases[i].want[m]);
		} else {
			if (r != -1)
				fail_msg("'%s' was accepted", mode_cases[i].in);
			if (!strstr(err, mode_cases[i].err_has))
				fail_msg("'%s': message '%s' lacks '%s'", mode_cases[i].in, err,
					 mode_cases[i].err_has);
		}
	}
}

static const struct {
	uint64_t n, elapsed, target, max;
	uint64_t lo, hi;	/* the answer must lie in [lo, hi] */
} calib_cases[] = {
	{ 1000, 50000000, 50000000, 1u << 30, 0, 0 },		/* reached: done */
	{ 1000, 90000000, 50000000, 1u << 30, 0, 0 },		/* past it: done */
	{ 1000, 10, 50000000, 1u << 30, 100000, 100000 },	/* far too short: 100x */
	{ 1000, 0, 50000000, 1u << 30, 100000, 100000 },	/* clock did not move: 100x */
	{ 1000, 25000000, 50000000, 1u << 30, 2100, 2300 },	/* half: ~2.2x */
	{ 1000, 49999999, 50000000, 1u << 30, 1001, 1200 },	/* just short: grows */
	{ 1, 49999999, 50000000, 1u << 30, 2, 2 },		/* never stays at n */
	{ 0, 10, 50000000, 1u << 30, 100, 100 },		/* n 0 counts as 1 */
	{ 1000, 10, 50000000, 5000, 5000, 5000 },		/* capped */
};

static void test_calib_next(void **state)
{
	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(calib_cases); i++) {
		uint64_t r = fdget_calib_next(calib_cases[i].n, calib_cases[i].elapsed,
					      calib_cases[i].target, calib_cases[i].max);
		if (r < calib_cases[i].lo || r > calib_cases[i].hi)
			fail_msg("case %zu: n %llu elapsed %llu: got %llu, want %llu..%llu", i,
				 (unsigned long long)calib_cases[i].n,
				 (unsigned long long)calib_cases[i].elapsed, (unsigned long long)r,
				 (unsigned long long)calib_cases[i].lo, (unsigned long long)calib_cases[i].hi);
	}
}

static const struct {
	uint64_t n, elapsed, target, max, want;
	int trunc;	/* want is n x 1.1 x rate, which the cast may cut by one */
} scale_cases[] = {
	{ 1000, 25000000, 100000000, 1u << 30, 4400, 1 },	/* a quarter: 4x, 10% past */
	{ 1000, 100000000, 100000000, 1u << 30, 1100, 1 },	/* the whole: 10% past */
	{ 1000, 0, 100000000, 1u << 30, 1u << 30, 0 },		/* clock did not move: capped */
	{ 1000, 25000000, 100000000, 3000, 3000, 0 },		/* capped */
	{ 1, 100000000, 10, 1u << 30, 1, 0 },			/* never below 1 */
};

static void test_calib_scale(void **state)
{
	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(scale_cases); i++) {
		uint64_t r = fdget_calib_scale(scale_cases[i].n, scale_cases[i].elapsed,
					       scale_cases[i].target, scale_cases[i].max);
		uint64_t want = scale_cases[i].want;
		if (r > want || r + (uint64_t)scale_cases[i].trunc < want)
			fail_msg("case %zu: got %llu, want %llu", i, (unsigned long long)r,
				 (unsigned long long)want);
	}
}

/* A timing is timed again after a 100x jump, or when it ran over twice its part. */
static void test_calib_suspect(void **state)
{
	(void)state;
	assert_true(fdget_calib_suspect(30, 100, 1));	/* a jump, even under the part */
	assert_false(fdget_calib_suspect(110, 100, 0));	/* as aimed */
	assert_false(fdget_calib_suspect(200, 100, 0));	/* twice: not over */
	assert_true(fdget_calib_suspect(201, 100, 0));	/* over twice */
}

/* The single-thread modes run one worker; the others as many as were set up. */
static void test_mode_workers(void **state)
{
	struct fdget_settings s = { .nworkers = 7 };

	(void)state;
	for (int m = 0; m < MODE_COUNT; m++) {
		int want = m == MODE_SINGLE || m == MODE_IDLE ? 1 : 7;
		if (fdget_mode_workers(&s, m) != want)
			fail_msg("mode %s: %d workers, want %d", fdget_mode_name(m),
				 fdget_mode_workers(&s, m), want);
	}
	assert_string_equal(fdget_mode_name(MODE_PROCS), "procs");
	assert_string_equal(fdget_mode_name(MODE_COUNT), "?");
	assert_string_equal(fdget_mode_name(-1), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_modes),
		cmocka_unit_test(test_calib_next),
		cmocka_unit_test(test_calib_scale),
		cmocka_unit_test(test_calib_suspect),
		cmocka_unit_test(test_mode_workers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
