/*
 * Pinning, the start gate and clocks. Workers pin before they start (the
 * thread's attr, or the child before its loop), wait at the gate, then count;
 * the parent times, with CLOCK_MONOTONIC.
 */
#include "sys/pin.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* sched_setaffinity with a CPU_ALLOC mask of s: works past 1024 CPUs. */
static int set_mask(pid_t pid, const struct ab_cpuset *s)
{
	size_t size;
	cpu_set_t *k = ab_cpuset_to_kernel(s, &size);
	if (!k)
		return -1;
	int r = sched_setaffinity(pid, size, k);
	int e = errno;
	CPU_FREE(k);
	errno = e;
	return r;
}

static struct ab_cpuset one_cpu(int cpu)
{
	struct ab_cpuset s;

	ab_cpuset_zero(&s);
	if (cpu >= 0)
		ab_cpuset_set(&s, cpu);
	return s;
}

int ab_pin_self(int cpu)
{
	struct ab_cpuset s = one_cpu(cpu);
	return cpu < 0 ? 0 : set_mask(0, &s);
}

int ab_pin_pid(pid_t pid, int cpu)
{
	struct ab_cpuset s = one_cpu(cpu);
	return cpu < 0 ? 0 : set_mask(pid, &s);
}

int ab_pin_self_set(const struct ab_cpuset *s)
{
	return set_mask(0, s);
}

int ab_thread_attr_pin(pthread_attr_t *attr, int cpu)
{
	struct ab_cpuset s;
	size_t size;

	if (cpu < 0)
		return 0;
	s = one_cpu(cpu);
	cpu_set_t *k = ab_cpuset_to_kernel(&s, &size);
	if (!k)
		return -1;
	int r = pthread_attr_setaffinity_np(attr, size, k);
	CPU_FREE(k);
	if (r) {
		errno = r;
		return -1;
	}
	return 0;
}

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

/* Not FUTEX_PRIVATE: the gate also works across fork()ed processes. */
static void futex_wait(_Atomic uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

void ab_gate_init(struct ab_gate *g)
{
	atomic_store(&g->arrived, 0);
	atomic_store(&g->open, 0);
}

void ab_gate_arrive_wait(struct ab_gate *g)
{
	atomic_fetch_add(&g->arrived, 1);
	while (!atomic_load(&g->open))
		futex_wait(&g->open, 0);
}

int ab_gate_wait_arrived(struct ab_gate *g, unsigned n, uint64_t timeout_ns)
{
	uint64_t deadline = ab_now_ns() + timeout_ns;

	while (atomic_load(&g->arrived) < n) {
		if (ab_now_ns() > deadline)
			return -1;
		ab_sleep_ns(100000);
	}
	return 0;
}

void ab_gate_open(struct ab_gate *g)
{
	atomic_store(&g->open, 1);
	futex_wake_all(&g->open);
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
