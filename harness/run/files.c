// SPDX-License-Identifier: GPL-2.0
/*
 * The append-only CSV files of a run directory (raw.csv, runs.csv,
 * failures.csv). Each row is formatted in memory and written with one
 * write(); a row that cannot be written whole (a full disk) is cut back out,
 * so what was written before stays valid and the caller fails the run.
 * --resume checks runs.csv against raw.csv before it trusts either.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "run.h"
#include "record/record.h"

/* Append text whole, or cut it back out: 0 or an errno value. */
static int h_csv_write(struct h_csv *c, const char *text, size_t len)
{
	off_t before = h_csv_size(c);
	ssize_t n = write(c->fd, text, len);

	if (n == (ssize_t)len)
		return 0;
	int e = n < 0 ? errno : ENOSPC;
	if (before >= 0 && ftruncate(c->fd, before) < 0)	/* never leave half a row */
		ab_msg("%s: cannot cut a torn row back out: %s", c->path, strerror(errno));
	errno = e;
	return e;
}

int h_csv_open(struct h_csv *c, const char *dir, const char *name, const char *header)
{
	struct stat st;

	snprintf(c->path, sizeof(c->path), "%s/%s", dir, name);
	c->fd = ab_append_open(dir, name, NULL, 0);	/* a regular file, never through a link */
	if (c->fd < 0 || fstat(c->fd, &st) < 0)
		return -1;
	if (st.st_size == 0 && header && h_csv_write(c, header, strlen(header)) != 0)
		return -1;
	return 0;
}

void h_csv_close(struct h_csv *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

off_t h_csv_size(const struct h_csv *c)
{
	struct stat st;

	return fstat(c->fd, &st) < 0 ? -1 : st.st_size;
}

int h_csv_row(struct h_csv *c, int n, const char *const *fields)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return errno;
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', m);
		ab_csv_field(m, fields[i]);
	}
	fputc('\n', m);
	int e = fclose(m) ? errno : h_csv_write(c, buf, len);
	free(buf);
	return e;
}

/* ---- resume ---- */

/* The whole of runs.csv, or NULL with err set: opened under the directory --resume
 * checked, and checked again on what was opened (trust.c), within bounds (sys/infile.h). */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = h_resume_fopen("runs.csv", AB_INFILE_MAX_BYTES, err, errlen);
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	FILE *m = open_memstream(&buf, &cap);
	char chunk[65536];
	size_t n;
	while (m && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	int bad = ferror(f);
	fclose(f);
	if (!m || fclose(m) || bad) {
		free(buf);
		ab_err(err, errlen, "%s: %s", path, strerror(EIO));
		return NULL;
	}
	*len = cap;
	return buf;
}

/* One runs.csv row: mark it done; its raw_bytes into *keep. 0 or -1 (not a row of ours). */
static int resume_row(struct h_resume *rs, char *line, long long *keep)
{
	char *f[9], *end;

	if (ab_csv_split(line, f, 9) != 8)
		return -1;
	long pi = strtol(f[1], &end, 10);
	if (*end || pi < 0 || pi >= rs->npoints)
		return -1;
	long rep = strtol(f[2], &end, 10);
	if (*end || rep < 1 || rep > (rs->added ? AB_REP_MAX : rs->repeat))
		return -1;
	long long kb = strtoll(f[6], &end, 10);
	if (*end || kb < 0)
		return -1;
	if (rep <= rs->repeat)	/* else one --precision added (precision.c reads it back) */
		rs->done[(rep - 1) * rs->npoints + pi] = 1;
	*keep = kb;
	return 0;
}

int h_resume_load(struct h_resume *rs, const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX], why[PATH_MAX + 128];
	size_t len;
	long long keep = 0;

	snprintf(path, sizeof(path), "%s/runs.csv", dir);
	char *text = slurp(path, &len, why, sizeof(why));
	if (!text)
		return ab_err(err, errlen, "--resume %s: no readable runs.csv (%s): cannot tell what "
			      "ran; raw.csv left as it is", dir, why);
	if (len == 0 || text[len - 1] != '\n' || memchr(text, '\0', len)) {
		free(text);
		return ab_err(err, errlen, "--resume %s: runs.csv ends in a torn row: raw.csv left as "
			      "it is; check both files, or start a new run", dir);
	}
	int lineno = 0, bad = 0;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && !bad;
	     l = strtok_r(NULL, "\n", &save))
		if (lineno++ && resume_row(rs, l, &keep) < 0)
			bad = lineno;
	free(text);
	if (bad)
		return ab_err(err, errlen, "--resume %s: runs.csv line %d is not a row of this plan: "
			      "raw.csv left as it is", dir, bad);
	struct stat st;
	snprintf(path, sizeof(path), "%s/raw.csv", dir);
	int fd = h_resume_openat("raw.csv", O_WRONLY, why, sizeof(why));	/* as runs.csv */
	if (fd < 0)
		return ab_err(err, errlen, "--resume %s: raw.csv refused: %s", dir, why);
	long long have = fstat(fd, &st) == 0 ? (long long)st.st_size : 0;
	int rc = 0;
	if (have < keep)
		rc = ab_err(err, errlen, "--resume %s: raw.csv has %lld bytes, runs.csv says %lld "
			    "were written: records were lost; raw.csv left as it is", dir, have, keep);
	/* records of a point that was running when the run stopped: it runs again */
	else if (have > keep && ftruncate(fd, (off_t)keep) < 0)
		rc = ab_err(err, errlen, "%s: cannot cut back the interrupted point: %s", path,
			    strerror(errno));
	close(fd);
	return rc;
}
