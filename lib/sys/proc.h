/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process runner every benchmark stands on (will-it-scale's main.c, perf
 * bench's harness): set up a child, start N pinned workers (threads or
 * processes) behind the start barrier, watch them with deadlines, and reap them
 * with a deadline that gives up on a worker stuck in the kernel. Timeouts
 * tied to machine speed scale with ab_slowness(), so an emulated machine 50x
 * slower than hardware fails no point a fast one passes. The FUSE checks and
 * hooks benchmarks share are in fuse/fuseenv.h.
 */
#ifndef AB_PROC_H
#define AB_PROC_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sys/cpuset.h"
#include "sys/signals.h"	/* ab_interrupted, which every wait here reads */

#define AB_NS 1000000000ull
#define AB_POLL_NS (10 * 1000000ull)	/* watch loops wake this often */

/*
 * In a freshly forked child: die with the parent (SIGKILL; parent is the pid
 * that forked, to catch a parent that died before prctl), default
 * SIGINT/SIGTERM/SIGHUP, SIGPIPE ignored (a broken pipe is an error like any
 * other), its copy of the --idle PM QoS fd closed (sys/idle_policy.h), and pin to
 * cpu (>= 0) or to set (not NULL). _exit(AB_EXIT_ORPHAN or AB_EXIT_CHILD_SETUP)
 * on failure.
 */
void ab_child_setup(pid_t parent, int cpu, const struct ab_cpuset *set);

/*
 * Workers: n processes or threads running fn(arg, i), worker i pinned to cpu[i]
 * (cpu NULL or cpu[i] < 0: to set, or unpinned when set is NULL too). A process
 * worker ends with _exit(fn's return value); a thread worker's return is kept.
 * Each set is its own: several may be alive at once. A worker that cannot be
 * pinned fails: a thread does not start (ab_workers_start fails naming the
 * CPU), a process says so and exits 126.
 */
typedef int (*ab_worker_fn)(void *arg, int i);
struct ab_thread_start;
struct ab_workers {
	int n, started, threads;
	pid_t *pid;		/* processes: 0 once reaped */
	pthread_t *tid;
	struct ab_thread_start **start;	/* threads: each one's start record, NULL once let go */
	int *status;		/* waitpid status (processes) or fn's return (threads) */
	int gave_up;		/* workers left behind: stuck in the kernel past every deadline */
};
/* 0, or -1 with a message in err: those started are killed and reaped, and the
 * set freed (ab_workers_free on it again does nothing). */
int ab_workers_start(struct ab_workers *w, int n, int threads, const int *cpu,
		     const struct ab_cpuset *set, ab_worker_fn fn, void *arg, char *err, size_t errlen);
/* Has a worker ended (processes: without reaping it)? Its index, or -1. */
int ab_workers_ended(const struct ab_workers *w);
/*
 * Wait for every worker until deadline_ns; then call unblock(arg) once (abort a
 * FUSE connection, kill a server) and SIGKILL what is left; a process that
 * still does not die within ab_scaled_ns(5 s) is given up (w->gave_up), never
 * waited for forever. A thread still running at the deadline is given up too
 * (detached): it may finish later, so whatever fn's arg points to must outlive
 * it; the set itself may be freed. Returns how many workers did not end with
 * status 0.
 */
int ab_workers_reap(struct ab_workers *w, uint64_t deadline_ns, void (*unblock)(void *), void *arg);
/* Free the set (gave_up is kept). A thread never reaped is detached, as if given up. */
void ab_workers_free(struct ab_workers *w);

/* Wait for one child until deadline_ns, then SIGKILL it and wait a bounded
 * time more. Its waitpid status, or -1 when given up. */
int ab_reap_one(pid_t pid, uint64_t deadline_ns);

/*
 * Sleep in AB_POLL_NS steps until until_ns, calling check(arg, why, len) at each
 * step: 0 at until_ns, or -1 with why when check fails, on a signal, or past
 * deadline_ns.
 */
typedef int (*ab_check_fn)(void *arg, char *why, size_t len);
int ab_watch(uint64_t until_ns, uint64_t deadline_ns, ab_check_fn check, void *arg, char *why,
	     size_t len);

/*
 * How much slower this machine is than the hardware the fixed timeouts were
 * chosen on: fork, exit and wait of a few children, timed once, against a
 * generous reference; 1 on real hardware, 20-50 under emulation, at most 100.
 * A process the harness started takes the harness's figure from
 * AB_SLOWNESS_ENV instead: the 20 forks cost 20 to 35 ms on a VM, a sixth of
 * an invocation with a 0.1 s window, and measure the machine, not the point.
 */
#define AB_SLOWNESS_ENV "AFFBENCH_SLOWNESS"
double ab_slowness(void);
/* The figure this process probed itself, never an inherited one, probed again when
 * older than max_age_ns (the harness's, for its children: a machine that grew busy
 * stretches their timeouts within that long). */
double ab_slowness_fresh(uint64_t max_age_ns);
/* 1 when this process's figure is its own probe, 0 when inherited (or none yet). */
int ab_slowness_probed(void);
/* ns scaled by ab_slowness(). */
uint64_t ab_scaled_ns(uint64_t ns);

/*
 * Run argv (PATH is searched) in dir with stdout and stderr appended to log
 * (/dev/null when NULL), no shell involved; killed at timeout_ns. Its exit
 * status (128 + signal when killed), or -1 when it could not run.
 */
int ab_run(const char *dir, char *const argv[], const char *log, uint64_t timeout_ns);

#endif
