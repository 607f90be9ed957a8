// SPDX-License-Identifier: GPL-2.0
/* The option layer: good and bad command lines, exit codes and messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/common.h"
#include "sys/opts.h"

struct params {
	int mode;
	int threads;
	double ratio;
	size_t bs;
	const char *name;
	int flag;
	struct ab_intlist procs;
};

static const struct ab_opt opts[] = {
	AB_OPT(struct params, mode, "mode", AB_OPT_CHOICE, NULL, "mode",
	       .choices = "single|multi|clone_fd"),
	AB_OPT(struct params, threads, "threads", AB_OPT_INT, "N", "threads", .min = 1, .max = 64),
	AB_OPT(struct params, ratio, "ratio", AB_OPT_DOUBLE, "R", "ratio", .min = 0, .max = 10),
	AB_OPT(struct params, bs, "bs", AB_OPT_SIZE, "SIZE", "block size", .min = 4096, .max = 1 << 20),
	AB_OPT(struct params, name, "name", AB_OPT_STR, "S", "a name"),
	AB_OPT(struct params, flag, "flag", AB_OPT_FLAG, NULL, "a flag"),
	AB_OPT(struct params, procs, "procs", AB_OPT_INTLIST, "LIST", "procs", .min = 1, .max = 128),
	AB_OPT_END,
};

static const struct ab_prog_info info = {
	"testprog", "tests the option layer", NULL, 2.0, 3, NULL
};

/* Parse in a child: exit code and first line of stderr come back. */
static int run(const char *cmdline, char *errline, size_t len, struct params *out,
	       struct ab_common *cout)
{
	int pfd[2], dfd[2];
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(pipe(dfd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[512], *argv[32];
		int argc = 0;
		snprintf(buf, sizeof(buf), "testprog %s", cmdline);
		for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
			argv[argc++] = t;
		argv[argc] = NULL;
		dup2(pfd[1], 2);
		if (!freopen("/dev/null", "w", stdout))
			_exit(99);
		struct params p = { .mode = 0, .threads = 1, .ratio = 1.0, .bs = 131072 };
		struct ab_common c;
		ab_parse_args(argc, argv, &info, opts, &p, &c);
		if (write(dfd[1], &p, sizeof(p)) != sizeof(p) || write(dfd[1], &c, sizeof(c)) != sizeof(c))
			_exit(97);
		_exit(0);
	}
	close(pfd[1]);
	close(dfd[1]);
	ssize_t n = read(pfd[0], errline, len - 1);
	errline[n > 0 ? n : 0] = 0;
	if (out) {
		ssize_t a = read(dfd[0], out, sizeof(*out));
		ssize_t b = read(dfd[0], cout, sizeof(*cout));
		(void)a; (void)b;
	}
	close(pfd[0]);
	close(dfd[0]);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_bad_inputs(void **state)
{
	(void)state;
	static const struct {
		const char *args;
		const char *needle;	/* the bad value must be named */
	} cases[] = {
		{ "--mode bogus", "'bogus'" },
		{ "--threads 0", "'0'" },
		{ "--threads 65", "'65'" },
		{ "--threads x", "'x'" },
		{ "--ratio 0", "'0'" },
		{ "--ratio -1", "'-1'" },
		{ "--ratio nan", "'nan'" },
		{ "--bs 1000", "'1000'" },
		{ "--bs 4Q", "'4Q'" },
		{ "--bs 2M", "'2M'" },
		{ "--procs 1,,2", "'1,,2'" },
		{ "--procs 4-1", "'4-1'" },
		{ "--procs 0", "'0'" },
		{ "--procs 1,", "'1,'" },
		/* the same point twice measures nothing new */
		{ "--procs 1,1,1", "1 is given twice" },
		{ "--procs 1-3,2", "2 is given twice" },
		{ "--duration 0", "'0'" },
		{ "--duration -3", "'-3'" },
		{ "--duration abc", "'abc'" },
		{ "--repeat 0", "'0'" },
		/* numbers are decimal: strtod alone took 0x10 as 16 */
		{ "--duration 0x10", "'0x10'" },
		{ "--duration inf", "'inf'" },
		{ "--duration 1e999", "'1e999'" },
		{ "--duration 0x1p4", "'0x1p4'" },
		{ "--ratio 0x2", "'0x2'" },
		{ "--ratio infinity", "'infinity'" },
		{ "--threads 0x10", "'0x10'" },
		{ "--repeat 0x3", "'0x3'" },
		{ "--bs 0x1000", "'0x1000'" },
		{ "--procs 0x2", "'0x2'" },
		{ "--format xml", "'xml'" },
		{ "--cpus 3-1", "3-1" },
		{ "--cpus 99999", "99999" },
		{ "--cpus a", "'a'" },
		{ "--nosuch", "--nosuch" },
		{ "--threads", "--threads" },
		{ "extra", "extra" },
	};
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		char err[512];
		int rc = run(cases[i].args, err, sizeof(err), NULL, NULL);
		if (rc != AB_EXIT_USAGE || !strstr(err, cases[i].needle) ||
		    strchr(err, '\n') != strrchr(err, '\n'))
			fail_msg("'%s': rc %d, stderr '%s'", cases[i].args, rc, err);
		assert_non_null(strstr(err, "testprog: "));
	}
}

/* A bad value's control bytes are escaped, never echoed: the message stays one line
 * (a newline once made a two-line "one-line" error) and drives no terminal (ESC, CSI). */
static void test_bad_value_escaped(void **state)
{
	static const struct {
		const char *args, *needle;
	} cases[] = {
		{ "--idle poll\nFAKE", "'poll\\nFAKE'" },
		{ "--idle poll\x1b[31mX", "'poll\\x1b[31mX'" },
		{ "--idle poll\tX", "'poll\\tX'" },
		{ "--mode a\rb", "'a\\rb'" },
		{ "--mode a\x7f" "b", "'a\\x7fb'" },
		{ "--mode \xc2\x9b" "31m", "'\\xc2\\x9b31m'" },	/* CSI in UTF-8 */
		{ "--mode caf\xc3\xa9", "'caf\xc3\xa9'" },		/* text stays text */
		{ "--no\nsuch", "'--no\\nsuch'" },
		{ "--threads 1\n2", "'1\\n2'" },
	};

	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		char err[512];
		int rc = run(cases[i].args, err, sizeof(err), NULL, NULL);
		size_t ctl = strcspn(err, "\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f"
					  "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d"
					  "\x1e\x1f\x7f");
		if (rc != AB_EXIT_USAGE || !strstr(err, cases[i].needle) || ctl != strlen(err) - 1)
			fail_msg("case %zu: rc %d, stderr '%s'", i, rc, err);
	}
}

/* ab_escape itself: each kind of byte, and a buffer too small cut at a whole escape. */
static void test_escape(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "plain text: 1,2;3", 64, "plain text: 1,2;3" },
		{ "a\nb\tc\rd", 64, "a\\nb\\tc\\rd" },
		{ "\x1b[2J\x07", 64, "\\x1b[2J\\x07" },
		{ "\xff\xfe", 64, "\\xff\\xfe" },		/* no UTF-8 */
		{ "\xe2\x82" "a", 64, "\\xe2\\x82a" },		/* a character cut short */
		{ "\xe2\x82\xac 5", 64, "\xe2\x82\xac 5" },	/* the euro sign */
		{ "\xc2\x85", 64, "\\xc2\\x85" },		/* NEL, a C1 control */
		{ "\x1b\x1b", 5, "\\x1b" },			/* the second does not fit */
		{ "ab\xe2\x82\xac", 5, "ab" },			/* nor half a character */
		{ "x", 1, "" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++)
		assert_string_equal(ab_escape(buf, cases[i].len, cases[i].in), cases[i].out);
}

static void test_good_inputs(void **state)
{
	(void)state;
	char err[512];
	struct params p;
	struct ab_common c;

	assert_int_equal(run("--mode clone_fd --threads 8 --ratio 2.5 --bs 128K --name x --flag "
			     "--procs 1,2,4-6 --duration 0.5 --repeat 7 --format csv --quiet --cpus 0",
			     err, sizeof(err), &p, &c), 0);
	assert_int_equal(p.mode, 2);
	assert_int_equal(p.threads, 8);
	assert_true(p.ratio == 2.5);
	assert_int_equal(p.bs, 131072);
	assert_int_equal(p.flag, 1);
	assert_int_equal(p.procs.n, 5);
	assert_int_equal(p.procs.v[4], 6);
	assert_true(c.duration == 0.5);
	assert_int_equal(c.repeat, 7);
	assert_int_equal(c.format, AB_FMT_CSV);
	assert_int_equal(c.quiet, 1);
	assert_int_equal(ab_cpuset_count(&c.allowed), 1);
	assert_true(ab_cpuset_isset(&c.allowed, 0));

	/* defaults */
	assert_int_equal(run("", err, sizeof(err), &p, &c), 0);
	assert_true(c.duration == 2.0);
	assert_int_equal(c.repeat, 3);
	assert_int_equal(c.format, AB_FMT_TABLE);
	assert_int_equal(p.threads, 1);
}

/* What was on the command line, not what the value is: the defaults are not "given". */
static void test_given(void **state)
{
	(void)state;
	char err[512];
	struct params p;
	struct ab_common c;

	assert_int_equal(run("--threads 1 --flag", err, sizeof(err), &p, &c), 0);
	assert_true(ab_opt_given(opts, &c, "threads"));
	assert_true(ab_opt_given(opts, &c, "flag"));
	assert_false(ab_opt_given(opts, &c, "mode"));
	assert_false(ab_opt_given(opts, &c, "nosuch"));
	assert_int_equal(run("--thr 2", err, sizeof(err), &p, &c), 0);	/* getopt's abbreviation */
	assert_true(ab_opt_given(opts, &c, "threads"));
	assert_int_equal(run("", err, sizeof(err), &p, &c), 0);
	assert_false(ab_opt_given(opts, &c, "threads"));
}

static void test_help_version(void **state)
{
	(void)state;
	char err[512];
	assert_int_equal(run("--help", err, sizeof(err), NULL, NULL), 0);
	assert_int_equal(run("--version", err, sizeof(err), NULL, NULL), 0);
}

static void test_size_parse(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int ok;
		size_t v;
	} cases[] = {
		{ "4096", 1, 4096 }, { "4K", 1, 4096 }, { "4k", 1, 4096 }, { "128KiB", 1, 131072 },
		{ "1M", 1, 1 << 20 }, { "1G", 1, 1ul << 30 }, { "", 0, 0 }, { "-4K", 0, 0 },
		{ "K", 0, 0 }, { "4X", 0, 0 }, { "4KK", 0, 0 }, { "0x1000", 0, 0 }, { " 4096", 0, 0 },
		{ "+4096", 0, 0 },
	};
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		size_t v = 0;
		char err[128];
		int r = ab_parse_size(cases[i].s, &v, err, sizeof(err));
		if ((r == 0) != cases[i].ok || (cases[i].ok && v != cases[i].v))
			fail_msg("size '%s': r=%d v=%zu", cases[i].s, r, v);
	}
}

static void test_decimal(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int ok;
		double v;
	} cases[] = {
		{ "16", 1, 16 }, { "0.5", 1, 0.5 }, { "-2", 1, -2 }, { "1e3", 1, 1000 }, { "2.5E-1", 1, 0.25 },
		{ "0x10", 0, 0 }, { "inf", 0, 0 }, { "nan", 0, 0 }, { "", 0, 0 }, { " 1", 0, 0 },
		{ "1 ", 0, 0 }, { ".", 0, 0 }, { "1e", 0, 0 }, { "1e999", 0, 0 }, { "1.5s", 0, 0 },
	};
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		double v = 0;
		int r = ab_parse_double(cases[i].s, &v);
		if ((r == 0) != cases[i].ok || (cases[i].ok && v != cases[i].v))
			fail_msg("decimal '%s': r=%d v=%g", cases[i].s, r, v);
	}
	long l;
	assert_int_equal(ab_parse_long("42", &l), 0);
	assert_int_equal(l, 42);
	assert_int_equal(ab_parse_long("0x10", &l), -1);
	assert_int_equal(ab_parse_long("4.0", &l), -1);
	assert_int_equal(ab_parse_long("99999999999999999999", &l), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_bad_value_escaped),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_good_inputs),
		cmocka_unit_test(test_given),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_size_parse),
		cmocka_unit_test(test_decimal),
	};
	return cmocka_run_group_tests_name("opts", tests, NULL, NULL);
}
