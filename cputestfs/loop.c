// SPDX-License-Identifier: GPL-2.0
/*
 * The measured loop (fuse-devel 2012, Westerfeld, "stat performance on
 * multicore systems"): a client process, pinned by lib/sys/proc before it starts,
 * calls stat() on one file in a loop and compares the CPU the reply names with
 * its own (sched_getcpu right after the call). It only counts, in its own
 * cache line; the parent times the window with CLOCK_MONOTONIC at both ends.
 *
 * One call in CTF_LAT_EVERY is timed, and only in the measured window: two
 * clock reads per 64 calls, not one per call. An instrumented repetition
 * (time_every) times every call, for the request breakdown's check.
 *
 * Limits: sched_getcpu() after the call says where the client runs when it
 * returns, which is where it was woken; a migration in between is counted as
 * "other CPU". A kernel file names no CPU (st_blocks of an empty file is 0),
 * so it never counts as "same", and main.c records no CPU share for it.
 */
#include <errno.h>
#include <sched.h>
#include <sys/stat.h>

#include "cputestfs.h"

/* One call: 0 with the CPU that served it (-1: unknown) in *served, or -1 with errno. */
static inline int call_once(const struct ctf_target *t, int i, int *served)
{
	struct stat st;

	if (t->pipes)
		return ctf_pipe_ping(&t->pipes[i], served);
	if (stat(t->path, &st) < 0)
		return -1;
	*served = ctf_served_cpu(&st);
	return 0;
}

int ctf_client(struct ctf_shared *sh, const struct ctf_target *t, int i)
{
	struct ctf_client_shm *me = &sh->client[i];
	int served;

	if (t->pipes)
		ctf_pipes_keep_client(t->pipes, t->n, i);
	/* The first call does the FUSE LOOKUP and proves the path works; it is not counted. */
	if (call_once(t, i, &served) < 0)
		goto fail;
	ab_barrier_arrive_wait(&sh->barrier);
	unsigned every = sh->time_every ? 1 : CTF_LAT_EVERY;

	for (uint64_t n = 0;; n++) {
		int phase = atomic_load_explicit(&sh->phase, memory_order_relaxed);
		if (phase == CTF_STOP)
			break;
		int timed = phase == CTF_MEASURE && n % every == 0;
		uint64_t t0 = timed ? ab_now_ns() : 0;
		if (call_once(t, i, &served) < 0)
			goto fail;
		int cpu = sched_getcpu();
		if (timed)
			ab_hist_add(&me->lat, ab_now_ns() - t0);
		ctf_count_call(me, served == cpu);
	}
	return 0;
fail:
	atomic_store(&me->err, errno);
	return 1;
}
