// SPDX-License-Identifier: GPL-2.0
/*
 * ddpar's arithmetic, through ddpar/ddpar.h: the default --procs sweep, the
 * verdict that turns a repetition into numbers or a failed point (window too
 * short, nothing moved, daemon and clients disagreeing), the numbers
 * themselves (MB/s, requests/s, daemon and kernel time, latency percentiles
 * within the histogram's 1.6%), and the dd calibration's growth and count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/fuse.h>

#include "../../ddpar/ddpar.h"

/* Equal but for rounding (cmocka 1.1's float compare casts to float). */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static void test_default_procs(void **state)
{
	static const struct {
		int cpus, n, want[AB_INTLIST_MAX];
	} cases[] = {
		{ 1, 4, { 1, 2, 4, 8 } },
		{ 2, 4, { 1, 2, 4, 8 } },
		{ 6, 5, { 1, 2, 4, 8, 12 } },		/* 2 x CPUs, no power of two */
		{ 8, 5, { 1, 2, 4, 8, 16 } },
		{ 48, 8, { 1, 2, 4, 8, 16, 32, 64, 96 } },
		{ 64, 8, { 1, 2, 4, 8, 16, 32, 64, 128 } },
		{ 288, 8, { 1, 2, 4, 8, 16, 32, 64, 128 } },	/* capped at DDP_MAX_PROCS */
	};
	(void)state;

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		int procs[AB_INTLIST_MAX] = { 0 };
		int n = ddp_default_procs(cases[i].cpus, procs);
		assert_int_equal(n, cases[i].n);
		assert_memory_equal(procs, cases[i].want, sizeof(int) * (size_t)n);
	}
}

/* A repetition that passes: 1 s window, 100 calls of 128 KiB, daemon agrees. */
static struct ddp_outcome good(void)
{
	struct ddp_outcome o;

	memset(&o, 0, sizeof(o));
	o.window_ns = AB_NS;
	o.bytes = 100 * 131072ull;
	o.calls = 100;
	o.window = (struct ddp_dtotals){ 100, 100 * 131072ull, 100 * 20000ull, 100 * 35000ull,
					 100 };
	o.client_bytes = 150 * 131072ull;
	o.client_calls = 150;
	o.total = (struct ddp_dtotals){ 150, 150 * 131072ull, 150 * 20000ull, 150 * 35000ull, 150 };
	return o;
}

static void test_judge(void **state)
{
	struct ddp_outcome o = good();
	char why[256];
	(void)state;

	assert_int_equal(ddp_judge(&o, why, sizeof(why)), 0);

	o.window_ns = AB_MIN_WINDOW_NS - 1;
	assert_int_equal(ddp_judge(&o, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "too short to time"));
	o.window_ns = AB_MIN_WINDOW_NS;
	assert_int_equal(ddp_judge(&o, why, sizeof(why)), 0);

	o = good();
	o.bytes = 0;
	assert_int_equal(ddp_judge(&o, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no byte moved"));

	o = good();
	o.total.bytes++;	/* the miscounting daemon of the test hook */
	assert_int_equal(ddp_judge(&o, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "the daemon counted 19660801 bytes, the clients moved 19660800"));

	o = good();
	o.total.req--;
	assert_int_equal(ddp_judge(&o, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "answered 149 requests for 150 calls"));

	/* dd: calls unknown, so only bytes are compared */
	o = good();
	o.client_calls = 0;
	o.total.req = 7;
	assert_int_equal(ddp_judge(&o, why, sizeof(why)), 0);
}

static void test_numbers(void **state)
{
	struct ddp_outcome o = good();
	struct ddp_numbers n;
	(void)state;

	o.window_ns = AB_NS / 2;
	ddp_numbers(&o, &n);
	assert_near(n.mb_per_s, 100 * 131072.0 / 1e6 / 0.5, 1e-9);
	assert_near(n.req_per_s, 200, 1e-9);
	assert_near(n.daemon_us, 20, 1e-9);
	/* where the clock enters the kernel the daemon times one request in 64: its time per
	 * request is over the requests it timed, not over all of them */
	o.window.timed = 2;
	o.window.ns = 2 * 20000ull;
	ddp_numbers(&o, &n);
	assert_near(n.daemon_us, 20, 1e-9);
	assert_near(n.server_cpu_us, 35, 1e-9);	/* the serving threads' CPU per request */
	assert_true(isnan(n.p50_us) && isnan(n.p99_us));	/* nothing timed: no latency */

	/* dd: the daemon's requests stand in for the calls */
	o.calls = 0;
	o.window.req = 50;
	ddp_numbers(&o, &n);
	assert_near(n.req_per_s, 100, 1e-9);
	o.window.req = 0;
	o.window.timed = 0;
	ddp_numbers(&o, &n);
	assert_true(isnan(n.daemon_us));
	assert_true(isnan(n.server_cpu_us));

	/* 98 calls of 20 us, 2 of 900 us: p50 20 us, p99 900 us, each within 1.6% */
	for (int i = 0; i < 98; i++)
		ab_hist_add(&o.lat, 20000);
	ab_hist_add(&o.lat, 900000);
	ab_hist_add(&o.lat, 900000);
	ddp_numbers(&o, &n);
	assert_true(fabs(n.p50_us - 20) <= 20 * 0.016);
	assert_true(fabs(n.p99_us - 900) <= 900 * 0.016);
}

static void test_kernel(void **state)
{
	static struct ab_kstats_result r;
	(void)state;

	memset(&r, 0, sizeof(r));
	assert_true(isnan(ddp_kernel_us(&r, FUSE_WRITE)));
	assert_true(isnan(ddp_spin_us(&r)));
	r.op[FUSE_WRITE].count = 4;
	r.op[FUSE_WRITE].sum_ns = 80000;
	r.op[FUSE_READ].count = 1;
	r.op[FUSE_READ].sum_ns = 1e9;
	r.requests = 10;	/* every opcode: lookups, opens, writes */
	r.spin_wait_ns = 5000;
	assert_near(ddp_kernel_us(&r, FUSE_WRITE), 20, 1e-9);
	assert_near(ddp_spin_us(&r), 0.5, 1e-9);
}

static void test_dd_calibration(void **state)
{
	(void)state;
	/* A batch far too short grows at most 64-fold, one nearly long enough at least 2-fold. */
	assert_int_equal(ddp_dd_grow(32, 0.0001, 1.0), 32 * 64);
	assert_int_equal(ddp_dd_grow(32, 0.015625, 1.0), 32 * 16);
	assert_int_equal(ddp_dd_grow(32, 0.2, 1.0), 64);
	/* 100 blocks in 0.25 s: 400 for one second; never fewer than one block */
	assert_int_equal(ddp_dd_count(100, 0.25, 1.0), 400);
	assert_int_equal(ddp_dd_count(100, 0.3, 1.0), 334);
	assert_int_equal(ddp_dd_count(1, 1000, 0.01), 1);
	assert_true(ddp_dd_count(1, 0, 1.0) >= 1);	/* a zero time does not divide by zero */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_procs),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_dd_calibration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
