/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filesystem fsrv's mount tests serve (included by test_fsrv_*.c): a root
 * holding
 *   stat     an empty file; st_blocks = serving CPU + 1 (0: not served)
 *   sink     direct_io, writes counted (bytes, requests) and dropped
 *   pattern  direct_io, TFS_PATTERN_SIZE bytes of tfs_pattern_byte()
 *   pt       passthrough to a real file (tfs_args.backing); a read or write
 *            that reaches the daemon is counted in pt_io and fails
 *   gen      a new node at every lookup, never cached, nlink 0: the kernel
 *            drops the old inode at once and sends FORGET (or BATCH_FORGET)
 *            for it over /dev/fuse, whatever the transport
 * Other names and entries are cached for good, attributes never: one stat()
 * of a file is one GETATTR. Counters live in shared memory for the parent.
 *
 * Client side: checks run in a forked child (a hung mount must not hang the
 * test) that reports "" or one failure line through shared memory.
 */
#ifndef FSRV_TESTFS_H
#define FSRV_TESTFS_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "fuse/fsrv.h"
#include "fuse/fusemnt.h"
#include "fuse/fusedaemon.h"
#include "sys/barrier.h"
#include "sys/proc.h"

/*
 * A bound in ms on a step that takes a moment (a mount, a client's calls, a
 * daemon's exit): scaled like the library's own timeouts, and generous, since
 * a busy machine stretches every step. Waits end when the step is done, so only
 * a step that hangs waits its bound out, and it still fails.
 */
static inline int tfs_ms(int ms)
{
	return (int)(ab_scaled_ns((uint64_t)ms * 1000000ull) / 1000000);
}

enum { TFS_ROOT = FUSE_ROOT_ID, TFS_STAT, TFS_SINK, TFS_PATTERN, TFS_PT, TFS_GEN };
static const char *const tfs_names[] = { [TFS_STAT] = "stat", [TFS_SINK] = "sink",
					 [TFS_PATTERN] = "pattern", [TFS_PT] = "pt",
					 [TFS_GEN] = "gen" };
#define TFS_GEN_FIRST 1000	/* gen's nodes: 1000, 1001 ... */
#define TFS_PATTERN_SIZE (1024 * 1024 + 123)	/* ends inside a page */

struct tfs_shared {
	_Atomic uint64_t getattrs, sink_bytes, sink_writes, pattern_bytes, pt_io;
	_Atomic uint64_t opens, releases;
	_Atomic uint64_t gen_lookups, forgets;	/* forgets: nlookup summed over gen's nodes */
	_Atomic uint64_t client_ok;	/* stat()s that worked, for clients that loop */
	_Atomic int client_errno;	/* how the first failing one failed */
	char msg[512];		/* the client's failure, "" when it passed */
};

struct tfs_args {
	struct ab_fsrv_cfg cfg;
	struct tfs_shared *sh;
	char backing[PATH_MAX];	/* "" = no pt file */
};

struct tfs {
	struct tfs_shared *sh;
	int backing_fd;
};

static inline unsigned char tfs_pattern_byte(uint64_t off)
{
	return (unsigned char)('a' + off % 26);
}

static int tfs_attr(struct tfs *fs, uint64_t ino, struct fuse_attr *a)
{
	struct stat st;

	a->ino = ino;
	a->nlink = 1;
	a->mode = S_IFREG | 0644;
	switch (ino) {
	case TFS_ROOT:
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
		break;
	case TFS_STAT:
	case TFS_SINK:
		break;
	case TFS_PATTERN:
		a->size = TFS_PATTERN_SIZE;
		break;
	case TFS_PT:
		if (fs->backing_fd < 0 || fstat(fs->backing_fd, &st) < 0)
			return -ENOENT;
		a->size = (uint64_t)st.st_size;
		break;
	default:
		if (ino < TFS_GEN_FIRST)
			return -ENOENT;
		a->nlink = 0;
	}
	a->blocks = (uint64_t)sched_getcpu() + 1;
	return 0;
}

static int tfs_lookup(void *p, uint64_t parent, const char *name, struct fuse_entry_out *out)
{
	struct tfs *fs = p;

	if (parent == TFS_ROOT && strcmp(name, tfs_names[TFS_GEN]) == 0) {
		out->nodeid = TFS_GEN_FIRST + atomic_fetch_add(&fs->sh->gen_lookups, 1);
		return tfs_attr(fs, out->nodeid, &out->attr);
	}
	for (uint64_t i = TFS_STAT; parent == TFS_ROOT && i < TFS_GEN; i++) {
		if (strcmp(name, tfs_names[i]) != 0)
			continue;
		out->nodeid = i;
		out->entry_valid = 1000000;
		return tfs_attr(fs, i, &out->attr);
	}
	return -ENOENT;
}

static int tfs_getattr(void *p, uint64_t nodeid, struct fuse_attr_out *out)
{
	struct tfs *fs = p;

	atomic_fetch_add(&fs->sh->getattrs, 1);
	return tfs_attr(fs, nodeid, &out->attr);
}

static int tfs_open(void *p, struct ab_fsrv_open *o)
{
	struct tfs *fs = p;

	if (o->nodeid == TFS_ROOT)
		return -EISDIR;
	atomic_fetch_add(&fs->sh->opens, 1);
	if (o->nodeid != TFS_PT) {
		o->open_flags = FOPEN_DIRECT_IO;
		return 0;
	}
	/* FUSE_ATOMIC_O_TRUNC: the truncation is ours to do */
	if ((o->flags & O_TRUNC) && ftruncate(fs->backing_fd, 0) < 0)
		return -errno;
	o->backing_fd = fs->backing_fd;
	return 0;
}

static int tfs_release(void *p, uint64_t nodeid, uint64_t fh)
{
	struct tfs *fs = p;

	(void)nodeid;
	(void)fh;
	atomic_fetch_add(&fs->sh->releases, 1);
	return 0;
}

static ssize_t tfs_read(void *p, uint64_t nodeid, uint64_t fh, uint64_t off, void *buf,
			uint32_t size)
{
	struct tfs *fs = p;
	unsigned char *b = buf;

	(void)fh;
	if (nodeid == TFS_PT) {
		atomic_fetch_add(&fs->sh->pt_io, 1);
		return -EIO;
	}
	if (nodeid != TFS_PATTERN)
		return -EBADF;
	if (off >= TFS_PATTERN_SIZE)
		return 0;
	if (size > TFS_PATTERN_SIZE - off)
		size = (uint32_t)(TFS_PATTERN_SIZE - off);
	for (uint32_t i = 0; i < size; i++)
		b[i] = tfs_pattern_byte(off + i);
	atomic_fetch_add(&fs->sh->pattern_bytes, size);
	return size;
}

static ssize_t tfs_write(void *p, uint64_t nodeid, uint64_t fh, uint64_t off, const void *buf,
			 uint32_t size)
{
	struct tfs *fs = p;

	(void)fh;
	(void)off;
	(void)buf;
	if (nodeid == TFS_PT) {
		atomic_fetch_add(&fs->sh->pt_io, 1);
		return -EIO;
	}
	if (nodeid != TFS_SINK)
		return -EBADF;
	atomic_fetch_add(&fs->sh->sink_writes, 1);
	atomic_fetch_add(&fs->sh->sink_bytes, size);
	return size;
}

static void tfs_forget(void *p, uint64_t nodeid, uint64_t nlookup)
{
	struct tfs *fs = p;

	if (nodeid >= TFS_GEN_FIRST)
		atomic_fetch_add(&fs->sh->forgets, nlookup);
}

static const struct ab_fsrv_ops tfs_ops = {
	.lookup = tfs_lookup,
	.getattr = tfs_getattr,
	.open = tfs_open,
	.release = tfs_release,
	.read = tfs_read,
	.write = tfs_write,
	.forget = tfs_forget,
};

/* ab_daemon_start's run function */
static int tfs_run(void *arg, const char *mnt)
{
	struct tfs_args *a = arg;
	struct tfs fs = { .sh = a->sh, .backing_fd = -1 };

	if (ab_daemon_prepare(NULL) < 0)
		return AB_EXIT_CHILD_SETUP;
	if (a->backing[0] && (fs.backing_fd = open(a->backing, O_RDWR | O_CLOEXEC)) < 0) {
		ab_msg("open %s: %s", a->backing, strerror(errno));
		return 1;
	}
	return ab_fsrv_serve(mnt, &tfs_ops, &fs, &a->cfg);
}

/* ---- client side ---- */

/* Record the client's failure (first one wins) and return -1. */
static int tfs_fail(struct tfs_shared *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int tfs_fail(struct tfs_shared *sh, const char *fmt, ...)
{
	va_list ap;

	if (!sh->msg[0]) {
		va_start(ap, fmt);
		vsnprintf(sh->msg, sizeof(sh->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* mnt/<name of ino>; "" when it does not fit (the open or stat then fails). */
static void tfs_path(char *out, size_t len, const char *mnt, int ino)
{
	if (snprintf(out, len, "%s/%s", mnt, tfs_names[ino]) >= (int)len)
		out[0] = '\0';
}

typedef int (*tfs_client_fn)(const char *mnt, struct tfs_shared *sh, const void *arg);

/* Start fn(mnt, sh, arg) in a child: its pid, or -1 with sh->msg set. */
static pid_t tfs_client_start(const char *mnt, struct tfs_shared *sh, tfs_client_fn fn,
			      const void *arg)
{
	sh->msg[0] = '\0';
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return tfs_fail(sh, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(fn(mnt, sh, arg) == 0 ? 0 : 1);
	return pid;
}

/*
 * Wait up to timeout_ms for the client: 0 when it passed; -1 with sh->msg set
 * when it failed, died or hung (then connection conn is aborted and the
 * client killed; a client whose request an io_uring thread of a stopped
 * daemon holds stays blocked until that daemon is continued or killed).
 */
static int tfs_client_wait(pid_t pid, int conn, struct tfs_shared *sh, int timeout_ms)
{
	uint64_t deadline = ab_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int st;

	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (ab_now_ns() > deadline) {
			ab_mnt_abort_conn(conn);
			kill(pid, SIGKILL);
			/* A request the daemon holds waits uninterruptibly: do not wait for good. */
			for (int i = 0; i < 1000 && waitpid(pid, &st, WNOHANG) == 0; i++)
				ab_sleep_ns(1000000);
			return tfs_fail(sh, "client hung for %d ms", timeout_ms);
		}
		ab_sleep_ns(1000000);
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && !sh->msg[0])
		return 0;
	return tfs_fail(sh, "client ended with status 0x%x", (unsigned)st);
}

/* Both: run fn in a child and wait for it. */
static inline int tfs_client(const char *mnt, int conn, struct tfs_shared *sh, tfs_client_fn fn,
			     const void *arg, int timeout_ms)
{
	pid_t pid = tfs_client_start(mnt, sh, fn, arg);

	return pid < 0 ? -1 : tfs_client_wait(pid, conn, sh, timeout_ms);
}

#endif
