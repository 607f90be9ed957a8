/*
 * The cputestfs FUSE filesystem (libfuse 3.14 low-level API, the shape of
 * example/hello_ll.c): a root directory holding one empty file. Entries are
 * cached for good and attributes never, so each stat() of the file is exactly
 * one GETATTR request; the reply carries the CPU that served it (st_blocks,
 * see cfs_encode_cpu) and the daemon counts every request it answers in
 * shared memory so the parent can check requests per stat().
 *
 * Limits: the count is one shared atomic for all daemon threads (--daemon
 * multi bounces its cache line); the CPU is read before the reply is written,
 * so a daemon thread migrated in between names the CPU it left.
 */
#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "cputestfs.h"

enum { CFS_INO_ROOT = FUSE_ROOT_ID, CFS_INO_FILE = 2 };

/* Entries stay valid (no LOOKUP per stat()), attributes expire at once (one GETATTR per stat()). */
#define CFS_ENTRY_TIMEOUT 1e6
#define CFS_ATTR_TIMEOUT 0.0

struct cfs_fs {
	struct cfs_shared *sh;
	uid_t uid;		/* the owner of everything, read once: no syscalls per request */
	gid_t gid;
};

static void cfs_count(struct cfs_fs *fs)
{
	atomic_fetch_add_explicit(&fs->sh->requests.v, 1, memory_order_relaxed);
}

static int cfs_stat(const struct cfs_fs *fs, fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	switch (ino) {
	case CFS_INO_ROOT:
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		break;
	case CFS_INO_FILE:
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		break;
	default:
		return -1;
	}
	st->st_blocks = cfs_encode_cpu(sched_getcpu());
	return 0;
}

static void cfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct cfs_fs *fs = fuse_req_userdata(req);
	struct fuse_entry_param e;

	cfs_count(fs);
	if (parent != CFS_INO_ROOT || strcmp(name, CFS_FILE_NAME) != 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = CFS_INO_FILE;
	e.entry_timeout = CFS_ENTRY_TIMEOUT;
	e.attr_timeout = CFS_ATTR_TIMEOUT;
	cfs_stat(fs, e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void cfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct cfs_fs *fs = fuse_req_userdata(req);
	struct stat st;

	(void)fi;
	cfs_count(fs);
	if (cfs_stat(fs, ino, &st) < 0)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, CFS_ATTR_TIMEOUT);
}

/* For people who look at the mount with ls; not on the measured path. */
static void cfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	static const struct {
		const char *name;
		fuse_ino_t ino;
	} ents[] = { { ".", CFS_INO_ROOT }, { "..", CFS_INO_ROOT }, { CFS_FILE_NAME, CFS_INO_FILE } };
	char buf[512];
	size_t used = 0;

	(void)fi;
	cfs_count(fuse_req_userdata(req));
	if (ino != CFS_INO_ROOT) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (size > sizeof(buf))
		size = sizeof(buf);
	for (off_t i = off; i >= 0 && (size_t)i < AB_ARRAY_SIZE(ents); i++) {
		struct stat st = { .st_ino = ents[i].ino,
				   .st_mode = ents[i].ino == CFS_INO_ROOT ? S_IFDIR : S_IFREG };
		size_t len = fuse_add_direntry(req, buf + used, size - used, ents[i].name, &st, i + 1);
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
}

static const struct fuse_lowlevel_ops cfs_ops = {
	.lookup = cfs_lookup,
	.getattr = cfs_getattr,
	.readdir = cfs_readdir,
};

int cfs_daemon_run(void *arg, const char *mnt)
{
	struct cfs_daemon_args *a = arg;
	struct cfs_fs fs = { .sh = a->sh, .uid = getuid(), .gid = getgid() };

	if (ab_daemon_prepare(a->cpus) < 0)
		return AB_EXIT_CHILD_SETUP;
	return ab_fuse_serve(&cfs_ops, sizeof(cfs_ops), &fs, mnt, "cputestfs", NULL,
			     a->loop, 0);
}
