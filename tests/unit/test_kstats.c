// SPDX-License-Identifier: GPL-2.0
/* kstats: each degraded path is taken by forcing it; the real path loads,
 * resets and reads (request counting is checked against a real FUSE daemon by
 * the cputestfs integration test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/common.h"
#include "kstats/kstats.h"

static void test_forced_degrades(void **state)
{
	(void)state;
	static const struct {
		const char *force;
		const char *want;	/* prefix of the reason */
	} cases[] = {
		{ "nobpf", "unavailable: " },
		{ "eperm", "skipped: " },
		{ "notracepoint", "skipped: tracepoint fuse:fuse_request_send" },
	};
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		struct ab_kstats *ks = (void *)1;
		char why[256] = "";
		setenv("AFFBENCH_KSTATS_FORCE", cases[i].force, 1);
		assert_int_equal(ab_kstats_open(&ks, why, sizeof(why)), -1);
		assert_null(ks);
		if (ab_kstats_built() == NULL && strncmp(why, cases[i].want, strlen(cases[i].want)))
			fail_msg("force=%s: reason '%s', want '%s...'", cases[i].force, why, cases[i].want);
		if (ab_kstats_built() != NULL && strncmp(why, "unavailable: ", 13))
			fail_msg("stub build: reason '%s'", why);
	}
	unsetenv("AFFBENCH_KSTATS_FORCE");
}

static void test_real_open(void **state)
{
	(void)state;
	struct ab_kstats *ks;
	struct ab_kstats_result r;
	char why[256] = "";

	if (ab_kstats_built()) {
		print_message("kstats not built: %s\n", ab_kstats_built());
		skip();
	}
	if (geteuid() != 0) {
		print_message("not root\n");
		skip();
	}
	if (ab_kstats_open(&ks, why, sizeof(why))) {
		/* A documented skip (old kernel without the tracepoints, BPF refused) is not a
		 * failure; anything else is. */
		if (!strncmp(why, "skipped: ", 9)) {
			print_message("%s\n", why);
			skip();
		}
		fail_msg("open failed: %s", why);
	}
	assert_int_equal(ab_kstats_set_conn(ks, 123456), 0);	/* a connection that does not exist */
	assert_int_equal(ab_kstats_add_pid(ks, getpid()), 0);
	assert_int_equal(ab_kstats_reset(ks), 0);
	assert_int_equal(ab_kstats_read(ks, &r), 0);
	assert_int_equal(r.requests, 0);
	ab_kstats_close(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forced_degrades),
		cmocka_unit_test(test_real_open),
	};
	return cmocka_run_group_tests_name("kstats", tests, NULL, NULL);
}
