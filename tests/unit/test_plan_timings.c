// SPDX-License-Identifier: GPL-2.0
/*
 * Timings tables (harness/run/timings.c): every bad row refuses the whole table
 * with the line it names; an estimate comes from the learned table first, is
 * never longer than the block's timeout; learning drops absurd numbers and
 * fake programs; a saved table reads back; a garbled learned table is not
 * used and is written anew. The harness's objects are linked (Makefile,
 * test_plan%); $AFFBENCH_TIMINGS points the learned table into a temporary
 * directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/common.h"
#include "../../harness/harness.h"
#include "../../harness/run/run.h"

static char dir[] = "/tmp/test_timings.XXXXXX";
static char tpath[256], ppath[256];

static void write_file(const char *path, const char *text)
{
	unlink(path);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

#define HDR "# bench\tduration\targs\tseconds\truns\n"

static const struct {
	const char *text;
	const char *want;	/* NULL: accepted; else in the message */
} tables[] = {
	{ HDR "fdget\t1\t--op pread --mode all\t11.3\t6\n\n# a comment\n", NULL },
	{ HDR "sqrtio\t2\t-\t2.6\t1\n", NULL },
	{ HDR "fdget\t1\t--op pread\t11.3\n", ":2: fewer than 5" },
	{ HDR "fdget\t1\t--op pread\t11.3\t6\tx\n", ":2: more than 5" },
	{ HDR "fd get\t1\t--op pread\t11.3\t6\n", ":2: bad benchmark name" },
	{ HDR "fdget\t0x10\t--op pread\t11.3\t6\n", ":2: bad duration" },
	{ HDR "fdget\t0\t--op pread\t11.3\t6\n", ":2: bad duration" },
	{ HDR "fdget\t1\t--op\x01pread\t11.3\t6\n", ":2: control character" },
	{ HDR "fdget\t1\t--op pread\tnan\t6\n", ":2: seconds" },
	{ HDR "fdget\t1\t--op pread\t-1\t6\n", ":2: seconds" },
	{ HDR "fdget\t1\t--op pread\t1e9\t6\n", ":2: seconds" },
	{ HDR "fdget\t1\t--op pread\t11\t0\n", ":2: runs" },
	{ HDR "fdget\t1\t--op pread\t11\t1.5\n", ":2: runs" },
	{ HDR "fdget\t1\ta\t1\t1\nfdget\t1\ta\t2\t1\n", "given twice" },
};

static void test_rows(void **state)
{
	char err[1024];

	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(tables); i++) {
		struct h_ttable tb;
		write_file(tpath, tables[i].text);
		err[0] = '\0';
		int rc = h_ttable_read(&tb, tpath, err, sizeof(err));
		if (!tables[i].want) {
			assert_int_equal(rc, 0);
			assert_int_equal(tb.n, 1);
			h_ttable_free(&tb);
			continue;
		}
		if (rc != -1 || !strstr(err, tables[i].want))
			fail_msg("table %zu: rc %d, message '%s', wanted '%s'", i, rc, err, tables[i].want);
		assert_int_equal(tb.n, 0);
	}
	/* not a regular file: refused, not read */
	unlink(tpath);
	assert_int_equal(mkfifo(tpath, 0600), 0);
	struct h_ttable tb;
	assert_int_equal(h_ttable_read(&tb, tpath, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "FIFO"));
	unlink(tpath);
}

/* A plan of a registered benchmark and a test's fake one (AFFBENCH_TEST_PROGRAMS). */
static void load_plan(struct h_plan *p)
{
	char err[1024];

	setenv("AFFBENCH_TEST_PROGRAMS", dir, 1);
	write_file(ppath, "bench fdget\nduration 1\ntimeout 20\naxis op pread fstat\nextra --mode all\n"
			  "bench fake\nduration 1\naxis op pread\n");
	assert_int_equal(h_plan_load(p, ppath, err, sizeof(err)), 0);
	assert_int_equal(p->npoints, 3);
	unsetenv("AFFBENCH_TEST_PROGRAMS");
}

/* The instrumented repetition (rep 1 of cputestfs) and the rest are timed apart. */
static void test_probes_apart(void **state)
{
	struct h_plan p;
	struct h_timings t;
	char err[1024];

	(void)state;
	write_file(ppath, "bench cputestfs\naxis placement same\n");
	assert_int_equal(h_plan_load(&p, ppath, err, sizeof(err)), 0);
	unlink(tpath);
	h_timings_load(&t);
	h_ttable_free(&t.shipped);
	h_timings_learn(&t, &p.points[0], 1, 9.0);
	h_timings_learn(&t, &p.points[0], 2, 4.0);
	h_timings_learn(&t, &p.points[0], 6, 4.0);
	assert_true(h_timings_estimate(&t, &p.points[0], 1, NULL) == 9.0);
	assert_true(h_timings_estimate(&t, &p.points[0], 3, NULL) == 4.0);
	assert_int_equal(t.learned.n, 2);
	h_timings_free(&t);
	h_plan_free(&p);
}

static void test_learn(void **state)
{
	struct h_plan p;
	struct h_timings t;
	enum h_est_source src;

	(void)state;
	load_plan(&p);
	unlink(tpath);
	h_timings_load(&t);
	h_ttable_free(&t.shipped);	/* the source tree's table must not decide this test */
	assert_true(h_timings_estimate(&t, &p.points[0], 1, &src) == 2);
	assert_int_equal(src, H_EST_GUESS);

	h_timings_learn(&t, &p.points[0], 1, 11.0);
	h_timings_learn(&t, &p.points[0], 1, 1e7);		/* absurd: dropped */
	h_timings_learn(&t, &p.points[0], 1, -1);
	h_timings_learn(&t, &p.points[2], 1, 5.0);		/* a fake program teaches nothing */
	assert_true(h_timings_estimate(&t, &p.points[0], 1, &src) == 11.0);
	assert_int_equal(src, H_EST_LEARNED);
	assert_true(h_timings_estimate(&t, &p.points[1], 1, &src) == 11.0);	/* its bench's mean */
	assert_int_equal(src, H_EST_BENCH);
	assert_true(h_timings_estimate(&t, &p.points[2], 1, &src) == 2);
	assert_int_equal(src, H_EST_GUESS);
	h_timings_learn(&t, &p.points[0], 1, 40.0);	/* beyond the 20 s timeout: the estimate stops there */
	double e = h_timings_estimate(&t, &p.points[0], 1, NULL);
	assert_true(e > 11.0 && e <= 20.0);
	assert_int_equal(h_timings_save(&t), 0);
	h_timings_free(&t);

	h_timings_load(&t);	/* the saved table reads back */
	assert_int_equal(t.learned.n, 1);
	assert_string_equal(t.learned.rows[0].args, "--op pread --mode all");
	assert_true(t.learned.rows[0].runs == 2);
	h_timings_free(&t);

	write_file(tpath, "fdget\t1\t--op pread --mode all\tgarbage\t6\n");	/* garbled: not used */
	h_timings_load(&t);
	h_ttable_free(&t.shipped);
	assert_int_equal(t.learned.n, 0);
	h_timings_estimate(&t, &p.points[0], 1, &src);
	assert_int_equal(src, H_EST_GUESS);
	h_timings_learn(&t, &p.points[0], 1, 3.0);
	assert_int_equal(h_timings_save(&t), 0);	/* and written anew */
	h_timings_free(&t);
	h_timings_load(&t);
	assert_int_equal(t.learned.n, 1);
	h_timings_free(&t);
	h_plan_free(&p);
}

/* The learned table is never written through a link planted at its name. */
static void test_no_link(void **state)
{
	struct h_plan p;
	struct h_timings t;
	char target[300];
	struct stat st;

	(void)state;
	load_plan(&p);
	snprintf(target, sizeof(target), "%s/target", dir);
	write_file(target, "keep\n");
	unlink(tpath);
	assert_int_equal(symlink(target, tpath), 0);
	h_timings_load(&t);	/* a link: not read (one warning) */
	assert_int_equal(t.learned.n, 0);
	h_timings_learn(&t, &p.points[0], 1, 3.0);
	assert_int_equal(h_timings_save(&t), 0);
	assert_int_equal(lstat(tpath, &st), 0);
	assert_true(S_ISREG(st.st_mode));	/* the link replaced, its target untouched */
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 5);
	h_timings_free(&t);
	h_plan_free(&p);
	unlink(target);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(tpath, sizeof(tpath), "%s/timings.tsv", dir);
	snprintf(ppath, sizeof(ppath), "%s/t.plan", dir);
	return setenv("AFFBENCH_TIMINGS", tpath, 1);
}

static int teardown(void **state)
{
	(void)state;
	unlink(tpath);
	unlink(ppath);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_learn),
		cmocka_unit_test(test_probes_apart),
		cmocka_unit_test(test_no_link),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
