// SPDX-License-Identifier: GPL-2.0
/*
 * --watch-threads: proof that a mode runs its loop with the threads it claims
 * (idle-thread: two, single: one). A sampler process, a lib/sys/proc worker of
 * the parent pinned to the idle CPU, reads Threads: from /proc/PID/status of
 * the process under test every 200 us while that process's loop runs, and
 * keeps the fewest and most it saw. The process under test asks for sampling
 * and waits for the sampler's answer before its loop, and stops it after the
 * loop, before any thread ends, so no sample falls outside the loop.
 *
 * Known limits: a debug aid, not a measurement: the sampler takes CPU time
 * beside the loop, and a loop shorter than 200 us may get no sample.
 */
#include "fdget.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/barrier.h"
#include "sys/proc.h"

#define ANSWER_NS (2 * AB_NS)	/* scaled: the sampler acknowledges a request within this */
#define SAMPLE_NS 200000ull

enum { W_STARTING, W_IDLE, W_ACTIVE, W_EXIT };

/* In shared memory: the process under test asks through want, the sampler answers in state. */
struct fdget_watch {
	_Atomic int want, state;
	_Atomic int min, max, samples;
	_Atomic int pid;	/* the process whose Threads: are sampled */
	struct ab_workers sampler;	/* the parent's handle on the sampler process */
};

static int threads_of(pid_t pid)
{
	char path[64], line[256];
	int n = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static int sampler_main(void *arg, int i)
{
	struct fdget_watch *w = arg;

	(void)i;
	/* Its copies of the test file's fds would raise the file counts: drop them. */
	close_range(3, ~0u, 0);
	for (;;) {
		int want = atomic_load(&w->want);
		if (want == W_EXIT)
			return 0;
		if (want == W_ACTIVE) {
			int n = threads_of(atomic_load(&w->pid));
			if (n > 0) {
				if (n < atomic_load(&w->min))
					atomic_store(&w->min, n);
				if (n > atomic_load(&w->max))
					atomic_store(&w->max, n);
				atomic_fetch_add(&w->samples, 1);
			}
		}
		atomic_store(&w->state, want);
		ab_sleep_ns(SAMPLE_NS);
	}
}

static void wait_state(struct fdget_watch *w, int s)
{
	uint64_t limit = ab_scaled_ns(ANSWER_NS), deadline = ab_now_ns() + limit;

	while (atomic_load(&w->state) != s) {
		if (ab_now_ns() > deadline)
			ab_fail("the thread sampler (--watch-threads) did not answer within %.1f s",
				(double)limit / 1e9);
		ab_sleep_ns(50000);
	}
}

struct fdget_watch *fdget_watch_start(int cpu)
{
	struct fdget_watch *w = ab_shm_alloc(sizeof(*w));
	char err[256];

	if (!w)
		ab_fail("shared memory for the thread sampler: %s", strerror(errno));
	atomic_store(&w->want, W_IDLE);
	atomic_store(&w->state, W_STARTING);
	if (ab_workers_start(&w->sampler, 1, 0, &cpu, NULL, sampler_main, w, err, sizeof(err)) < 0)
		ab_fail("thread sampler: %s", err);
	wait_state(w, W_IDLE);
	return w;
}

void fdget_watch_begin(struct fdget_watch *w)
{
	if (!w)
		return;
	atomic_store(&w->min, 1 << 30);
	atomic_store(&w->max, 0);
	atomic_store(&w->samples, 0);
	atomic_store(&w->pid, getpid());
	atomic_store(&w->want, W_ACTIVE);
	wait_state(w, W_ACTIVE);
}

void fdget_watch_end(struct fdget_watch *w, int *min, int *max)
{
	*min = *max = -1;
	if (!w)
		return;
	atomic_store(&w->want, W_IDLE);
	wait_state(w, W_IDLE);
	if (atomic_load(&w->samples) > 0) {
		*min = atomic_load(&w->min);
		*max = atomic_load(&w->max);
	}
}

void fdget_watch_stop(struct fdget_watch *w)
{
	if (!w)
		return;
	atomic_store(&w->want, W_EXIT);
	if (ab_workers_reap(&w->sampler, ab_now_ns() + ab_scaled_ns(ANSWER_NS), NULL, NULL))
		ab_msg("the thread sampler (--watch-threads) did not end cleanly");
	ab_workers_free(&w->sampler);
}
