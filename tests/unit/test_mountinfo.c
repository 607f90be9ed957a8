// SPDX-License-Identifier: GPL-2.0
/*
 * lib/fuse/mountinfo.c: one line at a time (escapes, missing fields, hostile
 * and overlong fields), then whole fixture files through ab_mi_find_in and
 * ab_mi_list_children_in. A line that cannot be read whole is refused: a
 * mount point cut short or split could make fusemnt detach the wrong mount.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fuse/mountinfo_i.h"

#define HEAD "36 35 0:98 / "	/* id, parent, dev, root: the fields before the mount point */
#define FXDIR "/nonexistent-affbench-mi"	/* absent, so realpath leaves paths as they are */

static const struct {
	const char *line;
	int rc;
	unsigned major, minor;
	const char *mnt, *fstype, *source, *superopts;
} lines[] = {
	{ "36 35 0:98 / /mnt/point rw,noatime master:1 - fuse.hello src rw,user_id=0,group_id=0\n", 0,
	  0, 98, "/mnt/point", "fuse.hello", "src", "rw,user_id=0,group_id=0" },
	{ "1 2 259:3 / /mnt rw - ext4 /dev/nvme0n1p3 rw", 0, 259, 3, "/mnt", "ext4", "/dev/nvme0n1p3",
	  "rw" },
	{ HEAD "/m rw shared:1 master:2 propagate_from:3 unbindable - fuse s rw", 0, 0, 98, "/m", "fuse",
	  "s", "rw" },
	{ HEAD "/m rw - fuse src", 0, 0, 98, "/m", "fuse", "src", "" },	/* no superopts */
	/* the kernel's escapes: space, tab, newline, backslash */
	{ HEAD "/a\\040b\\011c\\012d\\134e rw - fuse my\\040fs rw", 0, 0, 98, "/a b\tc\nd\\e", "fuse",
	  "my fs", "rw" },
	/* what is not an escape stays as it is */
	{ HEAD "/a\\8b\\47\\ rw - fuse s rw", 0, 0, 98, "/a\\8b\\47\\", "fuse", "s", "rw" },
	{ HEAD "/a\\400 rw - fuse s rw", 0, 0, 98, "/a\\400", "fuse", "s", "rw" },
	/* a directory named to look like the rest of a line stays one field */
	{ HEAD "/tmp/x\\040-\\040fuse.evil\\040evil\\040rw,user_id=0 rw - tmpfs tmpfs rw", 0, 0, 98,
	  "/tmp/x - fuse.evil evil rw,user_id=0", "tmpfs", "tmpfs", "rw" },
	/* refused: an escaped NUL, fields missing, device numbers that are not maj:min */
	{ HEAD "/a\\000b rw - fuse s rw", .rc = -1 },
	{ "", .rc = -1 },
	{ "\n", .rc = -1 },
	{ "36", .rc = -1 },
	{ HEAD "/m rw", .rc = -1 },	/* no separator */
	{ HEAD "/m rw -", .rc = -1 },	/* no fstype */
	{ HEAD "/m rw - fuse", .rc = -1 },	/* no source */
	{ "36 35 - / /m rw - fuse s rw", .rc = -1 },
	{ "36 35 x:y / /m rw - fuse s rw", .rc = -1 },
	{ "36 35 98 / /m rw - fuse s rw", .rc = -1 },
	{ "36 35 -1:2 / /m rw - fuse s rw", .rc = -1 },
	{ "36 35 0:-2 / /m rw - fuse s rw", .rc = -1 },
	{ "36 35 0:98x / /m rw - fuse s rw", .rc = -1 },
	{ "36 35 :98 / /m rw - fuse s rw", .rc = -1 },
};

static void test_parse_lines(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
		char buf[512];
		struct ab_mi e;

		print_message("%s\n", lines[k].line);
		snprintf(buf, sizeof(buf), "%s", lines[k].line);
		assert_int_equal(ab_mi_parse(buf, &e), lines[k].rc);
		if (lines[k].rc < 0)
			continue;
		assert_int_equal(e.major, lines[k].major);
		assert_int_equal(e.minor, lines[k].minor);
		assert_string_equal(e.mnt, lines[k].mnt);
		assert_string_equal(e.fstype, lines[k].fstype);
		assert_string_equal(e.source, lines[k].source);
		assert_string_equal(e.superopts, lines[k].superopts);
	}
}

/* A line whose one field is n characters of c (escaped: "\040" each). */
static char *long_line(int field, size_t n, int escaped)
{
	const char *unit = escaped ? "\\040" : "x";
	size_t ul = strlen(unit), len = n * ul + 256;
	char *f = malloc(n * ul + 2), *line = malloc(len);

	assert_non_null(f);
	assert_non_null(line);
	f[0] = '/';
	for (size_t i = 0; i < n; i++)
		memcpy(f + 1 + i * ul, unit, ul);
	f[1 + n * ul] = '\0';
	const char *mnt = field == 4 ? f : "/m", *fstype = field == 8 ? f + 1 : "fuse",
		   *source = field == 9 ? f + 1 : "s", *opts = field == 10 ? f + 1 : "rw";
	snprintf(line, len, HEAD "%s rw - %s %s %s\n", mnt, fstype, source, opts);
	free(f);
	return line;
}

/* Fields up to their room parse; one character more is refused, never cut. */
static void test_long_fields(void **state)
{
	static const struct {
		const char *name;
		int field;
		size_t room;	/* characters the field may hold */
		int escaped;
	} cases[] = {
		{ "mount point", 4, PATH_MAX - 2, 0 },	/* PATH_MAX - 1 with its '/' */
		{ "escaped mount point", 4, PATH_MAX - 2, 1 },
		{ "fstype", 8, sizeof(((struct ab_mi *)0)->fstype) - 1, 0 },
		{ "source", 9, sizeof(((struct ab_mi *)0)->source) - 1, 0 },
		{ "superopts", 10, sizeof(((struct ab_mi *)0)->superopts) - 1, 0 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct ab_mi *e = malloc(sizeof(*e));
		size_t room = cases[k].room;

		print_message("%s\n", cases[k].name);
		assert_non_null(e);
		for (size_t n = room - 1; n <= room + 1; n++) {
			char *line = long_line(cases[k].field, n, cases[k].escaped);
			assert_int_equal(ab_mi_parse(line, e), n <= room ? 0 : -1);
			free(line);
		}
		char *line = long_line(cases[k].field, 100000, cases[k].escaped);
		assert_int_equal(ab_mi_parse(line, e), -1);
		free(line);
		free(e);
	}
}

static void test_opts(void **state)
{
	static const struct {
		const char *opts, *opt;
		int has;
	} cases[] = {
		{ "rw,user_id=0,group_id=0", "user_id=0", 1 },
		{ "user_id=0", "user_id=0", 1 },
		{ "rw,user_id=0", "user_id=0", 1 },
		{ "rw,user_id=00", "user_id=0", 0 },
		{ "rw,user_id=1000", "user_id=1", 0 },
		{ "rw,xuser_id=0", "user_id=0", 0 },
		{ "rw,user_id=0", "user_id=", 0 },
		{ "", "rw", 0 },
		{ ",,", "rw", 0 },
	};
	static const struct {
		const char *fstype;
		int fuse;
	} types[] = {
		{ "fuse", 1 }, { "fuse.cputestfs", 1 }, { "fuseblk", 0 }, { "fusectl", 0 }, { "ext4", 0 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		assert_int_equal(ab_mi_has_opt(cases[k].opts, cases[k].opt), cases[k].has);
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		struct ab_mi e = { 0 };
		snprintf(e.fstype, sizeof(e.fstype), "%s", types[k].fstype);
		assert_int_equal(ab_mi_is_fuse(&e), types[k].fuse);
	}
}

/* A fixture: good lines among hostile ones, one of them 1 MB long. */
static char fixture[PATH_MAX];

static int write_fixture(void **state)
{
	static const char *const text[] = {
		"20 1 0:20 / / rw - ext4 /dev/root rw\n",
		"garbage\n",
		"21 20 0:40 / " FXDIR " rw - tmpfs tmpfs rw\n",
		"22 21 0:41 / " FXDIR "/a\\040b rw - fuse.one one rw,user_id=0\n",
		"23 21 0:42 / " FXDIR "/c rw - fuse two rw,user_id=1000\n",
		"24 23 0:43 / " FXDIR "/c/deeper rw - fuse three rw\n",	/* a grandchild */
		"25 1 0:44 / " FXDIR "x/lookalike rw - fuse four rw\n",	/* a sibling with FXDIR's prefix */
		"26 21 x:y / " FXDIR "/bad rw - fuse five rw\n",	/* unreadable: skipped */
		"27 21 0:45 / " FXDIR "/a\\040b rw - fuse.top top rw,user_id=0\n",	/* over 22 */
		"28 21 0:46 / " FXDIR "/nonl rw - fuse six rw",	/* the last line, no newline */
	};
	char dir[] = "/tmp/affbench-mi-XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fixture, sizeof(fixture), "%s/mountinfo", dir);
	FILE *f = fopen(fixture, "w");
	assert_non_null(f);
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		if (i == 2) {	/* a 1 MB line before the mounts the tests look for */
			fputs("29 1 0:47 / /", f);
			for (int k = 0; k < (1 << 20); k++)
				fputc('y', f);
			fputs(" rw - fuse long rw\n", f);
		}
		fputs(text[i], f);
	}
	assert_int_equal(fclose(f), 0);
	return 0;
}

static int remove_fixture(void **state)
{
	(void)state;
	unlink(fixture);
	*strrchr(fixture, '/') = '\0';
	rmdir(fixture);
	return 0;
}

static void test_find(void **state)
{
	static const struct {
		const char *path;
		int found;
		unsigned minor;
		const char *fstype;
	} cases[] = {
		{ FXDIR "/a b", 1, 45, "fuse.top" },	/* the topmost of two */
		{ FXDIR "/a b/", 1, 45, "fuse.top" },
		{ FXDIR "/c", 1, 42, "fuse" },
		{ FXDIR "/c/deeper", 1, 43, "fuse" },
		{ FXDIR "/nonl", 1, 46, "fuse" },
		{ FXDIR, 1, 40, "tmpfs" },
		{ FXDIR "/bad", .found = 0 },
		{ FXDIR "/a", .found = 0 },
		{ FXDIR "/a\\040b", .found = 0 },	/* the escaped form is not the path */
		{ FXDIR "/absent", .found = 0 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct ab_mi e;

		print_message("%s\n", cases[k].path);
		assert_int_equal(ab_mi_find_in(fixture, cases[k].path, &e), cases[k].found);
		if (!cases[k].found)
			continue;
		assert_int_equal(e.minor, cases[k].minor);
		assert_string_equal(e.fstype, cases[k].fstype);
	}
	struct ab_mi e;
	assert_int_equal(ab_mi_find_in(FXDIR "/no-such-file", FXDIR "/c", &e), -1);
}

static void test_children(void **state)
{
	static const char *const want[] = { FXDIR "/a b", FXDIR "/c", FXDIR "/a b", FXDIR "/nonl" };
	struct ab_mi *list;

	(void)state;
	int n = ab_mi_list_children_in(fixture, FXDIR, &list);
	assert_int_equal(n, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < n; i++)
		assert_string_equal(list[i].mnt, want[i]);
	free(list);
	assert_int_equal(ab_mi_list_children_in(fixture, FXDIR "/c", &list), 1);
	assert_string_equal(list[0].mnt, FXDIR "/c/deeper");
	free(list);
	assert_int_equal(ab_mi_list_children_in(fixture, FXDIR "/absent", &list), 0);
	free(list);
	assert_int_equal(ab_mi_list_children_in(FXDIR "/no-such-file", FXDIR, &list), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_lines),
		cmocka_unit_test(test_long_fields),
		cmocka_unit_test(test_opts),
		cmocka_unit_test_setup_teardown(test_find, write_fixture, remove_fixture),
		cmocka_unit_test_setup_teardown(test_children, write_fixture, remove_fixture),
	};
	return cmocka_run_group_tests_name("mountinfo", tests, NULL, NULL);
}
