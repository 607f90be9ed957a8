/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FUSE mount hygiene: private mountpoints, mount detection, unmount (lazy when
 * busy, never through a symlink), abort through /sys/fs/fuse/connections/N/abort,
 * and removal of stale mounts left by a crashed run. No mount survives a test
 * or a run, and nothing affbench did not make is ever touched.
 *
 * Mountpoints are named <workdir>/affbench-mnt-<pid>-XXXXXX where pid is the
 * process that made it; every affbench filesystem mounts with a source (fsname)
 * that starts with AB_FSNAME_PREFIX. A mount is stale, and removed, only when
 * all of these hold (docs/mounts.md):
 *   - its mountpoint is a directory directly in the work directory, named as
 *     above, whose maker is dead;
 *   - that directory (under the mount) is owned by root, mode 0700, not a symlink;
 *   - the mount is FUSE, its source starts with AB_FSNAME_PREFIX and its super
 *     options say user_id=0 (/proc/self/mountinfo);
 *   - the mountpoint's device number, read just before, is the mount's.
 * Anything else is left alone, with one line saying why (once per process).
 */
#ifndef AB_FUSEMNT_H
#define AB_FUSEMNT_H

#include <stddef.h>
#include <stdio.h>

#define AB_FSNAME_PREFIX "affbench-"
#define AB_MNT_PREFIX "affbench-mnt-"

/* Work directory for mountpoints: $AFFBENCH_WORKDIR, else /tmp. */
const char *ab_workdir(void);

/* mkdtemp a 0700 mountpoint under workdir (NULL = ab_workdir()). 0 or -1 (message in err). */
int ab_mnt_mkdir(const char *workdir, char *path, size_t len, char *err, size_t errlen);
/* Is a FUSE filesystem mounted exactly at path (per /proc/self/mountinfo)? */
int ab_mnt_is_fuse(const char *path);
/* The FUSE connection number of the mount at path (its st_dev minor), or -1. */
int ab_mnt_conn(const char *path);
/* Is fusectl mounted on /sys/fs/fuse/connections in this mount namespace? */
int ab_fusectl_mounted(void);
/* Write to /sys/fs/fuse/connections/<conn>/abort (mounts fusectl privately if needed). 0 or -1. */
int ab_mnt_abort_conn(int conn);
/* Unmount path (UMOUNT_NOFOLLOW; MNT_DETACH when busy): 0, also when nothing was mounted
 * there (a symlink is no mount point), or -1. */
int ab_mnt_unmount(const char *path);
/*
 * Remove the stale affbench mounts and empty mountpoints under workdir (NULL =
 * ab_workdir()), aborting their connections first. What looks like ours but is
 * not is left alone with one line on report (NULL: silent), once per process.
 * Returns how many were removed.
 */
int ab_mnt_cleanup_stale(const char *workdir, FILE *report);

#endif
