// SPDX-License-Identifier: GPL-2.0
/* Small file-system helpers (see fsutil.h). */
#include "sys/fsutil.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

int ab_mkdirs(const char *path, mode_t mode)
{
	char p[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(p)) {
		errno = len ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	memcpy(p, path, len + 1);
	for (char *s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -1;
		if (!c)
			return 0;
		*s = c;
	}
}
