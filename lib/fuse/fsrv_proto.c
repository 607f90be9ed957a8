// SPDX-License-Identifier: GPL-2.0
/*
 * fsrv protocol: INIT negotiation, the opcode table and its handlers, the
 * passthrough table, and the dispatcher the two framings (fsrv_frame.c) call.
 * Nothing here allocates or makes a system call per request; OPEN and RELEASE
 * of a passthrough file are the only exceptions (the backing ioctls, a table
 * slot).
 *
 * In an io_uring entry the request's variable part (a name, write data) and
 * the reply's arguments share the payload buffer: handlers build their out
 * struct on the stack and copy it out only when done with the request.
 */
#include "fuse/fsrv_i.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/grow.h"

/* Kernel file handles of passthrough opens: this bit plus a slot index. */
#define FSRV_FH_PT (1ULL << 63)

struct fsrv_pt {
	int used;
	int32_t backing_id;
	uint64_t fh;		/* the filesystem's own handle */
};

int fsrv_init(struct fsrv *s, const struct ab_fsrv_ops *ops, void *fs,
	      const struct ab_fsrv_cfg *cfg, int devfd)
{
	long ps = sysconf(_SC_PAGESIZE);

	memset(s, 0, sizeof(*s));
	if (!ops || cfg->threads < 0 || cfg->threads > 1024 || cfg->queue_depth < 0 ||
	    cfg->queue_depth > 1024) {
		ab_msg("fsrv: bad configuration (ops %s, threads %d, queue depth %d)",
		       ops ? "set" : "NULL", cfg->threads, cfg->queue_depth);
		return -1;
	}
	s->ops = ops;
	s->fs = fs;
	s->cfg = cfg;
	s->devfd = devfd;
	s->page_size = ps > 0 ? (uint32_t)ps : 4096;

	/* The kernel takes no WRITE under 4 KiB and no request over max_pages pages. */
	uint32_t mw = cfg->max_write ? cfg->max_write : FSRV_DEFAULT_MAX_WRITE;
	if (mw < 4096)
		mw = 4096;
	uint32_t pages = (mw + s->page_size - 1) / s->page_size;
	if (pages > FSRV_MAX_PAGES)
		pages = FSRV_MAX_PAGES;
	if (mw > pages * s->page_size)
		mw = pages * s->page_size;
	s->max_write = mw;
	s->max_pages = pages;
	/* The kernel's own bound on a ring payload: max(8 KiB, max_write, max_pages pages). */
	s->bufsize = pages * s->page_size;
	if (s->bufsize < FUSE_MIN_READ_BUFFER)
		s->bufsize = FUSE_MIN_READ_BUFFER;
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void fsrv_fini(struct fsrv *s)
{
	free(s->pt);
	s->pt = NULL;
	s->pt_cap = 0;
	pthread_mutex_destroy(&s->lock);
}

void fsrv_set_fatal(struct fsrv *s, int code, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&s->lock);
	if (!atomic_load(&s->fatal)) {
		va_start(ap, fmt);
		vsnprintf(s->fatal_msg, sizeof(s->fatal_msg), fmt, ap);
		va_end(ap);
		atomic_store(&s->fatal, code);
	}
	pthread_mutex_unlock(&s->lock);
}

/* ---- passthrough opens ---- */

/* Register o->backing_fd with the kernel and give out a kernel fh for it. */
static int pt_open(struct fsrv *s, const struct ab_fsrv_open *o, struct fsrv_open_out *out)
{
	struct fuse_backing_map map = { .fd = o->backing_fd };
	size_t i;

	if (!s->passthrough) {
		ab_msg("fsrv: open of node %llu asks for passthrough, which was not negotiated",
		       (unsigned long long)o->nodeid);
		return -EIO;
	}
	int id = ioctl(s->devfd, FUSE_DEV_IOC_BACKING_OPEN, &map);
	if (id < 0) {
		int e = errno;
		ab_msg("fsrv: FUSE_DEV_IOC_BACKING_OPEN of fd %d for node %llu: %s", o->backing_fd,
		       (unsigned long long)o->nodeid, strerror(e));
		return -e;
	}
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->pt_cap && s->pt[i].used; i++)
		;
	if (i == s->pt_cap) {
		size_t was = s->pt_cap;
		if (ab_grow(&s->pt, &s->pt_cap, i + 1, sizeof(*s->pt), 16) < 0) {
			pthread_mutex_unlock(&s->lock);
			uint32_t bid = (uint32_t)id;
			ioctl(s->devfd, FUSE_DEV_IOC_BACKING_CLOSE, &bid);
			return -ENOMEM;
		}
		memset(s->pt + was, 0, (s->pt_cap - was) * sizeof(*s->pt));
	}
	s->pt[i] = (struct fsrv_pt){ .used = 1, .backing_id = id, .fh = o->fh };
	pthread_mutex_unlock(&s->lock);
	out->fh = FSRV_FH_PT | i;
	out->open_flags |= FOPEN_PASSTHROUGH;
	out->backing_id = id;
	return 0;
}

/* The filesystem's fh for a kernel fh; with drop, release the backing file too. */
static uint64_t pt_fh(struct fsrv *s, uint64_t fh, int drop)
{
	uint64_t i = fh & ~FSRV_FH_PT;
	int32_t id = -1;

	if (!s->passthrough || !(fh & FSRV_FH_PT))
		return fh;
	pthread_mutex_lock(&s->lock);
	if (i < s->pt_cap && s->pt[i].used) {
		fh = s->pt[i].fh;
		id = s->pt[i].backing_id;
		if (drop)
			s->pt[i].used = 0;
	}
	pthread_mutex_unlock(&s->lock);
	if (drop && id >= 0) {
		uint32_t bid = (uint32_t)id;
		if (ioctl(s->devfd, FUSE_DEV_IOC_BACKING_CLOSE, &bid) < 0)
			ab_msg("fsrv: FUSE_DEV_IOC_BACKING_CLOSE of backing id %d: %s", id,
			       strerror(errno));
	}
	return fh;
}

/* ---- handlers: reply argument bytes, -errno, or FSRV_NO_REPLY ---- */

/* A handler's result as a reply error the kernel accepts (it rejects <= -ERESTARTSYS). */
static int as_error(long rc)
{
	return rc <= -512 ? -EIO : (int)rc;
}

static int put_out(const struct fsrv_req *r, const void *o, uint32_t len)
{
	if (len > r->out_cap)
		return -EIO;
	memcpy(r->out, o, len);
	return (int)len;
}

static int do_init(struct fsrv *s, const struct fsrv_req *r)
{
	const struct fuse_init_in *in = r->arg;
	struct fsrv_init_out o;
	uint64_t want = FUSE_ASYNC_READ | FUSE_ATOMIC_O_TRUNC | FUSE_BIG_WRITES | FUSE_MAX_PAGES |
			FUSE_INIT_EXT;

	if (s->inited)
		return -EPROTO;
	if (in->major != FUSE_KERNEL_VERSION || in->minor < FSRV_MIN_MINOR) {
		ab_msg("fsrv: kernel FUSE protocol %u.%u; this server needs %u.%u or later",
		       in->major, in->minor, FUSE_KERNEL_VERSION, FSRV_MIN_MINOR);
		return -EPROTO;
	}
	s->offered = in->flags;
	/* flags2 exists only in the extended (64-byte) fuse_init_in */
	if ((in->flags & FUSE_INIT_EXT) && r->arg_len >= sizeof(*in))
		s->offered |= (uint64_t)in->flags2 << 32;
	if (s->cfg->transport == AB_FSRV_URING)
		want |= FUSE_OVER_IO_URING;
	if (s->cfg->passthrough)
		want |= FUSE_PASSTHROUGH;
	uint64_t flags = s->offered & want;

	s->minor = in->minor;
	s->uring = !!(flags & FUSE_OVER_IO_URING);
	s->passthrough = !!(flags & FUSE_PASSTHROUGH);
	memset(&o, 0, sizeof(o));
	o.major = FUSE_KERNEL_VERSION;
	o.minor = in->minor < FSRV_MINOR ? in->minor : FSRV_MINOR;
	o.max_readahead = in->max_readahead;
	o.flags = (uint32_t)flags;
	o.flags2 = (uint32_t)(flags >> 32);
	o.max_write = s->max_write;
	o.max_pages = (uint16_t)s->max_pages;
	o.time_gran = 1;
	/* Backing files may sit on any ordinary filesystem, not on another stacked one. */
	o.max_stack_depth = s->passthrough ? 1 : 0;
	s->inited = 1;
	return put_out(r, &o, sizeof(o));
}

static int do_lookup(struct fsrv *s, const struct fsrv_req *r)
{
	struct fuse_entry_out o;

	if (!s->ops->lookup)
		return -ENOSYS;
	if (!r->data_len || !memchr(r->data, '\0', r->data_len))
		return -EINVAL;
	memset(&o, 0, sizeof(o));
	int rc = s->ops->lookup(s->fs, r->in->nodeid, r->data, &o);
	return rc < 0 ? as_error(rc) : put_out(r, &o, sizeof(o));
}

static int do_getattr(struct fsrv *s, const struct fsrv_req *r)
{
	struct fuse_attr_out o;

	if (!s->ops->getattr)
		return -ENOSYS;
	memset(&o, 0, sizeof(o));
	int rc = s->ops->getattr(s->fs, r->in->nodeid, &o);
	return rc < 0 ? as_error(rc) : put_out(r, &o, sizeof(o));
}

static int do_open(struct fsrv *s, const struct fsrv_req *r)
{
	const struct fuse_open_in *in = r->arg;
	struct ab_fsrv_open o = { .nodeid = r->in->nodeid, .flags = in->flags, .backing_fd = -1 };
	struct fsrv_open_out out;
	int rc;

	if (s->ops->open && (rc = s->ops->open(s->fs, &o)) < 0)
		return as_error(rc);
	memset(&out, 0, sizeof(out));
	out.fh = o.fh;
	out.open_flags = o.open_flags & ~(uint32_t)FOPEN_PASSTHROUGH;
	if (o.backing_fd >= 0 && (rc = pt_open(s, &o, &out)) < 0) {
		if (s->ops->release)
			s->ops->release(s->fs, o.nodeid, o.fh);
		return rc;
	}
	return put_out(r, &out, sizeof(out));
}

static int do_release(struct fsrv *s, const struct fsrv_req *r)
{
	const struct fuse_release_in *in = r->arg;
	uint64_t fh = pt_fh(s, in->fh, 1);

	if (s->ops->release)
		s->ops->release(s->fs, r->in->nodeid, fh);
	return 0;
}

/* A read_ref reply: left by reference (dev), kept if the payload holds it (uring), else copied. */
static int read_by_ref(struct fsrv *s, const struct fsrv_req *r, uint64_t fh, uint32_t size)
{
	const struct fuse_read_in *in = r->arg;
	const void *p = NULL;
	ssize_t n = s->ops->read_ref(s->fs, r->in->nodeid, fh, in->offset, &p, size);

	if (n < 0)
		return as_error(n);
	if (n > size)
		n = size;
	if (n > 0 && !p)
		return -EIO;
	if (r->ref) {
		*r->ref = p;
	} else if (!r->held || r->held->p != p || r->held->len < n) {
		memcpy(r->out, p, (size_t)n);
		if (r->held)
			*r->held = (struct fsrv_held){ p, (uint32_t)n };
	}
	return (int)n;
}

static int do_read(struct fsrv *s, const struct fsrv_req *r)
{
	const struct fuse_read_in *in = r->arg;
	uint32_t size = in->size < r->out_cap ? in->size : r->out_cap;

	if (s->ops->read_ref)
		return read_by_ref(s, r, pt_fh(s, in->fh, 0), size);
	if (!s->ops->read)
		return -ENOSYS;
	ssize_t n = s->ops->read(s->fs, r->in->nodeid, pt_fh(s, in->fh, 0), in->offset, r->out,
				 size);
	if (n < 0)
		return as_error(n);
	return n > size ? (int)size : (int)n;
}

static int do_write(struct fsrv *s, const struct fsrv_req *r)
{
	const struct fuse_write_in *in = r->arg;
	struct fuse_write_out o;

	if (!s->ops->write)
		return -ENOSYS;
	if (in->size > r->data_len)
		return -EINVAL;
	ssize_t n = s->ops->write(s->fs, r->in->nodeid, pt_fh(s, in->fh, 0), in->offset, r->data,
				  in->size);
	if (n < 0)
		return as_error(n);
	memset(&o, 0, sizeof(o));
	o.size = n > in->size ? in->size : (uint32_t)n;
	return put_out(r, &o, sizeof(o));
}

static int do_statfs(struct fsrv *s, const struct fsrv_req *r)
{
	struct fuse_statfs_out o;

	memset(&o, 0, sizeof(o));
	o.st.bsize = 4096;
	o.st.frsize = 4096;
	o.st.namelen = 255;
	if (s->ops->statfs) {
		int rc = s->ops->statfs(s->fs, &o);
		if (rc < 0)
			return as_error(rc);
	}
	return put_out(r, &o, sizeof(o));
}

static int do_forget(struct fsrv *s, const struct fsrv_req *r)
{
	const struct fuse_forget_in *in = r->arg;

	if (s->ops->forget)
		s->ops->forget(s->fs, r->in->nodeid, in->nlookup);
	return FSRV_NO_REPLY;
}

static int do_batch_forget(struct fsrv *s, const struct fsrv_req *r)
{
	const struct fuse_batch_forget_in *in = r->arg;
	uint32_t n = in->count;
	struct fuse_forget_one one;

	/* A list cut short is served as far as it goes: FORGET has no reply to carry an error. */
	if (n > r->data_len / sizeof(one))
		n = r->data_len / sizeof(one);
	for (uint32_t i = 0; i < n && s->ops->forget; i++) {
		memcpy(&one, (const char *)r->data + i * sizeof(one), sizeof(one));
		s->ops->forget(s->fs, one.nodeid, one.nlookup);
	}
	return FSRV_NO_REPLY;
}

static int do_ok(struct fsrv *s, const struct fsrv_req *r)
{
	(void)s;
	(void)r;
	return 0;
}

static int do_noreply(struct fsrv *s, const struct fsrv_req *r)
{
	(void)s;
	(void)r;
	return FSRV_NO_REPLY;
}

static int do_destroy(struct fsrv *s, const struct fsrv_req *r)
{
	(void)r;
	atomic_store(&s->destroyed, 1);
	return 0;
}

/* ---- the table ---- */

struct fsrv_op {
	uint32_t opcode;
	const char *name;
	uint32_t in_size;	/* the fixed argument: minimum size, and where data starts */
	int noreply;		/* the kernel expects no answer, not even an error */
	int (*fn)(struct fsrv *s, const struct fsrv_req *r);
};

static const struct fsrv_op fsrv_ops[] = {
	[FUSE_LOOKUP] = { FUSE_LOOKUP, "LOOKUP", 0, 0, do_lookup },
	[FUSE_FORGET] = { FUSE_FORGET, "FORGET", sizeof(struct fuse_forget_in), 1, do_forget },
	[FUSE_GETATTR] = { FUSE_GETATTR, "GETATTR", sizeof(struct fuse_getattr_in), 0, do_getattr },
	[FUSE_OPEN] = { FUSE_OPEN, "OPEN", sizeof(struct fuse_open_in), 0, do_open },
	[FUSE_READ] = { FUSE_READ, "READ", sizeof(struct fuse_read_in), 0, do_read },
	[FUSE_WRITE] = { FUSE_WRITE, "WRITE", sizeof(struct fuse_write_in), 0, do_write },
	[FUSE_STATFS] = { FUSE_STATFS, "STATFS", 0, 0, do_statfs },
	[FUSE_RELEASE] = { FUSE_RELEASE, "RELEASE", sizeof(struct fuse_release_in), 0, do_release },
	[FUSE_FLUSH] = { FUSE_FLUSH, "FLUSH", sizeof(struct fuse_flush_in), 0, do_ok },
	/* 7.23+ kernels send 64 bytes; only the first 16 existed in every version */
	[FUSE_INIT] = { FUSE_INIT, "INIT", offsetof(struct fuse_init_in, flags2), 0, do_init },
	[FUSE_INTERRUPT] = { FUSE_INTERRUPT, "INTERRUPT", sizeof(struct fuse_interrupt_in), 1,
			     do_noreply },
	[FUSE_DESTROY] = { FUSE_DESTROY, "DESTROY", 0, 0, do_destroy },
	[FUSE_BATCH_FORGET] = { FUSE_BATCH_FORGET, "BATCH_FORGET",
				sizeof(struct fuse_batch_forget_in), 1, do_batch_forget },
};

static const struct fsrv_op *op_of(uint32_t opcode)
{
	if (opcode >= AB_ARRAY_SIZE(fsrv_ops) || !fsrv_ops[opcode].fn)
		return NULL;
	return &fsrv_ops[opcode];
}

const char *fsrv_opname(uint32_t opcode)
{
	const struct fsrv_op *o = op_of(opcode);

	return o ? o->name : "?";
}

uint32_t fsrv_in_size(uint32_t opcode)
{
	const struct fsrv_op *o = op_of(opcode);

	return o ? o->in_size : 0;
}

int fsrv_dispatch(struct fsrv *s, const struct fsrv_req *r)
{
	const struct fsrv_op *o = op_of(r->in->opcode);

	if (!o)
		return -ENOSYS;
	if (r->arg_len < o->in_size)
		return o->noreply ? FSRV_NO_REPLY : -EINVAL;
	if (!s->inited && o->opcode != FUSE_INIT)
		return o->noreply ? FSRV_NO_REPLY : -EIO;
	return o->fn(s, r);
}
