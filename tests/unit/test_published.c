// SPDX-License-Identifier: GPL-2.0
/*
 * The posts' numbers (lib/render/published.tsv, compiled in as
 * ab_published_tsv): every row is POST<TAB>KEY<TAB>VALUE, each post has a
 * "source" line and a "machine" (or "machine.NAME") line, no post/key twice, and every key but
 * source and machine* holds a number as the post printed it. Then the
 * figures descriptors print, read back through ab_pub() exactly as posted.
 */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/render.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAXROWS 512

extern const char ab_published_tsv[];

struct row {
	char post[32], key[64], value[512];
};

static int is_text_key(const char *key)
{
	return !strcmp(key, "source") || !strcmp(key, "machine") || !strncmp(key, "machine.", 8);
}

/* A number as posted: digits with at most one point, nothing else. */
static int is_posted_number(const char *v)
{
	char *end;

	if (!isdigit((unsigned char)v[0]))
		return 0;
	double d = strtod(v, &end);
	return *end == '\0' && isfinite(d) && strspn(v, "0123456789.") == strlen(v);
}

/* Splits the table into rows; fails on a line that is not three tab-separated fields. */
static size_t parse(struct row *rows)
{
	size_t n = 0;

	for (const char *l = ab_published_tsv; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		size_t len = strcspn(l, "\n"), t1 = strcspn(l, "\t");
		if (n == MAXROWS)
			fail_msg("more than %d rows", MAXROWS);
		if (t1 >= len)
			fail_msg("row %zu has no tab: %.*s", n + 1, (int)len, l);
		size_t t2 = t1 + 1 + strcspn(l + t1 + 1, "\t");
		if (t2 >= len || memchr(l + t2 + 1, '\t', len - t2 - 1))
			fail_msg("row %zu is not 3 fields: %.*s", n + 1, (int)len, l);
		if (t1 == 0 || t1 >= sizeof(rows[n].post) || t2 - t1 - 1 == 0 ||
		    t2 - t1 - 1 >= sizeof(rows[n].key) || len - t2 - 1 == 0 ||
		    len - t2 - 1 >= sizeof(rows[n].value))
			fail_msg("row %zu has an empty or overlong field: %.*s", n + 1, (int)len, l);
		snprintf(rows[n].post, sizeof(rows[n].post), "%.*s", (int)t1, l);
		snprintf(rows[n].key, sizeof(rows[n].key), "%.*s", (int)(t2 - t1 - 1), l + t1 + 1);
		snprintf(rows[n].value, sizeof(rows[n].value), "%.*s", (int)(len - t2 - 1), l + t2 + 1);
		n++;
	}
	return n;
}

static int has(const struct row *rows, size_t n, const char *post, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].post, post) && !strcmp(rows[i].key, key))
			return 1;
	return 0;
}

/* A "machine" line, or one "machine.NAME" line per machine. */
static int has_machine(const struct row *rows, size_t n, const char *post)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].post, post) && is_text_key(rows[i].key) &&
		    strcmp(rows[i].key, "source"))
			return 1;
	return 0;
}

static void test_every_row(void **state)
{
	static struct row rows[MAXROWS];
	size_t n = parse(rows);

	(void)state;
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		if (strspn(r->post, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(r->post))
			fail_msg("%s: post id not [a-z0-9]", r->post);
		if (!is_text_key(r->key) && !is_posted_number(r->value))
			fail_msg("%s %s: '%s' is no number as posted", r->post, r->key, r->value);
		if (!has(rows, n, r->post, "source") || !has_machine(rows, n, r->post))
			fail_msg("%s: no source or no machine line", r->post);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(rows[j].post, r->post) && !strcmp(rows[j].key, r->key))
				fail_msg("%s %s: twice", r->post, r->key);
	}
}

/* Figures that descriptors print, as the posts printed them. */
static const struct {
	const char *post, *key;
	double want;
} figures[] = {
	{ "schubert2022", "seqcreate.without_per_s", 5568 },
	{ "schubert2022", "seqcreate.with_per_s", 8043 },
	{ "schubert2022", "randcreate.with_per_s", 7791 },
	{ "schubert2025", "randread4k.dev_MiB_per_s", 116 },
	{ "schubert2025", "randread4k.dev_samecpu_MiB_per_s", 115 },
	{ "schubert2025", "randread4k.uring_MiB_per_s", 260 },
	{ "schubert2025", "randread4k.uring_samecpu_MiB_per_s", 345 },
	{ "westerfeld2012", "phenom.with.stat_per_s", 44334.30 },
	{ "schubert2024", "creates.1thread.uring_per_s", 10121 },
};

static void test_figures(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(figures); i++) {
		double v = ab_pub(figures[i].post, figures[i].key);
		if (!(v == figures[i].want))
			fail_msg("%s %s: %g, want %g", figures[i].post, figures[i].key, v,
				 figures[i].want);
	}
	assert_true(isnan(ab_pub("schubert2022", "no.such_key")));
	assert_string_equal(ab_pub_text("schubert2022", "source"),
			    "linux-fsdevel/LKML 2022, Bernd Schubert, \"RFC fuse waitq latency\"");
	assert_string_equal(ab_pub_text("schubert2025", "source"),
			    "linux-fsdevel 2025, Bernd Schubert, "
			    "\"[PATCH v2] fuse: Wake requests on the same cpu\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row),
		cmocka_unit_test(test_figures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
