// SPDX-License-Identifier: GPL-2.0
/*
 * One repetition, in a fresh child. The parent never creates a thread: glibc
 * stays on its single-threaded path in a child until the child itself
 * creates one, and no repetition inherits the fd-table or libc state of
 * another. The child is a lib/sys/proc worker process (parent-death signal,
 * signals reset, pinned to the main CPU); it gives itself its own struct
 * files, then runs one mode (modes.c) or the bare loop exactly as a
 * standalone program would, and leaves its result in shared memory.
 *
 * The parent sleeps while the child measures: lib's reaps poll every
 * millisecond, and a wake-up on the CPU of the measured loop would be part of
 * what is measured, so the waits here sleep on a pidfd or a futex and the
 * lib reap then collects at once (or kills at the deadline).
 *
 * Known limit: a child killed by a signal says nothing itself; the parent
 * names the signal.
 */
#include "fdget.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/barrier.h"
#include "sys/proc.h"

/* What one child measures, in shared memory so the parent reads it back. */
struct job {
	const struct fdget_settings *set;
	enum fdget_op op;
	enum fdget_mode mode;	/* ignored for the bare loop */
	int bare;
	uint64_t iters;
	struct fdget_rep rep;	/* a repetition's result */
	uint64_t bare_ns;	/* or the bare loop's time */
};

int fdget_wait_exit(pid_t pid, uint64_t deadline_ns)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), rc = 0;

	if (fd < 0)
		return 0;	/* no pidfd (Linux < 5.3): the reap that follows polls instead */
	for (;;) {
		uint64_t now = ab_now_ns();
		if (ab_interrupted || now >= deadline_ns) {
			rc = -1;
			break;
		}
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t ms = (deadline_ns - now) / 1000000 + 1;
		int r = poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms);
		if (r > 0 || (r < 0 && errno != EINTR))
			break;	/* exited, or poll cannot tell: the reap decides */
	}
	close(fd);
	return rc;
}

/* Give this process its own struct file for fd: read and lseek would otherwise
 * take f_pos_lock, because the parent holds the same file. */
static void own_file(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int nfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nfd < 0 || dup3(nfd, fd, O_CLOEXEC) < 0)
		ab_fail("reopen %s: %s", path, strerror(errno));
	close(nfd);
}

static int child_main(void *arg, int i)
{
	struct job *j = arg;
	const struct fdget_settings *s = j->set;
	char err[512];

	(void)i;
	own_file(s->fd);
	for (int k = 0; s->private_fd && k < s->nworkers; k++)
		if (s->private_fd[k] != s->fd)
			own_file(s->private_fd[k]);
	/* Test hook: the loop meets a closed fd, as a bug would leave it. */
	if (ab_test_hook("AFFBENCH_FDGET_BADF"))
		close(s->fd);
	if (j->bare) {
		uint64_t t0 = ab_now_ns();
		int rc = fdget_ops[j->op].loop[s->call](s->fd, j->iters);
		uint64_t t1 = ab_now_ns();
		if (rc)
			ab_fail("%s on the test file (fd %d): %s", fdget_ops[j->op].name, s->fd,
				strerror(errno));
		j->bare_ns = t1 - t0;
		return 0;
	}
	if (fdget_mode_run(s, j->op, j->mode, j->iters, &j->rep, err, sizeof(err)) < 0) {
		ab_msg("%s", err);
		return AB_EXIT_FAIL;
	}
	return 0;
}

/* Run j in a fresh child pinned to the main CPU; a failure ends the program. */
static void in_fresh_child(struct job *j, const char *what)
{
	const struct fdget_settings *s = j->set;
	struct ab_workers child;
	char err[256];
	uint64_t start = ab_now_ns();
	uint64_t deadline = fdget_deadline(s, j->bare ? 1 : fdget_mode_workers(s, j->mode));

	if (ab_workers_start(&child, 1, 0, &s->cpu_main, NULL, child_main, j, err, sizeof(err)) < 0)
		ab_fail("%s: %s", what, err);
	int late = fdget_wait_exit(child.pid[0], deadline) < 0;
	int bad = ab_workers_reap(&child, late ? 0 : deadline, NULL, NULL);
	int st = child.status[0];
	ab_workers_free(&child);
	if (ab_interrupted)
		ab_fail("%s: interrupted by signal %d", what, (int)ab_interrupted);
	if (child.gave_up)
		ab_fail("%s: the child is stuck in the kernel and would not die", what);
	if (late)
		ab_fail("%s: not done after %.0f s", what, (double)(deadline - start) / 1e9);
	if (bad && WIFSIGNALED(st))
		ab_fail("%s: the child was killed by signal %d (%s)", what, WTERMSIG(st),
			strsignal(WTERMSIG(st)));
	if (bad)
		exit(AB_EXIT_FAIL);	/* the child said why */
}

static struct job *shared_job(void)
{
	static struct job *j;

	if (!j && !(j = ab_shm_alloc(sizeof(*j))))
		ab_fail("shared memory for a repetition: %s", strerror(errno));
	return j;
}

void fdget_measure(const struct fdget_settings *s, enum fdget_op op, enum fdget_mode mode,
		   uint64_t iters, struct fdget_rep *r)
{
	struct job *j = shared_job();
	char what[64];

	*j = (struct job){ .set = s, .op = op, .mode = mode, .iters = iters };
	snprintf(what, sizeof(what), "%s in %s mode", fdget_ops[op].name, fdget_mode_name(mode));
	in_fresh_child(j, what);
	*r = j->rep;
}

double fdget_measure_bare(const struct fdget_settings *s, enum fdget_op op, uint64_t iters)
{
	struct job *j = shared_job();
	char what[64];

	*j = (struct job){ .set = s, .op = op, .bare = 1, .iters = iters };
	snprintf(what, sizeof(what), "%s timed bare", fdget_ops[op].name);
	in_fresh_child(j, what);
	if (j->bare_ns < AB_MIN_WINDOW_NS)
		ab_fail("%s: %llu iterations took %.3f ms, shorter than the %.0f ms a timing needs; "
			"raise --duration", what, (unsigned long long)iters, (double)j->bare_ns / 1e6,
			AB_MIN_WINDOW_NS / 1e6);
	return (double)j->bare_ns / (double)iters;
}
