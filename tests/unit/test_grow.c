// SPDX-License-Identifier: GPL-2.0
/*
 * lib/sys/grow: an array grows from its first size by doubling, keeps its contents,
 * does nothing when it has room, and refuses a size past SIZE_MAX (ENOMEM), the
 * array then left as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "sys/grow.h"

struct item {
	int a;
	double b;
};

/* The first growth: first elements, or doubled from first until need fits. */
static void test_first(void **state)
{
	static const struct {
		size_t need, first, want;
	} cases[] = {
		{ 1, 16, 16 }, { 16, 16, 16 }, { 17, 16, 32 }, { 100, 16, 128 }, { 3, 0, 4 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct item *v = NULL;
		size_t cap = 0;
		assert_int_equal(ab_grow(&v, &cap, cases[i].need, sizeof(*v), cases[i].first), 0);
		assert_non_null(v);
		if (cap != cases[i].want)
			fail_msg("need %zu from first %zu: capacity %zu, want %zu", cases[i].need,
				 cases[i].first, cap, cases[i].want);
		v[cap - 1] = (struct item){ 1, 2 };	/* all of it usable (ASan, valgrind) */
		free(v);
	}
}

/* Appends one at a time: the capacity doubles, what was stored stays. */
static void test_keeps_contents(void **state)
{
	struct item *v = NULL;
	size_t cap = 0, grew = 0;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		size_t before = cap;
		assert_int_equal(ab_grow(&v, &cap, (size_t)i + 1, sizeof(*v), 8), 0);
		if (cap != before) {
			assert_int_equal(cap, before ? 2 * before : 8);
			grew++;
		}
		v[i] = (struct item){ i, i * 0.5 };
	}
	assert_int_equal(cap, 1024);
	assert_int_equal(grew, 8);	/* 8, 16, ..., 1024 */
	for (int i = 0; i < 1000; i++)
		if (v[i].a != i || v[i].b != i * 0.5)
			fail_msg("element %d is %d, %g after growing", i, v[i].a, v[i].b);
	free(v);
}

/* Room enough: nothing moves, nothing changes. */
static void test_room(void **state)
{
	int *v = NULL, *was;
	size_t cap = 0;

	(void)state;
	assert_int_equal(ab_grow(&v, &cap, 10, sizeof(*v), 64), 0);
	was = v;
	assert_int_equal(ab_grow(&v, &cap, 64, sizeof(*v), 64), 0);
	assert_ptr_equal(v, was);
	assert_int_equal(cap, 64);
	assert_int_equal(ab_grow(&v, &cap, 0, sizeof(*v), 64), 0);
	assert_int_equal(cap, 64);
	free(v);
}

/* A size past SIZE_MAX: ENOMEM, the array and its capacity as they were. */
static void test_overflow(void **state)
{
	static const struct {
		size_t need, elem;
	} cases[] = {
		{ SIZE_MAX / 8 + 1, 8 },	/* need * elem wraps */
		{ SIZE_MAX, 1 },		/* doubling 4 never reaches it */
		{ SIZE_MAX / 2 + 2, 1 },	/* the next doubling would wrap */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *v = NULL;
		size_t cap = 0;
		assert_int_equal(ab_grow(&v, &cap, 4, cases[i].elem, 4), 0);
		char *was = v;
		v[0] = 'x';
		errno = 0;
		if (ab_grow(&v, &cap, cases[i].need, cases[i].elem, 4) != -1 || errno != ENOMEM)
			fail_msg("need %zu of %zu bytes: not refused with ENOMEM (errno %d)",
				 cases[i].need, cases[i].elem, errno);
		assert_ptr_equal(v, was);
		assert_int_equal(cap, 4);
		assert_int_equal(v[0], 'x');
		free(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first),
		cmocka_unit_test(test_keeps_contents),
		cmocka_unit_test(test_room),
		cmocka_unit_test(test_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
