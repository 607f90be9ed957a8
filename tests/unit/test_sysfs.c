// SPDX-License-Identifier: GPL-2.0
/*
 * lib/sys/sysfs (the one-value reader of sysfs and procfs files) and
 * lib/sys/fsutil (mkdir -p): files written under $AFFBENCH_WORKDIR (else
 * /tmp) with the shapes the kernel gives, plus one real procfs file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/fsutil.h"
#include "sys/sysfs.h"

static char root[4096];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	const char *wd = getenv("AFFBENCH_WORKDIR");

	(void)state;
	snprintf(root, sizeof(root), "%s/sysfs.XXXXXX", wd && *wd ? wd : "/tmp");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* root/name holding n bytes of content; its path in a static buffer. */
static const char *file(const char *name, const char *content, size_t n)
{
	static char path[4200];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	FILE *f = fopen(path, "w");
	if (!f || fwrite(content, 1, n, f) != n || fclose(f))
		fail_msg("%s: %s", path, strerror(errno));
	return path;
}

static void test_read(void **state)
{
	static const struct {
		const char *content, *want;
	} cases[] = {
		{ "0-3\n", "0-3" },		/* a CPU list */
		{ "", "" },			/* a memory-only node's cpulist */
		{ "\n", "" },
		{ "Instruction \t\n", "Instruction" },	/* trailing blanks go */
		{ "  lead\n", "  lead" },		/* leading ones stay */
		{ "no newline", "no newline" },
		{ "first\nsecond\n", "first" },		/* the first line only */
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = file("v", cases[i].content, strlen(cases[i].content));
		assert_int_equal(ab_sysfs_read(p, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].want);
	}

	/* A line longer than the buffer is cut to fit. */
	char small[4];
	assert_int_equal(ab_sysfs_read(file("v", "123456\n", 7), small, sizeof(small)), 0);
	assert_string_equal(small, "123");

	/* Missing: -1, ENOENT, and buf empty. */
	char path[4200];
	snprintf(path, sizeof(path), "%s/missing", root);
	strcpy(buf, "stale");
	errno = 0;
	assert_int_equal(ab_sysfs_read(path, buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(buf, "");

	/* A directory cannot be read: -1 with EISDIR. */
	errno = 0;
	assert_int_equal(ab_sysfs_read(root, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EISDIR);

	/* A real procfs file: /proc/self/stat starts with this process's pid. */
	char want[32];
	snprintf(want, sizeof(want), "%d (", (int)getpid());
	assert_int_equal(ab_sysfs_read("/proc/self/stat", buf, sizeof(buf)), 0);
	assert_memory_equal(buf, want, strlen(want));
}

static void test_read_long(void **state)
{
	long v = 7;

	(void)state;
	assert_int_equal(ab_sysfs_read_long(file("n", "2\n", 2), &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(ab_sysfs_read_long(file("n", "-1\n", 3), &v), 0);
	assert_int_equal(v, -1);
	static const char *const bad[] = { "", "\n", "x\n", "1x\n", "99999999999999999999999\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		errno = 0;
		assert_int_equal(ab_sysfs_read_long(file("n", bad[i], strlen(bad[i])), &v), -1);
		assert_true(errno == EINVAL || errno == ERANGE);
		assert_int_equal(v, 7);
	}
}

static void test_mkdirs(void **state)
{
	char path[4300], deep[4200];
	struct stat st;

	(void)state;
	snprintf(deep, sizeof(deep), "%s/a/b/c", root);
	assert_int_equal(ab_mkdirs(deep, 0700), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0077, 0);
	/* Again, and with a trailing slash: nothing to do, no error. */
	assert_int_equal(ab_mkdirs(deep, 0700), 0);
	snprintf(path, sizeof(path), "%s/", deep);
	assert_int_equal(ab_mkdirs(path, 0700), 0);

	/* A file in the way of a parent: ENOTDIR. */
	file("f", "x", 1);
	snprintf(path, sizeof(path), "%s/f/sub", root);
	errno = 0;
	assert_int_equal(ab_mkdirs(path, 0755), -1);
	assert_int_equal(errno, ENOTDIR);

	errno = 0;
	assert_int_equal(ab_mkdirs("", 0755), -1);
	assert_int_equal(errno, ENOENT);

	char *long_path = malloc(8192);
	assert_non_null(long_path);
	memset(long_path, 'a', 8191);
	long_path[8191] = '\0';
	errno = 0;
	assert_int_equal(ab_mkdirs(long_path, 0755), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	free(long_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_read_long),
		cmocka_unit_test(test_mkdirs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
