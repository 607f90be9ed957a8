// SPDX-License-Identifier: GPL-2.0
/*
 * A stranger's FUSE filesystem, for the mount-hygiene tests: an empty root
 * directory served by libfuse in the foreground, mounted with whatever -o
 * options are given (the test runs it as another user through fusermount3,
 * with an affbench-like fsname, to prove stale-mount cleanup leaves it alone).
 *   userfs MOUNTPOINT [-o OPTIONS]
 */
#define FUSE_USE_VERSION 34
#include <fuse.h>

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int userfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	if (strcmp(path, "/"))
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFDIR | 0755;
	st->st_nlink = 2;
	return 0;
}

static const struct fuse_operations userfs_ops = {
	.getattr = userfs_getattr,
};

int main(int argc, char **argv)
{
	return fuse_main(argc, argv, &userfs_ops, NULL);
}
