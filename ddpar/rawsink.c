// SPDX-License-Identifier: GPL-2.0
/*
 * ddpar's sink on lib/fuse/fsrv, affbench's own kernel-protocol server, for the
 * transports libfuse 3.14 lacks (--transport dev, uring, passthrough): the
 * same files as fs.c (w0..w127 written, r0..r127 read, direct_io, writes
 * counted and dropped, reads a pattern), counted into the same slots.
 *
 * passthrough: OPEN hands the kernel a backing file in a private directory
 * of the work directory, and reads and writes go to it without the daemon:
 * every r<i> is one pattern file of DDP_PT_SPAN bytes (made by the parent,
 * measure.c), each w<i> a file of its own, written by worker i. The daemon then
 * answers no READ or WRITE at all; measure.c checks that, and the backing
 * files' size and content.
 *
 * Its threads wait for requests as --daemon-wait says and add their CPU time to
 * sh->srv_cpu (server_cpu_us_per_req).
 *
 * Limits: no SETATTR (dd's O_TRUNC arrives as FUSE_ATOMIC_O_TRUNC in OPEN).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddpar.h"
#include "fuse/fsrv.h"

#define RAW_VALID_S 1000000	/* names and attributes never change */

struct rawsink {
	struct ddp_shared *sh;
	const struct ddp_raw_args *a;
	char *pattern;			/* max_write bytes every read returns */
	int read_fd;			/* passthrough: the pattern file every r<i> opens */
	int write_fd[DDP_MAX_PROCS];	/* passthrough: w<i>'s backing file, until RELEASE */
};

static __thread int raw_slot = -1;

static struct ddp_dslot *slot(struct rawsink *fs)
{
	if (raw_slot < 0) {
		uint32_t s = atomic_fetch_add(&fs->sh->nslots, 1);
		raw_slot = s < DDP_DSLOTS ? (int)s : DDP_DSLOTS - 1;
	}
	return &fs->sh->dslot[raw_slot];
}

static int attr(const struct rawsink *fs, uint64_t ino, struct fuse_attr *a)
{
	a->ino = ino;
	a->uid = (uint32_t)getuid();
	a->gid = (uint32_t)getgid();
	if (ino == DDP_INO_ROOT) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
		return 0;
	}
	if (!ddp_is_file(ino))
		return -ENOENT;
	a->mode = S_IFREG | 0644;
	a->nlink = 1;
	/* passthrough: the size of the backing files (reads wrap at it); else reads never end */
	a->size = fs->a->passthrough ? (ddp_ino_dir(ino) == DDP_READ ? DDP_PT_SPAN : 0) : DDP_FILE_SIZE;
	return 0;
}

static int raw_lookup(void *p, uint64_t parent, const char *name, struct fuse_entry_out *out)
{
	enum ddp_dir dir;
	int idx;

	if (parent != DDP_INO_ROOT || ddp_parse_name(name, &dir, &idx) < 0)
		return -ENOENT;
	out->nodeid = ddp_ino(dir, idx);
	out->entry_valid = out->attr_valid = RAW_VALID_S;
	return attr(p, out->nodeid, &out->attr);
}

static int raw_getattr(void *p, uint64_t nodeid, struct fuse_attr_out *out)
{
	out->attr_valid = RAW_VALID_S;
	return attr(p, nodeid, &out->attr);
}

static int raw_open(void *p, struct ab_fsrv_open *o)
{
	struct rawsink *fs = p;
	char path[4200];

	if (!ddp_is_file(o->nodeid))
		return o->nodeid == DDP_INO_ROOT ? -EISDIR : -ENOENT;
	if (!fs->a->passthrough) {
		o->open_flags = FOPEN_DIRECT_IO;	/* one request per read()/write() */
		return 0;
	}
	if (ddp_ino_dir(o->nodeid) == DDP_READ) {
		o->backing_fd = fs->read_fd;
		return 0;
	}
	int idx = (int)((o->nodeid - DDP_INO_FIRST) / 2);
	snprintf(path, sizeof(path), "%s/w%d", fs->a->backing_dir, idx);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (fs->write_fd[idx] >= 0)
		close(fs->write_fd[idx]);
	fs->write_fd[idx] = fd;
	o->backing_fd = fd;
	return 0;
}

static int raw_release(void *p, uint64_t nodeid, uint64_t fh)
{
	struct rawsink *fs = p;

	(void)fh;
	if (fs->a->passthrough && ddp_is_file(nodeid) && ddp_ino_dir(nodeid) == DDP_WRITE) {
		int idx = (int)((nodeid - DDP_INO_FIRST) / 2);
		if (fs->write_fd[idx] >= 0)
			close(fs->write_fd[idx]);	/* the kernel keeps its own reference */
		fs->write_fd[idx] = -1;
	}
	return 0;
}

/* The clock at a request's start where this one is timed (ddp_timed), else 0. */
static uint64_t start(struct rawsink *fs, enum ddp_dir dir)
{
	return ddp_timed(slot(fs), dir) ? ab_now_ns() : 0;
}

/* Counted before the reply, so a worker's count never runs ahead of ours. */
static void count(struct rawsink *fs, enum ddp_dir dir, uint64_t bytes, uint64_t t0)
{
	struct ddp_dslot *s = slot(fs);

	if (t0)
		ddp_time_add(s, dir, t0);
	atomic_fetch_add_explicit(&s->req[dir], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->bytes[dir], bytes, memory_order_relaxed);
}

/* The pattern is never copied here: as fs.c's fuse_reply_buf, the reply is sent from it. */
static ssize_t raw_read(void *p, uint64_t nodeid, uint64_t fh, uint64_t off, const void **data,
			uint32_t size)
{
	struct rawsink *fs = p;
	uint64_t t0 = start(fs, DDP_READ);

	(void)fh; (void)off;
	if (!ddp_is_file(nodeid))
		return -EBADF;
	if (size > fs->a->max_write)
		size = fs->a->max_write;
	*data = fs->pattern;
	count(fs, DDP_READ, size, t0);
	return size;
}

static ssize_t raw_write(void *p, uint64_t nodeid, uint64_t fh, uint64_t off, const void *buf,
			 uint32_t size)
{
	struct rawsink *fs = p;
	uint64_t t0 = start(fs, DDP_WRITE);

	(void)fh; (void)off; (void)buf;
	if (!ddp_is_file(nodeid))
		return -EBADF;
	count(fs, DDP_WRITE, size + (fs->a->miscount ? 1 : 0), t0);
	return size;
}

static const struct ab_fsrv_ops raw_ops = {
	.lookup = raw_lookup, .getattr = raw_getattr, .open = raw_open, .release = raw_release,
	.read_ref = raw_read, .write = raw_write,
};

static int raw_main(void *arg, const char *mnt)
{
	const struct ddp_raw_args *a = arg;
	static struct rawsink fs;
	struct ab_fsrv_cfg cfg = {
		.transport = a->transport == DDP_TR_URING ? AB_FSRV_URING : AB_FSRV_DEV,
		.fsname = "affbench-ddpar",
		.subtype = "ddpar",
		.threads = a->threads,
		.clone_fd = a->clone_fd,
		.uring_cpu = a->uring_cpu,
		.cpus = a->cpus,
		.max_write = a->max_write,
		.passthrough = a->passthrough,
		.wait = a->wait,
		.cpu = a->sh->srv_cpu,
		.ncpu = DDP_DSLOTS,
	};
	char path[4200];

	if (ab_daemon_prepare(NULL) < 0)
		return AB_EXIT_CHILD_SETUP;
	fs = (struct rawsink){ .sh = a->sh, .a = a, .read_fd = -1 };
	for (int i = 0; i < DDP_MAX_PROCS; i++)
		fs.write_fd[i] = -1;
	fs.pattern = malloc(a->max_write);
	if (!fs.pattern)
		return 1;
	ddp_fill_pattern(fs.pattern, 0, a->max_write, a->max_write);
	snprintf(path, sizeof(path), "%s/r", a->backing_dir);
	if (a->passthrough && (fs.read_fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		ab_msg("backing file %s: %s", path, strerror(errno));
		return 1;
	}
	return ab_fsrv_serve(mnt, &raw_ops, &fs, &cfg);
}

int ddp_raw_start(struct ab_daemon *d, const struct ddp_settings *s, const struct ddp_point *pt,
		  struct ddp_shared *sh, char *err, size_t errlen)
{
	static struct ddp_raw_args a;
	int mount_ms = (int)(ab_scaled_ns(DDP_MOUNT_NS) / 1000000);

	a = (struct ddp_raw_args){
		.sh = sh,
		.transport = s->transport,
		.uring_cpu = s->uring_cpu,
		.wait = s->wait,
		.threads = s->daemon == DDP_DAEMON_SINGLE ? 1 : s->threads ? s->threads :
			   ab_cpuset_count(&s->common.allowed),
		.clone_fd = pt->clone,
		.max_write = (uint32_t)s->conn_max_write,
		.passthrough = s->transport == DDP_TR_PASSTHROUGH,
		.miscount = s->miscount,
	};
	if (s->common.cpus_arg)
		a.cpus = s->common.allowed;
	snprintf(a.backing_dir, sizeof(a.backing_dir), "%s", s->backing_dir);
	return ab_daemon_start(d, NULL, -1, raw_main, &a, mount_ms, err, errlen);
}
