/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a FUSE benchmark needs from the machine, checked once for all of them:
 * FUSE usable here (root, /dev/fuse), fusectl for the connection knobs, and
 * the test hook through which tests learn a daemon's pid.
 */
#ifndef AB_FUSEENV_H
#define AB_FUSEENV_H

#include <stddef.h>
#include <sys/types.h>

/* Skip (exit 4) unless FUSE can be mounted here: root and a usable /dev/fuse
 * (the test hook AFFBENCH_FUSE_DEV names another device to check). */
void ab_need_fuse(void);
/*
 * FUSE connection knobs live in fusectl. If it is not mounted, mount it in a
 * private mount namespace of this process (its own FUSE mounts are then
 * invisible to other processes, and fusectl goes with the process). 0 or -1.
 */
int ab_fusectl_for_knobs(char *why, size_t len);
/* Tests learn a daemon's pid through the hook AFFBENCH_DAEMON_PIDFILE: written
 * atomically (a temporary file, O_EXCL|O_NOFOLLOW, renamed into place). */
void ab_pidfile_hook(pid_t pid);

#endif
