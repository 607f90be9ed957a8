// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/results_load.c: a raw.csv read back means one thing. Values and
 * reps in the documented decimal form only (no 0x10, " 7", 0X1P-2, inf, nan,
 * trailing text); a second row for the same (bench, config, rep, metric)
 * refuses the file, naming both lines (rep 0 may repeat); a metric keeps its
 * first unit; config keys sorted, each once. And memory stays a small
 * multiple of the file, with one config per row and with millions of
 * repetitions of one.
 */
#include <errno.h>
#include <malloc.h>
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

#include "record/results.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define HEADER "bench,config,rep,metric,value,unit\n"

/* A raw.csv in a temporary file; its path is static, one at a time. */
static const char *write_raw(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/affbench-test-results.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* Load text; the return code, errno in *e, the message in err. */
static int load(const char *text, struct ab_results *r, int *e, char *err, size_t errlen)
{
	const char *path = write_raw(text);

	ab_results_init(r);
	err[0] = '\0';
	int rc = ab_results_load_csv(r, path, NULL, err, errlen);
	*e = errno;
	unlink(path);
	return rc;
}

/* ---- numbers ---- */

static void test_values_decimal_only(void **state)
{
	static const struct {
		const char *rep, *value;
		int good;
		double want;
	} cases[] = {
		{ "1", "16", 1, 16 },
		{ "1", "0x10", 0, 0 },		/* strtod: 16 */
		{ "1", " 7", 0, 0 },		/* strtod: 7 */
		{ "1", "7 ", 0, 0 },
		{ "1", "0X1P-2", 0, 0 },	/* strtod: 0.25 */
		{ "1", "inf", 0, 0 },
		{ "1", "-Infinity", 0, 0 },
		{ "1", "nan", 0, 0 },
		{ "1", "1e999", 0, 0 },
		{ "1", "5abc", 0, 0 },
		{ "1", "", 0, 0 },
		{ "1", "1e-400", 1, 0 },	/* underflow reads as 0, as lkp parse's Float */
		{ "1", ".5", 1, 0.5 },
		{ "1", "+2.5", 1, 2.5 },
		{ "1", "+2.", 0, 0 },		/* lkp parse's Float refuses a bare point */
		{ "1", "5.e3", 0, 0 },
		{ "1", ".", 0, 0 },
		{ "1", "-.5e1", 1, -5 },
		{ "1", "-1.5E3", 1, -1500 },
		{ "1", "1e", 0, 0 },
		{ " 7", "1", 0, 0 },
		{ "0x1", "1", 0, 0 },
		{ "+1", "1", 0, 0 },
		{ "-1", "1", 0, 0 },
		{ "1000001", "1", 0, 0 },
		{ "007", "1", 1, 1 },
		{ "1000000", "1", 1, 1 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char text[256], err[512];
		struct ab_results r;
		int e;
		snprintf(text, sizeof(text), HEADER "b,k=1,\"%s\",m,\"%s\",u\n", cases[i].rep,
			 cases[i].value);
		assert_int_equal(load(text, &r, &e, err, sizeof(err)), 0);
		if (cases[i].good != (r.n == 1 && r.bad == 0))
			fail_msg("rep '%s' value '%s': %s, want %s", cases[i].rep, cases[i].value,
				 r.bad ? "refused" : "loaded", cases[i].good ? "loaded" : "refused");
		if (cases[i].good)
			assert_true(r.g[0].n == 1 && r.g[0].v[0] == cases[i].want);
		ab_results_free(&r);
	}
}

/* ---- a repetition written twice ---- */

static void test_duplicates(void **state)
{
	static const struct {
		const char *what, *rows;
		int refused;
		const char *where;	/* in the message: the repeating line, the first one */
	} cases[] = {
		{ "a row written twice", "b,k=1,1,m,1,u\nb,k=1,1,m,1,u\n", 1, ":3: m rep 1 of b again" },
		{ "a rep written twice, another value", "b,k=1,1,m,1,u\nb,k=1,2,m,1,u\nb,k=1,1,m,7,u\n",
		  1, ":4: m rep 1 of b again, config 'k=1' (line 2 has it)" },
		{ "the earliest repeat is named", "b,k=2,1,m,1,u\nb,k=1,1,m,1,u\nb,k=1,1,m,1,u\n"
		  "b,k=2,1,m,1,u\n", 1, ":4: m rep 1 of b again, config 'k=1' (line 3 has it)" },
		{ "lines count bad and empty lines", "junk\n\nb,k=1,1,m,1,u\nb,k=1,1,m,1,u\n", 1,
		  ":5: m rep 1 of b again, config 'k=1' (line 4 has it)" },
		{ "whole file written twice", "b,k=1,1,m,1,u\nb,k=1,1,n,1,u\nbench,config,rep,metric,value,unit\n"
		  "b,k=1,1,m,1,u\nb,k=1,1,n,1,u\n", 1, ":5: m rep 1 of b again" },
		{ "rep 0 may repeat", "b,k=1,0,m,1,u\nb,k=1,0,m,2,u\nb,k=1,1,m,1,u\n", 0, NULL },
		{ "another metric", "b,k=1,1,m,1,u\nb,k=1,1,n,1,u\n", 0, NULL },
		{ "another config", "b,k=1,1,m,1,u\nb,k=2,1,m,1,u\n", 0, NULL },
		{ "another bench", "b,k=1,1,m,1,u\nc,k=1,1,m,1,u\n", 0, NULL },
		{ "the other unit is refused first", "b,k=1,1,m,1,u\nb,k=1,1,m,1,us\n", 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char text[512], err[512];
		struct ab_results r;
		int e;
		snprintf(text, sizeof(text), HEADER "%s", cases[i].rows);
		int rc = load(text, &r, &e, err, sizeof(err));
		if (cases[i].refused && (rc != -1 || e != EINVAL || !strstr(err, cases[i].where)))
			fail_msg("%s: rc %d errno %d '%s', want -1 EINVAL with '%s'", cases[i].what,
				 rc, e, err, cases[i].where);
		if (!cases[i].refused && rc != 0)
			fail_msg("%s: refused: %s", cases[i].what, err);
		ab_results_free(&r);
	}
}

/* ---- one unit per metric, one spelling per config ---- */

static void test_units_and_configs(void **state)
{
	static const struct {
		const char *what, *rows;
		size_t bad, groups;
		const char *unit;	/* of the first group */
	} cases[] = {
		{ "a second unit, another config", "b,k=1,1,m,1,ns\nb,k=2,1,m,1,us\n", 1, 1, "ns" },
		{ "a second unit, same config", "b,k=1,1,m,1,ns\nb,k=1,2,m,1,us\nb,k=1,3,m,1,ns\n",
		  1, 1, "ns" },
		{ "another bench may use another unit", "b,k=1,1,m,1,ns\nc,k=1,1,m,1,us\n", 0, 2, "ns" },
		{ "keys sorted", "b,a=1;b=2,1,m,1,u\n", 0, 1, "u" },
		{ "keys not sorted", "b,b=1;a=2,1,m,1,u\n", 1, 0, NULL },
		{ "a key twice", "b,a=1;a=2,1,m,1,u\n", 1, 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char text[512], err[512];
		struct ab_results r;
		int e;
		snprintf(text, sizeof(text), HEADER "%s", cases[i].rows);
		assert_int_equal(load(text, &r, &e, err, sizeof(err)), 0);
		if (r.bad != cases[i].bad || r.n != cases[i].groups)
			fail_msg("%s: %zu bad, %zu groups; want %zu, %zu", cases[i].what, r.bad, r.n,
				 cases[i].bad, cases[i].groups);
		if (cases[i].unit)
			assert_string_equal(r.g[0].unit, cases[i].unit);
		ab_results_free(&r);
	}
}

/* Groups interleaved in the file keep their rows in file order (sorted in place). */
static void test_file_order(void **state)
{
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct ab_results r;
	int e;

	(void)state;
	fputs(HEADER, m);
	for (int i = 0; i < 3000; i++)	/* groups by i % 7 and i % 3, reps counting up in each */
		fprintf(m, "b,k=%d,%d,m%d,%d,u\n", i % 7, i / 21 + 1, i % 3, i);
	assert_int_equal(fclose(m), 0);
	assert_int_equal(load(text, &r, &e, err, sizeof(err)), 0);
	assert_int_equal(r.n, 21);
	for (size_t i = 0; i < r.n; i++) {
		const struct ab_group *g = &r.g[i];
		assert_true(g->n >= 142);
		for (size_t j = 1; j < g->n; j++)
			assert_true(g->v[j] == g->v[j - 1] + 21 && g->rep[j] == g->rep[j - 1] + 1);
	}
	ab_results_free(&r);
	free(text);
}

/* A loaded group takes more values (copied out of the packed arrays). */
static void test_add_after_load(void **state)
{
	struct ab_results r;
	char err[512];
	int e;

	(void)state;
	assert_int_equal(load(HEADER "b,k=1,1,m,1,u\nb,k=1,2,m,2,u\nb,k=2,1,m,3,u\n", &r, &e, err,
			      sizeof(err)), 0);
	for (int i = 3; i < 40; i++)
		assert_int_equal(ab_results_add(&r, "b", "k=1", i, "m", i, "u"), 0);
	const struct ab_group *g = ab_results_get(&r, "b", "k=1", "m", "u");
	assert_non_null(g);
	assert_int_equal(g->n, 39);
	for (size_t i = 0; i < g->n; i++)
		assert_true(g->v[i] == (double)(i + 1) && g->rep[i] == (int)i + 1);
	g = ab_results_get(&r, "b", "k=2", "m", "u");
	assert_true(g && g->n == 1 && g->v[0] == 3);
	ab_results_free(&r);
}

/* ---- memory ---- */

/* ASan serves malloc from its own heap, which mallinfo2 does not see. */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;	/* in use: small blocks and mmapped ones */
}

/*
 * What a loaded raw.csv holds, against the file's size. A group that held
 * its strings in fixed arrays took 30 times the file with one config per row
 * (2.4 GB for 64 MiB); both shapes now stay under 8 times.
 */
static void test_memory_bounded(void **state)
{
	static const struct {
		const char *what;
		int configs, reps;
	} cases[] = {
		{ "one config per row", 200000, 1 },
		{ "one config, 100,000 repetitions of 3 metrics", 1, 100000 },
	};

	(void)state;
#ifdef ASAN
	print_message("# SKIP the memory bound: ASan's heap is not malloc's; mallinfo2 sees none\n");
	skip();
#endif
	for (size_t i = 0; i < N(cases); i++) {
		char *text = NULL, err[512];
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		assert_non_null(m);
		fputs(HEADER, m);
		for (int c = 0; c < cases[i].configs; c++)
			for (int k = 0; k < (cases[i].reps > 1 ? 3 : 1); k++)
				for (int rep = 1; rep <= cases[i].reps; rep++)
					fprintf(m, "b,k=%d,%d,m%d,%d.5,u\n", 1000000 + c, rep, k, rep % 97);
		assert_int_equal(fclose(m), 0);
		struct ab_results r;
		int e;
		size_t before = heap_used();
		assert_int_equal(load(text, &r, &e, err, sizeof(err)), 0);
		size_t after = heap_used();
		/* a loaded file that took no heap: mallinfo2 saw nothing */
		if (after <= before)
			fail_msg("%s: the heap in use went from %zu to %zu bytes", cases[i].what,
				 before, after);
		size_t used = after - before;
		if (used > 8 * len)
			fail_msg("%s: %zu bytes loaded in %zu bytes of heap (%.1f times)", cases[i].what,
				 len, used, (double)used / (double)len);
		print_message("# %s: %zu bytes in %zu bytes of heap (%.1f times)\n", cases[i].what,
			      len, used, (double)used / (double)len);
		ab_results_free(&r);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_decimal_only),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_units_and_configs),
		cmocka_unit_test(test_file_order),
		cmocka_unit_test(test_add_after_load),
		cmocka_unit_test(test_memory_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
