// SPDX-License-Identifier: GPL-2.0
/*
 * Pinning. Workers pin before they start: the thread's attr, or the child
 * before its loop (see pin.h).
 */
#include "sys/pin.h"

#include <errno.h>
#include <sched.h>

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

int ab_pin_self_set(const struct ab_cpuset *s)
{
	return set_mask(0, s);
}

/* attr's affinity: cpu, else set, else none. 0 or an errno value. */
static int attr_affinity(pthread_attr_t *attr, int cpu, const struct ab_cpuset *set)
{
	struct ab_cpuset one = one_cpu(cpu);
	size_t size;
	cpu_set_t *k;
	int rc;

	if (cpu >= AB_MAX_CPUS)	/* one_cpu() would give an empty mask */
		return EINVAL;
	if (cpu >= 0)
		set = &one;
	if (!set)
		return 0;
	k = ab_cpuset_to_kernel(set, &size);
	if (!k)
		return ENOMEM;
	rc = pthread_attr_setaffinity_np(attr, size, k);
	CPU_FREE(k);
	return rc;
}

int ab_thread_start_pinned(pthread_t *t, int cpu, const struct ab_cpuset *set, void *(*fn)(void *),
			   void *arg)
{
	pthread_attr_t a;
	int rc = pthread_attr_init(&a);

	if (rc)
		return rc;
	rc = attr_affinity(&a, cpu, set);
	if (!rc)
		rc = pthread_create(t, &a, fn, arg);
	pthread_attr_destroy(&a);
	return rc;
}
