/*
 * FUSE mount hygiene: private mountpoints, a daemon in its own (pinned)
 * process, waiting for the mount with a deadline, unmount (lazy when busy),
 * abort through /sys/fs/fuse/connections/N/abort, and removal of stale
 * mounts left by a crashed run. No mount survives a test or a run.
 *
 * Mountpoints are named <workdir>/affbench-mnt-<pid>-XXXXXX where pid is the
 * process that made it; a mount whose maker is dead is stale.
 */
#ifndef AB_FUSEMNT_H
#define AB_FUSEMNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Work directory for mountpoints: $AFFBENCH_WORKDIR, else /tmp. */
const char *ab_workdir(void);

/* mkdtemp a 0700 mountpoint under workdir (NULL = ab_workdir()). 0 or -1 (message in err). */
int ab_mnt_mkdir(const char *workdir, char *path, size_t len, char *err, size_t errlen);
/* Is a FUSE filesystem mounted exactly at path (per /proc/self/mountinfo)? */
int ab_mnt_is_fuse(const char *path);
/* The FUSE connection number of the mount at path (its st_dev minor), or -1. */
int ab_mnt_conn(const char *path);
/* Write to /sys/fs/fuse/connections/<conn>/abort (mounts fusectl if needed). 0 or -1. */
int ab_mnt_abort_conn(int conn);
/* Unmount path: umount2, MNT_DETACH when busy; then rmdir it. 0 or -1. */
int ab_mnt_unmount(const char *path);
/* Unmount affbench mounts under workdir (NULL = ab_workdir()) whose maker is dead,
 * aborting their connections first. Returns how many were removed. */
int ab_mnt_cleanup_stale(const char *workdir);

/*
 * A FUSE daemon in a child process. run() executes in the child, pinned to cpu
 * (-1: not pinned), must mount at mnt and serve until unmounted, and returns the
 * child's exit code. The parent waits for the mount up to timeout_ms.
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
/*
 * Unmount and reap: unmount (lazy when busy), wait up to timeout_ms for exit, then
 * abort the connection and SIGKILL; then remove the mountpoint unless keep_dir.
 * Returns the daemon's exit status (as from waitpid) or -1. Safe to call twice.
 */
int ab_daemon_stop(struct ab_daemon *d, int timeout_ms);

/*
 * First thing in a daemon's run(): put SIGINT/SIGTERM/SIGHUP back to their
 * defaults (the parent's handlers came along with fork, and libfuse installs
 * its own only over SIG_DFL) and, when cpus is not NULL, pin the whole process
 * before libfuse starts threads, so its worker threads inherit the mask.
 * 0, or -1 after a message naming the CPUs.
 */
struct ab_cpuset;
int ab_daemon_prepare(const struct ab_cpuset *cpus);

/* libfuse 3.14 glue used by our filesystems: build a session from args
 * ("-o" options as one string, may be NULL), mount, and run single- or
 * multi-threaded, optionally with clone_fd. Returns 0 on a clean unmount. */
struct fuse_lowlevel_ops;
enum ab_fuse_loop { AB_LOOP_SINGLE, AB_LOOP_MULTI, AB_LOOP_CLONE_FD };
int ab_fuse_serve(const struct fuse_lowlevel_ops *ops, size_t ops_size, void *userdata,
		  const char *mnt, const char *mount_opts, enum ab_fuse_loop loop, int max_threads);

#endif
