/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/self/mountinfo, read without touching any mounted filesystem (a stat()
 * into a FUSE mount whose daemon hangs would block).
 */
#ifndef AB_MOUNTINFO_H
#define AB_MOUNTINFO_H

#include <limits.h>

#define AB_MI_SELF "/proc/self/mountinfo"

struct ab_mi {
	unsigned major, minor;	/* the superblock's device: minor is the FUSE connection */
	char mnt[PATH_MAX];	/* mount point, unescaped */
	char fstype[64];	/* "fuse.cputestfs" */
	char source[256];	/* "affbench-cputestfs": the fsname */
	char superopts[512];	/* "rw,user_id=0,group_id=0" */
};

/* Parse one mountinfo line (modified in place). 0, or -1 for a line we cannot read:
 * a field missing, a device number that is not maj:min, or a field too long for e
 * (never cut short: a shortened mount point could name another directory). */
int ab_mi_parse(char *line, struct ab_mi *e);
/* The topmost mount at path (the last one listed there): 1 found, 0 none, -1 error. */
int ab_mi_find(const char *path, struct ab_mi *out);
/* Mounts whose mount point is directly in dir (an absolute, resolved path): a malloc'd
 * array in *list (free it), their number as the result, or -1. */
int ab_mi_list_children(const char *dir, struct ab_mi **list);
/* The same, from file in mountinfo's format instead of AB_MI_SELF (tests pass fixtures). */
int ab_mi_find_in(const char *file, const char *path, struct ab_mi *out);
int ab_mi_list_children_in(const char *file, const char *dir, struct ab_mi **list);
int ab_mi_is_fuse(const struct ab_mi *e);
/* Is opt ("user_id=0") one of the comma-separated options? */
int ab_mi_has_opt(const char *opts, const char *opt);

#endif
