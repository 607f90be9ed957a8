// SPDX-License-Identifier: GPL-2.0
/* The machine lock, seen from a benchmark (machlock.h). */
#include "sys/machlock.h"

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

static int mine = -1;		/* the lock we took ourselves, emptied and released at exit */
static pid_t mine_by;

const char *ab_machine_lock_path(void)
{
	const char *p = ab_test_hook("AFFBENCH_MACHINE_LOCK");

	return p ? p : AB_MACHINE_LOCK;
}

int ab_lock_open(const char *path, int flags)
{
	struct stat st;
	int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

char *ab_lock_holder(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);
	char *sp;

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	sp = strchr(buf, ' ');
	if (sp)
		*sp++ = '\0';
	return sp;
}

int ab_lock_claim(int fd, const char *what)
{
	char line[PATH_MAX + 64];
	int n = snprintf(line, sizeof(line), "%d %s\n", (int)getpid(), what);

	return ftruncate(fd, 0) < 0 || pwrite(fd, line, (size_t)n, 0) != n ? -1 : 0;
}

void ab_lock_clear(int fd)
{
	int rc = ftruncate(fd, 0);	/* fails on a read-only fd: then nothing of ours is there */

	(void)rc;
	flock(fd, LOCK_UN);
}

static void release(void)
{
	if (mine >= 0 && getpid() == mine_by)	/* a forked child exits through here too */
		ab_lock_clear(mine);
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

int ab_machine_lock_hold(const char *what, char *why, size_t len)
{
	const char *path = ab_machine_lock_path();
	struct stat st;

	if (mine >= 0)
		return 0;
	int fd = ab_lock_open(path, O_RDWR | O_CREAT), rw = fd >= 0;
	if (fd < 0 && errno == EACCES)	/* root's lock, seen by a user: still a lock */
		fd = ab_lock_open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, errno == EINVAL ? "not a regular file" :
			 strerror(errno));
		return 1;
	}
	if (fstat(fd, &st) == 0 && inherited(&st)) {
		close(fd);
		return 0;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char buf[256], *rest = ab_lock_holder(fd, buf, sizeof(buf));
		snprintf(why, len, "pid %s, %s", buf[0] ? buf : "?", rest && *rest ? rest : "?");
		close(fd);
		return -1;
	}
	if (rw && ab_lock_claim(fd, what) < 0)
		ab_msg("warning: %s: cannot say who holds it: %s", path, strerror(errno));
	mine = fd;
	mine_by = getpid();
	atexit(release);
	return 0;
}
