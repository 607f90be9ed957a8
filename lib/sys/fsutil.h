/* SPDX-License-Identifier: GPL-2.0 */
/* Small file-system helpers shared by the harness and the library. */
#ifndef AB_FSUTIL_H
#define AB_FSUTIL_H

#include <sys/types.h>

/*
 * mkdir -p: path and every missing parent, each made with mode; one that
 * exists already is left as it is. 0, or -1 with errno (ENOENT for "",
 * ENAMETOOLONG past PATH_MAX).
 */
int ab_mkdirs(const char *path, mode_t mode);

#endif
