/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU sets that work past 64 CPUs, and the Linux CPU-list syntax
 * ("0-3,8,10-11") used by --cpus, sysfs and our records.
 */
#ifndef AB_CPUSET_H
#define AB_CPUSET_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* the Makefile passes -D_GNU_SOURCE; do not redefine it */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#define AB_MAX_CPUS 8192	/* Linux's largest NR_CPUS */

struct ab_cpuset {
	unsigned long bits[AB_MAX_CPUS / (8 * sizeof(unsigned long))];
};

void ab_cpuset_zero(struct ab_cpuset *s);
void ab_cpuset_set(struct ab_cpuset *s, int cpu);
void ab_cpuset_clear(struct ab_cpuset *s, int cpu);
bool ab_cpuset_isset(const struct ab_cpuset *s, int cpu);
int ab_cpuset_count(const struct ab_cpuset *s);
/* Lowest CPU >= from that is in the set, or -1. */
int ab_cpuset_next(const struct ab_cpuset *s, int from);
/* The n-th CPU (0-based) in the set, or -1. */
int ab_cpuset_nth(const struct ab_cpuset *s, int n);
void ab_cpuset_and(struct ab_cpuset *dst, const struct ab_cpuset *a, const struct ab_cpuset *b);
#define ab_cpuset_for_each(cpu, s) \
	for ((cpu) = ab_cpuset_next((s), 0); (cpu) >= 0; (cpu) = ab_cpuset_next((s), (cpu) + 1))

/*
 * Parse a Linux CPU list. Rejects "", "3-1", "1,,2", "a", "-1", CPUs >= AB_MAX_CPUS
 * and, when allowed is not NULL, CPUs outside it. On error returns -1 and writes
 * a message naming the bad token to err (e.g. "bad CPU list '1,,2': empty entry").
 */
int ab_cpuset_parse(struct ab_cpuset *s, const char *list, const struct ab_cpuset *allowed,
		    char *err, size_t errlen);
/*
 * Format as a Linux CPU list ("0-3,8"); "" for an empty set. Returns length or -1 if it did not
 * fit.
 */
int ab_cpuset_format(const struct ab_cpuset *s, char *buf, size_t len);

/* CPUs this process may run on (sched_getaffinity with a CPU_ALLOC mask). */
int ab_cpuset_allowed(struct ab_cpuset *s);

/* Conversion to the kernel's mask: *size receives the byte size; free with CPU_FREE. */
cpu_set_t *ab_cpuset_to_kernel(const struct ab_cpuset *s, size_t *size);

#endif
