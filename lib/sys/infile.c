/* Bounded reads of regular files from elsewhere (infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/infile.h"

const char *ab_file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	     : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a plain file";
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
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		ab_err(err, errlen, "%s: %s", path, strerror(e));
		close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		ab_err(err, errlen, "%s: not a regular file (%s)", path, ab_file_kind(st.st_mode));
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if ((unsigned long long)st.st_size > max_bytes) {
		ab_err(err, errlen, "%s: %lld bytes, over the %llu-byte limit for this file",
		       path, (long long)st.st_size, max_bytes);
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	/* Reads from here on may block as any regular file's do. */
	if (fcntl(fd, F_SETFL, 0) < 0) {
		int e = errno;
		ab_err(err, errlen, "%s: %s", path, strerror(e));
		close(fd);
		errno = e;
		return NULL;
	}
	FILE *f = fdopen(fd, "re");
	if (!f) {
		int e = errno;
		ab_err(err, errlen, "%s: %s", path, strerror(e));
		close(fd);
		errno = e;
	}
	return f;
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
		if (n + 2 > *cap) {
			size_t nc = *cap ? *cap * 2 : 256;
			char *nb = realloc(*buf, nc);
			if (!nb)
				return -1;
			*buf = nb;
			*cap = nc;
		}
		(*buf)[n++] = (char)c;
	}
	if (c == EOF && n == 0 && !over)
		return -1;
	if (over)
		return -2;
	if (!*buf) {
		*buf = malloc(1);
		if (!*buf)
			return -1;
		*cap = 1;
	}
	(*buf)[n] = '\0';
	return (ssize_t)n;
}
