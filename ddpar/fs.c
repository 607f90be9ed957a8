// SPDX-License-Identifier: GPL-2.0
/*
 * The ddpar sink filesystem (libfuse 3.14 low-level API, the shape of
 * example/hello_ll.c): a root directory holding files w0..w127 (written) and
 * r0..r127 (read). Every open is direct_io, so each read() or write() of a
 * worker becomes one FUSE request and no page cache stands between the
 * workers and the daemon. Writes are counted and discarded; reads return a
 * fixed pattern from one buffer, so the daemon stores nothing and its cost
 * per request is the FUSE round trip plus one copy.
 *
 * Service time: the handler reads CLOCK_MONOTONIC at entry and after its
 * reply (two vDSO reads per request, ~50 ns against a 128 KiB copy): it is
 * the quantity measured, so it is not sampled, except where the clock has no
 * vDSO: then one request in 64 is timed (ddp_timed).
 *
 * Known limits: max_write is capped at 1 MiB (libfuse 3.14's buffer); past
 * DDP_DSLOTS daemon threads the last counter slot is shared (still exact,
 * atomic adds, but contended).
 */
#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sys/common.h"
#include "ddpar.h"


/* Names and attributes never change: cache them for good. */
#define DDP_TIMEOUT 1e6

struct ddp_fs {
	struct ddp_shared *sh;
	unsigned max_write;
	char *pattern;			/* max_write bytes every read returns */
	uint64_t crash_after;
	_Atomic uint64_t served;	/* only kept when crash_after is set */
	int miscount;
};

static __thread int ddp_slot = -1;

static struct ddp_dslot *dds_slot(struct ddp_fs *fs)
{
	if (ddp_slot < 0) {
		uint32_t s = atomic_fetch_add(&fs->sh->nslots, 1);
		ddp_slot = s < DDP_DSLOTS ? (int)s : DDP_DSLOTS - 1;
	}
	return &fs->sh->dslot[ddp_slot];
}

static int dds_stat(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (ino == DDP_INO_ROOT) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (ddp_is_file(ino)) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = (off_t)DDP_FILE_SIZE;
	} else {
		return -1;
	}
	return 0;
}

static void dds_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ddp_fs *fs = userdata;

	/* libfuse 3.14 derives max_pages from max_write (FUSE_MAX_PAGES), up to 1 MiB. */
	conn->max_write = fs->max_write;
	/* No read-ahead: direct_io already bypasses it; say so anyway. */
	conn->max_readahead = 0;
}

static void dds_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	enum ddp_dir dir;
	int idx;

	if (parent != DDP_INO_ROOT || ddp_parse_name(name, &dir, &idx) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = ddp_ino(dir, idx);
	e.entry_timeout = DDP_TIMEOUT;
	e.attr_timeout = DDP_TIMEOUT;
	dds_stat(e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void dds_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (dds_stat(ino, &st) < 0)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, DDP_TIMEOUT);
}

/* dd opens its output with O_TRUNC: accept and ignore (nothing is stored). */
static void dds_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			struct fuse_file_info *fi)
{
	struct stat st;

	(void)attr; (void)to_set; (void)fi;
	if (dds_stat(ino, &st) < 0)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, DDP_TIMEOUT);
}

static void dds_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (!ddp_is_file(ino)) {
		fuse_reply_err(req, ino == DDP_INO_ROOT ? EISDIR : ENOENT);
		return;
	}
	/* One FUSE request per read()/write(), no page cache. */
	fi->direct_io = 1;
	fuse_reply_open(req, fi);
}

/* Test hook: die like a crashing daemon on request number crash_after. */
static void dds_maybe_crash(struct ddp_fs *fs)
{
	if (fs->crash_after && atomic_fetch_add(&fs->served, 1) + 1 >= fs->crash_after) {
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		abort();
	}
}

static void dds_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct ddp_fs *fs = fuse_req_userdata(req);
	struct ddp_dslot *s = dds_slot(fs);
	int timed = ddp_timed(s, DDP_WRITE);
	uint64_t t0 = timed ? ab_now_ns() : 0;

	(void)buf; (void)off; (void)fi;
	dds_maybe_crash(fs);
	if (!ddp_is_file(ino)) {
		fuse_reply_err(req, EBADF);
		return;
	}
	/* Counted before the reply, so a worker's count never runs ahead of ours. */
	atomic_fetch_add_explicit(&s->req[DDP_WRITE], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->bytes[DDP_WRITE], size + (fs->miscount ? 1 : 0),
				  memory_order_relaxed);
	fuse_reply_write(req, size);
	if (timed)
		ddp_time_add(s, DDP_WRITE, t0);
}

static void dds_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct ddp_fs *fs = fuse_req_userdata(req);
	struct ddp_dslot *s = dds_slot(fs);
	int timed = ddp_timed(s, DDP_READ);
	uint64_t t0 = timed ? ab_now_ns() : 0;

	(void)off; (void)fi;
	dds_maybe_crash(fs);
	if (!ddp_is_file(ino)) {
		fuse_reply_err(req, EBADF);
		return;
	}
	/* The kernel never asks for more than max_pages; clamp anyway, the buffer is that big. */
	if (size > fs->max_write)
		size = fs->max_write;
	atomic_fetch_add_explicit(&s->req[DDP_READ], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->bytes[DDP_READ], size, memory_order_relaxed);
	fuse_reply_buf(req, fs->pattern, size);
	if (timed)
		ddp_time_add(s, DDP_READ, t0);
}

static const struct fuse_lowlevel_ops dds_ops = {
	.init = dds_init,
	.lookup = dds_lookup,
	.getattr = dds_getattr,
	.setattr = dds_setattr,
	.open = dds_open,
	.read = dds_read,
	.write = dds_write,
};

void ddp_daemon_totals(const struct ddp_shared *sh, enum ddp_dir dir, struct ddp_dtotals *t)
{
	struct ddp_shared *m = (struct ddp_shared *)sh;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < DDP_DSLOTS; i++) {
		t->req += atomic_load_explicit(&m->dslot[i].req[dir], memory_order_relaxed);
		t->bytes += atomic_load_explicit(&m->dslot[i].bytes[dir], memory_order_relaxed);
		t->ns += atomic_load_explicit(&m->dslot[i].ns[dir], memory_order_relaxed);
		t->timed += atomic_load_explicit(&m->dslot[i].timed[dir], memory_order_relaxed);
	}
	t->cpu_ns = ab_fsrv_cpu_sum(m->srv_cpu, DDP_DSLOTS);
}

/* What the daemon process is told; it lives in the parent until the fork copies it. */
struct ddp_daemon_args {
	struct ddp_shared *sh;
	enum ab_fuse_loop loop;
	int max_threads;		/* 0: libfuse's default */
	unsigned max_write;		/* bytes, <= DDP_MAX_WRITE_LIMIT */
	const struct ab_cpuset *cpus;	/* pin the whole process (all threads); NULL: not pinned */
	uint64_t crash_after;
	int miscount;
};

static int daemon_main(void *arg, const char *mnt)
{
	struct ddp_daemon_args *a = arg;
	struct ddp_fs fs = { .sh = a->sh, .max_write = a->max_write,
			     .crash_after = a->crash_after, .miscount = a->miscount };
	int ret;

	if (ab_daemon_prepare(a->cpus) < 0)
		return AB_EXIT_CHILD_SETUP;
	fs.pattern = malloc(a->max_write);
	if (!fs.pattern) {
		ab_msg("FUSE daemon: cannot allocate a %u-byte read buffer", a->max_write);
		return 1;
	}
	for (unsigned i = 0; i < a->max_write; i++)
		fs.pattern[i] = (char)('a' + i % 26);
	ret = ab_fuse_serve(&dds_ops, sizeof(dds_ops), &fs, mnt, "ddpar", NULL,
			    a->loop, a->max_threads);
	free(fs.pattern);
	return ret;
}

int ddp_libfuse_start(struct ab_daemon *d, const struct ddp_settings *s, const struct ddp_point *pt,
		      struct ddp_shared *sh, char *err, size_t errlen)
{
	struct ddp_daemon_args a = {
		.sh = sh,
		.loop = pt->clone ? AB_LOOP_CLONE_FD :
			s->daemon == DDP_DAEMON_SINGLE ? AB_LOOP_SINGLE : AB_LOOP_MULTI,
		.max_threads = s->threads,
		.max_write = (unsigned)s->conn_max_write,
		.cpus = s->common.cpus_arg ? &s->common.allowed : NULL,
		.crash_after = s->crash_after,
		.miscount = s->miscount,
	};
	int mount_ms = (int)(ab_scaled_ns(DDP_MOUNT_NS) / 1000000);

	return ab_daemon_start(d, NULL, -1, daemon_main, &a, mount_ms, err, errlen);
}
