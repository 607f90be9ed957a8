// SPDX-License-Identifier: GPL-2.0
/*
 * cputestfs's arithmetic, through its header: the served CPU carried in
 * st_blocks, the warm-up, the timed metrics of a window, which FUSE requests
 * count, and the kernel figures between two kstats snapshots. The processes
 * themselves are exercised by tests/integration/cputestfs.sh and kstats.sh.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "../../cputestfs/cputestfs.h"

static void test_served_cpu(void **state)
{
	static const int cpus[] = { 0, 1, 63, 64, AB_MAX_CPUS - 1 };
	struct stat st;

	(void)state;
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		memset(&st, 0, sizeof(st));
		st.st_blocks = ctf_encode_cpu(cpus[i]);
		assert_int_equal(ctf_served_cpu(&st), cpus[i]);
	}
	/* Unknown, and a file that never passed through the daemon: no CPU, never "same". */
	memset(&st, 0, sizeof(st));
	st.st_blocks = ctf_encode_cpu(-1);
	assert_int_equal(st.st_blocks, 0);
	assert_int_equal(ctf_served_cpu(&st), -1);
}

static void test_warmup(void **state)
{
	(void)state;
	assert_true(fabs(ctf_warmup_s(0.01) - 0.05) < 1e-12);	/* at least 50 ms */
	assert_true(fabs(ctf_warmup_s(1.0) - 0.2) < 1e-12);	/* 20% */
	assert_true(fabs(ctf_warmup_s(2.5) - 0.5) < 1e-12);
	assert_true(fabs(ctf_warmup_s(60.0) - 0.5) < 1e-12);	/* at most 500 ms */
}

static void test_window_metrics(void **state)
{
	struct ctf_result res;

	(void)state;
	memset(&res, 0, sizeof(res));
	/* 1000 calls in 0.5 s, 250 on the caller's CPU, 1000 requests answered. */
	ctf_window_metrics(1000, 250, 1000, 500000000ull, 1, &res);
	assert_true(fabs(res.v[CTF_STAT] - 2000.0) < 1e-9);
	assert_true(fabs(res.v[CTF_SAME] - 25.0) < 1e-12);
	assert_true(fabs(res.v[CTF_OTHER] - 75.0) < 1e-12);
	assert_true(fabs(res.v[CTF_REQ] - 1.0) < 1e-12);
	assert_true(res.has[CTF_STAT] && res.has[CTF_SAME] && res.has[CTF_OTHER] &&
		    res.has[CTF_REQ]);
	/* Nothing else is claimed: latency and kernel figures come from elsewhere. */
	for (int m = CTF_P50; m < CTF_NM; m++)
		assert_false(res.has[m]);

	/* The server's CPU per request: 3 ms over 1000 requests is 3 us; none without one. */
	ctf_server_cpu(3000000, 1000, &res);
	assert_true(res.has[CTF_SCPU] && fabs(res.v[CTF_SCPU] - 3.0) < 1e-12);
	ctf_server_cpu(3000000, 0, &res);
	assert_false(res.has[CTF_SCPU]);

	/* Two requests per call would show (a lookup per stat: entries not cached). */
	ctf_window_metrics(10, 10, 20, 1000000000ull, 1, &res);
	assert_true(fabs(res.v[CTF_REQ] - 2.0) < 1e-12);
	assert_true(fabs(res.v[CTF_OTHER]) < 1e-12);

	/* A kernel file names no CPU and has no server: only the rate. */
	memset(&res, 0, sizeof(res));
	ctf_window_metrics(3, 0, 0, 1000000000ull, 0, &res);
	assert_true(fabs(res.v[CTF_STAT] - 3.0) < 1e-12);
	assert_true(res.has[CTF_STAT]);
	assert_false(res.has[CTF_SAME] || res.has[CTF_OTHER] || res.has[CTF_REQ]);
}

static void test_counted_ops(void **state)
{
	(void)state;
	/* What the daemon counts. */
	assert_true(ctf_counted_op(FUSE_LOOKUP));
	assert_true(ctf_counted_op(FUSE_GETATTR));
	assert_true(ctf_counted_op(FUSE_READDIR));
	assert_true(ctf_counted_op(FUSE_READDIRPLUS));
	/* Not ours to count. */
	assert_false(ctf_counted_op(FUSE_FORGET));
	assert_false(ctf_counted_op(FUSE_OPEN));
	assert_false(ctf_counted_op(FUSE_READ));
	assert_false(ctf_counted_op(FUSE_INIT));
	assert_false(ctf_counted_op(FUSE_DESTROY));
	assert_false(ctf_counted_op(FUSE_BATCH_FORGET));
	assert_false(ctf_counted_op(0));
}

static void test_kernel_delta(void **state)
{
	struct ab_kstats_result a, b;
	uint64_t n, same;
	double ns;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.op[FUSE_LOOKUP] = (struct ab_kstats_op){ .count = 1, .same_cpu = 1, .sum_ns = 5000 };
	a.op[FUSE_GETATTR] = (struct ab_kstats_op){ .count = 100, .same_cpu = 40, .sum_ns = 2e5 };
	a.op[FUSE_INIT] = (struct ab_kstats_op){ .count = 1, .same_cpu = 0, .sum_ns = 1e6 };
	b = a;
	b.op[FUSE_GETATTR] = (struct ab_kstats_op){ .count = 300, .same_cpu = 140, .sum_ns = 6e5 };
	b.op[FUSE_FORGET] = (struct ab_kstats_op){ .count = 7, .same_cpu = 7, .sum_ns = 7e3 };

	/* The window: 200 more GETATTRs, 100 of them on the queuing CPU, 4e5 ns. */
	ctf_kernel_delta(&a, &b, &n, &same, &ns);
	assert_int_equal(n, 200);
	assert_int_equal(same, 100);
	assert_true(fabs(ns - 4e5) < 1e-6);

	/* Since the reset: every counted request, none of INIT or FORGET. */
	ctf_kernel_delta(NULL, &b, &n, &same, &ns);
	assert_int_equal(n, 301);
	assert_int_equal(same, 141);
	assert_true(fabs(ns - (5000 + 6e5)) < 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_served_cpu),
		cmocka_unit_test(test_warmup),
		cmocka_unit_test(test_window_metrics),
		cmocka_unit_test(test_counted_ops),
		cmocka_unit_test(test_kernel_delta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
