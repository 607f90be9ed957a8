// SPDX-License-Identifier: GPL-2.0
/*
 * cpupair's heatmaps from records read back (cpupair/report_heat.c): the matrix is
 * as large as the largest place of a or of b, so no record writes past it; places
 * and CPUs are read whole and bounded; a record that could mean two things is
 * not drawn. Through the descriptor's plots, into a temporary directory, as
 * `harness report` draws them.
 *
 * The Makefile links it with cpupair's objects (all but main.o).
 */
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

#include "render/render.h"
#include "render/render_heat.h"
#include "render/desc.h"
#include "record/results.h"
#include "../../cpupair/cpupair.h"

struct rec {
	int pa, pb, a, b;	/* places, CPUs */
	double v;
};

/* The line heatmap's .dat of records recs (a cache-line round trip each), or "" when
 * none was made; the caller frees it. */
static char *draw(const struct rec *recs, int n, const char *extra)
{
	char dir[] = "/tmp/affbench-heat-cells.XXXXXX", path[128], cmd[160], cfg[256];
	struct ab_results res;
	struct ab_render r = { 0 };
	char *buf = calloc(1, 1 << 22);

	assert_non_null(buf);
	assert_non_null(mkdtemp(dir));
	ab_results_init(&res);
	for (int i = 0; i < n; i++) {
		const struct rec *c = &recs[i];
		snprintf(cfg, sizeof(cfg), "class=llc;cpu_a=%d;cpu_b=%d;pos_a=%d;pos_b=%d", c->a,
			 c->b, c->pa, c->pb);
		assert_int_equal(ab_results_add(&res, "cpupair", cfg, 1, CP_M_LINE, c->v, "ns"), 0);
	}
	if (extra)
		assert_int_equal(ab_results_add(&res, "cpupair", extra, 1, CP_M_LINE, 7, "ns"), 0);
	r.desc = &ab_desc_cpupair;
	r.res = &res;
	r.dir = dir;
	r.out = stdout;
	ab_desc_cpupair.plots(&r);
	snprintf(path, sizeof(path), "%s/cpupair_line.dat", dir);
	FILE *f = fopen(path, "r");
	if (f) {
		assert_true(fread(buf, 1, (1 << 22) - 1, f) > 0);
		fclose(f);
	}
	ab_results_free(&res);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return buf;
}

/* Cells in the .dat: a matrix of n places has n * n. */
static int cells(const char *dat)
{
	int n = 0;

	for (const char *p = dat; (p = strchr(p, '\n')); p++)
		n += p[1] >= '0' && p[1] <= '9';
	return n;
}

/* The record: CPUs 1 -> 3 at places 1, 3 alone. The matrix once took its size
 * from a's place (2 x 2) and wrote b's cell past it. */
static void test_size_from_b(void **state)
{
	static const struct rec one[] = { { 1, 3, 1, 3, 180.5 } };
	char *dat = draw(one, 1, NULL);

	(void)state;
	assert_int_equal(cells(dat), 16);
	assert_non_null(strstr(dat, "\n3 1 180.5\n"));
	free(dat);
}

/* b's place above a's, past the matrix the earlier records sized (a at 2 >= n = 2). */
static void test_b_past_earlier(void **state)
{
	static const struct rec two[] = { { 0, 1, 0, 1, 10 }, { 2, 5, 2, 5, 20 } };
	char *dat = draw(two, 2, NULL);

	(void)state;
	assert_int_equal(cells(dat), 36);
	assert_non_null(strstr(dat, "\n5 2 20\n"));
	free(dat);
}

/* The last place a heatmap holds (511) is drawn: a 512 x 512 matrix. */
static void test_last_place(void **state)
{
	static const struct rec edge[] = { { 0, 511, 0, 511, 30 } };
	char *dat = draw(edge, 1, NULL);

	(void)state;
	assert_int_equal(cells(dat), AB_HEAT_MAX * AB_HEAT_MAX);
	assert_non_null(strstr(dat, "\n511 0 30\n"));
	free(dat);
}

/* A place past AB_HEAT_MAX is not drawn, and sizes nothing. */
static void test_past_heat_max(void **state)
{
	static const struct rec past[] = { { 0, 1, 0, 1, 10 }, { 512, 0, 512, 0, 20 } };
	char *dat = draw(past, 2, NULL);

	(void)state;
	assert_int_equal(cells(dat), 4);
	free(dat);
}

/* Place 1 given CPU 1, then CPU 2: the second record could mean either; not drawn. */
static void test_place_two_cpus(void **state)
{
	static const struct rec two[] = { { 1, 3, 1, 3, 10 }, { 1, 2, 2, 3, 20 } };
	char *dat = draw(two, 2, NULL);

	(void)state;
	assert_null(strstr(dat, " 20\n"));
	free(dat);
}

/* CPU 3 at place 3, then at place 2: not drawn. */
static void test_cpu_two_places(void **state)
{
	static const struct rec two[] = { { 1, 3, 1, 3, 10 }, { 0, 2, 0, 3, 20 } };
	char *dat = draw(two, 2, NULL);

	(void)state;
	assert_null(strstr(dat, " 20\n"));
	free(dat);
}

/* Two CPUs at one place: not drawn (nothing else is: no file). */
static void test_one_place_two_cpus(void **state)
{
	static const struct rec one[] = { { 2, 2, 1, 3, 10 } };
	char *dat = draw(one, 1, NULL);

	(void)state;
	assert_string_equal(dat, "");
	free(dat);
}

/* A cell given twice (the same pair under another class): the first value stays. */
static void test_cell_twice(void **state)
{
	static const struct rec one[] = { { 0, 1, 0, 1, 10 } };
	char *dat = draw(one, 1, "class=smt;cpu_a=0;cpu_b=1;pos_a=0;pos_b=1");

	(void)state;
	assert_non_null(strstr(dat, "\n1 0 10\n"));
	free(dat);
}

/* A place in another spelling (a leading zero or sign) or past AB_MAX_CPUS is no
 * number: not drawn, where strtol once read "01" as 1 and cut a long value. */
static void test_spelling(void **state)
{
	static const char *const bad[] = {
		"class=llc;cpu_a=0;cpu_b=1;pos_a=0;pos_b=01",
		"class=llc;cpu_a=0;cpu_b=1;pos_a=0;pos_b=+1",
		"class=llc;cpu_a=0;cpu_b=1;pos_a=0;pos_b=-1",
		"class=llc;cpu_a=0;cpu_b=8192;pos_a=0;pos_b=1",
		"class=llc;cpu_a=0;cpu_b=1;pos_a=0;pos_b=000000000000000000000000000000001",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *dat = draw(NULL, 0, bad[i]);
		if (dat[0])
			fail_msg("%s drawn:\n%.200s", bad[i], dat);
		free(dat);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_from_b),
		cmocka_unit_test(test_b_past_earlier),
		cmocka_unit_test(test_last_place),
		cmocka_unit_test(test_past_heat_max),
		cmocka_unit_test(test_place_two_cpus),
		cmocka_unit_test(test_cpu_two_places),
		cmocka_unit_test(test_one_place_two_cpus),
		cmocka_unit_test(test_cell_twice),
		cmocka_unit_test(test_spelling),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
