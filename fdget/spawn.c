// SPDX-License-Identifier: GPL-2.0
/*
 * --spawn: the post's second experiment, process start-up with and without
 * one thread (xfs_io -c quit run 1000 times, with and without -M). fdget
 * starts itself as a helper, /proc/self/exe --spawn-child 0|1, that exits at
 * once or after creating one thread, and times fork, exec, exit and the
 * parent's wake-up, one start after the other.
 *
 * Known limits: the helper is this program, not xfs_io: it has fdget's
 * libraries to load, so the absolute time differs from the post's; the
 * difference between the two kinds is the comparable part. A start-up is a
 * whole-process latency far above the clock's resolution, so a batch is not
 * held to the shortest timing window of the loops.
 */
#include "fdget.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/barrier.h"
#include "sys/proc.h"

#define START_LIMIT_NS (10 * AB_NS)	/* scaled: one start-up of the helper, hung past this */

static void *sleep_forever(void *arg)
{
	static _Atomic uint32_t never;

	(void)arg;
	for (;;)
		syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	return NULL;
}

int fdget_spawn_child(const char *arg)
{
	pthread_t t;
	int e;

	if (strcmp(arg, "0") && strcmp(arg, "1")) {
		fprintf(stderr, "fdget: bad value '%s' for " FDGET_SPAWN_CHILD ": expected 0 or 1\n", arg);
		return AB_EXIT_USAGE;
	}
	if (arg[0] == '1' && (e = pthread_create(&t, NULL, sleep_forever, NULL))) {
		fprintf(stderr, "fdget: pthread_create: %s\n", strerror(e));
		return AB_EXIT_FAIL;
	}
	return 0;
}

/* One start-up; a helper that fails or hangs ends the program. */
static void spawn_one(char *const argv[])
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		ab_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		ab_child_setup(parent, -1, NULL);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	uint64_t deadline = ab_now_ns() + ab_scaled_ns(START_LIMIT_NS);
	int late = fdget_wait_exit(pid, deadline) < 0;
	int st = ab_reap_one(pid, late ? 0 : deadline);
	if (ab_interrupted)
		ab_fail("spawn: interrupted by signal %d", (int)ab_interrupted);
	if (late || st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		ab_fail("spawn helper '/proc/self/exe %s %s' failed (%s %d)", argv[1], argv[2],
			late ? "hung, killed; status" : "status", st);
}

double fdget_spawn_batch(int with_thread, int n)
{
	char *argv[] = { (char *)"fdget", (char *)FDGET_SPAWN_CHILD, with_thread ? "1" : "0", NULL };
	uint64_t t0 = ab_now_ns();

	fflush(NULL);	/* or each child could repeat buffered output */
	for (int i = 0; i < n; i++)
		spawn_one(argv);
	return (double)(ab_now_ns() - t0) / 1e3 / n;
}
