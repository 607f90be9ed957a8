// SPDX-License-Identifier: GPL-2.0
/* FUSE's needs from the machine (see fuseenv.h). */
#include "fuse/fuseenv.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "sys/common.h"
#include "fuse/fusemnt.h"

#define FUSECTL "/sys/fs/fuse/connections"

void ab_need_fuse(void)
{
	const char *dev = ab_test_hook("AFFBENCH_FUSE_DEV");

	if (!dev)
		dev = "/dev/fuse";
	if (geteuid() != 0)
		ab_skip("needs root to mount FUSE and abort hung connections through fusectl: run it as root");
	if (access(dev, R_OK | W_OK) < 0)
		ab_skip("no usable %s (%s): load the fuse module (modprobe fuse), or pass the device "
			"into the container", dev, strerror(errno));
}

int ab_fusectl_for_knobs(char *why, size_t len)
{
	if (access(FUSECTL, F_OK) < 0)
		return ab_err(why, len, "no " FUSECTL ": load the fuse module (modprobe fuse)");
	if (ab_fusectl_mounted())
		return 0;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("fusectl", FUSECTL, "fusectl", 0, NULL) < 0)
		return ab_err(why, len, "fusectl is not mounted and cannot be mounted privately (%s): "
			      "mount -t fusectl none " FUSECTL, strerror(errno));
	return 0;
}

void ab_pidfile_hook(pid_t pid)
{
	const char *path = ab_test_hook("AFFBENCH_DAEMON_PIDFILE");
	char tmp[4200], text[32];

	if (!path)
		return;
	int n = snprintf(text, sizeof(text), "%d\n", (int)pid);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int ok = fd >= 0 && write(fd, text, (size_t)n) == n;
	if (fd >= 0 && close(fd) < 0)
		ok = 0;
	if (!ok || rename(tmp, path) < 0) {
		ab_msg("cannot write the daemon pid to %s: %s", path, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
	}
}
