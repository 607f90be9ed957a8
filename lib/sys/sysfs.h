/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One reader for the one-value files of sysfs and procfs (a CPU list, an id,
 * a cache level, a switch such as io_uring_disabled): the first line, without
 * its newline and trailing blanks. Files from the running kernel, not from a
 * results directory (those go through sys/infile.h). Knob values, which must
 * be restored byte for byte, go through knob/knob.h instead.
 */
#ifndef AB_SYSFS_H
#define AB_SYSFS_H

#include <stddef.h>

/*
 * The first line of path into buf (len bytes; a longer line is cut), its
 * newline and trailing blanks removed; an empty file reads as "". 0, or -1
 * with errno (ENOENT: no such file) and buf "".
 */
int ab_sysfs_read(const char *path, char *buf, size_t len);
/* The file as one decimal number. 0 with *v set, or -1 with errno (EINVAL: not a number). */
int ab_sysfs_read_long(const char *path, long *v);
/* Where the machine's files are read: "", or in tests the AFFBENCH_SYSROOT hook's fake tree. */
const char *ab_sysroot(void);
/* The rest of the last word of <sysroot>/proc/cmdline that starts with key ("idle="), or "". */
void ab_cmdline_arg(const char *key, char *out, size_t len);

#endif
