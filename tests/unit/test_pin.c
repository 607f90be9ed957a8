// SPDX-License-Identifier: GPL-2.0
/* Pinning, the start barrier, counters and clocks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/barrier.h"
#include "sys/pin.h"
#include "sys/proc.h"

static void test_pin_self(void **state)
{
	(void)state;
	struct ab_cpuset allowed, orig;
	assert_int_equal(ab_cpuset_allowed(&allowed), 0);
	orig = allowed;
	int cpu;
	ab_cpuset_for_each(cpu, &allowed) {
		assert_int_equal(ab_pin_self(cpu), 0);
		sched_yield();
		assert_int_equal(sched_getcpu(), cpu);
	}
	assert_int_equal(ab_pin_self(-1), 0);	/* no-op */
	assert_int_equal(ab_pin_self_set(&orig), 0);
	struct ab_cpuset now;
	assert_int_equal(ab_cpuset_allowed(&now), 0);
	assert_memory_equal(&now, &orig, sizeof(struct ab_cpuset));
}

struct worker {
	struct ab_barrier *barrier;
	struct ab_counter *ctr;
	int cpu;
	int seen_cpu;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	w->seen_cpu = sched_getcpu();	/* pinned by its attr before it started */
	ab_barrier_arrive_wait(w->barrier);
	for (int i = 0; i < 1000; i++)
		ab_counter_inc(w->ctr);
	return NULL;
}

static void test_barrier_threads(void **state)
{
	(void)state;
	struct ab_cpuset allowed;
	assert_int_equal(ab_cpuset_allowed(&allowed), 0);
	enum { N = 4 };
	struct ab_barrier barrier;
	struct ab_counter ctr[N];
	struct worker w[N];
	pthread_t th[N];
	ab_barrier_init(&barrier);
	for (int i = 0; i < N; i++) {
		ctr[i].v = 0;
		w[i] = (struct worker){ &barrier, &ctr[i],
					ab_cpuset_nth(&allowed, i % ab_cpuset_count(&allowed)), -1 };
		assert_int_equal(ab_thread_start_pinned(&th[i], w[i].cpu, NULL, worker_fn, &w[i]), 0);
	}
	assert_int_equal(ab_barrier_wait_arrived(&barrier, N, 5000000000ull), 0);
	assert_int_equal(ab_counters_sum(ctr, N), 0);	/* nobody passed the closed barrier */
	ab_barrier_open(&barrier);
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].seen_cpu, w[i].cpu);
	}
	assert_int_equal(ab_counters_sum(ctr, N), N * 1000);
	/* each counter on its own cache line */
	assert_int_equal(sizeof(struct ab_counter), AB_CACHELINE);
	assert_int_equal((uintptr_t)&ctr[1] % AB_CACHELINE, 0);
}

static void *where_fn(void *arg)
{
	*(int *)arg = sched_getcpu();
	return NULL;
}

/* ab_thread_start_pinned: on the CPU, within the set, or refused with nothing started. */
static void test_start_pinned(void **state)
{
	struct ab_cpuset allowed, last;
	(void)state;
	assert_int_equal(ab_cpuset_allowed(&allowed), 0);
	int lastcpu = ab_cpuset_nth(&allowed, ab_cpuset_count(&allowed) - 1);
	ab_cpuset_zero(&last);
	ab_cpuset_set(&last, lastcpu);
	const struct {
		int cpu;
		const struct ab_cpuset *set;
		int rc;		/* 0 or the errno */
		int on;		/* the CPU it must run on, or -1: any */
	} cases[] = {
		{ ab_cpuset_nth(&allowed, 0), NULL, 0, ab_cpuset_nth(&allowed, 0) },
		{ lastcpu, &allowed, 0, lastcpu },	/* cpu wins over set */
		{ -1, &last, 0, lastcpu },
		{ -1, NULL, 0, -1 },
		{ 4000, NULL, EINVAL, -1 },	/* no such CPU */
		{ AB_MAX_CPUS, NULL, EINVAL, -1 },	/* no mask holds it */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		pthread_t t;
		int seen = -2;
		assert_int_equal(ab_thread_start_pinned(&t, cases[k].cpu, cases[k].set, where_fn, &seen),
				 cases[k].rc);
		if (cases[k].rc) {
			assert_int_equal(seen, -2);
			continue;
		}
		assert_int_equal(pthread_join(t, NULL), 0);
		assert_true(seen >= 0);
		if (cases[k].on >= 0)
			assert_int_equal(seen, cases[k].on);
	}
}

static void test_barrier_processes_and_timeout(void **state)
{
	(void)state;
	struct ab_barrier *g = ab_shm_alloc(sizeof(*g));
	assert_non_null(g);
	ab_barrier_init(g);
	assert_int_equal(ab_barrier_wait_arrived(g, 1, 20000000ull), -1);	/* nobody came */
	pid_t pid = fork();
	if (pid == 0) {
		ab_barrier_arrive_wait(g);
		_exit(7);
	}
	/* the child arrives at once; a busy machine may make that seconds */
	assert_int_equal(ab_barrier_wait_arrived(g, 1, ab_scaled_ns(20 * AB_NS)), 0);
	ab_barrier_open(g);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(WEXITSTATUS(st), 7);
	ab_shm_free(g, sizeof(*g));
}

static void test_clock(void **state)
{
	(void)state;
	uint64_t a = ab_now_ns();
	ab_sleep_ns(2000000);
	uint64_t b = ab_now_ns();
	assert_true(b - a >= 2000000);	/* monotonic and slept at least as asked */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin_self),
		cmocka_unit_test(test_barrier_threads),
		cmocka_unit_test(test_start_pinned),
		cmocka_unit_test(test_barrier_processes_and_timeout),
		cmocka_unit_test(test_clock),
	};
	return cmocka_run_group_tests_name("pin", tests, NULL, NULL);
}
