// SPDX-License-Identifier: GPL-2.0
/*
 * cpupair's own logic through cpupair.h, on the sysfs fixture trees of
 * tests/fixtures/topo/ (found under $AFFBENCH_TOP, else the cwd): --pairs
 * and --method parsing, the matrix's shape (every ordered pair once, no
 * diagonal), the topology order, the classes sample, the N sample, and the
 * per-class summary its descriptor renders from records; the heatmap's bounds
 * and files.
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
#include "record/results.h"
#include "../../cpupair/cpupair.h"

static void load(struct ab_topo *t, const char *name)
{
	const char *top = getenv("AFFBENCH_TOP");
	char path[4096], err[512] = "";

	snprintf(path, sizeof(path), "%s/tests/fixtures/topo/%s", top && *top ? top : ".", name);
	if (ab_topo_load(t, path, NULL, err, sizeof(err)) < 0)
		fail_msg("fixture %s: %s", name, err);
}

static void test_parse(void **state)
{
	static const struct {
		const char *s;
		int ok;
		enum cp_pairs_mode mode;
		long n;
	} pairs[] = {
		{ "all", 1, CP_PAIRS_ALL, 0 }, { "classes", 1, CP_PAIRS_CLASSES, 0 },
		{ "1", 1, CP_PAIRS_N, 1 }, { "4032", 1, CP_PAIRS_N, 4032 },
		{ "", 0, 0, 0 }, { "0", 0, 0, 0 }, { "-1", 0, 0, 0 }, { "x", 0, 0, 0 },
		{ "3x", 0, 0, 0 }, { "all,", 0, 0, 0 }, { "Classes", 0, 0, 0 }, { " 3", 0, 0, 0 },
		{ "99999999999999999999999", 0, 0, 0 },
	};
	static const struct {
		const char *s;
		int ok;
		unsigned mask;
	} methods[] = {
		{ "line", 1, 1 }, { "line,pipe", 1, 5 }, { "pipe,futex,line", 1, 7 }, { "futex", 1, 2 },
		{ "", 0, 0 }, { "line,", 0, 0 }, { ",line", 0, 0 }, { "line,,pipe", 0, 0 },
		{ "lines", 0, 0 }, { "LINE", 0, 0 }, { ",", 0, 0 },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		enum cp_pairs_mode mode = -1;
		long n = 0;
		err[0] = 0;
		int rc = cp_pairs_parse(pairs[i].s, &mode, &n, err, sizeof(err));
		if ((rc == 0) != pairs[i].ok)
			fail_msg("--pairs '%s': rc %d (%s)", pairs[i].s, rc, err);
		if (rc == 0 && (mode != pairs[i].mode || n != pairs[i].n))
			fail_msg("--pairs '%s': mode %d n %ld", pairs[i].s, mode, n);
		if (rc < 0 && !strstr(err, "--pairs"))
			fail_msg("--pairs '%s': message '%s' names no option", pairs[i].s, err);
	}
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		unsigned mask = 0;
		err[0] = 0;
		int rc = cp_methods_parse(methods[i].s, &mask, err, sizeof(err));
		if ((rc == 0) != methods[i].ok || (rc == 0 && mask != methods[i].mask))
			fail_msg("--method '%s': rc %d mask %u (%s)", methods[i].s, rc, mask, err);
	}
}

static const struct {
	const char *fixture;
	int n;
	int order[8];
} orders[] = {
	{ "vm2", 2, { 0, 1 } },
	/* siblings together, then the other core of the socket, then the next socket */
	{ "2s-smt", 8, { 0, 4, 1, 5, 2, 6, 3, 7 } },
	{ "big", 8, { 0, 1, 2, 3, 64, 65, 66, 67 } },
	{ "l2-noinfo", 4, { 0, 1, 2, 3 } },
};

static void test_topo_order(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		struct ab_topo t;
		int got[8];

		load(&t, orders[i].fixture);
		assert_int_equal(ab_topo_order(&t, got), orders[i].n);
		for (int k = 0; k < orders[i].n; k++)
			if (got[k] != orders[i].order[k])
				fail_msg("%s: place %d holds CPU %d, want %d", orders[i].fixture, k, got[k],
					 orders[i].order[k]);
		ab_topo_free(&t);
	}
}

/* --pairs all: n(n-1) ordered pairs, each once, none on the diagonal, row by row
 * in topology order, each with its class. */
static void test_matrix_shape(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		struct ab_topo t;
		struct cp_pair *p;
		char err[256];
		int n = orders[i].n, seen[8][8] = { { 0 } };

		load(&t, orders[i].fixture);
		long np = cp_pairs_select(&t, CP_PAIRS_ALL, 0, &p, err, sizeof(err));
		assert_int_equal(np, (long)n * (n - 1));
		for (long k = 0; k < np; k++) {
			assert_int_not_equal(p[k].pa, p[k].pb);
			assert_int_equal(p[k].a, orders[i].order[p[k].pa]);
			assert_int_equal(p[k].b, orders[i].order[p[k].pb]);
			assert_int_equal(p[k].cls, ab_topo_pair_class(&t, p[k].a, p[k].b));
			assert_int_equal(seen[p[k].pa][p[k].pb]++, 0);
			if (k)	/* row-major */
				assert_true(p[k - 1].pa * n + p[k - 1].pb < p[k].pa * n + p[k].pb);
		}
		free(p);
		ab_topo_free(&t);
	}
}

static void test_pair_class(void **state)
{
	struct ab_topo t;

	(void)state;
	load(&t, "2s-smt");
	assert_int_equal(ab_topo_pair_class(&t, 1, 1), AB_PL_SAME);
	assert_int_equal(ab_topo_pair_class(&t, 0, 4), AB_PL_SMT);
	assert_int_equal(ab_topo_pair_class(&t, 4, 1), AB_PL_LLC);
	assert_int_equal(ab_topo_pair_class(&t, 0, 2), AB_PL_CROSS_NODE);
	ab_topo_free(&t);
	load(&t, "big");
	assert_int_equal(ab_topo_pair_class(&t, 0, 1), AB_PL_LLC);
	assert_int_equal(ab_topo_pair_class(&t, 1, 2), AB_PL_CROSS_LLC);
	assert_int_equal(ab_topo_pair_class(&t, 3, 64), AB_PL_CROSS_NODE);
	ab_topo_free(&t);
}

/* A class comes from sysfs alone: without cache/ (vm2) a pair that is neither SMT
 * siblings nor across nodes is "unknown", never the guessed "llc"; the diagonal is
 * "same", one entry per CPU the pairs name, in topology order. */
static void test_class_names(void **state)
{
	char path[4096];
	const char *top = getenv("AFFBENCH_TOP");
	struct cp_pair *p, *d;
	struct ab_topo t;
	char err[256];

	(void)state;
	load(&t, "vm2");
	snprintf(path, sizeof(path), "%s/tests/fixtures/topo/vm2", top && *top ? top : ".");
	assert_int_equal(cp_cache_known(path, &t), 0);
	long np = cp_pairs_select(&t, CP_PAIRS_ALL, 0, &p, err, sizeof(err));
	assert_int_equal(np, 2);
	assert_string_equal(cp_class_name(&p[0], 0), CP_CLASS_UNKNOWN);
	assert_string_equal(cp_class_name(&p[0], 1), "llc");
	assert_int_equal(cp_pairs_diagonal(p, np, &d), 2);
	assert_true(d[0].a == 0 && d[0].b == 0 && d[1].a == 1 && d[1].pa == 1);
	assert_string_equal(cp_class_name(&d[1], 0), CP_CLASS_SAME);
	free(p);
	free(d);
	ab_topo_free(&t);
	load(&t, "2s-smt");
	snprintf(path, sizeof(path), "%s/tests/fixtures/topo/2s-smt", top && *top ? top : ".");
	assert_int_equal(cp_cache_known(path, &t), 1);
	struct cp_pair smt = { 0, 4, 0, 1, AB_PL_SMT }, node = { 0, 2, 0, 4, AB_PL_CROSS_NODE };
	assert_string_equal(cp_class_name(&smt, 0), "smt");
	assert_string_equal(cp_class_name(&node, 0), "cross-node");
	ab_topo_free(&t);
}

/* --pairs classes: per class present the last pair of it and its reverse. */
static void test_classes(void **state)
{
	static const struct {
		const char *fixture;
		int np;
		int pair[8][2];
		enum ab_placement cls[8];
	} want[] = {
		{ "vm2", 2, { { 0, 1 }, { 1, 0 } }, { AB_PL_LLC, AB_PL_LLC } },
		{ "2s-smt", 6, { { 3, 7 }, { 7, 3 }, { 6, 7 }, { 7, 6 }, { 5, 7 }, { 7, 5 } },
		  { AB_PL_SMT, AB_PL_SMT, AB_PL_LLC, AB_PL_LLC, AB_PL_CROSS_NODE, AB_PL_CROSS_NODE } },
		{ "big", 6, { { 66, 67 }, { 67, 66 }, { 65, 67 }, { 67, 65 }, { 3, 67 }, { 67, 3 } },
		  { AB_PL_LLC, AB_PL_LLC, AB_PL_CROSS_LLC, AB_PL_CROSS_LLC, AB_PL_CROSS_NODE,
		    AB_PL_CROSS_NODE } },
		{ "l2-noinfo", 4, { { 2, 3 }, { 3, 2 }, { 1, 3 }, { 3, 1 } },
		  { AB_PL_LLC, AB_PL_LLC, AB_PL_CROSS_LLC, AB_PL_CROSS_LLC } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct ab_topo t;
		struct cp_pair *p;
		char err[256];

		load(&t, want[i].fixture);
		long np = cp_pairs_select(&t, CP_PAIRS_CLASSES, 0, &p, err, sizeof(err));
		if (np != want[i].np)
			fail_msg("%s: %ld pairs, want %d", want[i].fixture, np, want[i].np);
		for (int k = 0; k < want[i].np; k++)
			if (p[k].a != want[i].pair[k][0] || p[k].b != want[i].pair[k][1] ||
			    p[k].cls != want[i].cls[k])
				fail_msg("%s: pair %d is (%d,%d) %s, want (%d,%d) %s", want[i].fixture, k,
					 p[k].a, p[k].b, ab_placement_name(p[k].cls), want[i].pair[k][0],
					 want[i].pair[k][1], ab_placement_name(want[i].cls[k]));
		free(p);
		ab_topo_free(&t);
	}
}

/* --pairs N: N distinct pairs, one per stride, the same on every call; all when N
 * is at least the matrix; one CPU is refused. */
static void test_sample(void **state)
{
	struct ab_topo t;
	struct cp_pair *p, *q;
	char err[256];
	struct ab_cpuset one;

	(void)state;
	load(&t, "2s-smt");
	for (long n = 1; n <= 60; n++) {
		long np = cp_pairs_select(&t, CP_PAIRS_N, n, &p, err, sizeof(err));
		assert_int_equal(np, n < 56 ? n : 56);
		assert_int_equal(cp_pairs_select(&t, CP_PAIRS_N, n, &q, err, sizeof(err)), np);
		for (long k = 0; k < np; k++) {
			long idx = p[k].pa * 7 + p[k].pb - (p[k].pb > p[k].pa);
			assert_int_not_equal(p[k].pa, p[k].pb);
			assert_true(idx >= k * 56 / np && idx < (k + 1) * 56 / np);
			assert_int_equal(p[k].a, q[k].a);
			assert_int_equal(p[k].b, q[k].b);
		}
		free(p);
		free(q);
	}
	ab_topo_free(&t);

	ab_cpuset_zero(&one);
	ab_cpuset_set(&one, 1);
	char path[4096];
	const char *top = getenv("AFFBENCH_TOP");
	snprintf(path, sizeof(path), "%s/tests/fixtures/topo/vm2", top && *top ? top : ".");
	assert_int_equal(ab_topo_load(&t, path, &one, err, sizeof(err)), 0);
	assert_int_equal(cp_pairs_select(&t, CP_PAIRS_ALL, 0, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "two CPUs"));
	ab_topo_free(&t);
}

static void add(struct ab_results *r, int a, int b, const char *cls, const char *metric,
		const char *unit, double v)
{
	char cfg[128];

	snprintf(cfg, sizeof(cfg), "class=%s;cpu_a=%d;cpu_b=%d;pos_a=%d;pos_b=%d", cls, a, b, a, b);
	for (int rep = 1; rep <= 3; rep++)
		assert_int_equal(ab_results_add(r, "cpupair", cfg, rep, metric, v, unit), 0);
}

/* The per-class summary: the median over a class's pairs of each pair's median. */
static void test_class_summary(void **state)
{
	struct ab_results r;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	ab_results_init(&r);
	add(&r, 0, 4, "smt", CP_M_LINE, "ns", 10);
	add(&r, 4, 0, "smt", CP_M_LINE, "ns", 20);
	add(&r, 0, 1, "llc", CP_M_LINE, "ns", 30);
	add(&r, 0, 2, "cross-node", CP_M_LINE, "ns", 100);
	add(&r, 2, 0, "cross-node", CP_M_LINE, "ns", 300);
	add(&r, 1, 2, "cross-node", CP_M_LINE, "ns", 200);
	add(&r, 0, 2, "cross-node", CP_M_FUTEX, "us", 50);
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(ab_render_tables(&ab_desc_cpupair, &r, f, 1), 0);
	fclose(f);
	if (!strstr(buf, "| smt | 2 | 15 | not measured | not measured |") ||
	    !strstr(buf, "| llc | 1 | 30 | not measured | not measured |") ||
	    !strstr(buf, "| cross-node | 3 | 200 | 50 | not measured |") || strstr(buf, "| cross-llc |"))
		fail_msg("class summary:\n%s", buf);
	/* six pairs: listed one by one, in the order recorded */
	assert_non_null(strstr(buf, "| 0 | 4 | smt | 10 | not measured | not measured |"));
	free(buf);
	ab_results_free(&r);
}

/* A setting swept beside the pairs (an idle policy) is summarised apart. */
static void test_settings(void **state)
{
	static const char *const cfg[] = {
		"class=llc;cpu_a=0;cpu_b=1;idle=as-found;pos_a=0;pos_b=1",
		"class=llc;cpu_a=0;cpu_b=1;idle=poll;pos_a=0;pos_b=1",
	};
	struct ab_results r;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	ab_results_init(&r);
	for (int i = 0; i < 2; i++)
		for (int rep = 1; rep <= 3; rep++) {
			assert_int_equal(ab_results_add(&r, "cpupair", cfg[i], rep, CP_M_LINE, 100 + i, "ns"), 0);
			assert_int_equal(ab_results_add(&r, "cpupair", cfg[i], rep, CP_M_FUTEX, 60 - 50 * i, "us"), 0);
		}
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(ab_render_tables(&ab_desc_cpupair, &r, f, 1), 0);
	fclose(f);
	if (!strstr(buf, "| idle=as-found | llc | 1 | 100 | 60 | not measured |") ||
	    !strstr(buf, "| idle=poll | llc | 1 | 101 | 10 | not measured |") ||
	    !strstr(buf, "| idle=poll | 0 | 1 | llc | 101 | 10 | not measured |"))
		fail_msg("settings:\n%s", buf);
	free(buf);
	ab_results_free(&r);
}

static void test_heat_bounds(void **state)
{
	struct ab_heat h;

	(void)state;
	assert_int_equal(ab_heat_init(&h, 0), -1);
	assert_int_equal(ab_heat_init(&h, AB_HEAT_MAX + 1), -1);
	assert_int_equal(ab_heat_init(&h, 3), 0);
	assert_true(isnan(h.v[8]) && h.label[2] == -1);
	ab_heat_free(&h);
	assert_null(h.v);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	assert_non_null(f);
	assert_non_null(buf);
	assert_true(fread(buf, 1, (1 << 16) - 1, f) > 0);
	fclose(f);
	return buf;
}

/* The heatmap's files: numbers only in the .dat and the ticks, texts escaped,
 * row 0 at the top, unmeasured cells NaN; nothing for a matrix of NaN. */
static void test_heat_plot(void **state)
{
	char dir[] = "/tmp/affbench-heat-unit.XXXXXX", path[128];
	struct ab_results res;
	struct ab_render r = { 0 };
	struct ab_heat h;

	(void)state;
	assert_non_null(mkdtemp(dir));
	ab_results_init(&res);
	r.desc = &ab_desc_cpupair;
	r.res = &res;
	r.dir = dir;
	assert_int_equal(ab_heat_init(&h, 2), 0);
	assert_int_equal(ab_heat_plot(&r, &h, "empty", "t", "x", "y", "c"), 0);
	snprintf(path, sizeof(path), "%s/empty.dat", dir);
	assert_int_not_equal(access(path, F_OK), 0);
	h.v[1] = 120.5;
	h.v[2] = 99;
	h.label[0] = 3;
	h.label[1] = 64;
	assert_int_equal(ab_heat_plot(&r, &h, "heat", "it's '; system('x')", "x", "y", "ns"), 1);
	snprintf(path, sizeof(path), "%s/heat.dat", dir);
	char *dat = slurp(path);
	assert_non_null(strstr(dat, "0 0 NaN\n1 0 120.5\n\n0 1 99\n1 1 NaN\n"));
	snprintf(path, sizeof(path), "%s/heat.gp", dir);
	char *gp = slurp(path);
	assert_non_null(strstr(gp, "set title 'it''s ''; system(''x'')' noenhanced"));
	assert_non_null(strstr(gp, "set xtics (\"3\" 0, \"64\" 1)"));
	assert_non_null(strstr(gp, "set yrange [1.5:-0.5]"));
	assert_non_null(strstr(gp, "plot 'heat.dat' using 1:2:3 with image"));
	assert_int_equal(r.nfig, 1);
	free(dat);
	free(gp);
	ab_heat_free(&h);
	ab_results_free(&res);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_topo_order),
		cmocka_unit_test(test_matrix_shape),
		cmocka_unit_test(test_pair_class),
		cmocka_unit_test(test_class_names),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_class_summary),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_heat_bounds),
		cmocka_unit_test(test_heat_plot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
