// SPDX-License-Identifier: GPL-2.0
/* The request breakdown's arithmetic (kstats/breakdown.h): the step
 * percentiles come from their histograms, the shares add up to 100 and the
 * call time is the sum of the steps; a wake-up share with no wake-up is absent,
 * never 0; and the real path loads, reads and forgets, or explains why not
 * (the steps themselves are checked against real FUSE calls by
 * tests/integration/brk.sh). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/common.h"
#include "kstats/breakdown.h"
#include "kstats/kstats.h"

static struct ab_breakdown_result *fresh(void)
{
	struct ab_breakdown_result *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	return r;
}

/* n calls of steps ns[] each. */
static void add_calls(struct ab_breakdown_result *r, uint64_t n,
		      const uint64_t ns[AB_BREAKDOWN_STEPS])
{
	uint64_t total = 0;

	r->calls += n;
	r->requests += n;
	for (int i = 0; i < AB_BREAKDOWN_STEPS; i++) {
		r->step_ns[i] += (double)(n * ns[i]);
		r->hist[i].b[ab_hist_bucket(ns[i])] += n;
		total += ns[i];
	}
	r->hist[AB_BREAKDOWN_STEPS].b[ab_hist_bucket(total)] += n;
}

static void test_metrics(void **state)
{
	(void)state;
	static const uint64_t fast[AB_BREAKDOWN_STEPS] = { 1000, 2000, 3000, 2000, 2000 };	/* 10 us */
	static const uint64_t slow[AB_BREAKDOWN_STEPS] = { 1000, 20000, 3000, 24000, 2000 };	/* 50 us */
	struct ab_breakdown_result *after = fresh();
	struct ab_breakdown_metrics m;

	add_calls(after, 98, fast);
	add_calls(after, 2, slow);
	after->wakes[AB_BREAKDOWN_W_DAEMON] += 40;
	after->cross[AB_BREAKDOWN_W_DAEMON] += 38;
	after->idle[AB_BREAKDOWN_W_DAEMON] += 10;

	assert_int_equal(ab_breakdown_metrics(after, &m), 0);
	assert_true(m.calls == 100);
	assert_true(fabs(m.call_ns - (98 * 10000.0 + 2 * 50000.0) / 100) < 1e-6);
	assert_true(fabs(m.p50[AB_BREAKDOWN_DWAKE] - 2000) <= 2000 / 32.0);	/* within its bucket */
	assert_true(fabs(m.p99[AB_BREAKDOWN_RWAKE] - 24000) <= 24000 / 32.0);
	assert_true(fabs(m.call_p50 - 10000) <= 10000 / 32.0);
	double sum = 0;
	for (int i = 0; i < AB_BREAKDOWN_STEPS; i++)
		sum += m.share[i];
	assert_true(fabs(sum - 100) < 1e-9);
	assert_true(fabs(m.share[AB_BREAKDOWN_SUBMIT] -
			 100.0 * 100000 / (98 * 10000.0 + 2 * 50000.0)) < 1e-9);
	assert_true(fabs(m.per_call[AB_BREAKDOWN_W_DAEMON] - 0.4) < 1e-12);
	assert_true(fabs(m.cross_pct[AB_BREAKDOWN_W_DAEMON] - 95) < 1e-9);
	assert_true(fabs(m.idle_pct[AB_BREAKDOWN_W_DAEMON] - 25) < 1e-9);
	assert_true(isnan(m.cross_pct[AB_BREAKDOWN_W_REPLY]) && isnan(m.idle_pct[AB_BREAKDOWN_W_REPLY]));
	assert_true(isnan(m.loop_ns) && isnan(m.client_ns) && isnan(m.calls_per_s));
	/* The mean of the call histogram is the mean call, within a bucket's half width. */
	double mean = ab_breakdown_hist_mean(&after->hist[AB_BREAKDOWN_STEPS]);
	assert_true(fabs(mean - m.call_ns) <= m.call_ns / 64);
	struct ab_hist empty = { 0 };
	assert_true(isnan(ab_breakdown_hist_mean(&empty)));

	memset(after, 0, sizeof(*after));
	assert_int_equal(ab_breakdown_metrics(after, &m), -1);	/* no call: no records */
	free(after);
}

struct seen {
	int n, reply_cross, loop, share;
};

static void emit(void *ctx, const char *metric, double v, const char *unit)
{
	struct seen *s = ctx;

	assert_false(isnan(v));
	assert_non_null(unit);
	assert_memory_equal(metric, "brk_", 4);
	s->n++;
	s->reply_cross += !strcmp(metric, "brk_reply_wake_cross_pct");
	s->loop += !strcmp(metric, "brk_loop_ns");
	s->share += strstr(metric, "_share_pct") != NULL;
}

static void test_emit_leaves_out_unknown(void **state)
{
	(void)state;
	static const uint64_t ns[AB_BREAKDOWN_STEPS] = { 1, 2, 3, 4, 5 };
	struct ab_breakdown_result *r = fresh();
	struct ab_breakdown_metrics m;
	struct seen s = { 0 };

	add_calls(r, 3, ns);
	assert_int_equal(ab_breakdown_metrics(r, &m), 0);
	ab_breakdown_emit(&m, emit, &s);
	assert_int_equal(s.reply_cross, 0);	/* no reply wake-up: no share of them */
	assert_int_equal(s.loop, 0);
	assert_int_equal(s.share, AB_BREAKDOWN_STEPS);
	m.loop_ns = 10;
	memset(&s, 0, sizeof(s));
	ab_breakdown_emit(&m, emit, &s);
	assert_int_equal(s.loop, 1);
	assert_string_equal(ab_breakdown_step_name(AB_BREAKDOWN_DWAKE), "daemon_wake");
	free(r);
}

static void test_real_open(void **state)
{
	(void)state;
	struct ab_kstats *ks;
	struct ab_breakdown_result *r = fresh();
	char why[256] = "";

	if (ab_kstats_built() || geteuid() != 0 || ab_kstats_open(&ks, why, sizeof(why))) {
		print_message("kstats unavailable: %s\n", ab_kstats_built() ? ab_kstats_built() : why);
		free(r);
		skip();
	}
	if (ab_kstats_brk_why(ks))
		fail_msg("kstats loads but the breakdown does not: %s", ab_kstats_brk_why(ks));
	assert_int_equal(ab_kstats_add_caller(ks, getpid()), 0);
	assert_int_equal(ab_kstats_reset(ks), 0);
	assert_int_equal(ab_kstats_brk_window(ks, 1), 0);
	assert_int_equal(ab_kstats_brk_window(ks, 0), 0);
	assert_int_equal(ab_kstats_read_brk(ks, r), 0);
	assert_int_equal(r->calls, 0);
	assert_int_equal(ab_kstats_clear_pids(ks), 0);
	ab_kstats_close(ks);

	setenv("AFFBENCH_KSTATS_FORCE", "nobrk", 1);
	assert_int_equal(ab_kstats_open(&ks, why, sizeof(why)), 0);
	assert_non_null(ab_kstats_brk_why(ks));
	assert_int_equal(ab_kstats_read_brk(ks, r), -1);
	assert_int_equal(ab_kstats_add_caller(ks, getpid()), -1);
	assert_int_equal(ab_kstats_brk_window(ks, 1), -1);
	ab_kstats_close(ks);
	unsetenv("AFFBENCH_KSTATS_FORCE");
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_emit_leaves_out_unknown),
		cmocka_unit_test(test_real_open),
	};
	return cmocka_run_group_tests_name("brk", tests, NULL, NULL);
}
