// SPDX-License-Identifier: GPL-2.0
/*
 * sqrtio's loops and one measured repetition, on a plain file (page cache:
 * no O_DIRECT needed to exercise the code): a burst's minimum and maximum,
 * short reads and a bad fd reported with errno, the read loop's stop and its
 * latency histogram, a repetition that measures, one whose readers fail
 * (the point fails promptly with the reader's error, the workers are reaped),
 * and discovery's probes on a file that raises no interrupt.
 *
 * The Makefile links it with sqrtio's objects (all but main.o).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../sqrtio/sqrtio.h"


#define NBLOCKS 64
static char path[] = "/tmp/affbench-sqrtio-loop.XXXXXX";
static int fd = -1;
static void *buf;

static int setup(void **state)
{
	static char block[SQ_BLK];

	(void)state;
	fd = mkstemp(path);
	if (fd < 0 || posix_memalign(&buf, SQ_BLK, SQ_BLK))
		return -1;
	memset(block, 0x5a, sizeof(block));
	for (int i = 0; i < NBLOCKS; i++)
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(fd);
	unlink(path);
	free(buf);
	return 0;
}

static void test_burst(void **state)
{
	char err[256] = "";

	(void)state;
	/* Time is up at once, yet the minimum is read. */
	assert_int_equal(sq_read_burst(fd, NBLOCKS, buf, 5, 50, 0, err, sizeof(err)), 5);
	assert_int_equal(sq_read_burst(fd, NBLOCKS, buf, 5, 50, ab_now_ns() + 10 * AB_NS, err,
				       sizeof(err)), 50);
	/* Blocks past the end of the file: a short read, EIO. */
	assert_int_equal(sq_read_burst(fd, 10 * NBLOCKS, buf, 200, 200, 0, err, sizeof(err)), -1);
	assert_int_equal(errno, EIO);
	assert_non_null(strstr(err, "short read"));
	assert_int_equal(sq_read_burst(-1, NBLOCKS, buf, 5, 5, 0, err, sizeof(err)), -1);
	assert_int_equal(errno, EBADF);
	assert_non_null(strstr(err, strerror(EBADF)));
}

struct loop_run {
	struct sq_shared *sh;
	int fd, rc;
};

static void *io_thread(void *p)
{
	struct loop_run *r = p;

	r->rc = sq_io_loop(r->sh, 0, r->fd, NBLOCKS, buf);
	return NULL;
}

static void *sqrt_thread(void *p)
{
	struct loop_run *r = p;

	sq_sqrt_loop(r->sh, 1);
	return NULL;
}

static void test_loops(void **state)
{
	struct sq_shared *sh;
	struct loop_run r = { NULL, fd, -1 };
	pthread_t io, sq;

	(void)state;
	r.sh = sh = calloc(1, sizeof(*sh));
	assert_non_null(sh);
	/* Already stopped: returns at once, having read nothing. */
	atomic_store(&sh->phase, SQ_STOP);
	assert_int_equal(sq_io_loop(sh, 0, fd, NBLOCKS, buf), 0);
	assert_int_equal(ab_counter_read(&sh->count[0]), 0);

	/* Measuring from the start: every read counted is in the histogram. */
	atomic_store(&sh->phase, SQ_MEASURE);
	assert_int_equal(pthread_create(&io, NULL, io_thread, &r), 0);
	assert_int_equal(pthread_create(&sq, NULL, sqrt_thread, &r), 0);
	/* Until both moved (a busy host may hold a thread back for a while), 10 s at most. */
	for (int i = 0;
	     i < 1000 && (!ab_counter_read(&sh->count[0]) || !ab_counter_read(&sh->count[1])); i++)
		ab_sleep_ns(10 * 1000000ull);
	atomic_store(&sh->phase, SQ_STOP);
	pthread_join(io, NULL);
	pthread_join(sq, NULL);
	assert_int_equal(r.rc, 0);
	assert_true(ab_counter_read(&sh->count[0]) > 0);
	assert_int_equal(ab_hist_count(&sh->hist[0]), ab_counter_read(&sh->count[0]));
	assert_true(ab_counter_read(&sh->count[1]) > 0);
	assert_int_equal(ab_counter_read(&sh->count[1]) % SQ_SQRT_BATCH, 0);

	/* A failing read ends the loop with its errno and a message. */
	memset(sh, 0, sizeof(*sh));
	assert_int_equal(sq_io_loop(sh, 0, -1, NBLOCKS, buf), EBADF);
	assert_non_null(strstr(sh->err[0], "pread at offset"));
	free(sh);
}

/* Two CPUs when this process may use two, else both workers on one. */
static void point_on_cpus(struct sq_point *pt, int nio, int nsqrt)
{
	struct ab_cpuset allowed;

	assert_int_equal(ab_cpuset_allowed(&allowed), 0);
	memset(pt, 0, sizeof(*pt));
	pt->nio = nio;
	pt->nsqrt = nsqrt;
	for (int i = 0; i < nio + nsqrt; i++)
		pt->cpu[i] = ab_cpuset_nth(&allowed, i % ab_cpuset_count(&allowed));
}

static void test_measure(void **state)
{
	struct sq_shared *sh;
	struct sq_target t = { .fd = fd, .name = "test file", .nblocks = NBLOCKS };
	struct sq_discovery d = { 0 };
	struct sq_point pt;
	double v[SQ_NM];
	char why[512] = "", note[SQ_NOTE_LEN];
	struct ab_cpumon *mon = ab_cpumon_new(NULL);
	struct ab_cpumon_val mv[AB_CPUMON_VALS];

	(void)state;
	sh = ab_shm_alloc(sizeof(*sh));
	assert_non_null(sh);
	/* A host busy enough can starve a 0.3 s window of reads: three tries. */
	point_on_cpus(&pt, 1, 1);
	int rc = -1;
	for (int try = 0; try < 3 && rc; try++)
		rc = sq_measure(sh, &pt, &t, &d, 0.3, mon, v, note, why, sizeof(why));
	if (rc)
		fail_msg("a repetition on a plain file failed three times: %s", why);
	assert_true(v[SQ_IOS] > 0 && v[SQ_SQRT] >= 0);
	assert_true(v[SQ_P50] > 0 && v[SQ_P99] >= v[SQ_P50]);
	assert_true(v[SQ_IRQ] == 0);	/* no device line: a page-cache file */
	/* no device line and no known queues: no completion share, and a reason */
	assert_true(isnan(v[SQ_IRQ_LOCAL]) && isnan(v[SQ_DONE_LOCAL]) && note[0]);
	/* the monitor's numbers of the window, per IO */
	assert_true(ab_cpumon_values(mon, v[SQ_IOS] * 1e3, mv, AB_CPUMON_VALS) > 0);
	ab_cpumon_free(mon);

	/* Readers alone: no sqrt number. */
	point_on_cpus(&pt, 1, 0);
	rc = -1;
	for (int try = 0; try < 3 && rc; try++)
		rc = sq_measure(sh, &pt, &t, &d, 0.3, NULL, v, note, why, sizeof(why));
	if (rc)
		fail_msg("readers alone on a plain file failed three times: %s", why);
	assert_true(isnan(v[SQ_SQRT]) && v[SQ_IOS] > 0);

	/* Every read fails: the point fails with the reader's error, without waiting out its
	 * 30 s (within 10: start-up can take seconds on a busy machine). */
	t.fd = -1;
	point_on_cpus(&pt, 1, 1);
	uint64_t t0 = ab_now_ns();
	assert_int_equal(sq_measure(sh, &pt, &t, &d, 30.0, NULL, v, note, why, sizeof(why)), -1);
	print_message("failed point: %s\n", why);
	assert_non_null(strstr(why, "pread at offset"));
	assert_true(ab_now_ns() - t0 < 10 * AB_NS);
	ab_shm_free(sh, sizeof(*sh));
}

static void test_discover_file(void **state)
{
	struct sq_target t = { .fd = fd, .name = "test file", .nblocks = NBLOCKS };
	struct ab_cpuset allowed;
	struct sq_discovery d;
	char why[512] = "";

	(void)state;
	assert_int_equal(ab_cpuset_allowed(&allowed), 0);
	/* Page-cache reads raise no interrupt worth half the reads (noise may, rarely). */
	assert_int_equal(sq_discover(&t, &allowed, &d, why, sizeof(why)), 0);
	assert_int_equal(d.ncpu, ab_cpuset_count(&allowed));
	sq_discovery_free(&d);

	t.fd = -1;
	assert_int_equal(sq_discover(&t, &allowed, &d, why, sizeof(why)), AB_EXIT_FAIL);
	print_message("failed discovery: %s\n", why);
	assert_non_null(strstr(why, strerror(EBADF)));
	sq_discovery_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_discover_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
