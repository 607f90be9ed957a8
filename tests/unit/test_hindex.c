// SPDX-License-Identifier: GPL-2.0
/*
 * The hash index (lib/record/hindex.c): every entry is found again from its
 * hash, through growth, when many entries share one hash (the caller tells
 * them apart), and a lookup of a hash never added finds nothing. Keys of
 * several strings hash apart however their bytes split between the strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "record/hindex.h"

#define N 20000

/* Every entry e added under hash(e) is found once among the entries of its hash. */
static void test_find_all(void **state)
{
	static const struct {
		const char *what;
		uint64_t mod;	/* hash(e) = e % mod: how many entries share a hash */
	} cases[] = {
		{ "distinct hashes", UINT64_MAX },
		{ "pairs share a hash", N / 2 },
		{ "a hundred share each", N / 100 },
		{ "one hash for all", 1 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct ab_hindex x = { 0 };
		size_t n = cases[c].mod == 1 ? 500 : N;	/* every lookup walks all: keep it small */

		for (size_t e = 0; e < n; e++)
			assert_int_equal(ab_hindex_add(&x, e % cases[c].mod, e), 0);
		assert_int_equal(x.n, n);
		assert_true(2 * x.n <= x.nslot);
		for (size_t e = 0; e < n; e++) {
			size_t pos = 0, got, found = 0, seen = 0;
			while ((got = ab_hindex_next(&x, e % cases[c].mod, &pos))) {
				seen++;
				if ((got - 1) % cases[c].mod != e % cases[c].mod)
					fail_msg("%s: entry %zu under another's hash", cases[c].what, got - 1);
				found += got - 1 == e;
			}
			if (found != 1)
				fail_msg("%s: entry %zu found %zu times", cases[c].what, e, found);
			size_t want = cases[c].mod >= n ? 1 : n / cases[c].mod;
			if (seen != want)
				fail_msg("%s: %zu entries under %zu's hash, want %zu", cases[c].what, seen, e,
					 want);
		}
		size_t pos = 0;
		if (cases[c].mod > n)	/* a hash never added */
			assert_int_equal(ab_hindex_next(&x, n + 7, &pos), 0);
		ab_hindex_free(&x);
		assert_null(x.slot);
		assert_int_equal(x.nslot, 0);
	}
}

static void test_empty(void **state)
{
	struct ab_hindex x = { 0 };
	size_t pos = 0;

	(void)state;
	assert_int_equal(ab_hindex_next(&x, 42, &pos), 0);
	ab_hindex_free(&x);
}

/* A key of several strings: ("ab", "c") is not ("a", "bc"), nor ("abc", ""). */
static void test_hash_parts(void **state)
{
	static const char *const keys[][2] = {
		{ "ab", "c" }, { "a", "bc" }, { "abc", "" }, { "", "abc" }, { "ba", "c" },
		{ "cputestfs", "placement=same" }, { "cputestfs", "placement=sam" },
	};
	uint64_t h[sizeof(keys) / sizeof(keys[0])];

	(void)state;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		h[i] = ab_hash_str(ab_hash_str(AB_HASH_INIT, keys[i][0]), keys[i][1]);
		assert_true(h[i] == ab_hash_str(ab_hash_str(AB_HASH_INIT, keys[i][0]), keys[i][1]));
		for (size_t j = 0; j < i; j++)
			if (h[i] == h[j])
				fail_msg("(%s, %s) and (%s, %s) hash alike", keys[i][0], keys[i][1],
					 keys[j][0], keys[j][1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_all),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_hash_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
