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
#include "report/record.h"

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

int h_csv_write(struct h_csv *c, const char *text, size_t len)
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

/* The whole of runs.csv, or NULL with err set (sys/infile.h: a regular file within bounds). */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_BYTES, err, errlen);
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
	if (*end || rep < 1 || rep > rs->repeat)
		return -1;
	long long kb = strtoll(f[6], &end, 10);
	if (*end || kb < 0)
		return -1;
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
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && !bad; l = strtok_r(NULL, "\n", &save))
		if (lineno++ && resume_row(rs, l, &keep) < 0)
			bad = lineno;
	free(text);
	if (bad)
		return ab_err(err, errlen, "--resume %s: runs.csv line %d is not a row of this plan: "
			      "raw.csv left as it is", dir, bad);
	struct stat st;
	snprintf(path, sizeof(path), "%s/raw.csv", dir);
	int fd = ab_append_open(dir, "raw.csv", why, sizeof(why));	/* truncate() would follow a link */
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

/*
 * Who may have written what --resume reads: root, or the user resuming. A file
 * another user owns or may write (a plan.plan that names what runs, a runs.csv
 * that says what is done) is theirs to change, now or while the run reads it;
 * resuming as root would act on their word. Absent files are the run's to create.
 */
static const char *untrusted(const struct stat *st, int want_dir, char *why, size_t len)
{
	uid_t me = geteuid();

	if (want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		return S_ISLNK(st->st_mode) ? "a symbolic link" : ab_file_kind(st->st_mode);
	if (st->st_uid != 0 && st->st_uid != me)
		snprintf(why, len, "owned by uid %u, not by root or you (uid %u)", (unsigned)st->st_uid,
			 (unsigned)me);
	else if (st->st_mode & 022)
		snprintf(why, len, "group- or world-writable (mode %04o)", (unsigned)(st->st_mode & 07777));
	else if (!want_dir && st->st_nlink > 1)	/* another name elsewhere: it is cut back */
		snprintf(why, len, "a file with %lu hard links", (unsigned long)st->st_nlink);
	else
		return NULL;
	return why;
}

void h_resume_trust(const char *dir)
{
	static const char *const files[] = { "plan.plan", "runs.csv", "raw.csv", "hist.csv",
					     "failures.csv", "machine.txt", "run.lock" };
	char why[128];
	struct stat st;
	const char *bad;
	/* the directory named is followed, as any path on a command line; nothing below it */
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		ab_usage_error("run: bad value '%s' for --resume: %s", dir, strerror(errno));
	if ((bad = untrusted(&st, 1, why, sizeof(why))))
		ab_usage_error("run: --resume %s refused: the directory is %s; a run directory from "
			       "elsewhere can be plotted and compared, not resumed", dir, bad);
	for (size_t i = 0; i <= AB_ARRAY_SIZE(files); i++) {
		const char *name = i < AB_ARRAY_SIZE(files) ? files[i] : "log";
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			ab_usage_error("run: --resume %s refused: %s: %s", dir, name, strerror(errno));
		}
		if ((bad = untrusted(&st, i == AB_ARRAY_SIZE(files), why, sizeof(why))))
			ab_usage_error("run: --resume %s refused: %s/%s is %s; a run directory from "
				       "elsewhere can be plotted and compared, not resumed", dir, dir,
				       name, bad);
	}
	close(fd);
}

