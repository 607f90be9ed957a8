// SPDX-License-Identifier: GPL-2.0
/*
 * lib/fuse/fsrv_wait.c: --daemon-wait's forms (block, spin:US, poll), their
 * canonical names for a record's config, and the CPU slots' sum.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "fuse/fsrv.h"

static void test_parse(void **state)
{
	static const struct {
		const char *in;
		int ok, mode;
		uint32_t us;
		const char *name;	/* canonical; NULL: refused */
	} cases[] = {
		{ "block", 1, AB_FSRV_WAIT_BLOCK, 0, "block" },
		{ "poll", 1, AB_FSRV_WAIT_POLL, 0, "poll" },
		{ "spin:50", 1, AB_FSRV_WAIT_SPIN, 50, "spin:50" },
		{ "spin:1", 1, AB_FSRV_WAIT_SPIN, 1, "spin:1" },
		{ "spin:050", 1, AB_FSRV_WAIT_SPIN, 50, "spin:50" },
		{ "spin:1000000", 1, AB_FSRV_WAIT_SPIN, 1000000, "spin:1000000" },
		{ "spin:0", 0, 0, 0, NULL },
		{ "spin:1000001", 0, 0, 0, NULL },
		{ "spin:99999999999999999999", 0, 0, 0, NULL },
		{ "spin:abc", 0, 0, 0, NULL },
		{ "spin:1e9", 0, 0, 0, NULL },
		{ "spin:0x10", 0, 0, 0, NULL },
		{ "spin:", 0, 0, 0, NULL },
		{ "spin:-5", 0, 0, 0, NULL },
		{ "spin: 5", 0, 0, 0, NULL },
		{ "spin:5 ", 0, 0, 0, NULL },
		{ "spin", 0, 0, 0, NULL },
		{ "Block", 0, 0, 0, NULL },
		{ "", 0, 0, 0, NULL },
	};
	char err[128], name[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ab_fsrv_wait_cfg w;
		int rc = ab_fsrv_wait_parse(cases[i].in, &w, err, sizeof(err));
		if (!cases[i].ok) {
			assert_int_equal(rc, -1);
			assert_true(err[0] != 0);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(w.mode, cases[i].mode);
		assert_int_equal(w.spin_us, cases[i].us);
		assert_string_equal(ab_fsrv_wait_name(&w, name, sizeof(name)), cases[i].name);
	}
}

/* The serving process's CPU time, read from outside: none before it names itself, then its
 * process CPU clock, which grows as it burns CPU and is read without the server's help. */
static void test_cpu_sum(void **state)
{
	struct ab_fsrv_cpu c[3];
	volatile unsigned long spin = 0;

	(void)state;
	memset(c, 0, sizeof(c));
	assert_int_equal(ab_fsrv_cpu_sum(c, 3), 0);
	assert_int_equal(ab_fsrv_cpu_sum(NULL, 3), 0);
	atomic_store(&c[0].pid, (int32_t)getpid());
	uint64_t a = ab_fsrv_cpu_sum(c, 3);
	assert_true(a > 0);
	for (unsigned long i = 0; i < 50000000ul; i++)
		spin += i;
	uint64_t b = ab_fsrv_cpu_sum(c, 3);
	assert_true(b > a);
	atomic_store(&c[0].pid, 999999999);	/* no such process: 0, never a stale number */
	assert_int_equal(ab_fsrv_cpu_sum(c, 3), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_cpu_sum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
