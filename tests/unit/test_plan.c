// SPDX-License-Identifier: GPL-2.0
/*
 * Plans (harness/plan.c): more blocks than the array starts with, every key,
 * every limit, and what is refused, with the line it names. Plans are written
 * into a temporary directory; the harness's objects are linked (Makefile).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/common.h"
#include "sys/infile.h"
#include "../../harness/harness.h"

static char dir[] = "/tmp/test_plan.XXXXXX";
static char path[256];

/* Write text to the plan file (a fresh one each time). */
static const char *plan_of(const char *text)
{
	snprintf(path, sizeof(path), "%s/t.plan", dir);
	unlink(path);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* A growing text buffer for generated plans. */
struct text {
	char *s;
	size_t n;
};

static void __attribute__((format(printf, 2, 3))) add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char line[512];

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	t->s = realloc(t->s, t->n + (size_t)n + 1);
	assert_non_null(t->s);
	memcpy(t->s + t->n, line, (size_t)n + 1);
	t->n += (size_t)n;
}

/* ---- more blocks than the array's first 8 (issue 17: freed memory read) ---- */

static void test_twenty_blocks(void **state)
{
	struct text t = { 0 };
	struct h_plan p;
	char err[1024];

	(void)state;
	add(&t, "repeat 1\n");
	for (int i = 0; i < 20; i++)	/* block i: bench on line 2 + 2i, i + 1 values */
		add(&t, "bench fdget\naxis op%s%s%s\n", " pread", i % 2 ? " fstat" : "",
		    i % 4 == 3 ? " lseek" : "");
	int rc = h_plan_load(&p, plan_of(t.s), err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_int_equal(p.nblocks, 20);
	int want = 0;
	for (int i = 0; i < 20; i++) {
		assert_int_equal(p.blocks[i].line, 2 + 2 * i);
		assert_int_equal(p.blocks[i].axes[0].line, 3 + 2 * i);
		want += 1 + (i % 2) + (i % 4 == 3);
	}
	assert_int_equal(p.npoints, want);
	/* every point belongs to a block of the final array, in plan order */
	for (int i = 0, b = 0, k = 0; i < p.npoints; i++) {
		while (p.points[i].blk != &p.blocks[b])
			b++, k = 0;
		assert_true(b < 20);
		assert_int_equal(p.points[i].idx[0], k++);
	}
	h_plan_free(&p);
	free(t.s);
}

/* ---- every key ---- */

static void test_every_key(void **state)
{
	struct h_plan p;
	char err[1024], argbuf[32];
	char *argv[H_ARGV_MAX];

	(void)state;
	int rc = h_plan_load(&p, plan_of("# a comment\n"
					 "repeat 7   # a comment after a key\n"
					 "bench fdget\n"
					 "duration 0.5\n"
					 "timeout 9\n"
					 "estimate 2.5\n"
					 "axis op pread fstat\n"
					 "axis threads 1 2 4\n"
					 "extra --mode single\n"
					 "extra --spawn 0\n"
					 "metrics cycles_per_op ns_per_op\n"
					 "\n"
					 "bench cputestfs\n"), err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_int_equal(p.repeat, 7);
	assert_int_equal(p.nblocks, 2);
	struct h_block *b = &p.blocks[0];
	assert_string_equal(b->program, "");	/* bin/fdget beside the harness */
	assert_true(b->duration == 0.5 && b->timeout == 9 && b->estimate == 2.5);
	assert_int_equal(b->naxes, 2);
	assert_string_equal(b->axes[1].name, "threads");
	assert_int_equal(b->axes[1].nvals, 3);
	assert_int_equal(b->nextra, 4);
	assert_string_equal(b->extra[3], "0");
	assert_int_equal(b->extra_line[1], 9);
	assert_int_equal(b->extra_line[2], 10);
	assert_int_equal(b->nmetrics, 2);
	assert_string_equal(b->metrics[1], "ns_per_op");
	/* the defaults: 1 s, timeout 4 x duration + 30, no estimate (timings.c decides) */
	assert_true(p.blocks[1].duration == 1 && p.blocks[1].timeout == 34 && p.blocks[1].estimate == 0);
	assert_int_equal(p.npoints, 2 * 3 + 1);
	assert_string_equal(p.points[4].label, "op=fstat;threads=2");	/* last axis fastest */
	int n = h_point_argv(&p.points[4], 1, "prog", argv, (int)AB_ARRAY_SIZE(argv), argbuf,
			     sizeof(argbuf));
	const char *want[] = { "prog", "--format", "csv", "--repeat", "1", "--duration", "0.5", "--quiet",
			       "--op", "fstat", "--threads", "2", "--mode", "single", "--spawn", "0" };
	assert_int_equal(n, (int)AB_ARRAY_SIZE(want));
	for (int i = 0; i < n; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[n]);
	h_plan_free(&p);
}

/* ---- instrumented: which repetitions keep a bench's probes ---- */

/* Does repetition rep of point i end in "--kstats off"? */
static int probes_off_at(const struct h_plan *p, int i, int rep)
{
	char argbuf[32];
	char *argv[H_ARGV_MAX];
	int n = h_point_argv(&p->points[i], rep, "prog", argv, (int)AB_ARRAY_SIZE(argv), argbuf,
			     sizeof(argbuf));

	assert_true(n > 2);
	return !strcmp(argv[n - 2], "--kstats") && !strcmp(argv[n - 1], "off");
}

/* precision and budget: what harness run --precision adds stops at (run/precision.c) */
static void test_precision_keys(void **state)
{
	static const char *const bad[] = { "precision 0", "precision 100", "precision 5%%",
					   "precision five", "budget 0", "budget 0.5", "budget 8d",
					   "budget 1e999", "budget m", "budget 7h 1" };
	struct h_plan p;
	char err[1024], text[128];

	(void)state;
	assert_int_equal(h_plan_load(&p, plan_of("precision 5%\nbudget 15m\nbench fdget\n"), err,
				     sizeof(err)), 0);
	assert_true(fabs(p.precision - 0.05) < 1e-12);
	assert_true(p.budget == 900);
	h_plan_free(&p);
	assert_int_equal(h_plan_load(&p, plan_of("precision 2.5\nbudget 2h\nbench fdget\n"), err,
				     sizeof(err)), 0);
	assert_true(fabs(p.precision - 0.025) < 1e-12);
	assert_true(p.budget == 7200);
	h_plan_free(&p);
	assert_int_equal(h_plan_load(&p, plan_of("budget 90s\nbench fdget\n"), err, sizeof(err)), 0);
	assert_true(p.budget == 90);
	assert_true(p.precision == 0);	/* none given */
	h_plan_free(&p);
	for (size_t i = 0; i < AB_ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text), "%s\nbench fdget\n", bad[i]);
		if (h_plan_load(&p, plan_of(text), err, sizeof(err)) == 0) {
			h_plan_free(&p);
			fail_msg("plan line '%s' accepted", bad[i]);
		}
	}
}

static void test_instrumented(void **state)
{
	struct h_plan p;
	char err[1024];

	(void)state;
	assert_int_equal(h_plan_load(&p, plan_of("bench cputestfs\n"		/* default: 1 */
						 "bench ddpar\ninstrumented 2\n"
						 "bench cputestfs\ninstrumented all\n"
						 "bench cputestfs\ninstrumented 0\n"
						 "bench cputestfs\naxis kstats on off\n"	/* the plan's own */
						 "bench fdget\n"),			/* no probes */
				     err, sizeof(err)), 0);
	assert_true(!probes_off_at(&p, 0, 1) && probes_off_at(&p, 0, 2) && probes_off_at(&p, 0, 6));
	assert_true(!probes_off_at(&p, 1, 2) && probes_off_at(&p, 1, 3));
	assert_true(!probes_off_at(&p, 2, 1) && !probes_off_at(&p, 2, 1000));
	assert_true(probes_off_at(&p, 3, 1));
	assert_true(!probes_off_at(&p, 4, 2));	/* point 5 is the axis's own "--kstats off" */
	assert_true(!probes_off_at(&p, 6, 2));
	h_plan_free(&p);
	assert_int_equal(h_plan_load(&p, plan_of("bench cputestfs\ninstrumented some\n"), err,
				     sizeof(err)), -1);
	assert_non_null(strstr(err, ":2: bad value 'some' for instrumented"));
	assert_int_equal(h_plan_load(&p, plan_of("bench ddpar\ninstrumented 1001\n"), err,
				     sizeof(err)), -1);
	assert_non_null(strstr(err, "1001"));
}

/* ---- what is refused: the line named and why ---- */

static const struct bad {
	const char *text;
	int line;		/* 0: the file as a whole */
	const char *why;
} bad[] = {
	{ "repeat 0\n", 1, "repeat wants one whole number in 1..1000" },
	{ "repeat 1001\n", 1, "repeat wants" },
	{ "repeat 1.5\n", 1, "repeat wants" },
	{ "repeat 0x10\n", 1, "repeat wants" },	/* decimal only */
	{ "repeat 1e300\n", 1, "repeat wants" },
	{ "repeat nan\n", 1, "repeat wants" },
	{ "repeat\n", 1, "repeat wants" },
	{ "repeat 1 2\n", 1, "repeat wants" },
	{ "bench fdget\nduration 0.001\n", 2, "duration wants one number of seconds in 0.01..86400" },
	{ "bench fdget\nduration 86401\n", 2, "duration wants" },
	{ "bench fdget\nduration nan\n", 2, "duration wants" },
	{ "bench fdget\nduration inf\n", 2, "duration wants" },
	{ "bench fdget\nduration 0x10\n", 2, "duration wants" },
	{ "bench fdget\nduration 1s\n", 2, "duration wants" },
	{ "bench fdget\ntimeout 0\n", 2, "timeout wants" },
	{ "bench fdget\ntimeout -1\n", 2, "timeout wants" },
	{ "bench fdget\ntimeout 1000001\n", 2, "timeout wants" },
	{ "bench fdget\nestimate 0\n", 2, "estimate wants" },
	/* a plan never names a program: a resumed plan.plan would run it as root */
	{ "bench evil\nprogram /tmp/x/evil.sh\n", 2, "'program' is not a plan key" },
	{ "bench fdget\nprogram /tmp/x/evil.sh\n", 2, "'program' is not a plan key" },
	{ "program evil.sh\nbench fdget\n", 1, "'program' is not a plan key" },
	{ "bench fdget\nprogram\n", 2, "'program' is not a plan key" },
	{ "duration 1\nbench fdget\n", 1, "'duration' before the first 'bench' line" },
	{ "axis op pread\n", 1, "'axis' before the first 'bench' line" },
	{ "bench fdget\naxis op\n", 2, "axis wants a name and 1 to 32 values" },
	{ "bench fdget\naxis o/p x\n", 2, "bad axis name 'o/p'" },
	{ "bench fdget\naxis op a;b\n", 2, "axis value 'a;b' may not hold ';' or '='" },
	{ "bench fdget\naxis op a=b\n", 2, "axis value 'a=b' may not hold" },
	{ "bench fdget\naxis op pread\naxis op fstat\n", 3, "axis 'op' given twice" },
	{ "bench fdget\nextra\n", 2, "extra wants at least one argument" },
	{ "bench fdget\nmetrics\n", 2, "metrics wants" },
	/* a metric the bench never records would keep nothing: a typo */
	{ "bench fdget\nmetrics ns_per_op nosuch_metric\n", 2, "fdget records no metric 'nosuch_metric'" },
	{ "bench fdget\naxis op pread fstat pread\n", 2, "axis 'op': value 'pread' given twice" },
	{ "bench fdget\nfrobnicate 1\n", 2, "unknown key 'frobnicate' (repeat, bench, duration" },
	{ "bench\n", 1, "bench wants one name" },
	{ "bench a/b\n", 1, "bench wants one name" },
	{ "bench fdget\n\nbench nosuch\n", 3, "unknown benchmark 'nosuch' (benchmarks: cputestfs" },
	{ "# nothing\n", 0, "no 'bench' block" },
	{ "", 0, "no 'bench' block" },
};

static void expect_refused(const char *text, int line, const char *why)
{
	struct h_plan p;
	char err[1024], want[512];

	int rc = h_plan_load(&p, plan_of(text), err, sizeof(err));
	if (line)
		snprintf(want, sizeof(want), "%s:%d: %s", path, line, why);
	else
		snprintf(want, sizeof(want), "%s: %s", path, why);
	if (rc != -1 || strncmp(err, want, strlen(want)))
		fail_msg("plan \"%.200s\": rc %d, '%s', wanted '%s'", text, rc, rc ? err : "", want);
	assert_null(p.blocks);	/* freed on failure */
	assert_null(p.points);
}

static void test_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(bad); i++)
		expect_refused(bad[i].text, bad[i].line, bad[i].why);
}

/* ---- the limits: axes, values, arguments, points, blocks, lines ---- */

static void test_limits(void **state)
{
	struct text t = { 0 };
	char want[128];

	(void)state;
	/* 8 axes pass, a 9th is refused */
	add(&t, "bench fdget\n");
	for (int a = 0; a < H_AXES_MAX; a++)
		add(&t, "axis a%d x\n", a);
	add(&t, "axis a8 x\n");
	expect_refused(t.s, H_AXES_MAX + 2, "too many axes (at most 8)");

	/* 32 values pass, 33 are too many words */
	t.n = 0;
	add(&t, "bench fdget\naxis v");
	for (int v = 0; v < H_VALS_MAX + 1; v++)
		add(&t, " %d", v);
	add(&t, "\n");
	expect_refused(t.s, 2, "too many words (at most 34)");

	/* 32 extra arguments in a block, over several lines, pass; a 33rd is refused */
	t.n = 0;
	add(&t, "bench fdget\n");
	for (int e = 0; e < H_ARGS_MAX; e += 4)
		add(&t, "extra a b c d\n");
	add(&t, "extra z\n");
	expect_refused(t.s, 2 + H_ARGS_MAX / 4, "too many extra (at most 32 in a block)");

	/* 32^7 points: refused at the axis line that passes 100,000 (32^4, the 4th) */
	t.n = 0;
	add(&t, "bench fdget\n");
	for (int a = 0; a < 7; a++) {
		add(&t, "axis a%d", a);
		for (int v = 0; v < 32; v++)
			add(&t, " %d", v);
		add(&t, "\n");
	}
	snprintf(want, sizeof(want), "the plan expands to more than %d points (this block alone: %d)",
		 H_POINTS_MAX, 32 * 32 * 32 * 32);
	expect_refused(t.s, 5, want);

	/* 100,000 points over blocks: 3 x 32768 pass, a 4th block's third axis does not */
	t.n = 0;
	for (int b = 0; b < 4; b++) {
		add(&t, "bench fdget\n");
		for (int a = 0; a < 3; a++) {
			add(&t, "axis a%d", a);
			for (int v = 0; v < 32; v++)
				add(&t, " %d", v);
			add(&t, "\n");
		}
	}
	expect_refused(t.s, 16, "the plan expands to more than 100000 points");

	/* exactly 100,000 points load (10^5 over 5 axes) */
	struct h_plan p;
	char err[1024];
	t.n = 0;
	add(&t, "bench fdget\n");
	for (int a = 0; a < 5; a++)
		add(&t, "axis a%d 0 1 2 3 4 5 6 7 8 9\n", a);
	assert_int_equal(h_plan_load(&p, plan_of(t.s), err, sizeof(err)), 0);
	assert_int_equal(p.npoints, H_POINTS_MAX);
	assert_string_equal(p.points[H_POINTS_MAX - 1].label, "a0=9;a1=9;a2=9;a3=9;a4=9");
	h_plan_free(&p);

	/* 1000 blocks pass, a 1001st is refused */
	t.n = 0;
	for (int b = 0; b < H_BLOCKS_MAX + 1; b++)
		add(&t, "bench fdget\n");
	expect_refused(t.s, H_BLOCKS_MAX + 1, "more than 1000 bench blocks");

	/* a line longer than the bound */
	t.n = 0;
	add(&t, "bench fdget\nextra ");
	for (int i = 0; i < AB_INFILE_MAX_LINE / 256 + 1; i++)
		add(&t, "%0256d", 0);
	add(&t, "\n");
	expect_refused(t.s, 2, "line longer than 65536 bytes");
	free(t.s);
}

/* ---- not a regular file, or too large ---- */

static void test_files(void **state)
{
	struct h_plan p;
	char err[1024], fifo[300], link[300], big[300];

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/fifo.plan", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(h_plan_load(&p, fifo, err, sizeof(err)), -1);	/* returns: no blocking open */
	assert_non_null(strstr(err, "fifo.plan: not a regular file"));

	snprintf(link, sizeof(link), "%s/link.plan", dir);
	assert_int_equal(symlink(plan_of("bench fdget\n"), link), 0);
	assert_int_equal(h_plan_load(&p, link, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "link.plan"));

	snprintf(big, sizeof(big), "%s/big.plan", dir);
	FILE *f = fopen(big, "w");
	assert_non_null(f);
	fputs("bench fdget\n", f);
	assert_int_equal(ftruncate(fileno(f), (off_t)AB_INFILE_MAX_SMALL + 1), 0);
	fclose(f);
	assert_int_equal(h_plan_load(&p, big, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "big.plan"));
	assert_non_null(strstr(err, "limit"));
	unlink(fifo);
	unlink(link);
	unlink(big);
}

/* ---- the tests' fake benchmarks: AFFBENCH_TEST_PROGRAMS=DIR, unregistered names only ---- */

static void test_fake_programs(void **state)
{
	struct h_plan p;
	char err[1024], want[512];

	(void)state;
	expect_refused("bench fakebench\n", 1, "unknown benchmark 'fakebench'");
	setenv("AFFBENCH_TEST_PROGRAMS", dir, 1);
	assert_int_equal(h_plan_load(&p, plan_of("bench fakebench\nbench fdget\n"), err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/fakebench", dir);
	assert_string_equal(p.blocks[0].program, want);
	assert_string_equal(p.blocks[1].program, "");	/* a registered name is never mapped */
	h_plan_free(&p);
	unsetenv("AFFBENCH_TEST_PROGRAMS");
}

static int setup(void **state)
{
	(void)state;
	unsetenv("AFFBENCH_TEST_PROGRAMS");	/* plans here name registered benchmarks only */
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_twenty_blocks),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_precision_keys),
		cmocka_unit_test(test_instrumented),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_fake_programs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
