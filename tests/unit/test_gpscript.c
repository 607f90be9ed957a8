// SPDX-License-Identifier: GPL-2.0
/*
 * lib/render/gpscript.c, the one escaper the README's Security section rests
 * on: whatever the text, ab_gp_string's output is one single-quoted gnuplot
 * string that ends where it is meant to and holds no control character, and
 * ab_gp_label's is one double-quoted label of safe characters; ab_gp_yrange's
 * range is finite whatever the data.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "render/gpscript.h"

/* What fn writes for s, as a malloc'd string. */
static char *escaped(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, s);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(buf), len);	/* no NUL written */
	return buf;
}

/* Does out read, the way gnuplot reads a single-quoted string, as exactly one
 * string that ends at out's last character, without control characters? */
static int one_gp_string(const char *out)
{
	size_t n = strlen(out), i = 1;

	if (n < 2 || out[0] != '\'')
		return 0;
	for (; i < n; i++) {
		unsigned char c = (unsigned char)out[i];
		if (c < 0x20 || c == 0x7f)
			return 0;
		if (c != '\'')
			continue;
		if (i + 1 < n && out[i + 1] == '\'')
			i++;	/* '' stands for one quote */
		else
			break;	/* the closing quote */
	}
	return i == n - 1;
}

static const struct {
	const char *in, *string, *label;
} cases[] = {
	{ "", "''", "\"\"" },
	{ "plain", "'plain'", "\"plain\"" },
	{ "a'b", "'a''b'", "\"a_b\"" },
	{ "'", "''''", "\"_\"" },
	{ "''", "''''''", "\"__\"" },
	{ "a\"b", "'a\"b'", "\"a_b\"" },
	/* inside single quotes gnuplot takes a backslash as it is */
	{ "a\\b", "'a\\b'", "\"a_b\"" },
	{ "a\\'b", "'a\\''b'", "\"a__b\"" },
	{ "end\\", "'end\\'", "\"end_\"" },
	{ "line\nbreak", "'line?break'", "\"line_break\"" },
	{ "cr\rtab\tesc\033del\177", "'cr?tab?esc?del?'", "\"cr_tab_esc_del_\"" },
	/* gnuplot's shell escapes, backquotes, macros: plain text inside the quotes */
	{ "`rm -rf /`", "'`rm -rf /`'", "\"_rm_-rf___\"" },
	{ "<cat /etc/shadow", "'<cat /etc/shadow'", "\"_cat__etc_shadow\"" },
	{ "@macro $1 system(\"id\")", "'@macro $1 system(\"id\")'", "\"_macro__1_system__id__\"" },
	{ "'; system('id'); '", "'''; system(''id''); '''", "\"_;_system__id__;__\"" },
	/* non-ASCII: bytes kept in a string, each replaced in a label */
	{ "caf\xc3\xa9 \xe2\x86\x92", "'caf\xc3\xa9 \xe2\x86\x92'", "\"caf______\"" },
	{ "\xff\x80", "'\xff\x80'", "\"__\"" },
	{ "a_b.c,d:e;f=g+h-i", "'a_b.c,d:e;f=g+h-i'", "\"a_b.c,d:e;f=g+h-i\"" },
	{ "col 1\tcol 2", "'col 1?col 2'", "\"col_1_col_2\"" },
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *s = escaped(ab_gp_string, cases[k].in), *l = escaped(ab_gp_label, cases[k].in);

		print_message("%s\n", cases[k].string);
		assert_string_equal(s, cases[k].string);
		assert_string_equal(l, cases[k].label);
		assert_true(one_gp_string(s));
		free(s);
		free(l);
	}
}

/* Every byte, alone and between quotes: one string, one label, no byte lost. */
static void test_every_byte(void **state)
{
	(void)state;
	for (int c = 1; c < 256; c++) {
		char in[] = { '\'', (char)c, '\'', (char)c, '\0' };
		char *s = escaped(ab_gp_string, in), *l = escaped(ab_gp_label, in);

		assert_true(one_gp_string(s));
		assert_int_equal(strlen(l), strlen(in) + 2);
		assert_int_equal(l[0], '"');
		assert_int_equal(l[strlen(l) - 1], '"');
		for (size_t i = 1; i + 1 < strlen(l); i++)
			assert_non_null(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "0123456789_.,:;=+-", l[i]));
		free(s);
		free(l);
	}
}

/* Long text of quotes, backslashes and newlines: the output grows by one per
 * quote only, and still reads as one string. */
static void test_long(void **state)
{
	enum { N = 1 << 20 };
	static const char pattern[] = "a'\\\n\"'";
	char *in = malloc(N + 1);
	size_t quotes = 0;

	(void)state;
	assert_non_null(in);
	for (size_t i = 0; i < N; i++) {
		in[i] = pattern[i % (sizeof(pattern) - 1)];
		quotes += in[i] == '\'';
	}
	in[N] = '\0';
	char *s = escaped(ab_gp_string, in), *l = escaped(ab_gp_label, in);
	assert_int_equal(strlen(s), N + 2 + quotes);
	assert_true(one_gp_string(s));
	assert_int_equal(strlen(l), N + 2);
	assert_null(strpbrk(l + 1, "'\\\n"));
	assert_ptr_equal(strchr(l + 1, '"'), l + N + 1);
	free(s);
	free(l);
	free(in);
}

/* The "set yrange" line ab_gp_yrange writes for top, as a malloc'd string (the lines
 * before it put back a linear axis that a panel before may have made log). */
static char *yrange(double top)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	ab_gp_yrange(f, top);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "unset logscale y\n"));
	char *line = strdup(strstr(buf, "set yrange"));
	assert_non_null(line);
	free(buf);
	return line;
}

/* A little room above the top, never inf: 1.7e308 * 1.08 overflows. A top below zero
 * (every bar negative, crafted records) ends the axis at 0: [0:*] holds no point, and
 * gnuplot fails ("all points y value undefined"). */
static void test_yrange(void **state)
{
	static const struct {
		double top;
		const char *want;
	} yr[] = {
		{ 100, "set yrange [0:108]\n" },
		{ 30003, "set yrange [0:32403.2]\n" },
		{ 1e-300, "set yrange [0:1.08e-300]\n" },
		{ 1e300, "set yrange [0:1e+300]\n" },
		{ 1.7e308, "set yrange [0:1e+300]\n" },
		{ DBL_MAX, "set yrange [0:1e+300]\n" },
		{ INFINITY, "set yrange [0:*]\n" },
		{ -INFINITY, "set yrange [0:*]\n" },
		{ NAN, "set yrange [0:*]\n" },
		{ 0, "set yrange [0:*]\n" },
		{ -5, "set yrange [*:0]\n" },	/* every bar below zero */
		{ -1e300, "set yrange [*:0]\n" },
		{ -DBL_MIN, "set yrange [*:0]\n" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(yr) / sizeof(yr[0]); k++) {
		char *s = yrange(yr[k].top);
		print_message("%g -> %s", yr[k].top, s);
		assert_string_equal(s, yr[k].want);
		free(s);
	}
}

/* Log tics from a low end below the smallest normal double (a denormal median over
 * 1.25): the first decade, 10^-324, underflows to 0, and 0 * 10 never passes the top.
 * Every case ends (alarm: a hang is a failure) with a list of at least one tic. */
static void test_logtics_tiny(void **state)
{
	static const double lo[] = { 4.9e-324 / 1.25, 4.9e-324, 1e-320, DBL_MIN / 2, DBL_MIN,
				     1e-310, 1e-5 };
	static const double hi[] = { 1e-300, 1, 1e300 };

	(void)state;
	alarm(10);
	for (size_t i = 0; i < sizeof(lo) / sizeof(lo[0]); i++)
		for (size_t k = 0; k < sizeof(hi) / sizeof(hi[0]); k++) {
			char *buf = NULL;
			size_t len = 0;
			if (!(hi[k] > lo[i]))
				continue;	/* no axis: nothing written */
			FILE *f = open_memstream(&buf, &len);
			assert_non_null(f);
			ab_gp_logtics(f, "y", lo[i], hi[k]);
			assert_int_equal(fclose(f), 0);
			print_message("%g..%g -> %.60s\n", lo[i], hi[k], buf);
			assert_memory_equal(buf, "set ytics (", 11);
			assert_true(buf[11] >= '0' && buf[11] <= '9');
			assert_string_equal(buf + len - 2, ")\n");
			free(buf);
		}
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_yrange),
		cmocka_unit_test(test_logtics_tiny),
	};
	return cmocka_run_group_tests_name("gpscript", tests, NULL, NULL);
}
