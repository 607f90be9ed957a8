// SPDX-License-Identifier: GPL-2.0
/*
 * lib/render/render_breakdown.c: "where the time goes" read back from the records
 * lib/kstats/breakdown writes (the same emitter, so the names cannot drift): the
 * steps' means add up to the call, labels keep only the keys that tell
 * configurations apart, bars follow the sweep's nesting, and the sentence
 * names the step that differs most, or says the calls took about the same
 * time, which steps could not be compared, and what a single configuration's
 * call is made of. Table-driven: each row an outcome and the exact sentence
 * it must give.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kstats/breakdown.h"
#include "render/render_breakdown.h"
#include "render/desc.h"
#include "record/results.h"

/* The descriptors the bars are asked for: a name and the keys the sentences compare. */
static const char *const ctf_keys[] = { "baseline", "placement", "transport", "uring_cpu", NULL };
static const struct ab_bench_desc cfs = { .name = "cputestfs", .breakdown_keys = ctf_keys };
static const struct ab_bench_desc ddp = { .name = "ddpar" };

struct emit_ctx {
	struct ab_results *res;
	const char *config;
	int rep;
};

static void emit(void *p, const char *metric, double value, const char *unit)
{
	struct emit_ctx *c = p;

	assert_int_equal(ab_results_add(c->res, "cputestfs", c->config, c->rep, metric, value, unit), 0);
}

/* One repetition of config with steps ns[] (ns) per call; the wake-ups' flags as given. */
static void add_rep(struct ab_results *res, const char *config, int rep, const double ns[5],
		    double cross, double idle)
{
	struct ab_breakdown_metrics m = { .calls = 1000 };
	struct emit_ctx c = { res, config, rep };
	double total = 0;

	for (int i = 0; i < 5; i++)
		total += ns[i];
	m.call_ns = total;
	m.call_p50 = m.call_p99 = total;
	for (int i = 0; i < 5; i++) {
		m.p50[i] = m.p99[i] = ns[i];
		m.share[i] = 100 * ns[i] / total;
	}
	for (int w = 0; w < 2; w++) {
		m.per_call[w] = 1;
		m.cross_pct[w] = cross;
		m.idle_pct[w] = idle;
	}
	m.loop_ns = m.client_ns = m.calls_per_s = NAN;
	ab_breakdown_emit(&m, emit, &c);
}

static void test_step_names(void **state)
{
	(void)state;
	for (int i = 0; i < AB_BREAKDOWN_NSTEP; i++)
		assert_string_equal(ab_breakdown_step_name(i), ab_breakdown_step_name(i));
}

static void test_bars(void **state)
{
	static const double same[5] = { 1000, 2000, 3000, 2000, 1000 };
	static const double other[5] = { 1500, 30000, 4000, 25000, 2000 };
	static const double other2[5] = { 1500, 34000, 4000, 27000, 2000 };
	struct ab_results res;
	struct ab_breakdown_bar b[8];
	char keys[128];

	(void)state;
	ab_results_init(&res);
	/* The CPU numbers follow the placement; the transport is the same everywhere. */
	add_rep(&res, "client_cpu=0;daemon_cpu=0;placement=same;transport=dev", 1, same, 0, 0);
	add_rep(&res, "client_cpu=0;daemon_cpu=1;placement=other;transport=dev", 1, other, 100, 90);
	add_rep(&res, "client_cpu=0;daemon_cpu=1;placement=other;transport=dev", 2, other2, 100, 80);
	assert_int_equal(ab_breakdown_bars(&res, &cfs, b, 8, keys, sizeof(keys)), 2);
	assert_string_equal(keys, "placement");
	assert_string_equal(b[0].label, "same");
	assert_string_equal(b[1].label, "other");
	assert_int_equal(b[1].reps, 2);
	/* means over repetitions, in us; the steps add up to the call */
	assert_float_equal(b[0].call_us, 9.0, 1e-9);
	assert_float_equal(b[1].step_us[1], 32.0, 1e-9);
	assert_float_equal(b[1].cross_pct[0], 100, 1e-9);
	assert_float_equal(b[1].idle_pct[0], 85, 1e-9);
	for (int k = 0; k < 2; k++) {
		double sum = 0;
		for (int i = 0; i < AB_BREAKDOWN_NSTEP; i++)
			sum += b[k].step_us[i];
		assert_float_equal(sum, b[k].call_us, 1e-9);
	}
	/* another benchmark's records are not this one's */
	assert_int_equal(ab_breakdown_bars(&res, &ddp, b, 8, keys, sizeof(keys)), 0);
	ab_results_free(&res);
}

/* A configuration seen late (its first repetition failed) goes back beside its own: the key
 * that changes least often is the outer one. */
static void test_order(void **state)
{
	static const double ns[5] = { 1000, 2000, 3000, 2000, 1000 };
	static const char *const seen[] = { "placement=same;transport=dev",
					    "placement=other;transport=dev",
					    "placement=same;transport=libfuse",
					    "placement=other;transport=libfuse", "placement=none;transport=dev" };
	static const char *const want[] = { "same:dev", "other:dev", "none:dev", "same:libfuse",
					    "other:libfuse" };
	struct ab_results res;
	struct ab_breakdown_bar b[8];
	char keys[128];

	(void)state;
	ab_results_init(&res);
	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		add_rep(&res, seen[i], 1, ns, 0, 0);
	assert_int_equal(ab_breakdown_bars(&res, &cfs, b, 8, keys, sizeof(keys)), 5);
	assert_string_equal(keys, "placement:transport");
	for (int i = 0; i < 5; i++)
		assert_string_equal(b[i].label, want[i]);
	ab_results_free(&res);
}

static void test_compare(void **state)
{
	static const struct {
		double a[5], b[5];	/* us per call of each step; NAN: not recorded */
		double cross, idle;	/* a's daemon wake-ups */
		const char *ctx, *want;
	} rows[] = {
		/* a clear largest step, a wake-up: its flags */
		{ { 1.5, 6.9, 4, 3, 2 }, { 1.4, 2, 3, 2.1, 1.1 }, 100, 93, "transport=libfuse",
		  "With `transport=libfuse`, `placement=other` took 7.8 us more per call than "
		  "`placement=same` (17.4 vs 9.6 us), 4.9 us of it in the daemon's wake-up (1 wake-up "
		  "per call, 100% of them across CPUs and 93% onto an idle CPU)." },
		/* the slower given second is still the one that "took more"; service has no flags */
		{ { 1, 1, 3, 1, 1 }, { 1, 1, 9, 1, 1 }, 0, 0, NULL,
		  "`placement=same` took 6 us more per call than `placement=other` (13 vs 7 us), 6 us "
		  "of it in the service." },
		/* no difference */
		{ { 1, 2, 3, 2, 1 }, { 1, 2, 3.1, 2, 1 }, 0, 0, "transport=dev",
		  "With `transport=dev`, `placement=same` and `placement=other` took about the same "
		  "time per call (9.1 and 9 us, within 2%)." },
	};
	char buf[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ab_breakdown_bar a = { .call_us = 0 }, b = { .call_us = 0 };
		for (int s = 0; s < 5; s++) {
			a.step_us[s] = rows[i].a[s];
			b.step_us[s] = rows[i].b[s];
			a.call_us += isfinite(rows[i].a[s]) ? rows[i].a[s] : 0;
			b.call_us += rows[i].b[s];
		}
		a.wakes[0] = b.wakes[0] = 1;
		a.cross_pct[0] = rows[i].cross;
		a.idle_pct[0] = rows[i].idle;
		b.cross_pct[0] = b.idle_pct[0] = 0;
		a.wakes[1] = a.cross_pct[1] = a.idle_pct[1] = NAN;
		b.wakes[1] = b.cross_pct[1] = b.idle_pct[1] = NAN;
		ab_breakdown_compare(buf, sizeof(buf), &a, "placement=other", &b, "placement=same", rows[i].ctx);
		assert_string_equal(buf, rows[i].want);
	}
}

/* A step recorded on one side only: the others are compared, the missing one named. */
static void test_missing_step(void **state)
{
	struct ab_breakdown_bar a = { .call_us = 20 }, b = { .call_us = 10 };
	char buf[1024];

	(void)state;
	double as[5] = { 1, NAN, 14, 2, 1 }, bs[5] = { 1, 2, 4, 2, 1 };
	for (int s = 0; s < 5; s++) {
		a.step_us[s] = as[s];
		b.step_us[s] = bs[s];
	}
	for (int w = 0; w < 2; w++)
		a.wakes[w] = a.cross_pct[w] = a.idle_pct[w] = b.wakes[w] = b.cross_pct[w] =
			b.idle_pct[w] = NAN;
	ab_breakdown_compare(buf, sizeof(buf), &a, "placement=other", &b, "placement=same", NULL);
	assert_string_equal(buf, "`placement=other` took 10 us more per call than `placement=same` "
				 "(20 vs 10 us), 10 us of it in the service; not recorded on both "
				 "sides, so not compared: daemon_wake.");
	/* nothing recorded on both sides */
	for (int s = 0; s < 5; s++)
		a.step_us[s] = NAN;
	ab_breakdown_compare(buf, sizeof(buf), &a, "placement=other", &b, "placement=same", NULL);
	assert_string_equal(buf, "`placement=other` took 10 us more per call than `placement=same` "
				 "(20 vs 10 us); no step recorded on both sides accounts for it; not "
				 "recorded on both sides, so not compared: submit, daemon_wake, "
				 "service, reply_wake, return.");
}

/* Medians beside the means when both sides have them: a mean far above its median is a tail. */
static void test_medians(void **state)
{
	struct ab_breakdown_bar a = { .call_us = 40, .call_p50_us = 12, .step_us = { 1, 30, 5, 3, 1 } };
	struct ab_breakdown_bar b = { .call_us = 10, .call_p50_us = 9.5, .step_us = { 1, 2, 4, 2, 1 } };
	char buf[1024];

	(void)state;
	for (int w = 0; w < 2; w++)
		a.wakes[w] = a.cross_pct[w] = a.idle_pct[w] = b.wakes[w] = b.cross_pct[w] =
			b.idle_pct[w] = NAN;
	ab_breakdown_compare(buf, sizeof(buf), &a, "uring_cpu=next", &b, "uring_cpu=queue",
			     "transport=uring");
	assert_string_equal(buf, "With `transport=uring`, `uring_cpu=next` took 30 us more per call than "
				 "`uring_cpu=queue` (40 vs 10 us; medians 12 vs 9.5 us), 28 us of it in "
				 "the daemon's wake-up.");
}

static void test_single(void **state)
{
	struct ab_breakdown_bar a = { .call_us = 10, .step_us = { 1, 2, 5, 1, 1 } };
	char buf[512];

	(void)state;
	ab_breakdown_single(buf, sizeof(buf), &a, "placement=same;transport=dev");
	assert_string_equal(buf, "Only one configuration has a breakdown "
				 "(`placement=same;transport=dev`): 10 us per call, most of it in the service (5 us, 50%).");
}

/* A breakdown from fewer than AB_BREAKDOWN_MIN_CALLS calls says so; one from enough, or
 * whose calls were not counted (records from before brk_calls), does not. */
static void test_few_calls(void **state)
{
	struct ab_breakdown_bar a = { .call_us = 20, .calls = 12, .step_us = { 1, 2, 14, 2, 1 } };
	struct ab_breakdown_bar b = { .call_us = 10, .calls = 5000, .step_us = { 1, 2, 4, 2, 1 } };
	char buf[1024];

	(void)state;
	for (int w = 0; w < 2; w++)
		a.wakes[w] = a.cross_pct[w] = a.idle_pct[w] = b.wakes[w] = b.cross_pct[w] =
			b.idle_pct[w] = NAN;
	assert_true(ab_breakdown_few(&a));
	assert_false(ab_breakdown_few(&b));
	ab_breakdown_compare(buf, sizeof(buf), &a, "placement=other", &b, "placement=same", NULL);
	assert_string_equal(buf, "`placement=other` took 10 us more per call than `placement=same` "
				 "(20 vs 10 us), 10 us of it in the service. `placement=other`'s "
				 "breakdown rests on 12 calls, fewer than the 1000 it needs: one slow "
				 "call moves its means.");
	a.calls = 1;
	ab_breakdown_single(buf, sizeof(buf), &a, "placement=other");
	assert_non_null(strstr(buf, "`placement=other`'s breakdown rests on 1 call, fewer than"));
	a.calls = AB_BREAKDOWN_MIN_CALLS;
	assert_false(ab_breakdown_few(&a));
	a.calls = 0;	/* a bar built without brk_calls */
	assert_false(ab_breakdown_few(&a));
	a.calls = NAN;
	assert_false(ab_breakdown_few(&a));
	a.calls = 999;
	assert_true(ab_breakdown_few(&a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_names),
		cmocka_unit_test(test_bars),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_missing_step),
		cmocka_unit_test(test_medians),
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_few_calls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
