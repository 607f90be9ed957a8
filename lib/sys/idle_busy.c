// SPDX-License-Identifier: GPL-2.0
/*
 * --idle busy (idle.h): a SCHED_IDLE spinner on each allowed CPU, so that no CPU
 * halts while it waits. A spinner runs only when nothing else wants its CPU, so
 * what is measured preempts it at once; but a wake-up must still preempt it,
 * which on some machines costs more than leaving a halt. So it is a lever to
 * measure, never to assume.
 *
 * The spinners live in one child process, not in threads of the benchmark: a
 * benchmark that measures its own fd table (fdget) or its own threads must not
 * gain threads, and a child's fds and memory are its own. It dies with the
 * benchmark (PR_SET_PDEATHSIG, and a kill at exit); its CPU time is read from
 * outside, at a window's edges, through the process's CPU clock.
 */
#include "sys/idle_policy.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/cpuset.h"
#include "sys/pin.h"

static pid_t busy_pid = -1, busy_owner = -1;	/* the spinners, and who started them */
static clockid_t busy_clock;

static void spin(void)
{
	for (;;)
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#else
		__asm__ __volatile__("" ::: "memory");
#endif
}

static void *spinner(void *arg)
{
	struct sched_param sp = { 0 };

	/* pinned before it spins; SCHED_IDLE: anything else that wants the CPU goes first */
	if (ab_pin_self((int)(long)arg) == 0)
		sched_setscheduler(0, SCHED_IDLE, &sp);
	spin();
	return NULL;
}

/* The child: a spinner thread per CPU of cpus; never returns. */
static void busy_child(const struct ab_cpuset *cpus, pid_t parent)
{
	int cpu;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* the parent died before the line above */
		_exit(0);
	for (int fd = 0; fd < 1024; fd++)	/* hold none of the benchmark's files */
		close(fd);
	ab_cpuset_for_each(cpu, cpus) {
		pthread_t t;
		if (pthread_create(&t, NULL, spinner, (void *)(long)cpu))
			_exit(1);
	}
	for (;;)
		pause();
}

/* At exit of the process that started them: a forked child (a daemon, a client) that
 * exits runs this too, and must leave them alone. */
static void busy_stop(void)
{
	if (busy_pid > 0 && getpid() == busy_owner) {
		kill(busy_pid, SIGKILL);
		waitpid(busy_pid, NULL, 0);
		busy_pid = -1;
	}
}

int ab_idle_busy_start(const struct ab_cpuset *cpus, char *why, size_t len)
{
	pid_t parent = getpid();

	if (busy_pid > 0)
		return 0;
	pid_t pid = fork();
	if (pid < 0)
		return ab_err(why, len, "cannot fork the spinners: %s", strerror(errno));
	if (pid == 0)
		busy_child(cpus, parent);
	if (clock_getcpuclockid(pid, &busy_clock)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return ab_err(why, len, "no CPU clock for the spinners (pid %d)", (int)pid);
	}
	busy_pid = pid;
	busy_owner = parent;
	atexit(busy_stop);
	return 0;
}

/* A forked child (fdget measures in one) reads it too: a process CPU clock is readable from
 * any process. */
long long ab_idle_busy_cpu_ns(void)
{
	struct timespec ts;

	if (busy_pid <= 0 || clock_gettime(busy_clock, &ts))
		return -1;
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
