// SPDX-License-Identifier: GPL-2.0
/*
 * The start barrier, counters and the clock (see barrier.h): a futex the parent
 * opens once every worker waits on it, a count the parent sleeps on until every
 * worker is done, counters the parent samples, and CLOCK_MONOTONIC.
 */
#include "sys/barrier.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/signals.h"

void *ab_shm_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void ab_shm_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

/* Not FUTEX_PRIVATE: the barrier also works across fork()ed processes. */
static void futex_wait(_Atomic uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

void ab_barrier_init(struct ab_barrier *b)
{
	atomic_store(&b->arrived, 0);
	atomic_store(&b->open, 0);
}

void ab_barrier_arrive_wait(struct ab_barrier *b)
{
	atomic_fetch_add(&b->arrived, 1);
	while (!atomic_load(&b->open))
		futex_wait(&b->open, 0);
}

int ab_barrier_wait_arrived(struct ab_barrier *b, unsigned n, uint64_t timeout_ns)
{
	uint64_t deadline = ab_now_ns() + timeout_ns;

	while (atomic_load(&b->arrived) < n) {
		if (ab_now_ns() > deadline)
			return -1;
		ab_sleep_ns(100000);
	}
	return 0;
}

void ab_barrier_open(struct ab_barrier *b)
{
	atomic_store(&b->open, 1);
	futex_wake_all(&b->open);
}

void ab_count_up(_Atomic uint32_t *count)
{
	atomic_fetch_add(count, 1);
	futex_wake_all(count);
}

int ab_wait_count(_Atomic uint32_t *count, uint32_t n, uint64_t deadline_ns)
{
	for (;;) {
		uint32_t seen = atomic_load(count);
		uint64_t now = ab_now_ns();

		if (seen >= n)
			return 0;
		if (ab_interrupted || now >= deadline_ns)
			return -1;
		struct timespec left = { (time_t)((deadline_ns - now) / 1000000000ull),
					 (long)((deadline_ns - now) % 1000000000ull) };
		syscall(SYS_futex, count, FUTEX_WAIT, seen, &left, NULL, 0);
	}
}

uint64_t ab_counters_sum(const struct ab_counter *c, int n)
{
	uint64_t sum = 0;

	for (int i = 0; i < n; i++)
		sum += ab_counter_read(&c[i]);
	return sum;
}

void ab_sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ull, .tv_nsec = ns % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}
