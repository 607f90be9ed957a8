// SPDX-License-Identifier: GPL-2.0
/*
 * lib/fuse/fsrv's protocol without a kernel: requests built here in the
 * /dev/fuse layout (header + argument + data in one buffer) or in an
 * io_uring entry (header buffer with the first argument, payload), fed to
 * the framings, replies checked byte for byte: GETATTR, WRITE, READ, LOOKUP,
 * OPEN/RELEASE, FORGET and BATCH_FORGET, unknown opcodes and malformed
 * requests, and read_ref replies (no copy on dev; on uring one copy per
 * payload until something overwrites it). INIT has its own file (test_fsrv_init.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fsrv_protofx.h"

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
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload), NULL), 555);
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
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload), NULL), 556);
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
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload), NULL), 600);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, 104);
	memcpy(&ao, e->payload, sizeof(ao));
	assert_int_equal(ao.attr.ino, 33);
	assert_int_equal(ent_out(e)->error, 0);

	/* WRITE: data in the payload, the reply overwrites it */
	put_ent(e, FUSE_WRITE, 601, 34, &w, sizeof(w), "hello", 5);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload), NULL), 601);
	assert_memory_equal(seen.data, "hello", 5);
	assert_int_equal(seen.off, 4096);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, 8);
	memcpy(&wo, e->payload, sizeof(wo));
	assert_int_equal(wo.size, 5);

	/* READ larger than the payload: clamped to it */
	put_ent(e, FUSE_READ, 602, 35, &r, sizeof(r), NULL, 0);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, 4096, NULL), 602);
	assert_int_equal(seen.size, 4096);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, 10);

	/* a payload size beyond the buffer, and an opcode that takes no reply */
	put_ent(e, FUSE_GETATTR, 603, 36, &g, sizeof(g), NULL, 0);
	e->h.ring_ent_in_out.payload_sz = 1u << 30;
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload), NULL), 603);
	assert_int_equal(ent_out(e)->error, -EINVAL);
	put_ent(e, FUSE_INTERRUPT, 604, 0, &g, 8, NULL, 0);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload), NULL), 604);
	assert_true(ent_out(e)->error < 0);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, 0);
	free(e);
}

/* ---- read_ref: replies from memory the filesystem keeps ---- */

static const char ref_data[] = "refdata!";

static ssize_t p_read_ref(void *fs, uint64_t nodeid, uint64_t fh, uint64_t off, const void **data,
			  uint32_t size)
{
	(void)fs;
	(void)fh;
	(void)off;
	seen.nodeid = nodeid;
	*data = ref_data;
	return size < 8 ? size : 8;
}

static void test_read_ref(void **state)
{
	struct fx *f = *state;
	struct ab_fsrv_ops ops = p_ops;
	struct fuse_read_in in = { .size = 4096 };
	struct fuse_write_in w = { .size = 3 };
	struct iovec iov[2];
	struct ent *e = malloc(sizeof(*e));
	struct fsrv_held held = { 0 };

	assert_non_null(e);
	ops.read = NULL;
	ops.read_ref = p_read_ref;
	f->s.ops = &ops;
	/* dev: the header in out, the data where the filesystem keeps it */
	size_t len = put_req(f, FUSE_READ, 9, &in, sizeof(in), NULL, 0);
	assert_int_equal(fsrv_dev_handle_iov(&f->s, f->in, len, f->out, sizeof(f->out), iov), 2);
	assert_ptr_equal(iov[0].iov_base, f->out);
	assert_int_equal(iov[0].iov_len, 16);
	assert_ptr_equal(iov[1].iov_base, ref_data);
	assert_int_equal(iov[1].iov_len, 8);
	assert_int_equal(out_hdr(f)->len, 24);
	/* ... and in one buffer for a caller that writes one */
	assert_int_equal(handle(f, len), 24);
	assert_memory_equal(out_arg(f), ref_data, 8);

	/* uring: copied into the payload once, then only after something overwrote it */
	put_ent(e, FUSE_READ, 700, 9, &in, sizeof(in), NULL, 0);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload), &held), 700);
	assert_int_equal(e->h.ring_ent_in_out.payload_sz, 8);
	assert_memory_equal(e->payload, ref_data, 8);
	assert_ptr_equal(held.p, ref_data);
	put_ent(e, FUSE_READ, 701, 9, &in, sizeof(in), NULL, 0);
	/* the kernel leaves a READ's payload alone; put_ent poisons it: mark it instead */
	memcpy(e->payload, ref_data, 8);
	((char *)e->payload)[0] = 'X';	/* a copy now would put 'r' back */
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload), &held), 701);
	assert_int_equal(((char *)e->payload)[0], 'X');
	put_ent(e, FUSE_WRITE, 702, 9, &w, sizeof(w), "abc", 3);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload), &held), 702);
	assert_null(held.p);
	put_ent(e, FUSE_READ, 703, 9, &in, sizeof(in), NULL, 0);
	assert_int_equal(fsrv_uring_handle(&f->s, &e->h, e->payload, sizeof(e->payload), &held), 703);
	assert_memory_equal(e->payload, ref_data, 8);
	f->s.ops = &p_ops;
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_getattr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_and_library_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uring_lookup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uring_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_ref, setup, teardown),
	};

	return cmocka_run_group_tests_name("fsrv protocol", tests, NULL, NULL);
}
