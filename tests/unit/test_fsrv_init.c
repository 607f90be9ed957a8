// SPDX-License-Identifier: GPL-2.0
/*
 * lib/fuse/fsrv's INIT negotiation without a kernel: what the reply claims for
 * each transport and option against what the kernel offers (io_uring,
 * passthrough, flags2 only with FUSE_INIT_EXT), how max_write and max_pages
 * are clamped, and which protocol versions and orders are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fsrv_protofx.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_init_refused),
		cmocka_unit_test_setup_teardown(test_init_order, setup, teardown),
	};

	return cmocka_run_group_tests_name("fsrv INIT", tests, NULL, NULL);
}
