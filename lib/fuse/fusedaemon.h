/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A FUSE daemon in its own (pinned) process: start it and wait for its mount
 * with a deadline, watch it, stop it (unmount, wait, abort, kill) so that no
 * mount survives; and the libfuse 3.14 session glue our filesystems share.
 */
#ifndef AB_FUSEDAEMON_H
#define AB_FUSEDAEMON_H

#include <stddef.h>
#include <sys/types.h>

#include "fuse/fusemnt.h"

/*
 * run() executes in the child, pinned to cpu (-1: not pinned), must mount at mnt
 * and serve until unmounted, and returns the child's exit code. The parent waits
 * for the mount up to timeout_ms. mnt NULL: a private mountpoint under ab_workdir().
 */
struct ab_daemon {
	pid_t pid;
	int conn;		/* FUSE connection number once mounted, else -1 */
	int keep_dir;		/* set after start: stop leaves the (user's) mountpoint in place */
	char mnt[4096];
};
typedef int (*ab_daemon_fn)(void *arg, const char *mnt);
/* 0 ok; -1 on failure (message in err; the child is reaped and nothing stays mounted). */
int ab_daemon_start(struct ab_daemon *d, const char *mnt, int cpu, ab_daemon_fn run, void *arg,
		    int timeout_ms, char *err, size_t errlen);
/* Is the daemon still running (not exited, not reaped)? */
int ab_daemon_alive(struct ab_daemon *d);
/* How an ended, unreaped daemon ended ("it was killed by signal 9 (Killed)"), for messages. */
const char *ab_daemon_how(struct ab_daemon *d, char *buf, size_t len);
/*
 * Unmount and reap: unmount (lazy when busy), wait up to timeout_ms for exit, then
 * abort the connection and SIGKILL; then remove the mountpoint unless keep_dir.
 * Returns the daemon's exit status (as from waitpid) or -1. Safe to call twice.
 */
int ab_daemon_stop(struct ab_daemon *d, int timeout_ms);

/*
 * First thing in a daemon's run(): put SIGINT/SIGTERM/SIGHUP back to their
 * defaults and, when cpus is not NULL, pin the whole process before libfuse
 * starts threads, so its worker threads inherit the mask. 0, or -1 after a
 * message naming the CPUs.
 */
struct ab_cpuset;
int ab_daemon_prepare(const struct ab_cpuset *cpus);

/*
 * libfuse 3.14 glue used by our filesystems: mount at mnt as source
 * "affbench-<name>", type fuse.<name> (plus extra "-o" options, may be NULL),
 * and run single- or multi-threaded, optionally with clone_fd. Returns 0 on a
 * clean unmount.
 */
struct fuse_lowlevel_ops;
enum ab_fuse_loop { AB_LOOP_SINGLE, AB_LOOP_MULTI, AB_LOOP_CLONE_FD };
int ab_fuse_serve(const struct fuse_lowlevel_ops *ops, size_t ops_size, void *userdata,
		  const char *mnt, const char *name, const char *extra_opts, enum ab_fuse_loop loop,
		  int max_threads);

#endif
