// SPDX-License-Identifier: GPL-2.0
/*
 * The cputestfs FUSE filesystem (libfuse 3.14 low-level API, the shape of
 * example/hello_ll.c): a root directory holding one empty file. Entries are
 * cached for good and attributes never, so each stat() of the file is exactly
 * one GETATTR request; the reply carries the CPU that served it (st_blocks,
 * see ctf_encode_cpu) and the daemon counts every request it answers in
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

enum { CTF_INO_ROOT = FUSE_ROOT_ID, CTF_INO_FILE = 2 };

/* Entries stay valid (no LOOKUP per stat()), attributes expire at once (one GETATTR per stat()). */
#define CTF_ENTRY_TIMEOUT 1e6
#define CTF_ATTR_TIMEOUT 0.0

struct ctf_fs {
	struct ctf_shared *sh;
	uid_t uid;		/* the owner of everything, read once: no syscalls per request */
	gid_t gid;
};

static void ctf_count(struct ctf_fs *fs)
{
	atomic_fetch_add_explicit(&fs->sh->requests.v, 1, memory_order_relaxed);
}

static int ctf_stat(const struct ctf_fs *fs, fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	switch (ino) {
	case CTF_INO_ROOT:
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		break;
	case CTF_INO_FILE:
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		break;
	default:
		return -1;
	}
	st->st_blocks = ctf_encode_cpu(sched_getcpu());
	return 0;
}

static void ctf_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct ctf_fs *fs = fuse_req_userdata(req);
	struct fuse_entry_param e;

	ctf_count(fs);
	if (parent != CTF_INO_ROOT || strcmp(name, CTF_FILE_NAME) != 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = CTF_INO_FILE;
	e.entry_timeout = CTF_ENTRY_TIMEOUT;
	e.attr_timeout = CTF_ATTR_TIMEOUT;
	ctf_stat(fs, e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void ctf_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ctf_fs *fs = fuse_req_userdata(req);
	struct stat st;

	(void)fi;
	ctf_count(fs);
	if (ctf_stat(fs, ino, &st) < 0)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, CTF_ATTR_TIMEOUT);
}

/* For people who look at the mount with ls; not on the measured path. */
static void ctf_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	static const struct {
		const char *name;
		fuse_ino_t ino;
	} ents[] = { { ".", CTF_INO_ROOT }, { "..", CTF_INO_ROOT }, { CTF_FILE_NAME, CTF_INO_FILE } };
	char buf[512];
	size_t used = 0;

	(void)fi;
	ctf_count(fuse_req_userdata(req));
	if (ino != CTF_INO_ROOT) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (size > sizeof(buf))
		size = sizeof(buf);
	for (off_t i = off; i >= 0 && (size_t)i < AB_ARRAY_SIZE(ents); i++) {
		struct stat st = { .st_ino = ents[i].ino,
				   .st_mode = ents[i].ino == CTF_INO_ROOT ? S_IFDIR : S_IFREG };
		size_t len = fuse_add_direntry(req, buf + used, size - used, ents[i].name, &st, i + 1);
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
}

static const struct fuse_lowlevel_ops ctf_ops = {
	.lookup = ctf_lookup,
	.getattr = ctf_getattr,
	.readdir = ctf_readdir,
};

int ctf_daemon_run(void *arg, const char *mnt)
{
	struct ctf_daemon_args *a = arg;
	struct ctf_fs fs = { .sh = a->sh, .uid = getuid(), .gid = getgid() };

	if (ab_daemon_prepare(a->cpus) < 0)
		return AB_EXIT_CHILD_SETUP;
	return ab_fuse_serve(&ctf_ops, sizeof(ctf_ops), &fs, mnt, "cputestfs", NULL,
			     a->loop, 0);
}
