// SPDX-License-Identifier: GPL-2.0
/*
 * lib/sys/cpuset: CPU-list parsing and formatting (good and bad inputs, past 64
 * CPUs), bitmap operations at word boundaries, the kernel-mask conversion and
 * sched_getaffinity/sched_setaffinity on this machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/cpuset.h"

/* Builds a set from a list the test trusts; fails the test if it does not parse. */
static struct ab_cpuset set_of(const char *list)
{
	struct ab_cpuset s;
	char err[256];

	ab_cpuset_zero(&s);
	if (list && ab_cpuset_parse(&s, list, NULL, err, sizeof(err)) < 0)
		fail_msg("fixture list '%s': %s", list, err);
	return s;
}

static const struct {
	const char *in;
	const char *out;	/* formatted back */
	int count;
} good[] = {
	{ "0", "0", 1 },
	{ "0-3,8,10-11", "0-3,8,10-11", 7 },
	{ "0-3\n", "0-3", 4 },			/* sysfs files end in a newline */
	{ "2,0,1", "0-2", 3 },			/* order does not matter */
	{ "0-2,1-3", "0-3", 4 },		/* overlaps merge */
	{ "63-64", "63-64", 2 },		/* across the first word boundary */
	{ "0-3,64-67", "0-3,64-67", 8 },
	{ "127,128", "127-128", 2 },
	{ "1,3,5,7", "1,3,5,7", 4 },
	{ "8191", "8191", 1 },			/* AB_MAX_CPUS - 1 */
	{ "0-8191", "0-8191", 8192 },
};

static void test_parse_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct ab_cpuset s;
		char err[256] = "", buf[256];

		if (ab_cpuset_parse(&s, good[i].in, NULL, err, sizeof(err)) < 0)
			fail_msg("'%s' rejected: %s", good[i].in, err);
		assert_int_equal(ab_cpuset_count(&s), good[i].count);
		assert_int_equal(ab_cpuset_format(&s, buf, sizeof(buf)), (int)strlen(good[i].out));
		assert_string_equal(buf, good[i].out);
	}
}

static const struct {
	const char *in;
	const char *allowed;	/* NULL: no restriction */
	const char *err;	/* the whole message */
} bad[] = {
	{ "", NULL, "bad CPU list '': empty" },
	{ "\n", NULL, "bad CPU list '': empty" },	/* an empty sysfs file */
	{ "3-1", NULL, "bad CPU list '3-1': range '3-1' is reversed" },
	{ "1,,2", NULL, "bad CPU list '1,,2': empty entry" },
	{ ",1", NULL, "bad CPU list ',1': empty entry" },
	{ "1,", NULL, "bad CPU list '1,': empty entry at the end" },
	{ "a", NULL, "bad CPU list 'a': 'a' is not a CPU number" },
	{ "0,x1", NULL, "bad CPU list '0,x1': 'x1' is not a CPU number" },
	{ "-1", NULL, "bad CPU list '-1': '-1' is not a CPU number" },
	{ " 1", NULL, "bad CPU list ' 1': ' 1' is not a CPU number" },
	{ "1-", NULL, "bad CPU list '1-': range '1-' has no end" },
	{ "1-x", NULL, "bad CPU list '1-x': range '1-x' does not end in a CPU number" },
	{ "1-2-3", NULL, "bad CPU list '1-2-3': '1-2-3' is not a CPU number or range" },
	{ "2x", NULL, "bad CPU list '2x': '2x' is not a CPU number or range" },
	{ "0-7:2/4", NULL, "bad CPU list '0-7:2/4': '0-7:2/4' is not a CPU number or range" },
	{ "99999", NULL, "bad CPU list '99999': '99999' is past the largest CPU 8191" },
	{ "8192", NULL, "bad CPU list '8192': '8192' is past the largest CPU 8191" },
	{ "0-99999999999999999999", NULL,
	  "bad CPU list '0-99999999999999999999': '0-99999999999999999999' is past the largest CPU 8191" },
	{ "4-5", "0-4", "CPU 5 in '4-5' is not allowed (allowed: 0-4)" },
	{ "0,64", "0-3", "CPU 64 in '64' is not allowed (allowed: 0-3)" },
	{ "1", "0,2", "CPU 1 in '1' is not allowed (allowed: 0,2)" },
};

static void test_parse_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ab_cpuset s = set_of("42"), allowed = set_of(bad[i].allowed);
		char err[256] = "";

		if (ab_cpuset_parse(&s, bad[i].in, bad[i].allowed ? &allowed : NULL, err,
				    sizeof(err)) == 0)
			fail_msg("'%s' accepted", bad[i].in);
		assert_string_equal(err, bad[i].err);
		/* A rejected list leaves the caller's set alone. */
		assert_int_equal(ab_cpuset_count(&s), 1);
		assert_true(ab_cpuset_isset(&s, 42));
	}
}

static void test_parse_allowed_ok(void **state)
{
	struct ab_cpuset s, allowed = set_of("0-3,64-67"), want = set_of("1,65,66");
	char err[256] = "";

	(void)state;
	if (ab_cpuset_parse(&s, "1,65-66", &allowed, err, sizeof(err)) < 0)
		fail_msg("'1,65-66' within 0-3,64-67 rejected: %s", err);
	assert_memory_equal(&s, &want, sizeof(struct ab_cpuset));
}

static const struct {
	const char *set;
	size_t len;		/* buffer size */
	int ret;
	const char *out;
} formats[] = {
	{ NULL, 16, 0, "" },			/* empty set */
	{ "0-3,8", 6, 5, "0-3,8" },		/* exactly fits with its NUL */
	{ "0-3,8", 5, -1, NULL },		/* one byte short */
	{ "0-3,8", 4, -1, NULL },
	{ "0", 1, -1, NULL },
	{ "5", 0, -1, NULL },
	{ "63,64,65", 16, 5, "63-65" },
	{ "0,2,4", 16, 5, "0,2,4" },
};

static void test_format(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct ab_cpuset s = set_of(formats[i].set);
		char buf[64];

		memset(buf, 'Z', sizeof(buf));
		int r = ab_cpuset_format(&s, buf, formats[i].len);
		if (r != formats[i].ret)
			fail_msg("format '%s' into %zu bytes: got %d, want %d", formats[i].set,
				 formats[i].len, r, formats[i].ret);
		if (formats[i].out)
			assert_string_equal(buf, formats[i].out);
		else if (formats[i].len > 0)
			assert_true(memchr(buf, '\0', formats[i].len) != NULL);	/* still a string */
	}
}

/* Bit operations where words meet: 0, 63, 64, 127, 128 and the last CPU. */
static const int edge_cpus[] = { 0, 1, 63, 64, 65, 127, 128, 4095, 8191 };

static void test_bits(void **state)
{
	struct ab_cpuset s;
	size_t n = sizeof(edge_cpus) / sizeof(edge_cpus[0]);

	(void)state;
	ab_cpuset_zero(&s);
	assert_int_equal(ab_cpuset_count(&s), 0);
	assert_int_equal(ab_cpuset_next(&s, 0), -1);
	assert_int_equal(ab_cpuset_nth(&s, 0), -1);
	for (size_t i = 0; i < n; i++)
		ab_cpuset_set(&s, edge_cpus[i]);
	/* Out of range is ignored, never a write past the bitmap. */
	ab_cpuset_set(&s, -1);
	ab_cpuset_set(&s, AB_MAX_CPUS);
	assert_int_equal(ab_cpuset_count(&s), (int)n);
	assert_false(ab_cpuset_isset(&s, -1));
	assert_false(ab_cpuset_isset(&s, AB_MAX_CPUS));
	for (size_t i = 0; i < n; i++) {
		int c = edge_cpus[i];
		assert_true(ab_cpuset_isset(&s, c));
		assert_int_equal(ab_cpuset_nth(&s, (int)i), c);
		assert_int_equal(ab_cpuset_next(&s, c), c);
		/* The next one after c skips the gap, however many words it spans. */
		assert_int_equal(ab_cpuset_next(&s, c + 1), i + 1 < n ? edge_cpus[i + 1] : -1);
		if (c > 0 && (i == 0 || edge_cpus[i - 1] != c - 1))
			assert_false(ab_cpuset_isset(&s, c - 1));
	}
	assert_int_equal(ab_cpuset_nth(&s, (int)n), -1);
	assert_int_equal(ab_cpuset_nth(&s, -1), -1);
	assert_int_equal(ab_cpuset_next(&s, -7), 0);
	assert_int_equal(ab_cpuset_next(&s, AB_MAX_CPUS), -1);

	int seen = 0, cpu;
	ab_cpuset_for_each(cpu, &s)
		assert_int_equal(cpu, edge_cpus[seen++]);
	assert_int_equal(seen, (int)n);

	for (size_t i = 0; i < n; i += 2)
		ab_cpuset_clear(&s, edge_cpus[i]);
	assert_int_equal(ab_cpuset_count(&s), (int)(n / 2));
	assert_false(ab_cpuset_isset(&s, 0));
	assert_true(ab_cpuset_isset(&s, 1));
	assert_false(ab_cpuset_isset(&s, 8191));
}

static const struct {
	const char *a, *b, *and;
} ands[] = {
	{ "0-7", "4-11", "4-7" },
	{ "0-3", "64-67", NULL },
	{ "60-70,200", "63-64,200-201", "63-64,200" },
};

static void test_and(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(ands) / sizeof(ands[0]); i++) {
		struct ab_cpuset a = set_of(ands[i].a), b = set_of(ands[i].b), want = set_of(ands[i].and);
		struct ab_cpuset got;

		ab_cpuset_and(&got, &a, &b);
		assert_memory_equal(&got, &want, sizeof(struct ab_cpuset));
		assert_memory_not_equal(&a, &b, sizeof(struct ab_cpuset));
		/* dst may be one of the inputs */
		ab_cpuset_and(&a, &a, &b);
		assert_memory_equal(&a, &want, sizeof(struct ab_cpuset));
	}
}

static const char *const kernel_sets[] = { "0", "0-3", "5,64", "0-3,64-67", "1023", "1024-1025",
					   "8191" };

static void test_to_kernel(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(kernel_sets) / sizeof(kernel_sets[0]); i++) {
		struct ab_cpuset s = set_of(kernel_sets[i]);
		size_t size = 0;
		int cpu, last = -1;
		cpu_set_t *k = ab_cpuset_to_kernel(&s, &size);

		assert_non_null(k);
		ab_cpuset_for_each(cpu, &s)
			last = cpu;
		/* Big enough for the highest CPU, no bigger than needed. */
		assert_true(size >= CPU_ALLOC_SIZE(last + 1));
		assert_true(size <= CPU_ALLOC_SIZE(last + 1 + 64));
		assert_int_equal(CPU_COUNT_S(size, k), ab_cpuset_count(&s));
		for (cpu = 0; cpu < (int)(size * 8); cpu++)
			if (CPU_ISSET_S(cpu, size, k) != ab_cpuset_isset(&s, cpu))
				fail_msg("set %s: CPU %d differs in the kernel mask", kernel_sets[i], cpu);
		CPU_FREE(k);
	}
}

/* sched_getaffinity on this machine: non-empty, and only CPUs that exist. */
static void test_allowed(void **state)
{
	struct ab_cpuset s;
	char buf[4096];
	int cpu;

	(void)state;
	if (ab_cpuset_allowed(&s) < 0)
		fail_msg("ab_cpuset_allowed: %s", strerror(errno));
	assert_true(ab_cpuset_count(&s) > 0);
	assert_true(ab_cpuset_format(&s, buf, sizeof(buf)) > 0);
	print_message("allowed CPUs: %s\n", buf);
	ab_cpuset_for_each(cpu, &s) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		if (stat(path, &st) < 0)
			fail_msg("allowed CPU %d has no %s: %s", cpu, path, strerror(errno));
	}
}

/* Pin to each allowed CPU in turn, read it back, then restore the original mask. */
static void test_setaffinity_roundtrip(void **state)
{
	struct ab_cpuset orig, now, one;
	size_t size;
	int cpu;

	(void)state;
	assert_int_equal(ab_cpuset_allowed(&orig), 0);
	ab_cpuset_for_each(cpu, &orig) {
		ab_cpuset_zero(&one);
		ab_cpuset_set(&one, cpu);
		cpu_set_t *k = ab_cpuset_to_kernel(&one, &size);
		assert_non_null(k);
		if (sched_setaffinity(0, size, k) < 0)
			fail_msg("sched_setaffinity to CPU %d: %s", cpu, strerror(errno));
		CPU_FREE(k);
		assert_int_equal(ab_cpuset_allowed(&now), 0);
		assert_memory_equal(&now, &one, sizeof(struct ab_cpuset));
		assert_int_equal(sched_getcpu(), cpu);
	}
	cpu_set_t *k = ab_cpuset_to_kernel(&orig, &size);
	assert_non_null(k);
	if (sched_setaffinity(0, size, k) < 0)
		fail_msg("restoring the affinity: %s", strerror(errno));
	CPU_FREE(k);
	assert_int_equal(ab_cpuset_allowed(&now), 0);
	assert_memory_equal(&now, &orig, sizeof(struct ab_cpuset));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_allowed_ok),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_and),
		cmocka_unit_test(test_to_kernel),
		cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_setaffinity_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
