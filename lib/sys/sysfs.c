// SPDX-License-Identifier: GPL-2.0
/* The one-value reader of sysfs and procfs files (see sysfs.h). */
#include "sys/sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"

/* Up to len - 1 bytes of fd, stopping after the first newline. Bytes read, or -1. */
static ssize_t first_line(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0 || memchr(buf + got, '\n', (size_t)n))
			return (ssize_t)got + n;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int ab_sysfs_read(const char *path, char *buf, size_t len)
{
	if (!len) {
		errno = EINVAL;
		return -1;
	}
	buf[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = first_line(fd, buf, len);
	int e = errno;
	close(fd);
	if (n < 0) {
		buf[0] = '\0';
		errno = e;
		return -1;
	}
	buf[n] = '\0';
	size_t l = strcspn(buf, "\n");
	while (l > 0 && (buf[l - 1] == ' ' || buf[l - 1] == '\t'))
		l--;
	buf[l] = '\0';
	return 0;
}

int ab_sysfs_read_long(const char *path, long *v)
{
	char buf[64], *end;

	if (ab_sysfs_read(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	long l = strtol(buf, &end, 10);
	if (end == buf || *end || errno) {
		errno = errno ? errno : EINVAL;
		return -1;
	}
	*v = l;
	return 0;
}

const char *ab_sysroot(void)
{
	const char *r = ab_test_hook("AFFBENCH_SYSROOT");

	return r ? r : "";
}

void ab_cmdline_arg(const char *key, char *out, size_t len)
{
	char path[4096], line[4096];
	size_t kl = strlen(key);

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/proc/cmdline", ab_sysroot());
	if (ab_sysfs_read(path, line, sizeof(line)) < 0)
		return;
	for (char *w = strtok(line, " \t"); w; w = strtok(NULL, " \t"))
		if (!strncmp(w, key, kl))
			snprintf(out, len, "%s", w + kl);
}
