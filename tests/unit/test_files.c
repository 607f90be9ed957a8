// SPDX-License-Identifier: GPL-2.0
/*
 * lib/sys/infile.c and lib/sys/outfile.c: files of a directory from elsewhere.
 * Inputs: a link, a FIFO (without blocking), a directory and a file over its
 * size are refused, a file that grows past it ends in a read error; a line
 * over the limit is reported and skipped. Outputs: a
 * link planted under the name is replaced, never followed; a linked directory
 * on the way is refused; appends take regular files only; a move across file
 * systems copies; the private directory is 0700 and goes away.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "sys/infile.h"
#include "sys/outfile.h"

static char top[1024], in[1100], out[1100];

static void path(char *buf, const char *dir, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
}

static void put(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* p is a regular file of ours (not a link) holding text */
static void assert_ours(const char *p, const char *text)
{
	char buf[64] = "";
	struct stat st;

	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, text);
}

static int exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

static int setup(void **state)
{
	const char *base = getenv("TMPDIR");
	(void)state;
	snprintf(top, sizeof(top), "%s/files.XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(top));
	snprintf(in, sizeof(in), "%s/run", top);	/* the directory from elsewhere */
	snprintf(out, sizeof(out), "%s/out", top);	/* outside it: must stay as it is */
	assert_int_equal(mkdir(in, 0755), 0);
	assert_int_equal(mkdir(out, 0755), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- inputs ---- */

static void infile_refuses_what_is_not_a_regular_file(void **state)
{
	char p[PATH_MAX], err[PATH_MAX + 128];
	(void)state;

	path(p, in, "fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_null(ab_infile_open(p, AB_INFILE_MAX_BYTES, err, sizeof(err)));	/* no writer: no block */
	assert_non_null(strstr(err, "a FIFO"));
	path(p, in, "link");
	assert_int_equal(symlink("/dev/zero", p), 0);
	assert_null(ab_infile_open(p, AB_INFILE_MAX_BYTES, err, sizeof(err)));
	assert_non_null(strstr(err, "symbolic link"));
	assert_null(ab_infile_open(in, AB_INFILE_MAX_BYTES, err, sizeof(err)));
	assert_non_null(strstr(err, "a directory"));
	path(p, in, "absent");
	assert_null(ab_infile_open(p, AB_INFILE_MAX_BYTES, err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
}

static void infile_size_limit(void **state)
{
	char p[PATH_MAX], err[PATH_MAX + 128];
	(void)state;

	path(p, in, "big");
	put(p, "0123456789");
	FILE *f = ab_infile_open(p, 10, err, sizeof(err));
	assert_non_null(f);
	fclose(f);
	assert_null(ab_infile_open(p, 9, err, sizeof(err)));
	assert_int_equal(errno, EFBIG);
	assert_non_null(strstr(err, "10 bytes, over the 9-byte limit"));

	/* a file that grows after the open still ends at the limit, in a read error */
	char buf[64];
	f = ab_infile_open(p, 10, err, sizeof(err));
	assert_non_null(f);
	FILE *w = fopen(p, "a");
	fputs("more", w);
	fclose(w);
	assert_int_equal(fread(buf, 1, sizeof(buf), f), 10);
	assert_true(ferror(f));
	fclose(f);
}

static void infile_line_limit(void **state)
{
	char p[PATH_MAX], *line = NULL;
	size_t cap = 0;
	(void)state;

	path(p, in, "lines");
	FILE *w = fopen(p, "w");
	assert_non_null(w);
	fprintf(w, "first\n");
	for (int i = 0; i < AB_INFILE_MAX_LINE - 1; i++)	/* the longest line allowed */
		fputc('a', w);
	fputc('\n', w);
	for (int i = 0; i < AB_INFILE_MAX_LINE + 10; i++)	/* one over */
		fputc('b', w);
	fprintf(w, "\nlast");	/* no newline at the end */
	assert_int_equal(fclose(w), 0);
	FILE *f = ab_infile_open(p, AB_INFILE_MAX_BYTES, NULL, 0);
	assert_non_null(f);
	assert_int_equal(ab_infile_line(f, &line, &cap), 5);
	assert_string_equal(line, "first");
	assert_int_equal(ab_infile_line(f, &line, &cap), AB_INFILE_MAX_LINE - 1);
	assert_int_equal(ab_infile_line(f, &line, &cap), -2);
	assert_int_equal(ab_infile_line(f, &line, &cap), 4);	/* the rest of the long line was skipped */
	assert_string_equal(line, "last");
	assert_int_equal(ab_infile_line(f, &line, &cap), -1);
	free(line);
	fclose(f);
}

/* ---- outputs ---- */

static void outfile_replaces_a_planted_link(void **state)
{
	char p[PATH_MAX], victim[PATH_MAX], keep[PATH_MAX];
	struct ab_outfile o;
	(void)state;

	path(victim, out, "created");	/* a link to a name that does not exist */
	path(p, in, "report.md");
	assert_int_equal(symlink(victim, p), 0);
	assert_non_null(ab_outfile_open(&o, in, "report.md"));
	fputs("ours\n", o.f);
	assert_int_equal(ab_outfile_close(&o), 0);
	assert_false(exists(victim));
	assert_ours(p, "ours\n");

	path(keep, out, "keep");	/* a link to a file that exists */
	put(keep, "keep\n");
	path(p, in, "tables.md");
	assert_int_equal(symlink(keep, p), 0);
	assert_non_null(ab_outfile_open(&o, in, "tables.md"));
	fputs("ours\n", o.f);
	assert_int_equal(ab_outfile_close(&o), 0);
	assert_ours(keep, "keep\n");
	assert_ours(p, "ours\n");
}

static void outfile_refuses_a_linked_directory(void **state)
{
	char p[PATH_MAX], victim[PATH_MAX], err[PATH_MAX + 128];
	struct ab_outfile o;
	(void)state;

	path(p, in, "log");
	assert_int_equal(symlink(out, p), 0);
	assert_null(ab_outfile_open(&o, in, "log/gnuplot.log"));
	assert_int_equal(ab_append_open(in, "log/x.log", err, sizeof(err)), -1);
	path(victim, out, "gnuplot.log");
	assert_false(exists(victim));
	path(victim, out, "x.log");
	assert_false(exists(victim));
}

static void append_takes_regular_files_only(void **state)
{
	char p[PATH_MAX], err[PATH_MAX + 128], keep[PATH_MAX];
	(void)state;

	path(p, in, "raw.fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(ab_append_open(in, "raw.fifo", err, sizeof(err)), -1);	/* no reader: no block */
	assert_non_null(strstr(err, "a FIFO"));
	path(keep, out, "keep2");
	put(keep, "keep\n");
	path(p, in, "raw.link");
	assert_int_equal(symlink(keep, p), 0);
	assert_int_equal(ab_append_open(in, "raw.link", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "symbolic link"));
	int fd = ab_append_open(in, "raw.csv", err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a\n", 2), 2);
	close(fd);
	fd = ab_append_open(in, "raw.csv", err, sizeof(err));
	assert_int_equal(write(fd, "b\n", 2), 2);
	close(fd);
	struct stat st;
	assert_int_equal(stat(keep, &st), 0);
	assert_int_equal(st.st_size, 5);
	path(p, in, "raw.csv");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 4);
}

static void private_dir_and_move(void **state)
{
	char priv[1024], p[PATH_MAX], victim[PATH_MAX];
	struct stat st;
	(void)state;

	int fd = ab_private_dir(priv, sizeof(priv), "test");
	assert_true(fd >= 0);
	assert_int_equal(stat(priv, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	int f = openat(fd, "fig.png", O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(f >= 0);
	assert_int_equal(write(f, "png\n", 4), 4);
	close(f);
	path(victim, out, "fig-victim");
	path(p, in, "fig.png");
	assert_int_equal(symlink(victim, p), 0);
	assert_int_equal(ab_outfile_move_to(fd, "fig.png", in, "fig.png"), 0);
	assert_false(exists(victim));
	assert_ours(p, "png\n");
	ab_private_dir_remove(fd, priv);
	assert_false(exists(priv));
}

/* /dev/shm is another file system than most work directories: the move copies. */
static void move_across_file_systems(void **state)
{
	char priv[] = "/dev/shm/affbench-files.XXXXXX", p[PATH_MAX];
	struct stat a, b;
	(void)state;

	if (!mkdtemp(priv) || stat(priv, &a) || stat(in, &b) || a.st_dev == b.st_dev) {
		if (priv[strlen(priv) - 1] != 'X')
			rmdir(priv);
		skip();
	}
	int fd = open(priv, O_RDONLY | O_DIRECTORY);
	int f = openat(fd, "x.svg", O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_int_equal(write(f, "svg\n", 4), 4);
	close(f);
	path(p, in, "x.svg");
	assert_int_equal(symlink("/dev/null", p), 0);
	assert_int_equal(ab_outfile_move_to(fd, "x.svg", in, "x.svg"), 0);
	assert_ours(p, "svg\n");
	ab_private_dir_remove(fd, priv);
}

/* figures/src for a run directory: made, reused when a directory, refused when
 * a link or a file; a move into it follows nothing. */
static void outdir_make_and_move_into(void **state)
{
	static const struct {
		const char *plant;	/* "link", "file", "dir" or NULL: what figures is first */
		int rc;
	} cases[] = { { NULL, 0 }, { "dir", 0 }, { "link", -1 }, { "file", -1 } };
	char p[PATH_MAX], q[PATH_MAX], priv[1024];
	struct stat st;
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path(p, in, "figures");
		if (cases[i].plant && !strcmp(cases[i].plant, "link"))
			assert_int_equal(symlink(out, p), 0);
		else if (cases[i].plant && !strcmp(cases[i].plant, "file"))
			close(open(p, O_WRONLY | O_CREAT | O_EXCL, 0644));
		else if (cases[i].plant)
			assert_int_equal(mkdir(p, 0755), 0);
		int rc = ab_outdir_make(in, "figures");
		assert_int_equal(rc, cases[i].rc);
		if (rc == 0) {
			assert_int_equal(ab_outdir_make(in, "figures/src"), 0);
			assert_int_equal(lstat(p, &st), 0);
			assert_true(S_ISDIR(st.st_mode));
			int fd = ab_private_dir(priv, sizeof(priv), "test");
			int f = openat(fd, "a.gp", O_WRONLY | O_CREAT | O_EXCL, 0644);
			assert_int_equal(write(f, "gp\n", 3), 3);
			close(f);
			assert_int_equal(ab_outfile_move_to(fd, "a.gp", in, "figures/src/a.gp"), 0);
			path(q, in, "figures/src/a.gp");
			assert_ours(q, "gp\n");
			ab_private_dir_remove(fd, priv);
			unlink(q);
			path(q, in, "figures/src");
			rmdir(q);
			rmdir(p);
		} else {
			assert_int_equal(ab_outdir_make(in, "figures/src"), -1);
			path(q, out, "src");
			assert_false(exists(q));
			unlink(p);
		}
	}
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)	/* each in a fresh directory */
	const struct CMUnitTest tests[] = {
		T(infile_refuses_what_is_not_a_regular_file), T(infile_size_limit), T(infile_line_limit),
		T(outfile_replaces_a_planted_link), T(outfile_refuses_a_linked_directory),
		T(append_takes_regular_files_only), T(private_dir_and_move), T(move_across_file_systems),
		T(outdir_make_and_move_into),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
