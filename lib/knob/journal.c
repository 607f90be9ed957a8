// SPDX-License-Identifier: GPL-2.0
/*
 * The knob journal's file helpers (see journal_i.h). Everything a signal
 * handler calls here uses open/read/write/fsync/close/stat only: no malloc,
 * no stdio.
 */
#include "knob/journal_i.h"
#include "knob/knob.h"

#include "sys/common.h"
#include "sys/fsutil.h"

#include <errno.h>
#include <signal.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

const char *knob_boot_id(void)
{
	static char id[KNOB_BOOT_ID_LEN + 1];

	if (!id[0]) {
		int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, id, KNOB_BOOT_ID_LEN) : -1;
		if (fd >= 0)
			close(fd);
		if (n != KNOB_BOOT_ID_LEN)
			snprintf(id, sizeof(id), "unknown");
		id[KNOB_BOOT_ID_LEN] = '\0';
	}
	return id;
}

void knob_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

void knob_dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

int knob_full_path(const char *root, const char *path, char *full, size_t len)
{
	int n = snprintf(full, len, "%s%s", root, path);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * The lock makes a concurrent replay's rename atomic for us: when the inode we
 * locked is no longer the journal, open the new one instead. O_NOFOLLOW: a
 * symlink planted in the journal's place is never read or written through.
 */
int knob_journal_open(const char *journal, int flags, struct stat *st, int gone)
{
	struct stat b;

	for (int tries = 0; tries < 5; tries++) {
		int fd = open(journal, flags | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX) < 0 || fstat(fd, st) < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (lstat(journal, &b) == 0 && st->st_dev == b.st_dev && st->st_ino == b.st_ino)
			return fd;
		close(fd);	/* replaced or removed by another replay meanwhile */
	}
	errno = gone;
	return -1;
}

int knob_journal_append(const char *journal, const char *dir, const char *line, size_t len)
{
	struct stat a;
	int fd = knob_journal_open(journal, O_WRONLY | O_APPEND | O_CREAT, &a, EAGAIN);

	if (fd < 0)
		return errno;
	ssize_t n = write(fd, line, len);
	int e = n < 0 ? errno : (size_t)n != len ? EIO : 0;
	if (!e && fsync(fd) < 0)
		e = errno;
	close(fd);
	if (!e && a.st_size == 0)	/* a new journal: make its name durable too */
		knob_sync_dir(dir);
	return e;
}

int knob_put_value(const char *full, const char *val, size_t len)
{
	/* O_TRUNC: what a shell's '>' does; sysfs and procfs accept it, fake files need it */
	int fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return errno;
	ssize_t n = write(fd, val, len);
	int e = n < 0 ? errno : (size_t)n != len ? EIO : 0;
	if (close(fd) < 0 && !e)
		e = errno;
	return e;
}

/*
 * A knob that already holds its original needs no restore, and must not fail
 * one: a write the kernel refused (a managed IRQ's affinity gives EPERM)
 * changed nothing, yet its original was journaled before the try.
 */
int knob_holds(const char *full, const char *val, size_t len)
{
	char cur[KNOB_VAL_MAX + 2];
	int fd = open(full, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	ssize_t n = read(fd, cur, sizeof(cur) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	if (cur[n - 1] == '\n')
		n--;
	return (size_t)n == len && memcmp(cur, val, len) == 0;
}

const int knob_signals[KNOB_NSIGNALS] = { SIGINT, SIGTERM, SIGHUP };

void knob_block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t k = 0; k < KNOB_NSIGNALS; k++)
		sigaddset(&set, knob_signals[k]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

int knob_trusted(const char *path, int want_dir, char *why, size_t len)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		snprintf(why, len, "%s is a symlink", path);
	else if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		snprintf(why, len, "%s is not a %s", path, want_dir ? "directory" : "regular file");
	else if (st.st_uid != 0)
		snprintf(why, len, "%s is owned by uid %u, not root", path, (unsigned)st.st_uid);
	else if (st.st_mode & 022)
		snprintf(why, len, "%s is group- or world-writable (mode %04o)", path,
			 (unsigned)(st.st_mode & 07777));
	else
		return 0;
	return -1;
}

int knob_lock_open(const char *root, const char *path, char *err, size_t errlen)
{
	char dir[KNOB_PATH_MAX], file[KNOB_PATH_MAX], name[KNOB_PATH_MAX];
	size_t i;

	for (i = 0; path[i] && i < sizeof(name) - 1; i++)
		name[i] = path[i] == '/' ? '%' : path[i];
	name[i] = 0;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/run/affbench/knobs", root) >= sizeof(dir) ||
	    (size_t)snprintf(file, sizeof(file), "%s/%s", dir, name) >= sizeof(file))
		return fail_errno(ENAMETOOLONG, "knob %s: lock path too long", path);
	char why[KNOB_PATH_MAX + 64];
	if (ab_mkdirs(dir, 0700) < 0)
		return fail_errno(errno, "knob lock directory %s: %s", dir, strerror(errno));
	if (knob_trusted(dir, 1, why, sizeof(why)) < 0)
		return fail_errno(EPERM, "knob lock directory refused: %s", why);
	int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0)
		return fail_errno(errno, "knob lock %s: %s", file, strerror(errno));
	return fd;
}

/* Become the knob's only live owner: an fd holding its lock, or -1 with a message. */
int knob_owner_lock(const char *root, const char *path, char *err, size_t errlen)
{
	int fd = knob_lock_open(root, path, err, errlen);

	if (fd < 0)
		return -1;
	const char *w = getenv("AFFBENCH_KNOB_WAIT_S");
	int wait_s = w && *w ? atoi(w) : KNOB_OWNER_WAIT_S;
	/* A POSIX record lock, not flock: it belongs to this process only, so children
	 * forked after the write (workers, daemons) do not keep the knob locked. */
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	for (int tries = 0; fcntl(fd, F_SETLK, &fl) < 0; tries++) {
		int busy = errno == EACCES || errno == EAGAIN;
		if (!busy || tries >= wait_s * 10) {
			char owner[32] = "";
			int e = busy ? EBUSY : errno;
			ssize_t n = pread(fd, owner, sizeof(owner) - 1, 0);
			close(fd);
			owner[n > 0 ? n : 0] = 0;
			return fail_errno(e, "knob %s: changed by another affbench process (pid %s) for "
					  "more than %d s; let it finish", path, owner[0] ? owner : "?",
					  wait_s);
		}
		usleep(100000);
	}
	char pid[32];
	int len = snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	/* The pid is only for the message of a waiting writer: failure to write it is harmless. */
	if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)len, 0) != len)
		errno = 0;
	return fd;
}

/* Real-machine form; FNM_PATHNAME|FNM_PERIOD keep '*' inside one ordinary component. */
static const char *const allow_list[] = {
	"/sys/block/*/queue/rq_affinity",
	"/proc/irq/*/smp_affinity_list",
	"/proc/irq/*/smp_affinity",
	"/sys/fs/fuse/connections/*/max_background",
	"/sys/fs/fuse/connections/*/congestion_threshold",
	"/sys/module/fuse/parameters/enable_uring",
	"/sys/module/haltpoll/parameters/guest_halt_poll_ns",	/* --idle haltpoll:NS */
};

const char *ab_knob_default_journal(void)
{
	const char *j = getenv("AFFBENCH_JOURNAL");

	return j && *j ? j : "/var/lib/affbench/knobs.journal";
}

int ab_knob_allowed(const char *path)
{
	if (!path || path[0] != '/')
		return 0;
	/* ".." must never walk out of the allowed tree; a tab or newline would break a journal line */
	if (strstr(path, "/../") || strstr(path, "/./") || strstr(path, "//") ||
	    strpbrk(path, "\t\n"))
		return 0;
	for (size_t i = 0; i < AB_ARRAY_SIZE(allow_list); i++)
		if (fnmatch(allow_list[i], path, FNM_PATHNAME | FNM_PERIOD) == 0)
			return 1;
	return 0;
}

/* Read whole file into buf (len bytes incl. NUL), one trailing newline stripped. */
int knob_read_full(const char *full, char *buf, size_t len)
{
	int fd;
	size_t got = 0;
	char extra;

	if (!buf || len == 0) {
		errno = EINVAL;
		return -1;
	}
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	/* A value that does not fit would be restored truncated: refuse it. */
	if (got == len - 1 && read(fd, &extra, 1) > 0) {
		close(fd);
		errno = ERANGE;
		return -1;
	}
	close(fd);
	buf[got] = '\0';
	if (got && buf[got - 1] == '\n')
		buf[got - 1] = '\0';
	return 0;
}

