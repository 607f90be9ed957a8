/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The start barrier, per-worker counters and the clock: what every measured loop
 * stands on once its workers are pinned (will-it-scale main.c, perf
 * bench/futex-hash.c). Workers wait at the barrier, then count; the parent times.
 */
#ifndef AB_BARRIER_H
#define AB_BARRIER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "sys/common.h"

/* Shared anonymous memory visible to forked children; NULL on failure. */
void *ab_shm_alloc(size_t size);
void ab_shm_free(void *p, size_t size);

/*
 * Start barrier for N workers, threads or processes (place it in ab_shm_alloc memory
 * for processes). Workers call ab_barrier_arrive_wait(); the parent waits until all
 * have arrived, then opens the barrier so they start together.
 */
struct ab_barrier {
	_Atomic uint32_t arrived;
	_Atomic uint32_t open;	/* futex word */
};
void ab_barrier_init(struct ab_barrier *b);
void ab_barrier_arrive_wait(struct ab_barrier *b);
/* Wait until n workers arrived or timeout_ns passed: 0, or -1 on timeout. */
int ab_barrier_wait_arrived(struct ab_barrier *b, unsigned n, uint64_t timeout_ns);
void ab_barrier_open(struct ab_barrier *b);

/*
 * A count that sleepers wait on (a futex word, in ab_shm_alloc memory for
 * processes): for the stretches where a process waits beside a measured loop, which
 * a poll every millisecond (ab_barrier_wait_arrived) would wake on the measuring
 * CPU. Each worker calls ab_count_up once; ab_wait_count sleeps until *count
 * reaches n: 0, or -1 at deadline_ns (CLOCK_MONOTONIC) or on a signal (ab_interrupted).
 */
void ab_count_up(_Atomic uint32_t *count);
int ab_wait_count(_Atomic uint32_t *count, uint32_t n, uint64_t deadline_ns);

/* One counter per worker, each on its own cache line ("avoid cacheline bouncing"). */
struct ab_counter {
	_Atomic uint64_t v;
	char pad[AB_CACHELINE - sizeof(uint64_t)];
} __attribute__((aligned(AB_CACHELINE)));

/* Workers bump with relaxed stores: the parent only samples. */
static inline void ab_counter_inc(struct ab_counter *c)
{
	atomic_store_explicit(&c->v, atomic_load_explicit(&c->v, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}
static inline void ab_counter_add(struct ab_counter *c, uint64_t n)
{
	atomic_store_explicit(&c->v, atomic_load_explicit(&c->v, memory_order_relaxed) + n,
			      memory_order_relaxed);
}
static inline uint64_t ab_counter_read(const struct ab_counter *c)
{
	return atomic_load_explicit(&((struct ab_counter *)c)->v, memory_order_relaxed);
}
/* Sum of n counters. */
uint64_t ab_counters_sum(const struct ab_counter *c, int n);

/* CLOCK_MONOTONIC in ns; never CLOCK_REALTIME. */
static inline uint64_t ab_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static inline double ab_now_s(void)
{
	return (double)ab_now_ns() / 1e9;
}
void ab_sleep_ns(uint64_t ns);

#endif
