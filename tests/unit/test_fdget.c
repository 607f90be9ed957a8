/*
 * fdget's own helpers: --mode list parsing, the calibration step, and the
 * measured loops on a real file (success, rewind at EOF, and a bad fd).
 * The fdget sources are compiled in: they are not part of lib/.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../fdget/calib.c"
#include "../../fdget/loops.c"

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
						 fdget_mode_names[m], want[m], mode_cases[i].want[m]);
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

/* A 3-byte file: 10 reads must wrap at EOF twice and still succeed. */
static int small_file(void)
{
	char path[] = "/tmp/affbench-test-fdget-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	ssize_t w = write(fd, "abc", 3);
	assert_int_equal(w, 3);
	return fd;
}

static void test_loops(void **state)
{
	(void)state;

	for (int c = 0; c < CALL_COUNT; c++) {	/* libc wrappers, then syscall(2) */
		int fd = small_file();

		for (int op = 0; op <= OP_NOP; op++) {
			int r = fdget_ops[op].loop[c](fd, 10);
			if (r != 0)
				fail_msg("%s loop (call %d) on a 3-byte file: %s", fdget_ops[op].name, c,
					 strerror(errno));
		}
		/* read really advances f_pos (the fdget_pos path), 1 byte per call. */
		off_t pos = lseek(fd, 0, SEEK_SET);
		assert_int_equal(pos, 0);
		int r = fdget_ops[OP_READ].loop[c](fd, 2);
		assert_int_equal(r, 0);
		pos = lseek(fd, 0, SEEK_CUR);
		assert_int_equal(pos, 2);
		close(fd);
		/* A closed fd: every syscall loop fails at once with EBADF; nop cannot fail. */
		for (int op = 0; op < OP_COUNT; op++) {
			errno = 0;
			if (fdget_ops[op].loop[c](fd, 10) != -1 || errno != EBADF)
				fail_msg("%s loop (call %d) on a closed fd did not fail with EBADF (errno %d)",
					 fdget_ops[op].name, c, errno);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_modes),
		cmocka_unit_test(test_calib_next),
		cmocka_unit_test(test_loops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
