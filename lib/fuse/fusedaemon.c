// SPDX-License-Identifier: GPL-2.0
/*
 * The FUSE daemon process and the libfuse 3.14 session glue (see fusedaemon.h).
 *
 * 3.12+ API in this file only: the 3.12 loop config is the only way to set
 * max_threads. Callers may use FUSE_USE_VERSION 34: struct fuse_lowlevel_ops
 * has the same layout in both (only ioctl's cmd type differs).
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include "fuse/fusedaemon.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW 8
#endif
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/cpuset.h"
#include "sys/barrier.h"
#include "sys/pin.h"

static void describe_status(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "ended with wait status 0x%x", (unsigned)st);
}

static void reset(struct ab_daemon *d)
{
	d->pid = 0;
	d->conn = -1;
	d->keep_dir = 0;
	d->mnt[0] = '\0';
}

int ab_daemon_start(struct ab_daemon *d, const char *mnt, int cpu, ab_daemon_fn run, void *arg,
		    int timeout_ms, char *err, size_t errlen)
{
	char why[128];
	int made_dir = 0, st;

	reset(d);
	if (!mnt || !*mnt) {
		if (ab_mnt_mkdir(NULL, d->mnt, sizeof(d->mnt), err, errlen) < 0)
			return -1;
		made_dir = 1;
	} else if (snprintf(d->mnt, sizeof(d->mnt), "%s", mnt) >= (int)sizeof(d->mnt)) {
		reset(d);
		return ab_err(err, errlen, "mountpoint path too long: %s", mnt);
	}
	if (ab_mnt_is_fuse(d->mnt)) {
		ab_err(err, errlen, "%s is already a FUSE mount", d->mnt);
		reset(d);
		return -1;
	}

	pid_t parent = getpid();
	fflush(NULL);	/* or the child's exit path could repeat buffered output */
	pid_t pid = fork();
	if (pid < 0) {
		ab_err(err, errlen, "fork for the FUSE daemon of %s: %s", d->mnt, strerror(errno));
		goto fail_dir;
	}
	if (pid == 0) {
		/* PDEATHSIG fires when the forking thread exits: start daemons from a long-lived thread. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(AB_EXIT_ORPHAN);
		if (ab_pin_self(cpu) < 0) {
			ab_msg("cannot pin the FUSE daemon to CPU %d: %s", cpu, strerror(errno));
			_exit(AB_EXIT_CHILD_SETUP);
		}
		_exit(run(arg, d->mnt));
	}
	d->pid = pid;

	uint64_t deadline = ab_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid) {
			describe_status(st, why, sizeof(why));
			ab_err(err, errlen, "FUSE daemon %s before mounting %s", why, d->mnt);
			d->pid = 0;
			goto fail_mount;
		}
		if (ab_mnt_is_fuse(d->mnt))
			break;
		if (ab_now_ns() >= deadline) {
			ab_err(err, errlen, "FUSE daemon did not mount %s within %d ms", d->mnt,
			       timeout_ms);
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			d->pid = 0;
			goto fail_mount;
		}
		ab_sleep_ns(1000000);
	}
	d->conn = ab_mnt_conn(d->mnt);
	return 0;

fail_mount:
	/* It may have mounted just before dying or being killed. */
	if (ab_mnt_is_fuse(d->mnt))
		ab_mnt_unmount(d->mnt);
fail_dir:
	if (made_dir)
		rmdir(d->mnt);
	reset(d);
	return -1;
}

int ab_daemon_alive(struct ab_daemon *d)
{
	siginfo_t si;

	if (d->pid <= 0)
		return 0;
	/* WNOWAIT: leave the status for ab_daemon_stop to return. */
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)d->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return 0;
	return si.si_pid == 0;
}

const char *ab_daemon_how(struct ab_daemon *d, char *buf, size_t len)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (d->pid <= 0 || waitid(P_PID, (id_t)d->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
	    si.si_pid == 0)
		snprintf(buf, len, "how is not known");
	else if (si.si_code == CLD_EXITED)
		snprintf(buf, len, "it exited with status %d", si.si_status);
	else
		snprintf(buf, len, "it was killed by signal %d (%s)", si.si_status,
			 strsignal(si.si_status));
	return buf;
}

int ab_daemon_stop(struct ab_daemon *d, int timeout_ms)
{
	int st = -1;

	if (d->pid <= 0 && !d->mnt[0])
		return -1;
	/* Unmounting makes a healthy daemon's loop see ENODEV and return. */
	if (d->mnt[0])
		ab_mnt_unmount(d->mnt);

	if (d->pid > 0) {
		uint64_t deadline =
			ab_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
		pid_t r;
		while ((r = waitpid(d->pid, &st, WNOHANG)) == 0 && ab_now_ns() < deadline)
			ab_sleep_ns(1000000);
		if (r == 0) {
			/* Hung, stopped, or a lazily detached mount is still in use. */
			ab_mnt_abort_conn(d->conn);
			kill(d->pid, SIGKILL);
			while ((r = waitpid(d->pid, &st, 0)) < 0 && errno == EINTR)
				;
		}
		if (r != d->pid)
			st = -1;
	}

	if (d->mnt[0]) {
		if (ab_mnt_is_fuse(d->mnt)) {
			ab_mnt_abort_conn(d->conn);
			umount2(d->mnt, MNT_DETACH | UMOUNT_NOFOLLOW);
		}
		if (!d->keep_dir)
			rmdir(d->mnt);
	}
	reset(d);
	return st;
}

/* ---- libfuse session glue ---- */

int ab_fuse_serve(const struct fuse_lowlevel_ops *ops, size_t ops_size, void *userdata,
		  const char *mnt, const char *name, const char *extra_opts, enum ab_fuse_loop loop,
		  int max_threads)
{
	char mount_opts[512];
	/* The source names us: stale-mount cleanup removes only affbench-sourced mounts. */
	int n = snprintf(mount_opts, sizeof(mount_opts), "fsname=" AB_FSNAME_PREFIX "%s,subtype=%s%s%s",
			 name, name, extra_opts ? "," : "", extra_opts ? extra_opts : "");
	if (n < 0 || (size_t)n >= sizeof(mount_opts)) {
		ab_msg("mount options for %s too long", mnt);
		return 1;
	}
	char *argv[] = { (char *)ab_prog, "-o", mount_opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse_loop_config *cfg = NULL;
	int ret = 1, rc;

	struct fuse_session *se = fuse_session_new(&args, ops, ops_size, userdata);
	if (!se) {
		ab_msg("fuse_session_new for %s failed (mount options: %s)", mnt, mount_opts);
		goto out_args;
	}
	if (fuse_set_signal_handlers(se) != 0) {
		ab_msg("fuse_set_signal_handlers for %s failed", mnt);
		goto out_session;
	}
	if (fuse_session_mount(se, mnt) != 0) {
		ab_msg("cannot mount FUSE at %s", mnt);
		goto out_signals;
	}

	if (loop == AB_LOOP_SINGLE) {
		rc = fuse_session_loop(se);
	} else {
		cfg = fuse_loop_cfg_create();
		if (!cfg) {
			ab_msg("fuse_loop_cfg_create: out of memory");
			goto out_unmount;
		}
		fuse_loop_cfg_set_clone_fd(cfg, loop == AB_LOOP_CLONE_FD);
		if (max_threads > 0)
			fuse_loop_cfg_set_max_threads(cfg, (unsigned)max_threads);
		rc = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	/*
	 * ECONNABORTED: the kernel sometimes ends a lazily detached mount, when its
	 * last open file closes, as if aborted rather than with ENODEV. The
	 * filesystem is gone either way: a clean end. A daemon aborted because it
	 * hung is judged by the watchdog that aborted it, not by this status.
	 */
	if (rc == 0 || rc == -ECONNABORTED)
		ret = 0;
	else if (rc > 0)
		ab_msg("FUSE loop on %s ended by signal %d", mnt, rc);
	else
		ab_msg("FUSE loop on %s failed: %s", mnt, strerror(-rc));

out_unmount:
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
out_args:
	fuse_opt_free_args(&args);
	return ret;
}

int ab_daemon_prepare(const struct ab_cpuset *cpus)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	for (size_t i = 0; i < AB_ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
	if (cpus && ab_pin_self_set(cpus) < 0) {
		char list[256];
		int e = errno;

		ab_cpuset_format(cpus, list, sizeof(list));
		ab_msg("cannot pin the FUSE daemon to CPUs %s: %s", list, strerror(e));
		return -1;
	}
	return 0;
}
