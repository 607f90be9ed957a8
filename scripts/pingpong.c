// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: the reference of scripts/speedcheck.sh's cpupair section. The
 * plainest cache-line ping-pong there is (what core-to-core latency tools
 * do): two threads pinned on CPUs A and B, one 64-byte-aligned word, a store
 * and a spinning load each way; the pinging thread makes ROUNDS round trips
 * after as many for warm-up and times them itself (CLOCK_MONOTONIC). Prints
 * ns per round trip, one number on stdout.
 *
 *   cc -O2 -pthread -o pingpong pingpong.c && ./pingpong 0 1 200000
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Atomic int line __attribute__((aligned(64)));
static long rounds;

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (pthread_setaffinity_np(pthread_self(), sizeof(s), &s)) {
		fprintf(stderr, "pingpong: cannot pin to CPU %d\n", cpu);
		exit(1);
	}
}

static void *pong(void *arg)
{
	pin(*(int *)arg);
	for (long i = 0; i < 2 * rounds; i++) {
		while (atomic_load_explicit(&line, memory_order_acquire) != 1)
			;
		atomic_store_explicit(&line, 0, memory_order_release);
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int a, b;
	pthread_t t;
	double t0 = 0;

	if (argc != 4 || (a = atoi(argv[1])) < 0 || (b = atoi(argv[2])) < 0 ||
	    (rounds = atol(argv[3])) < 1) {
		fprintf(stderr, "usage: pingpong CPU_A CPU_B ROUNDS\n");
		return 2;
	}
	pin(a);
	pthread_create(&t, NULL, pong, &b);
	for (long i = 0; i < 2 * rounds; i++) {
		if (i == rounds)
			t0 = now();
		atomic_store_explicit(&line, 1, memory_order_release);
		while (atomic_load_explicit(&line, memory_order_acquire) != 0)
			;
	}
	printf("%.1f\n", (now() - t0) / rounds);
	pthread_join(t, NULL);
	return 0;
}
