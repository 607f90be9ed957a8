/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pinning: a worker is pinned before it runs (perf bench/futex-hash.c), a
 * thread through its attr, a process in the child before its loop. Masks
 * are CPU_ALLOC-sized, so they work past 1024 CPUs. The barrier, counters and
 * clock the pinned workers then use are in sys/barrier.h.
 */
#ifndef AB_PIN_H
#define AB_PIN_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* the Makefile passes -D_GNU_SOURCE; do not redefine it */
#endif
#include <pthread.h>
#include <sys/types.h>

#include "sys/cpuset.h"

/* Pin the calling thread to one CPU; cpu < 0 = leave it. 0 or -1/errno. */
int ab_pin_self(int cpu);
int ab_pin_self_set(const struct ab_cpuset *s);
/*
 * The one way to start a pinned thread: fn(arg) on a thread that runs on cpu
 * (>= 0), or on set (cpu < 0, set not NULL), or unpinned, from its first
 * instruction. 0, or an errno value with nothing started: a CPU that cannot
 * be pinned to (offline, outside this process's cpuset) fails here (glibc
 * sets the affinity before the thread runs and reports its error).
 */
int ab_thread_start_pinned(pthread_t *t, int cpu, const struct ab_cpuset *set, void *(*fn)(void *),
			   void *arg);

#endif
