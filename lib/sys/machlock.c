// SPDX-License-Identifier: GPL-2.0
/* The machine lock, seen from a benchmark (machlock.h). */
#include "sys/machlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"

static int mine = -1;		/* the lock we took ourselves, emptied and released at exit */
static pid_t mine_by;

const char *ab_machine_lock_path(void)
{
	const char *p = ab_test_hook("AFFBENCH_MACHINE_LOCK");

	return p ? p : AB_MACHINE_LOCK;
}

static void release(void)
{
	if (mine >= 0 && getpid() == mine_by) {	/* a forked child exits through here too */
		int rc = ftruncate(mine, 0);
		(void)rc;
		flock(mine, LOCK_UN);
	}
}

/* Is the inherited descriptor (AB_MACHINE_LOCK_FD_ENV) the lock file's, and does its
 * open lock hold the lock (the harness's), or take it now? */
static int inherited(const struct stat *lock)
{
	const char *s = getenv(AB_MACHINE_LOCK_FD_ENV);
	char *end;
	struct stat st;

	if (!s || !*s)
		return 0;
	long fd = strtol(s, &end, 10);
	if (*end || fd < 0 || fd > 1 << 20 || fstat((int)fd, &st) < 0)
		return 0;
	if (st.st_dev != lock->st_dev || st.st_ino != lock->st_ino)
		return 0;
	fcntl((int)fd, F_SETFD, FD_CLOEXEC);	/* ours alone: not our children's */
	return flock((int)fd, LOCK_EX | LOCK_NB) == 0;
}

/* The holder's line, "PID WHAT", unprintable bytes replaced: it came from a file. */
static void holder(int fd, char *why, size_t len)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	char *sp = strchr(buf, ' ');
	if (sp)
		*sp++ = '\0';
	snprintf(why, len, "pid %s, %s", buf[0] ? buf : "?", sp && *sp ? sp : "?");
}

int ab_machine_lock_hold(const char *what, char *why, size_t len)
{
	const char *path = ab_machine_lock_path();
	struct stat st;

	if (mine >= 0)
		return 0;
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	int rw = fd >= 0;
	if (fd < 0 && errno == EACCES)	/* root's lock, seen by a user: still a lock */
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, errno == EINVAL ? "not a regular file" :
			 strerror(errno));
		return 1;
	}
	if (inherited(&st)) {
		close(fd);
		return 0;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		holder(fd, why, len);
		close(fd);
		return -1;
	}
	char line[256];
	int n = snprintf(line, sizeof(line), "%d %s\n", (int)getpid(), what);
	if (rw && (ftruncate(fd, 0) < 0 || pwrite(fd, line, (size_t)n, 0) != n))
		ab_msg("warning: %s: cannot say who holds it: %s", path, strerror(errno));
	mine = fd;
	mine_by = getpid();
	atexit(release);
	return 0;
}
