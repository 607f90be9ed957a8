// SPDX-License-Identifier: GPL-2.0
/*
 * One run per directory, one measuring run per machine.
 *
 * A run directory is new or empty (a finished or interrupted run goes on with
 * --resume, never by writing a second run into it), and a run holds
 * DIR/run.lock (flock) for its whole life, so a second run on the same
 * directory exits 2 naming the holder and touches nothing there.
 *
 * Runs that measure also hold the machine lock (/run/affbench.lock): two runs
 * at once compete for the CPUs and invalidate each other's numbers, and the
 * second one's crash clean-up would undo the first one's knobs. The second
 * waits, saying for whom, or exits 2 with --no-wait.
 *
 * Both are flock locks, so the kernel releases them when the holder dies; the
 * file says who holds it ("PID DIR"), and is emptied on a clean exit, so a pid
 * found there when the lock is free is a run that died: taken over with a line.
 * Files are opened with O_NOFOLLOW and O_NONBLOCK, and must be regular files: a
 * link or a FIFO planted under the name is refused, never followed or waited on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "run.h"
#include "sys/machlock.h"

#define DIR_LOCK "run.lock"

/*
 * The locks this process holds, cleared and released at any exit: a run refused
 * after taking them (a torn runs.csv, a full disk) exits through ab_exit, and
 * must not leave its pid behind to be reported as a dead holder. Only the owner
 * clears them: a forked child that exits runs the same atexit handlers.
 */
static int held[2] = { -1, -1 };
static pid_t held_by;
static int machine = -1;	/* the machine lock, handed to the benchmarks */

static void release_at_exit(void)
{
	for (size_t i = 0; i < AB_ARRAY_SIZE(held) && getpid() == held_by; i++)
		if (held[i] >= 0)
			ab_lock_clear(held[i]);
}

static void hold(int fd)
{
	if (!held_by) {
		held_by = getpid();
		atexit(release_at_exit);
	}
	for (size_t i = 0; i < AB_ARRAY_SIZE(held); i++)
		if (held[i] < 0) {
			held[i] = fd;
			return;
		}
}

/* The holder's pid (0: none readable), its DIR into dir ("?": none). */
static pid_t holder(int fd, char *dir, size_t len)
{
	char buf[512], *rest = ab_lock_holder(fd, buf, sizeof(buf));
	pid_t pid;

	snprintf(dir, len, "%s", rest ? rest : "?");
	return ab_parse_pid(buf, &pid) == 0 ? pid : 0;
}

/* Say who holds it now: "PID DIR". A failed write costs the next run a name, not a number. */
static void claim(int fd, const char *dir, const char *what)
{
	char line[PATH_MAX + 64];
	pid_t old = holder(fd, line, sizeof(line));

	if (old > 0 && old != getpid() && !ab_pid_alive(old))
		ab_msg("run: %s: pid %d (%s) ended without releasing it; taking it over", what, (int)old,
		       line);
	if (ab_lock_claim(fd, dir) < 0)
		ab_msg("run: %s: cannot write this run's pid: %s", what, strerror(errno));
}

/* Is dir empty but for its lock file? A new directory counts as empty. */
static int dir_empty(const char *dir, char *first, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return errno == ENOENT;
	snprintf(first, len, "plan.plan: a run");	/* the likeliest, and the telling name */
	if (!faccessat(dirfd(d), "plan.plan", F_OK, AT_SYMLINK_NOFOLLOW)) {
		closedir(d);
		return 0;
	}
	while (empty && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, DIR_LOCK)) {
			snprintf(first, len, "%s", e->d_name);
			empty = 0;
		}
	closedir(d);
	return empty;
}

/* Refuse, with one line, a directory another run holds now. */
static void refuse_held(int fd, const char *dir)
{
	char other[PATH_MAX];
	pid_t pid = holder(fd, other, sizeof(other));

	if (pid > 0)
		ab_usage_error("run: %s is in use by harness run pid %d; wait for it to finish, or "
			       "choose another --out", dir, (int)pid);
	ab_usage_error("run: %s is in use by another harness run; wait for it to finish, or choose "
		       "another --out", dir);
}

void h_out_check(const char *dir, const char *name, int resume)
{
	char path[PATH_MAX], first[256] = "";
	struct stat st;
	const char *opt = resume ? "--resume" : "--out";

	if (stat(dir, &st) < 0) {
		if (errno == ENOENT && !resume)
			return;		/* a new directory */
		ab_usage_error("run: bad value '%s' for %s: %s", name, opt, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		ab_usage_error("run: bad value '%s' for %s: not a directory", name, opt);
	snprintf(path, sizeof(path), "%s/" DIR_LOCK, dir);
	int fd = ab_lock_open(path, O_RDONLY);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK)
		refuse_held(fd, name);
	if (fd >= 0)
		close(fd);
	if (!resume && !dir_empty(dir, first, sizeof(first)))
		ab_usage_error("run: bad value '%s' for --out: not empty (it holds %s): continue that run "
			       "with --resume %s, or choose another --out", name, first, name);
}

int h_dir_lock(const char *dir, const char *name, int resume)
{
	char path[PATH_MAX], shown[PATH_MAX], first[256] = "";

	snprintf(path, sizeof(path), "%s/" DIR_LOCK, dir);
	snprintf(shown, sizeof(shown), "%s/" DIR_LOCK, name);
	int fd = ab_lock_open(path, O_RDWR | O_CREAT);
	if (fd < 0 && (errno == EINVAL || errno == ELOOP))	/* planted: a link, a FIFO */
		ab_usage_error("run: %s: not a regular file; refusing to run in %s", shown, name);
	if (fd < 0)
		ab_fail("run: cannot open %s: %s", shown, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		refuse_held(fd, name);
	/* a run that took the directory between our check and our lock, and finished */
	if (!resume && !dir_empty(dir, first, sizeof(first)))
		ab_usage_error("run: bad value '%s' for --out: not empty (it holds %s): continue that run "
			       "with --resume %s, or choose another --out", name, first, name);
	claim(fd, name, shown);
	hold(fd);
	return fd;
}

int h_machine_lock(const char *dir, int no_wait)
{
	const char *path = ab_machine_lock_path();
	char other[PATH_MAX];

	int fd = ab_lock_open(path, O_RDWR | O_CREAT), rw = fd >= 0;
	if (fd < 0 && errno == EACCES)	/* root's lock, seen by a user: still a lock */
		fd = ab_lock_open(path, O_RDONLY);
	if (fd < 0) {
		ab_msg("run: warning: no machine lock (%s: %s; root can take it): another run at the "
		       "same time would go unnoticed", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		pid_t pid = holder(fd, other, sizeof(other));
		if (no_wait)
			ab_usage_error("run: another run is measuring on this machine (pid %d, %s); "
				       "try again when it has finished", (int)pid, other);
		ab_msg("run: waiting for run pid %d (%s) to finish; --no-wait to exit instead",
		       (int)pid, other);
		while (flock(fd, LOCK_EX) < 0)
			if (errno != EINTR)
				ab_fail("run: %s: flock: %s", path, strerror(errno));
	}
	if (rw)
		claim(fd, dir, path);
	hold(fd);
	machine = fd;
	return fd;
}

int h_machine_lock_fd(void)
{
	return machine;
}

void h_lock_release(int fd)
{
	if (fd < 0)
		return;
	for (size_t i = 0; i < AB_ARRAY_SIZE(held); i++)
		if (held[i] == fd)
			held[i] = -1;
	if (fd == machine)
		machine = -1;
	ab_lock_clear(fd);
	close(fd);
}
