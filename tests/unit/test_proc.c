// SPDX-License-Identifier: GPL-2.0
/*
 * The worker sets of lib/sys/proc.c: two sets alive at once keep apart, a
 * thread given up on (detached) may finish after its set is freed, and a
 * worker that cannot be pinned fails its point with a line naming the CPU.
 * Run under ASan (make sanitize): the defects these guard against are
 * writes into freed memory that pass unseen without it.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "sys/barrier.h"
#include "sys/proc.h"

#define MAXW 4
#define WAIT_NS (30 * AB_NS)	/* bounds every wait: a busy machine is slow, a hang still fails */
#define NO_SUCH_CPU 4000	/* below AB_MAX_CPUS, above any CPU this test runs on */

/* What the workers of one set see: shared memory, so process workers see it too. */
struct ctl {
	_Atomic int release[MAXW];	/* worker i returns once release[i] */
	_Atomic int running[MAXW];
	int code[MAXW];		/* ... with code[i] */
};

static int worker(void *arg, int i)
{
	struct ctl *c = arg;

	atomic_store(&c->running[i], 1);
	while (!atomic_load(&c->release[i]))
		ab_sleep_ns(AB_NS / 1000);
	return c->code[i];
}

static struct ctl *ctl_new(void)
{
	struct ctl *c = ab_shm_alloc(sizeof(*c));

	assert_non_null(c);
	memset(c, 0, sizeof(*c));
	return c;
}

/* Until worker i of c is running; fails the test after WAIT_NS. */
static void wait_running(struct ctl *c, int i)
{
	uint64_t deadline = ab_now_ns() + WAIT_NS;

	while (!atomic_load(&c->running[i]))
		assert_true(ab_now_ns() < deadline);
}

/* Until ab_workers_ended(w) names a worker: its index. */
static int wait_ended(const struct ab_workers *w)
{
	uint64_t deadline = ab_now_ns() + WAIT_NS;
	int i;

	while ((i = ab_workers_ended(w)) < 0) {
		assert_true(ab_now_ns() < deadline);
		ab_sleep_ns(AB_NS / 1000);
	}
	return i;
}

static int exit_code(const struct ab_workers *w, int i)
{
	int st = w->status[i];

	return w->threads ? st : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const struct {
	const char *name;
	int threads;
} modes[] = {
	{ "threads", 1 },
	{ "processes", 0 },
};

/* Two sets started one after the other, both alive: each ends, is told apart
 * and is reaped on its own, whatever the other does. */
static void test_two_sets(void **state)
{
	(void)state;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct ctl *ca = ctl_new(), *cb = ctl_new();
		struct ab_workers a, b;
		char err[256] = "";

		print_message("%s\n", modes[m].name);
		ca->code[0] = 0, ca->code[1] = 3;
		cb->code[0] = 5, cb->code[1] = 0, cb->code[2] = 0;
		assert_int_equal(ab_workers_start(&a, 2, modes[m].threads, NULL, NULL, worker, ca, err,
						  sizeof(err)), 0);
		assert_int_equal(ab_workers_start(&b, 3, modes[m].threads, NULL, NULL, worker, cb, err,
						  sizeof(err)), 0);
		for (int i = 0; i < 3; i++)
			wait_running(cb, i);
		for (int i = 0; i < 2; i++)
			wait_running(ca, i);
		assert_int_equal(ab_workers_ended(&a), -1);
		assert_int_equal(ab_workers_ended(&b), -1);

		atomic_store(&cb->release[2], 1);	/* b's last ends: a sees nothing */
		assert_int_equal(wait_ended(&b), 2);
		assert_int_equal(ab_workers_ended(&a), -1);
		atomic_store(&ca->release[1], 1);	/* a's second ends: a sees it */
		assert_int_equal(wait_ended(&a), 1);

		for (int i = 0; i < MAXW; i++)
			atomic_store(&ca->release[i], 1);
		assert_int_equal(ab_workers_reap(&a, ab_now_ns() + WAIT_NS, NULL, NULL), 1);
		assert_int_equal(exit_code(&a, 1), 3);
		assert_int_equal(a.gave_up, 0);
		ab_workers_free(&a);	/* b is still running */

		for (int i = 0; i < MAXW; i++)
			atomic_store(&cb->release[i], 1);
		assert_int_equal(ab_workers_reap(&b, ab_now_ns() + WAIT_NS, NULL, NULL), 1);
		assert_int_equal(exit_code(&b, 0), 5);
		assert_int_equal(exit_code(&b, 2), 0);
		assert_int_equal(b.gave_up, 0);
		ab_workers_free(&b);
		ab_shm_free(ca, sizeof(*ca));
		ab_shm_free(cb, sizeof(*cb));
	}
}

static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Until this process has n threads again: a detached thread has exited. */
static void wait_tasks(int n)
{
	uint64_t deadline = ab_now_ns() + WAIT_NS;

	while (tasks() > n) {
		assert_true(ab_now_ns() < deadline);
		ab_sleep_ns(AB_NS / 1000);
	}
}

static void release_all(void *arg)
{
	struct ctl *c = arg;

	for (int i = 0; i < MAXW; i++)
		atomic_store(&c->release[i], 1);
}

/* A thread that is still running at the deadline: unblock() frees it and it is
 * joined; without unblock() it is given up, detached, and its set freed; it
 * then finishes and must write nothing into the freed set (ASan). A set freed
 * without being reaped lets its threads go the same way. */
static void test_given_up_thread(void **state)
{
	static const struct {
		const char *name;
		int reap;
		void (*unblock)(void *);
		int gave_up;
	} cases[] = {
		{ "unblocked in time", 1, release_all, 0 },
		{ "given up", 1, NULL, 1 },
		{ "freed unreaped", 0, NULL, 0 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct ctl *c = ctl_new();
		struct ab_workers w;
		char err[256] = "";
		int before = tasks();

		print_message("%s\n", cases[k].name);
		assert_int_equal(ab_workers_start(&w, 2, 1, NULL, NULL, worker, c, err, sizeof(err)), 0);
		atomic_store(&c->release[0], 1);
		wait_running(c, 1);
		assert_int_equal(wait_ended(&w), 0);
		if (cases[k].reap) {
			int bad = ab_workers_reap(&w, ab_now_ns(), cases[k].unblock, c);
			assert_int_equal(w.gave_up, cases[k].gave_up);
			assert_int_equal(bad, cases[k].gave_up);
			assert_int_equal(exit_code(&w, 0), 0);
		}
		ab_workers_free(&w);
		assert_int_equal(w.started, 0);
		assert_int_equal(ab_workers_ended(&w), -1);
		memset(&w, 0xa5, sizeof(w));	/* nothing of the set is used after free */

		release_all(c);	/* the given-up thread now finishes */
		wait_tasks(before);
		ab_shm_free(c, sizeof(*c));
	}
}

/* A worker pinned to a CPU that does not exist fails: a thread set does not
 * start and says which CPU; a process worker ends with a failure. */
static void test_pin_fails(void **state)
{
	(void)state;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct ab_cpuset allowed;
		struct ctl *c = ctl_new();
		struct ab_workers w;
		char err[256] = "", want[64];
		int before = tasks();

		print_message("%s\n", modes[m].name);
		assert_int_equal(ab_cpuset_allowed(&allowed), 0);
		int cpu[2] = { ab_cpuset_nth(&allowed, 0), NO_SUCH_CPU };
		release_all(c);
		int rc = ab_workers_start(&w, 2, modes[m].threads, cpu, NULL, worker, c, err, sizeof(err));
		if (modes[m].threads) {
			assert_int_equal(rc, -1);
			snprintf(want, sizeof(want), "CPU %d", NO_SUCH_CPU);
			assert_non_null(strstr(err, want));
			wait_tasks(before);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(ab_workers_reap(&w, ab_now_ns() + WAIT_NS, NULL, NULL), 1);
			assert_int_equal(exit_code(&w, 0), 0);
			assert_int_not_equal(exit_code(&w, 1), 0);
			ab_workers_free(&w);
		}
		ab_shm_free(c, sizeof(*c));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_sets),
		cmocka_unit_test(test_given_up_thread),
		cmocka_unit_test(test_pin_fails),
	};
	return cmocka_run_group_tests_name("proc", tests, NULL, NULL);
}
