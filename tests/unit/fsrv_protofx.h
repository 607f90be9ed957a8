/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixture of fsrv's protocol tests (test_fsrv_init.c, test_fsrv_proto.c): a
 * filesystem that records what it is asked, and requests built in the
 * /dev/fuse layout and fed to fsrv_dev_handle. No kernel involved.
 */
#ifndef FSRV_PROTOFX_H
#define FSRV_PROTOFX_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "fuse/fsrv_i.h"

/* ---- a filesystem that records what it is asked ---- */

/* Helpers each test file uses only some of. */
#define FX_FN static __attribute__((unused))

static struct seen {
	uint64_t nodeid, off, fh;
	uint32_t size;
	char name[64];
	unsigned char data[64];
	uint64_t forgot[8][2];
	int nforgot, releases;
} seen;

static int p_lookup(void *fs, uint64_t parent, const char *name, struct fuse_entry_out *out)
{
	(void)fs;
	seen.nodeid = parent;
	snprintf(seen.name, sizeof(seen.name), "%s", name);
	if (strcmp(name, "f") != 0)
		return -ENOENT;
	out->nodeid = 7;
	out->attr.ino = 7;
	out->attr.mode = 0100644;
	return 0;
}

static int p_getattr(void *fs, uint64_t nodeid, struct fuse_attr_out *out)
{
	(void)fs;
	seen.nodeid = nodeid;
	if (nodeid == 666)
		return -1000;	/* out of the kernel's range */
	out->attr.ino = nodeid;
	out->attr.size = 4242;
	out->attr.blocks = 3;
	out->attr_valid = 1;
	return 0;
}

static int p_open(void *fs, struct ab_fsrv_open *o)
{
	(void)fs;
	o->fh = 99;
	o->open_flags = FOPEN_DIRECT_IO;
	if (o->nodeid == 8)
		o->backing_fd = 0;	/* passthrough, never negotiated here */
	return 0;
}

static int p_release(void *fs, uint64_t nodeid, uint64_t fh)
{
	(void)fs;
	seen.nodeid = nodeid;
	seen.fh = fh;
	seen.releases++;
	return 0;
}

static ssize_t p_read(void *fs, uint64_t nodeid, uint64_t fh, uint64_t off, void *buf,
		      uint32_t size)
{
	(void)fs;
	seen.nodeid = nodeid;
	seen.fh = fh;
	seen.off = off;
	seen.size = size;
	memset(buf, 'r', size > 10 ? 10 : size);
	return size > 10 ? 10 : size;
}

static ssize_t p_write(void *fs, uint64_t nodeid, uint64_t fh, uint64_t off, const void *buf,
		       uint32_t size)
{
	(void)fs;
	seen.nodeid = nodeid;
	seen.fh = fh;
	seen.off = off;
	seen.size = size;
	memcpy(seen.data, buf, size < sizeof(seen.data) ? size : sizeof(seen.data));
	return size;
}

static void p_forget(void *fs, uint64_t nodeid, uint64_t nlookup)
{
	(void)fs;
	if (seen.nforgot < 8) {
		seen.forgot[seen.nforgot][0] = nodeid;
		seen.forgot[seen.nforgot][1] = nlookup;
	}
	seen.nforgot++;
}

static const struct ab_fsrv_ops p_ops = {
	.lookup = p_lookup, .getattr = p_getattr, .open = p_open, .release = p_release,
	.read = p_read, .write = p_write, .forget = p_forget,
};

/* ---- request building ---- */

struct fx {
	struct ab_fsrv_cfg cfg;
	struct fsrv s;
	uint64_t in[4096];	/* 8-byte aligned, as the kernel's buffers are */
	uint64_t out[4096];
};

static uint64_t next_unique = 100;

/* One /dev/fuse request: header, argument, data. Returns its length. */
FX_FN size_t put_req(struct fx *f, uint32_t opcode, uint64_t nodeid, const void *arg,
		     size_t alen, const void *data, size_t dlen)
{
	struct fuse_in_header h = { .opcode = opcode, .unique = next_unique++, .nodeid = nodeid };
	char *b = (char *)f->in;

	h.len = (uint32_t)(sizeof(h) + alen + dlen);
	memcpy(b, &h, sizeof(h));
	if (alen)
		memcpy(b + sizeof(h), arg, alen);
	if (dlen)
		memcpy(b + sizeof(h) + alen, data, dlen);
	return h.len;
}

FX_FN const struct fuse_out_header *out_hdr(struct fx *f)
{
	return (const struct fuse_out_header *)f->out;
}

FX_FN const void *out_arg(struct fx *f)
{
	return (const char *)f->out + sizeof(struct fuse_out_header);
}

FX_FN ssize_t handle(struct fx *f, size_t n)
{
	return fsrv_dev_handle(&f->s, f->in, n, f->out, sizeof(f->out));
}

FX_FN ssize_t do_init(struct fx *f, uint32_t minor, uint32_t flags, uint32_t flags2)
{
	struct fuse_init_in in = { .major = 7, .minor = minor, .max_readahead = 65536,
				   .flags = flags, .flags2 = flags2 };

	return handle(f, put_req(f, FUSE_INIT, 0, &in, sizeof(in), NULL, 0));
}

FX_FN int setup_cfg(void **state, enum ab_fsrv_transport t, int passthrough, uint32_t max_write)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->cfg.transport = t;
	f->cfg.passthrough = passthrough;
	f->cfg.max_write = max_write;
	memset(&seen, 0, sizeof(seen));
	if (fsrv_init(&f->s, &p_ops, NULL, &f->cfg, -1) < 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

/* Set up and negotiate like a 7.45 kernel offering everything. */
FX_FN int setup(void **state)
{
	if (setup_cfg(state, AB_FSRV_DEV, 0, 0) < 0)
		return -1;
	struct fx *f = *state;
	return do_init(f, 45, 0xffffffffu, 0xffffffffu) == 16 + 64 ? 0 : -1;
}

FX_FN int teardown(void **state)
{
	struct fx *f = *state;

	fsrv_fini(&f->s);
	free(f);
	return 0;
}

#endif
