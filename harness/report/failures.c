// SPDX-License-Identifier: GPL-2.0
/*
 * report.md's failed and skipped points, and the skips the levers table names, from
 * failures.csv (bench,config,rep,exit,reason). A plan repeats each point, so a point that
 * fails or is skipped the same way in every repetition is one row with its repetitions
 * ("1-6"), never six. Rows are grouped by sorting, so a long file costs n log n, and kept in
 * the order their first repetition was written. failures.csv may come from anyone, like
 * raw.csv: it is read within bounds and every cell is made safe for markdown.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "report.h"
#include "record/record.h"
#include "render/render.h"

struct frow {
	char *f[5];	/* bench, config, rep, exit, reason: pointers into line */
	char *line;
	size_t idx;	/* its place in the file */
};

struct fgroup {
	size_t first, n;	/* rows[first .. first+n) once sorted; first's idx orders groups */
};

/* Rows of one group: the same bench, config, exit and reason. */
static int key_cmp(const struct frow *x, const struct frow *y)
{
	static const int key[] = { 0, 1, 3, 4 };

	for (size_t k = 0; k < AB_ARRAY_SIZE(key); k++) {
		int c = strcmp(x->f[key[k]], y->f[key[k]]);
		if (c)
			return c;
	}
	return 0;
}

/* Groups together, each in file order. */
static int row_cmp(const void *a, const void *b)
{
	const struct frow *x = a, *y = b;
	int c = key_cmp(x, y);

	return c ? c : x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int grp_cmp(const void *a, const void *b, void *rows)
{
	size_t x = ((const struct frow *)rows)[((const struct fgroup *)a)->first].idx;
	size_t y = ((const struct frow *)rows)[((const struct fgroup *)b)->first].idx;

	return x < y ? -1 : x > y;
}

/* A repetition number as written by the harness (1..999999), or -1 for anything else. */
static long rep_num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return s[0] >= '1' && s[0] <= '9' && !*end && v <= 999999 ? v : -1;
}

/* The group's repetitions: three or more consecutive numbers as "1-6", others as they are. */
static void reps_cell(FILE *f, const struct frow *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		long v = rep_num(r[i].f[2]);
		size_t j = i;
		while (v > 0 && j + 1 < n && rep_num(r[j + 1].f[2]) == v + (long)(j + 1 - i))
			j++;
		if (j < i + 2)
			j = i;	/* one or two: each said alone */
		fprintf(f, "%s", i ? ", " : "");
		h_md_cell(f, r[i].f[2]);
		if (j > i)
			fprintf(f, "-%ld", v + (long)(j - i));
		i = j;
	}
}

/* failures.csv's data rows, each split in place; NULL when there is none (or no memory). */
static struct frow *load_rows(const char *dir, size_t *np)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0, n = 0, max = 0;
	struct frow *rows = NULL;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/failures.csv", dir);
	FILE *in = ab_infile_open(path, AB_INFILE_MAX_BYTES, NULL, 0);	/* checked before */
	while (in && (len = ab_infile_line(in, &line, &cap)) != -1) {
		char *fl[6];
		if (len < 0)
			continue;
		line[strcspn(line, "\r\n")] = '\0';
		if (!strncmp(line, "bench,", 6) || ab_csv_split(line, fl, 6) != 5)
			continue;
		if (ab_grow(&rows, &max, n + 1, sizeof(*rows), 64) < 0)
			break;
		rows[n] = (struct frow){ .line = line, .idx = n };
		memcpy(rows[n].f, fl, sizeof(rows[n].f));
		n++;
		line = NULL;	/* the row keeps it */
		cap = 0;
	}
	free(line);
	if (in)
		fclose(in);
	*np = n;
	return rows;
}

static void free_rows(struct frow *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].line);
	free(rows);
}

/* The groups of sorted rows, in the order their first row was written. */
static struct fgroup *group_rows(struct frow *rows, size_t n, size_t *ng)
{
	struct fgroup *g = malloc((n ? n : 1) * sizeof(*g));

	*ng = 0;
	if (!g)
		return NULL;
	qsort(rows, n, sizeof(*rows), row_cmp);
	for (size_t i = 0; i < n; i++)
		if (i && !key_cmp(&rows[i - 1], &rows[i]))
			g[*ng - 1].n++;
		else
			g[(*ng)++] = (struct fgroup){ .first = i, .n = 1 };
	qsort_r(g, *ng, sizeof(*g), grp_cmp, rows);
	return g;
}

void h_failures_table(FILE *f, const char *dir)
{
	size_t n, ng;
	struct frow *rows = load_rows(dir, &n);
	struct fgroup *g = rows ? group_rows(rows, n, &ng) : NULL;

	if (g && ng) {
		fprintf(f, "## Failed and skipped points\n\n| bench | config | reps | exit | reason |\n"
			   "|---|---|---|---|---|\n");
		for (size_t i = 0; i < ng; i++) {
			const struct frow *r = &rows[g[i].first];
			for (int c = 0; c < 5; c++) {	/* bench, config, reps, exit, reason */
				fputs(c ? " | " : "| ", f);
				if (c == 2)
					reps_cell(f, r, g[i].n);
				else
					h_md_cell(f, r->f[c]);
			}
			fputs(" |\n", f);
		}
		fprintf(f, "\nA failed point is never written as a number; see log/ for each one's "
			   "stderr.\n\n");
	}
	free(g);
	free_rows(rows, n);
}

/* A skip's reason for the levers table's cell: the harness's "skipped: " said once by the
 * cell itself, and the text made safe for markdown. */
static void skip_reason(char *dst, size_t len, const char *reason)
{
	if (!strncmp(reason, "skipped: ", 9))
		reason += 9;
	if ((size_t)snprintf(dst, len, "%s", reason) >= len && len > 5) {	/* cut at a word */
		size_t sp = len - 5;	/* room for " ..." and its end */
		while (sp > 0 && dst[sp] != ' ')
			sp--;
		memcpy(dst + sp, " ...", 5);
	}
	for (char *c = dst; *c; c++)	/* outside text, into a markdown cell */
		if (*c == '|' || *c == '`' || (unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
}

int h_load_skips(const char *dir, struct ab_skip *sk, int max)
{
	size_t n;
	struct frow *rows = load_rows(dir, &n);
	int k = 0;

	for (size_t i = 0; rows && i < n && k < max; i++) {
		const struct frow *r = &rows[i];
		int dup = 0;
		if (strcmp(r->f[3], "4") || strlen(r->f[0]) >= sizeof(sk->bench) ||
		    strlen(r->f[1]) >= sizeof(sk->config))
			continue;
		for (int j = 0; j < k && !dup; j++)
			dup = !strcmp(sk[j].bench, r->f[0]) && !strcmp(sk[j].config, r->f[1]);
		if (dup)
			continue;
		snprintf(sk[k].bench, sizeof(sk->bench), "%s", r->f[0]);
		snprintf(sk[k].config, sizeof(sk->config), "%s", r->f[1]);
		skip_reason(sk[k].reason, sizeof(sk->reason), r->f[4]);
		k++;
	}
	free_rows(rows, n);
	return k;
}
