// SPDX-License-Identifier: GPL-2.0
/*
 * harness/compare/norm.c: configs made comparable across runs. CPU numbers stay
 * (client_cpu=3 and client_cpu=5 are two configs; match.c matches across them), a key
 * added later is given its default
 * where the descriptor says it applies (uring_cpu=queue, io_uring configs only),
 * and compare.md's sentence counts every config so matched, across groups and
 * benchmarks that share the key. The harness's objects are linked (Makefile).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sys/common.h"
#include "../../harness/compare/compare.h"

static const struct {
	const char *bench, *config;
	int rep;
	double v;
	const char *want;	/* its config once normalized */
} rows[] = {
	{ "ddpar", "bs=4096;mode=read;transport=uring", 1, 10,
	  "bs=4096;mode=read;transport=uring;uring_cpu=queue" },
	{ "ddpar", "bs=4096;mode=read;transport=uring", 2, 11,
	  "bs=4096;mode=read;transport=uring;uring_cpu=queue" },
	{ "ddpar", "bs=8192;mode=read;transport=uring", 1, 12,
	  "bs=8192;mode=read;transport=uring;uring_cpu=queue" },
	/* not io_uring: the default is not for it */
	{ "ddpar", "bs=4096;mode=read;transport=libfuse", 1, 13,
	  "bs=4096;mode=read;transport=libfuse" },
	/* already has the key */
	{ "ddpar", "bs=4096;mode=read;transport=uring;uring_cpu=next", 1, 14,
	  "bs=4096;mode=read;transport=uring;uring_cpu=next" },
	/* another benchmark with the same key, value and date: the same sentence */
	{ "cputestfs", "client_cpu=3;daemon=single;transport=uring", 1, 15,
	  "client_cpu=3;daemon=single;transport=uring;uring_cpu=queue" },
	{ "cputestfs", "client_cpu=5;daemon=single;transport=uring", 2, 16,
	  "client_cpu=5;daemon=single;transport=uring;uring_cpu=queue" },
};

static void fill(struct ab_results *r)
{
	ab_results_init(r);
	for (size_t i = 0; i < AB_ARRAY_SIZE(rows); i++)
		assert_int_equal(ab_results_add(r, rows[i].bench, rows[i].config, rows[i].rep, "m",
						rows[i].v, "us"), 0);
}

/* The value v's group in r: its config. */
static const char *config_of(const struct ab_results *r, double v)
{
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->g[i].n; k++)
			if (r->g[i].v[k] == v)
				return r->g[i].config;
	return "(missing)";
}

static void test_normalize(void **state)
{
	struct ab_results in, out;
	struct cmp c;
	char *md = NULL;
	size_t mdlen = 0;

	(void)state;
	memset(&c, 0, sizeof(c));
	fill(&in);
	assert_int_equal(h_cmp_normalize(&c, &in, &out), 0);
	for (size_t i = 0; i < AB_ARRAY_SIZE(rows); i++)
		if (strcmp(config_of(&out, rows[i].v), rows[i].want))
			fail_msg("%s %s: normalized to '%s', want '%s'", rows[i].bench,
				 rows[i].config, config_of(&out, rows[i].v), rows[i].want);
	/* cputestfs's two CPU placements stay two groups; ddpar's 4096 two reps one */
	assert_int_equal(out.n, 6);

	/* one sentence for the key both benchmarks share; the groups defaulted, counted:
	 * two of ddpar's (4096 and 8192: the 4096 one holding two reps), two of cputestfs's */
	assert_int_equal(c.ndef, 1);
	assert_int_equal(c.def[0].results, 4);
	c.md = open_memstream(&md, &mdlen);
	assert_non_null(c.md);
	h_cmp_defaults_said(&c);
	assert_int_equal(fclose(c.md), 0);
	if (!strstr(md, "4 results of configs without uring_cpu (recorded before it existed) "
			"were matched as uring_cpu=queue (the default since 2026-12-01, "
			"--uring-cpu), those with transport=uring.\n"))
		fail_msg("compare.md says: %s", md);
	free(md);
	ab_results_free(&in);
	ab_results_free(&out);
}

/* A run with nothing to normalize is moved whole, and nothing is said. */
static void test_nothing_to_do(void **state)
{
	struct ab_results in, out;
	struct cmp c;

	(void)state;
	memset(&c, 0, sizeof(c));
	ab_results_init(&in);
	assert_int_equal(ab_results_add(&in, "ddpar", "bs=4096;transport=libfuse", 1, "m", 1,
					"us"), 0);
	assert_int_equal(h_cmp_normalize(&c, &in, &out), 0);
	assert_int_equal(in.n, 0);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.g[0].config, "bs=4096;transport=libfuse");
	assert_int_equal(c.ndef, 0);
	ab_results_free(&in);
	ab_results_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_nothing_to_do),
	};

	return cmocka_run_group_tests_name("compare_norm", tests, NULL, NULL);
}
