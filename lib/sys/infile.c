// SPDX-License-Identifier: GPL-2.0
/* Bounded reads of regular files from elsewhere (infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "sys/infile.h"

const char *ab_file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	     : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a plain file";
}

/*
 * The size was checked at open, but a regular file can still grow while it is
 * read (a file another process appends to, one a FUSE server makes up as it
 * goes): the stream itself ends in a read error (EFBIG) past max bytes.
 */
struct capped {
	int fd;
	unsigned long long left;
};

static ssize_t capped_read(void *cookie, char *buf, size_t n)
{
	struct capped *c = cookie;
	char probe;

	if (c->left == 0) {	/* at the limit: only the end of the file may follow */
		ssize_t r = read(c->fd, &probe, 1);
		if (r > 0)
			errno = EFBIG;
		return r > 0 ? -1 : r;
	}
	if (n > c->left)
		n = (size_t)c->left;
	ssize_t r = read(c->fd, buf, n);
	if (r > 0)
		c->left -= (unsigned long long)r;
	return r;
}

static int capped_close(void *cookie)
{
	struct capped *c = cookie;
	int r = close(c->fd);

	free(c);
	return r;
}

static FILE *capped_open(int fd, unsigned long long max_bytes)
{
	struct capped *c = malloc(sizeof(*c));
	FILE *f = NULL;

	if (c) {
		*c = (struct capped){ fd, max_bytes };
		f = fopencookie(c, "r", (cookie_io_functions_t){ .read = capped_read,
								 .close = capped_close });
		if (!f)
			free(c);
	}
	return f;
}

FILE *ab_infile_open(const char *path, unsigned long long max_bytes, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			ab_err(err, errlen, "%s: is a symbolic link, not read", path);
		else
			ab_err(err, errlen, "%s: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	return ab_infile_fdopen(fd, path, max_bytes, err, errlen);
}

FILE *ab_infile_fdopen(int fd, const char *path, unsigned long long max_bytes, char *err,
		       size_t errlen)
{
	struct stat st;
	FILE *f;
	int e;

	if (fstat(fd, &st) < 0)
		goto failed;
	if (!S_ISREG(st.st_mode)) {
		ab_err(err, errlen, "%s: not a regular file (%s)", path, ab_file_kind(st.st_mode));
		e = EINVAL;
		goto refused;
	}
	if ((unsigned long long)st.st_size > max_bytes) {
		ab_err(err, errlen, "%s: %lld bytes, over the %llu-byte limit for this file",
		       path, (long long)st.st_size, max_bytes);
		e = EFBIG;
		goto refused;
	}
	/* Reads from here on may block as any regular file's do. */
	if (fcntl(fd, F_SETFL, 0) == 0 && (f = capped_open(fd, max_bytes)))
		return f;
failed:
	e = errno;
	ab_err(err, errlen, "%s: %s", path, strerror(e));
refused:
	close(fd);
	errno = e;
	return NULL;
}

ssize_t ab_infile_line(FILE *f, char **buf, size_t *cap)
{
	size_t n = 0;
	int c, over = 0;

	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (n + 1 >= AB_INFILE_MAX_LINE) {
			over = 1;
			continue;
		}
		if (n + 2 > *cap && ab_grow(buf, cap, n + 2, 1, 256) < 0)
			return -1;
		(*buf)[n++] = (char)c;
	}
	if (c == EOF && n == 0 && !over)
		return -1;
	if (over)
		return -2;
	if (ab_grow(buf, cap, n + 1, 1, 256) < 0)	/* an empty first line has no room yet */
		return -1;
	(*buf)[n] = '\0';
	return (ssize_t)n;
}
