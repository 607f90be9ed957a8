// SPDX-License-Identifier: GPL-2.0
/*
 * --resume DIR runs DIR's plan as us, so only a directory nobody else could
 * have written is resumed, and it is the same directory from the check to the
 * last write:
 *  - DIR is reached from / one component at a time (O_NOFOLLOW: a symbolic
 *    link anywhere on the way is refused), and each directory above it is
 *    root's or ours and writable by no one else unless sticky, as sudo and ssh
 *    check a file's parents: no other user can rename DIR or any parent away;
 *  - DIR itself and the files of the run in it are root's or ours, writable by
 *    no one else, the files with one link (files.c cuts raw.csv back);
 *  - the directory's descriptor is held for the run's life, every file the
 *    resume reads is opened under it (openat, O_NOFOLLOW) and checked again on
 *    the descriptor it got (fstat), and the run writes through its path in
 *    /proc/self/fd: a directory swapped in under DIR's name meanwhile is never
 *    read or written. Messages and failures.csv name DIR as the user gave it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "run.h"

#define DEPTH_MAX 256

static int run_dir = -1;		/* the checked directory, held for the run's life */
static char via[64];			/* its path through the descriptor */
static const char *named;		/* as the user named it, for messages */

/*
 * Who may have written what --resume reads: root, or the user resuming. A file
 * another user owns or may write (a plan.plan that names what runs, a runs.csv
 * that says what is done) is theirs to change, now or while the run reads it;
 * resuming as root would act on their word. Absent files are the run's to create.
 * An ancestor (want 'a') may be writable by others when sticky: they cannot
 * rename what is ours in it.
 */
static const char *untrusted(const struct stat *st, char want, char *why, size_t len)
{
	uid_t me = geteuid();

	if (want == 'f' ? !S_ISREG(st->st_mode) : !S_ISDIR(st->st_mode))
		return S_ISLNK(st->st_mode) ? "a symbolic link" : ab_file_kind(st->st_mode);
	if (st->st_uid != 0 && st->st_uid != me)
		snprintf(why, len, "owned by uid %u, not by root or you (uid %u)",
			 (unsigned)st->st_uid, (unsigned)me);
	else if ((st->st_mode & 022) && !(want == 'a' && (st->st_mode & S_ISVTX)))
		snprintf(why, len, "group- or world-writable (mode %04o)",
			 (unsigned)(st->st_mode & 07777));
	else if (want == 'f' && st->st_nlink > 1)	/* another name: files.c cuts it back */
		snprintf(why, len, "a file with %lu hard links", (unsigned long)st->st_nlink);
	else
		return NULL;
	return why;
}

static void __attribute__((noreturn)) refuse(const char *dir, const char *what, const char *bad)
{
	ab_usage_error("run: --resume %s refused: %s is %s; a run directory from elsewhere can be "
		       "plotted and compared, not resumed", dir, what, bad);
}

/* One directory on the way, opened under at (O_NOFOLLOW) and checked as want says
 * (an ancestor: 'a'). The fd; exit 2 when it is refused. */
static int step(int at, const char *name, const char *dir, const char *sofar, char want)
{
	char why[128];
	struct stat st;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 && fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
		refuse(dir, sofar, S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISREG(st.st_mode)
				   ? "a file, not a directory" : ab_file_kind(st.st_mode));
	if (fd < 0)
		ab_usage_error("run: bad value '%s' for --resume: %s: %s", dir, sofar,
			       strerror(errno));
	const char *bad = fstat(fd, &st) < 0 ? strerror(errno)
					     : untrusted(&st, want, why, sizeof(why));
	if (bad)
		refuse(dir, sofar, bad);
	return fd;
}

/* DIR from /, every directory above it checked; its fd. ".." steps back lexically:
 * nothing on the way is a link, so that is where it leads. */
static int open_checked(const char *dir)
{
	char path[2 * PATH_MAX], sofar[2 * PATH_MAX] = "";
	int fds[DEPTH_MAX], depth = 0;

	if (dir[0] == '/')
		snprintf(path, sizeof(path), "%s", dir);
	else if (getcwd(sofar, sizeof(sofar)))	/* the physical path: no link in it */
		snprintf(path, sizeof(path), "%s/%s", sofar, dir);
	else
		ab_usage_error("run: bad value '%s' for --resume: the current directory: %s", dir,
			       strerror(errno));
	size_t sl = 0;
	sofar[0] = '\0';
	fds[0] = step(AT_FDCWD, "/", dir, "/", 'a');
	char *save = NULL;
	for (char *c = strtok_r(path, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			if (depth > 0)
				close(fds[depth--]);
			sl = strrchr(sofar, '/') ? (size_t)(strrchr(sofar, '/') - sofar) : 0;
			sofar[sl] = '\0';
			continue;
		}
		if (depth + 1 == DEPTH_MAX)
			ab_usage_error("run: bad value '%s' for --resume: more than %d directories "
				       "deep", dir, DEPTH_MAX);
		sl += (size_t)snprintf(sofar + sl, sizeof(sofar) - sl, "/%s", c);
		fds[depth + 1] = step(fds[depth], c, dir, sofar, 'a');
		depth++;
	}
	for (int i = 0; i < depth; i++)
		close(fds[i]);
	char why[128];	/* the last: the run directory itself, never writable by others */
	struct stat st;
	const char *bad = fstat(fds[depth], &st) < 0 ? strerror(errno) :
			  untrusted(&st, 'd', why, sizeof(why));
	if (bad)
		refuse(dir, "the directory", bad);
	return fds[depth];
}

const char *h_resume_trust(const char *dir)
{
	static const char *const files[] = { "plan.plan", "runs.csv", "raw.csv", "hist.csv",
					     "failures.csv", "machine.txt", "run.lock" };
	char why[128], what[64];
	struct stat st, pst;
	const char *bad;
	int fd = open_checked(dir);

	for (size_t i = 0; i <= AB_ARRAY_SIZE(files); i++) {
		const char *name = i < AB_ARRAY_SIZE(files) ? files[i] : "log";
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			ab_usage_error("run: --resume %s refused: %s: %s", dir, name,
				       strerror(errno));
		}
		snprintf(what, sizeof(what), "its %s", name);
		if ((bad = untrusted(&st, i == AB_ARRAY_SIZE(files) ? 'd' : 'f', why, sizeof(why))))
			refuse(dir, what, bad);
	}
	snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
	if (stat(via, &pst) < 0 || fstat(fd, &st) < 0 || st.st_dev != pst.st_dev ||
	    st.st_ino != pst.st_ino)
		ab_skip("run: --resume %s: needs /proc (the run writes through the directory it "
			"checked, /proc/self/fd): mount it (mount -t proc proc /proc)", dir);
	run_dir = fd;
	named = dir;
	ab_msg_alias(via, dir);	/* no message names the descriptor: the user never gave it */
	/* The tests' race, made certain: another user's directory swapped in under DIR's name
	 * right after the checks (renameat2 RENAME_EXCHANGE). A test-only hook (sys/common.h). */
	const char *swap = ab_test_hook("AFFBENCH_TEST_RESUME_SWAP");
	if (swap && renameat2(AT_FDCWD, dir, AT_FDCWD, swap, RENAME_EXCHANGE) < 0)
		ab_fail("run: AFFBENCH_TEST_RESUME_SWAP: %s", strerror(errno));
	return via;
}

int h_resume_openat(const char *name, int flags, char *err, size_t errlen)
{
	char why[128];
	struct stat st;
	const char *bad;
	int fd = openat(run_dir, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return ab_err(err, errlen, "%s/%s: %s", named, name,
			      errno == ELOOP ? "a symbolic link, not read" : strerror(errno));
	bad = fstat(fd, &st) < 0 ? strerror(errno) : untrusted(&st, 'f', why, sizeof(why));
	if (bad) {
		close(fd);
		errno = EPERM;
		return ab_err(err, errlen, "%s/%s is %s; a run directory from elsewhere can be "
			      "plotted and compared, not resumed", named, name, bad);
	}
	return fd;
}

FILE *h_resume_fopen(const char *name, unsigned long long max, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int fd = h_resume_openat(name, O_RDONLY, err, errlen);

	snprintf(path, sizeof(path), "%s/%s", named, name);
	return fd < 0 ? NULL : ab_infile_fdopen(fd, path, max, err, errlen);
}
