/*
 * lib/fsrv's protocol without a kernel: requests built here in the
 * /dev/fuse layout (header + argument + data in one buffer) or in an
 * io_uring entry (header buffer with the first argument, payload), fed to
 * the framings, replies checked byte for byte. INIT negotiation, GETATTR,
 * WRITE, READ, LOOKUP, OPEN, FORGET and BATCH_FORGET, unknown opcodes and
 * malformed requests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fsrv_proto.h"

/* ---- a filesystem that records what it is asked ---- */

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
static size_t put_req(struct fx *f, uint32_t opcode, uint64_t nodeid, const void *arg,
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

static const struct fuse_out_header *out_hdr(struct fx *f)
{
	return (const struct fuse_out_header *)f->out;
}

static const void *out_arg(struct fx *f)
{
	return (const char *)f->out + sizeof(struct fuse_out_header);
}

static ssize_t handle(struct fx *f, size_t n)
{
	return fsrv_dev_handle(&f->s, f->in, n, f->out, sizeof(f->out));
}

static ssize_t do_init(struct fx *f, uint32_t minor, uint32_t flags, uint32_t flags2)
{
	struct fuse_init_in in = { .major = 7, .minor = minor, .max_readahead = 65536,
				   .flags = flags, .flags2 = flags2 };

	return handle(f, put_req(f, FUSE_INIT, 0, &in, sizeof(in), NULL, 0));
}

static int setup_cfg(void **state, enum ab_fsrv_transport t, int passthrough, uint32_t max_write)
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
static int setup(void **state)
{
	if (setup_cfg(state, AB_FSRV_DEV, 0, 0) < 0)
		return -1;
	struct fx *f = *state;
	return do_init(f, 45, 0xffffffffu, 0xffffffffu) == 16 + 64 ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	fsrv_fini(&f->s);
	free(f);
	return 0;
}

/* ---- INIT ---- */

#define ALL32 0xffffffffu
#define HI(x) ((uint32_t)((x) >> 32))
#define WANT_LOW (FUSE_ASYNC_READ | FUSE_ATOMIC_O_TRUNC | FUSE_BIG_WRITES | FUSE_MAX_PAGES)

static void test_init(void **state)
{
	static const struct {
		const char *what;
		enum ab_fsrv_transport t;
		int pt;
		uint32_t max_write, minor, flags, flags2;
		/* the reply */
		uint32_t minor_out, flags_out, flags2_out, max_write_out, max_pages, stack;
	} cases[] = {
		{ "uring offered and asked", AB_FSRV_URING, 0, 0, 45, ALL32, ALL32,
		  42, WANT_LOW | FUSE_INIT_EXT, HI(FUSE_OVER_IO_URING), 128 * 1024, 32, 0 },
		{ "uring asked, not offered", AB_FSRV_URING, 0, 0, 45, ALL32, HI(FUSE_PASSTHROUGH),
		  42, WANT_LOW | FUSE_INIT_EXT, 0, 128 * 1024, 32, 0 },
		{ "uring offered, dev asked", AB_FSRV_DEV, 0, 0, 45, ALL32, ALL32,
		  42, WANT_LOW | FUSE_INIT_EXT, 0, 128 * 1024, 32, 0 },
		{ "uring and passthrough, 1 MiB", AB_FSRV_URING, 1, 1 << 20, 45, ALL32, ALL32,
		  42, WANT_LOW | FUSE_INIT_EXT, HI(FUSE_OVER_IO_URING | FUSE_PASSTHROUGH), 1 << 20,
		  256, 1 },
		{ "no FUSE_INIT_EXT: flags2 ignored", AB_FSRV_URING, 1, 0, 45, ALL32 & ~FUSE_INIT_EXT,
		  ALL32, 42, WANT_LOW, 0, 128 * 1024, 32, 0 },
		{ "protocol 7.31 kernel", AB_FSRV_DEV, 0, 0, 31, WANT_LOW, 0,
		  31, WANT_LOW, 0, 128 * 1024, 32, 0 },
		{ "max_write over 256 pages", AB_FSRV_DEV, 0, 4 << 20, 45, ALL32, 0,
		  42, WANT_LOW | FUSE_INIT_EXT, 0, 1 << 20, 256, 0 },
		{ "max_write under a page", AB_FSRV_DEV, 0, 100, 45, ALL32, 0,
		  42, WANT_LOW | FUSE_INIT_EXT, 0, 4096, 1, 0 },
		{ "max_write 5000", AB_FSRV_DEV, 0, 5000, 45, ALL32, 0,
		  42, WANT_LOW | FUSE_INIT_EXT, 0, 5000, 2, 0 },
	};

	(void)state;
	if (sysconf(_SC_PAGESIZE) != 4096)
		skip();
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		void *st;
		assert_int_equal(setup_cfg(&st, cases[i].t, cases[i].pt, cases[i].max_write), 0);
		struct fx *f = st;
		ssize_t n = do_init(f, cases[i].minor, cases[i].flags, cases[i].flags2);
		const struct fsrv_init_out *o = out_arg(f);
		print_message("# INIT: %s\n", cases[i].what);
		assert_int_equal(n, 16 + 64);
		assert_int_equal(out_hdr(f)->error, 0);
		assert_int_equal(out_hdr(f)->len, 16 + 64);
		assert_int_equal(o->major, 7);
		assert_int_equal(o->minor, cases[i].minor_out);
		assert_int_equal(o->flags, cases[i].flags_out);
		assert_int_equal(o->flags2, cases[i].flags2_out);
		assert_int_equal(o->max_write, cases[i].max_write_out);
		assert_int_equal(o->max_pages, cases[i].max_pages);
		assert_int_equal(o->max_stack_depth, cases[i].stack);
		assert_int_equal(o->max_readahead, 65536);
		assert_int_equal(f->s.uring, !!(cases[i].flags2_out & HI(FUSE_OVER_IO_URING)));
		assert_int_equal(f->s.passthrough, !!(cases[i].flags2_out & HI(FUSE_PASSTHROUGH)));
		/* the ring payload the kernel will demand: max(8 KiB, max_write, max_pages pages) */
		assert_true(f->s.bufsize >= 8192 && f->s.bufsize >= o->max_write &&
			    f->s.bufsize >= o->max_pages * 4096u);
		teardown(&st);
	}
}

static void test_init_refused(void **state)
{
	static const struct {
		uint32_t major, minor;
	} cases[] = { { 8, 0 }, { 7, 22 }, { 6, 45 } };

	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		void *st;
		assert_int_equal(setup_cfg(&st, AB_FSRV_DEV, 0, 0), 0);
		struct fx *f = st;
		struct fuse_init_in in = { .major = cases[i].major, .minor = cases[i].minor };
		assert_int_equal(handle(f, put_req(f, FUSE_INIT, 0, &in, sizeof(in), NULL, 0)), 16);
		assert_int_equal(out_hdr(f)->error, -EPROTO);
		assert_false(f->s.inited);
		teardown(&st);
	}
}

/* A second INIT, and anything before the first, is a protocol error. */
static void test_init_order(void **state)
{
	struct fx *f = *state;
	struct fuse_getattr_in g = { 0 };
	void *st;

	assert_int_equal(do_init(f, 45, ALL32, ALL32), 16);
	assert_int_equal(out_hdr(f)->error, -EPROTO);
	assert_int_equal(setup_cfg(&st, AB_FSRV_DEV, 0, 0), 0);
	struct fx *g0 = st;
	assert_int_equal(handle(g0, put_req(g0, FUSE_GETATTR, 1, &g, sizeof(g), NULL, 0)), 16);
	assert_int_equal(out_hdr(g0)->error, -EIO);
	teardown(&st);
}

/* ---- requests over /dev/fuse ---- */

static void test_getattr(void **state)
{
	struct fx *f = *state;
	struct fuse_getattr_in in = { 0 };
	size_t len = put_req(f, FUSE_GETATTR, 5, &in, sizeof(in), NULL, 0);
	uint64_t unique = ((struct fuse_in_header *)f->in)->unique;

	assert_int_equal(handle(f, len), 16 + sizeof(struct fuse_attr_out));
	assert_int_equal(out_hdr(f)->len, 16 + 104);
	assert_int_equal(out_hdr(f)->error, 0);
	assert_int_equal(out_hdr(f)->unique, unique);
	const struct fuse_attr_out *o = out_arg(f);
	assert_int_equal(o->attr_valid, 1);
	assert_int_equal(o->attr.ino, 5);
	assert_int_equal(o->attr.size, 4242);
	assert_int_equal(o->attr.blocks, 3);
	assert_int_equal(seen.nodeid, 5);

	/* an errno the kernel would reject becomes EIO */
	assert_int_equal(handle(f, put_req(f, FUSE_GETATTR, 666, &in, sizeof(in), NULL, 0)), 16);
	assert_int_equal(out_hdr(f)->error, -EIO);
}

static void test_write(void **state)
{
	struct fx *f = *state;
	static const char data[] = "0123456789abcdefghij";
	struct fuse_write_in in = { .fh = 11, .offset = 12345, .size = 20 };

	assert_int_equal(handle(f, put_req(f, FUSE_WRITE, 6, &in, sizeof(in), data, 20)), 16 + 8);
	assert_int_equal(out_hdr(f)->error, 0);
	assert_int_equal(((const struct fuse_write_out *)out_arg(f))->size, 20);
	assert_int_equal(seen.nodeid, 6);
	assert_int_equal(seen.fh, 11);
	assert_int_equal(seen.off, 12345);
	assert_int_equal(seen.size, 20);
	assert_memory_equal(seen.data, data, 20);

	/* claims more bytes than it carries */
	seen.size = 0;
	in.size = 21;
	assert_int_equal(handle(f, put_req(f, FUSE_WRITE, 6, &in, sizeof(in), data, 20)), 16);
	assert_int_equal(out_hdr(f)->error, -EINVAL);
	assert_int_equal(seen.size, 0);
}

static void test_read(void **state)
{
	struct fx *f = *state;
	struct fuse_read_in in = { .fh = 3, .offset = 77, .size = 4096 };

	assert_int_equal(handle(f, put_req(f, FUSE_READ, 9, &in, sizeof(in), NULL, 0)), 16 + 10);
	assert_int_equal(out_hdr(f)->len, 26);
	assert_memory_equal(out_arg(f), "rrrrrrrrrr", 10);
	assert_int_equal(seen.off, 77);
	assert_int_equal(seen.fh, 3);
	assert_int_equal(seen.size, 4096);
}

static void test_open_release(void **state)
{
	struct fx *f = *state;
	struct fuse_open_in in = { .flags = 2 };
	struct fuse_release_in rel = { .fh = 99 };

	assert_int_equal(handle(f, put_req(f, FUSE_OPEN, 4, &in, sizeof(in), NULL, 0)), 16 + 16);
	const struct fsrv_open_out *o = out_arg(f);
	assert_int_equal(o->fh, 99);
	assert_int_equal(o->open_flags, FOPEN_DIRECT_IO);
	assert_int_equal(o->backing_id, 0);
	assert_int_equal(handle(f, put_req(f, FUSE_RELEASE, 4, &rel, sizeof(rel), NULL, 0)), 16);
	assert_int_equal(out_hdr(f)->error, 0);
	assert_int_equal(seen.releases, 1);
	assert_int_equal(seen.fh, 99);

	/* passthrough asked without FUSE_PASSTHROUGH: EIO, and the fs gets its release */
	assert_int_equal(handle(f, put_req(f, FUSE_OPEN, 8, &in, sizeof(in), NULL, 0)), 16);
	assert_int_equal(out_hdr(f)->error, -EIO);
	assert_int_equal(seen.releases, 2);
	assert_int_equal(seen.nodeid, 8);
}

static void test_forget(void **state)
{
	struct fx *f = *state;
	struct fuse_forget_in one = { .nlookup = 4 };
	struct fuse_batch_forget_in b = { .count = 3 };
	struct fuse_forget_one list[3] = { { 10, 1 }, { 11, 2 }, { 12, 3 } };

	assert_int_equal(handle(f, put_req(f, FUSE_FORGET, 9, &one, sizeof(one), NULL, 0)), 0);
	assert_int_equal(seen.nforgot, 1);
	assert_int_equal(seen.forgot[0][0], 9);
	assert_int_equal(seen.forgot[0][1], 4);

	seen.nforgot = 0;
	assert_int_equal(handle(f, put_req(f, FUSE_BATCH_FORGET, 0, &b, sizeof(b), list,
					   sizeof(list))), 0);
	assert_int_equal(seen.nforgot, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(seen.forgot[i][0], list[i].nodeid);
		assert_int_equal(seen.forgot[i][1], list[i].nlookup);
	}
	/* a count beyond the list: what is there, and still no reply */
	seen.nforgot = 0;
	b.count = 1000;
	assert_int_equal(handle(f, put_req(f, FUSE_BATCH_FORGET, 0, &b, sizeof(b), list,
					   2 * sizeof(list[0]))), 0);
	assert_int_equal(seen.nforgot, 2);
}

static void test_unknown_and_library_ops(void **state)
{
	static const struct {
		uint32_t opcode;
		size_t alen;
		ssize_t len;	/* reply length; 0 = no reply */
		int error;
	} cases[] = {
		{ FUSE_MKDIR, 16, 16, -ENOSYS },
		{ FUSE_SETATTR, sizeof(struct fuse_setattr_in), 16, -ENOSYS },
		{ 4000, 0, 16, -ENOSYS },
		{ 0xffffffffu, 8, 16, -ENOSYS },
		{ FUSE_FLUSH, sizeof(struct fuse_flush_in), 16, 0 },
		{ FUSE_INTERRUPT, sizeof(struct fuse_interrupt_in), 0, 0 },
		{ FUSE_DESTROY, 0, 16, 0 },
		{ FUSE_STATFS, 0, 16 + sizeof(struct fuse_statfs_out), 0 },
	};
	struct fx *f = *state;
	char zero[128] = { 0 };

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		ssize_t n = handle(f, put_req(f, cases[i].opcode, 1, zero, cases[i].alen, NULL, 0));
		print_message("# opcode %u (%s)\n", cases[i].opcode, fsrv_opname(cases[i].opcode));
		assert_int_equal(n, cases[i].len);
		if (n)
			assert_int_equal(out_hdr(f)->error, cases[i].error);
	}
	const struct fuse_statfs_out *o = out_arg(f);
	assert_int_equal(o->st.namelen, 255);
	assert_int_equal(o->st.bsize, 4096);
	assert_true(atomic_load(&f->s.destroyed));
	assert_string_equal(fsrv_opname(FUSE_GETATTR), "GETATTR");
	assert_string_equal(fsrv_opname(FUSE_BATCH_FORGET), "BATCH_FORGET");
	assert_string_equal(fsrv_opname(FUSE_MKDIR), "?");
	assert_string_equal(fsrv_opname(1u << 31), "?");
}

/* Malformed requests: an error reply or none, never a read past the buffer. */
static void test_truncated(void **state)
{
	struct fx *f = *state;
	struct fuse_getattr_in g = { 0 };
	struct fuse_forget_in fg = { 1 };
	char *b = (char *)f->in;

	/* shorter than the header: nothing to answer */
	size_t n = put_req(f, FUSE_GETATTR, 1, &g, sizeof(g), NULL, 0);
	assert_int_equal(fsrv_dev_handle(&f->s, f->in, 20, f->out, sizeof(f->out)), -1);
	/* the header claims more than arrived */
	assert_int_equal(handle(f, n - 8), 16);
	assert_int_equal(out_hdr(f)->error, -EINVAL);
	/* consistent length, argument cut short */
	assert_int_equal(handle(f, put_req(f, FUSE_GETATTR, 1, &g, 8, NULL, 0)), 16);
	assert_int_equal(out_hdr(f)->error, -EINVAL);
	assert_int_equal(handle(f, put_req(f, FUSE_READ, 1, &g, 16, NULL, 0)), 16);
	assert_int_equal(out_hdr(f)->error, -EINVAL);
	/* a name without its NUL, and no name at all */
	assert_int_equal(handle(f, put_req(f, FUSE_LOOKUP, 1, NULL, 0, "abc", 3)), 16);
	assert_int_equal(out_hdr(f)->error, -EINVAL);
	assert_int_equal(handle(f, put_req(f, FUSE_LOOKUP, 1, NULL, 0, NULL, 0)), 16);
	assert_int_equal(out_hdr(f)->error, -EINVAL);
	/* opcodes without a reply stay without one, even cut short */
	seen.nforgot = 0;
	assert_int_equal(handle(f, put_req(f, FUSE_FORGET, 1, &fg, 4, NULL, 0)), 0);
	assert_int_equal(seen.nforgot, 0);
	/* an out buffer that cannot hold a header */
	n = put_req(f, FUSE_GETATTR, 1, &g, sizeof(g), NULL, 0);
	assert_int_equal(fsrv_dev_handle(&f->s, b, n, f->out, 8), -1);
}

/* ---- requests in io_uring entries ---- */

struct ent {
	struct fuse_uring_req_header h;
	uint64_t payload[2048];
};

static void put_ent(struct ent *e, uint32_t opcode, uint64_t unique, uint64_t nodeid,
		    const void *arg, size_t alen, const void *data, uint32_t dlen)
{
	struct fuse_in_header ih = { .opcode = opcode, .unique = unique, .nodeid = nodeid };

	memset(e, 0xa5, sizeof(*e));	/* the kernel leaves old bytes around */
	memcpy(e->h.in_out, &ih, sizeof(ih));
	if (alen)
		memcpy(e->h.op_in, arg, alen);
	if (dlen)
		memcpy(e->payload, data, dlen);
	e->h.ring_ent_in_out.commit_id = unique;
	e->h.ring_ent_in_out.payload_sz = dlen;
}

static const struct fuse_out_header *ent_out(const struct ent *e)
{
	return (const struct fuse_out_header *)e->h.in_out;
}

static void test_uring_lookup(void **state)
{
	struct fx *f = *state;
	struct ent *e = malloc(sizeof(*e));

	assert_non_null(e);
	/* LOOKUP's first argument is empty: the name is all of the payload */
	put_ent(e, FUSE_LOOKUP, 555, 1, NULL, 0, "f", 2);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload)), 555);
	assert_string_equal(seen.name, "f");
	assert_int_equal(seen.nodeid, 1);
	assert_int_equal(ent_out(e)->error, 0);
	assert_int_equal(ent_out(e)->unique, 555);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, sizeof(struct fuse_entry_out));
	struct fuse_entry_out o;
	memcpy(&o, e->payload, sizeof(o));
	assert_int_equal(o.nodeid, 7);
	assert_int_equal(o.attr.mode, 0100644);

	put_ent(e, FUSE_LOOKUP, 556, 1, NULL, 0, "nope", 5);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload)), 556);
	assert_int_equal(ent_out(e)->error, -ENOENT);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, 0);
	free(e);
}

static void test_uring_requests(void **state)
{
	struct fx *f = *state;
	struct ent *e = malloc(sizeof(*e));
	struct fuse_getattr_in g = { 0 };
	struct fuse_write_in w = { .fh = 1, .offset = 4096, .size = 5 };
	struct fuse_read_in r = { .fh = 2, .offset = 8, .size = 1 << 20 };
	struct fuse_attr_out ao;
	struct fuse_write_out wo;

	assert_non_null(e);
	/* GETATTR: the argument in op_in, the 104-byte reply (no out header) in the payload */
	put_ent(e, FUSE_GETATTR, 600, 33, &g, sizeof(g), NULL, 0);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload)), 600);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, 104);
	memcpy(&ao, e->payload, sizeof(ao));
	assert_int_equal(ao.attr.ino, 33);
	assert_int_equal(ent_out(e)->error, 0);

	/* WRITE: data in the payload, the reply overwrites it */
	put_ent(e, FUSE_WRITE, 601, 34, &w, sizeof(w), "hello", 5);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload)), 601);
	assert_memory_equal(seen.data, "hello", 5);
	assert_int_equal(seen.off, 4096);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, 8);
	memcpy(&wo, e->payload, sizeof(wo));
	assert_int_equal(wo.size, 5);

	/* READ larger than the payload: clamped to it */
	put_ent(e, FUSE_READ, 602, 35, &r, sizeof(r), NULL, 0);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, 4096), 602);
	assert_int_equal(seen.size, 4096);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, 10);

	/* a payload size beyond the buffer, and an opcode that takes no reply */
	put_ent(e, FUSE_GETATTR, 603, 36, &g, sizeof(g), NULL, 0);
	e->h.ring_ent_in_out.payload_sz = 1u << 30;
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload)), 603);
	assert_int_equal(ent_out(e)->error, -EINVAL);
	put_ent(e, FUSE_INTERRUPT, 604, 0, &g, 8, NULL, 0);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload)), 604);
	assert_true(ent_out(e)->error < 0);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, 0);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_init_refused),
		cmocka_unit_test_setup_teardown(test_init_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_getattr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_and_library_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uring_lookup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uring_requests, setup, teardown),
	};

	return cmocka_run_group_tests_name("fsrv protocol", tests, NULL, NULL);
}
