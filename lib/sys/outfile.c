// SPDX-License-Identifier: GPL-2.0
/* Writes into directories from elsewhere, never through a link (outfile.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/infile.h"
#include "sys/outfile.h"
#include "sys/barrier.h"

/*
 * The directory that will hold DIR/REL: DIR as named, then each directory of
 * REL with O_NOFOLLOW (a link there fails with ENOTDIR or ELOOP). *leaf: the
 * last name of REL. An fd, or -1 with errno.
 */
static int open_parent(const char *dir, const char *rel, const char **leaf)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	while (fd >= 0) {
		size_t n = strcspn(rel, "/");
		char comp[NAME_MAX + 1];
		if (!rel[n]) {
			*leaf = rel;
			if (n == 0 || n >= 200 || !strcmp(rel, ".") || !strcmp(rel, ".."))
				break;
			return fd;
		}
		if (n == 0 || n > NAME_MAX)
			break;
		memcpy(comp, rel, n);
		comp[n] = '\0';
		int sub = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = sub;
		rel += n + 1;
	}
	if (fd >= 0) {
		close(fd);
		errno = EINVAL;
	}
	return -1;
}

/* What a refused name is, for the one line that says so. */
static const char *why(int dirfd, const char *leaf, int e)
{
	struct stat st;

	if (dirfd >= 0 && fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
		return S_ISLNK(st.st_mode) ? "a symbolic link, not written through" : ab_file_kind(st.st_mode);
	if (e == ENOTDIR || e == ELOOP)
		return "a directory on the way is a symbolic link or not a directory";
	return strerror(e);
}

FILE *ab_outfile_open(struct ab_outfile *o, const char *dir, const char *rel)
{
	static unsigned seq;
	const char *leaf = rel;
	int fd = -1;

	snprintf(o->path, sizeof(o->path), "%s/%s", dir, rel);
	o->f = NULL;
	o->dirfd = open_parent(dir, rel, &leaf);
	if (o->dirfd < 0) {
		ab_msg("cannot write %s: %s", o->path, why(-1, leaf, errno));
		return NULL;
	}
	snprintf(o->name, sizeof(o->name), "%s", leaf);
	/* A name nobody can have planted a link under: O_EXCL fails on any existing name. */
	for (int tries = 0; fd < 0 && tries < 64; tries++) {
		unsigned long r = (unsigned long)ab_now_ns() ^ ((unsigned long)getpid() << 16) ^ ++seq;
		snprintf(o->tmp, sizeof(o->tmp), ".%s.%08lx.tmp", o->name, r & 0xffffffffUL);
		fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd >= 0 && !(o->f = fdopen(fd, "we"))) {
		unlinkat(o->dirfd, o->tmp, 0);
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		ab_msg("cannot write %s: %s", o->path, strerror(errno));
		close(o->dirfd);
		o->dirfd = -1;
	}
	return o->f;
}

int ab_outfile_close(struct ab_outfile *o)
{
	int bad = ferror(o->f), e = errno;

	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	/* rename replaces whatever is at NAME, a planted link included, and follows nothing */
	if (!bad && renameat(o->dirfd, o->tmp, o->dirfd, o->name) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		unlinkat(o->dirfd, o->tmp, 0);
		ab_msg("writing %s failed: %s (the previous version, if any, is left as it was)",
		       o->path, e == EISDIR || e == ENOTEMPTY ? "a directory has that name"
		       : strerror(e ? e : EIO));
	}
	close(o->dirfd);
	o->dirfd = -1;
	return bad ? -1 : 0;
}

int ab_append_open(const char *dir, const char *rel, char *err, size_t errlen)
{
	const char *leaf = rel;
	int pfd = open_parent(dir, rel, &leaf);
	struct stat st;

	if (pfd < 0) {
		int e = errno;
		ab_err(err, errlen, "%s/%s: %s", dir, rel, why(-1, leaf, e));
		errno = e;
		return -1;
	}
	/* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of blocking */
	int fd = openat(pfd, leaf, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			O_NOCTTY, 0644);
	int e = errno;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || fcntl(fd, F_SETFL, O_APPEND) < 0)) {
		e = EINVAL;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		ab_err(err, errlen, "%s/%s: %s", dir, rel, why(pfd, leaf, e));
		errno = e;
	}
	close(pfd);
	return fd;
}

/* Give up a file begun with ab_outfile_open: nothing of it goes in. */
static void discard(struct ab_outfile *o)
{
	fclose(o->f);
	o->f = NULL;
	unlinkat(o->dirfd, o->tmp, 0);
	close(o->dirfd);
	o->dirfd = -1;
}

/* Across file systems: the bytes, through a new file renamed into place. */
static int copy_in(int from, const char *name, const char *dir, const char *rel)
{
	struct ab_outfile o;
	char buf[65536];
	ssize_t n;
	int src = openat(from, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (src < 0) {
		ab_msg("cannot read %s: %s", name, strerror(errno));
		return -1;
	}
	if (!ab_outfile_open(&o, dir, rel)) {
		close(src);
		return -1;
	}
	while ((n = read(src, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, o.f);
	int e = errno;
	close(src);
	if (n < 0) {	/* nothing half-copied goes in */
		discard(&o);
		ab_msg("cannot read %s: %s", name, strerror(e));
		return -1;
	}
	return ab_outfile_close(&o);
}

int ab_outfile_move_to(int from, const char *name, const char *dir, const char *rel)
{
	const char *leaf = rel;
	int to = open_parent(dir, rel, &leaf), rc = 0;

	if (to < 0) {
		ab_msg("cannot write %s/%s: %s", dir, rel, why(-1, leaf, errno));
		return -1;
	}
	if (renameat(from, name, to, leaf) != 0) {
		if (errno == EXDEV)
			rc = copy_in(from, name, dir, rel);
		else {
			ab_msg("cannot write %s/%s: %s", dir, rel, errno == EISDIR || errno == ENOTEMPTY ?
			       "a directory has that name" : strerror(errno));
			rc = -1;
		}
	}
	close(to);
	return rc;
}

int ab_outdir_make(const char *dir, const char *rel)
{
	const char *leaf = rel;
	int to = open_parent(dir, rel, &leaf), rc = 0;
	struct stat st;

	if (to < 0) {
		ab_msg("cannot make %s/%s: %s", dir, rel, why(-1, leaf, errno));
		return -1;
	}
	/* an existing name is used only when it is a directory itself, not a link to one */
	if (mkdirat(to, leaf, 0755) != 0 &&
	    (errno != EEXIST || fstatat(to, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	     !S_ISDIR(st.st_mode))) {
		int e = errno;
		ab_msg("cannot make %s/%s: %s", dir, rel, e == EEXIST &&
		       fstatat(to, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) ?
		       "a regular file, not a directory" : why(to, leaf, e));
		rc = -1;
	}
	close(to);
	return rc;
}

int ab_private_dir(char *path, size_t len, const char *what)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if ((size_t)snprintf(path, len, "%s/affbench-%s.XXXXXX", tmp, what) >= len) {
		ab_msg("%s: TMPDIR too long", tmp);
		return -1;
	}
	if (!mkdtemp(path)) {	/* mode 0700: nobody else can plant anything there */
		ab_msg("cannot create a private directory in %s: %s", tmp, strerror(errno));
		return -1;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ab_msg("cannot open %s: %s", path, strerror(errno));
		rmdir(path);
	}
	return fd;
}

void ab_private_dir_remove(int fd, const char *path)
{
	int dfd = dup(fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(fd, de->d_name, 0);
	if (d)
		closedir(d);
	else if (dfd >= 0)
		close(dfd);
	close(fd);
	rmdir(path);
}
