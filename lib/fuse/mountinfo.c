// SPDX-License-Identifier: GPL-2.0
/* /proc/self/mountinfo parsing (see mountinfo_i.h). */
#include "fuse/mountinfo_i.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/grow.h"

/*
 * Undo the kernel's octal escapes (\040 space, \011 tab, \012 newline, \134
 * backslash). 0, or -1 when it does not fit or holds \000: a mount point cut
 * short could name another directory.
 */
static int unescape(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	while (*src) {
		if (o + 1 >= len)
			return -1;
		if (src[0] == '\\' && src[1] >= '0' && src[1] <= '3' && src[2] >= '0' &&
		    src[2] <= '7' && src[3] >= '0' && src[3] <= '7') {
			dst[o] = (char)((src[1] - '0') * 64 + (src[2] - '0') * 8 + (src[3] - '0'));
			if (!dst[o++])
				return -1;
			src += 4;
		} else {
			dst[o++] = *src++;
		}
	}
	dst[o] = '\0';
	return 0;
}

/* src into dst whole, or -1. */
static int copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

/* "maj:min", decimal digits only, or -1. */
static int parse_dev(const char *tok, unsigned *major, unsigned *minor)
{
	int end = 0;

	if (tok[0] < '0' || tok[0] > '9' || sscanf(tok, "%u:%n", major, &end) != 1 || !end ||
	    tok[end] < '0' || tok[end] > '9')
		return -1;
	tok += end;
	end = 0;
	if (sscanf(tok, "%u%n", minor, &end) != 1 || tok[end])
		return -1;
	return 0;
}

/*
 * "36 35 98:0 /root /mnt/point rw,noatime master:1 - fuse.hello src rw,user_id=0"
 * Fields: id parent maj:min root mountpoint options [optional...] - fstype source superopts.
 */
int ab_mi_parse(char *line, struct ab_mi *e)
{
	char *save = NULL, *tok;
	int field = 0;

	memset(e, 0, sizeof(*e));
	line[strcspn(line, "\n")] = '\0';
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 2 && parse_dev(tok, &e->major, &e->minor) < 0)
			return -1;
		if (field == 4 && unescape(e->mnt, sizeof(e->mnt), tok) < 0)
			return -1;
		if (field >= 6 && strcmp(tok, "-") == 0) {
			char *fstype = strtok_r(NULL, " ", &save);
			char *source = strtok_r(NULL, " ", &save);
			char *opts = strtok_r(NULL, " ", &save);
			if (!fstype || !source ||
			    copy(e->fstype, sizeof(e->fstype), fstype) < 0 ||
			    unescape(e->source, sizeof(e->source), source) < 0 ||
			    copy(e->superopts, sizeof(e->superopts), opts ? opts : "") < 0)
				return -1;
			return 0;
		}
	}
	return -1;
}

int ab_mi_is_fuse(const struct ab_mi *e)
{
	return strcmp(e->fstype, "fuse") == 0 || strncmp(e->fstype, "fuse.", 5) == 0;
}

int ab_mi_has_opt(const char *opts, const char *opt)
{
	size_t ol = strlen(opt);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, opt, ol) && (p[ol] == ',' || p[ol] == '\0'))
			return 1;
	return 0;
}

/*
 * Canonical form of a mountpoint as mountinfo prints it: absolute, no trailing
 * slash, parent resolved with realpath. Only the parent is resolved: realpath on
 * the mountpoint itself would lstat into a possibly hung FUSE root.
 */
static int canon_path(const char *path, char *out, size_t len)
{
	char tmp[PATH_MAX], parent[PATH_MAX];
	int n;

	if (path[0] != '/' && getcwd(parent, sizeof(parent)))
		n = snprintf(tmp, sizeof(tmp), "%s/%s", parent, path);
	else
		n = snprintf(tmp, sizeof(tmp), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';

	char *slash = strrchr(tmp, '/');
	if (!slash || slash == tmp) {
		n = snprintf(out, len, "%s", tmp);
	} else {
		*slash = '\0';
		if (realpath(tmp, parent))
			n = snprintf(out, len, "%s/%s", strcmp(parent, "/") ? parent : "", slash + 1);
		else
			n = snprintf(out, len, "%s/%s", tmp, slash + 1);
	}
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Calls fn(e, arg) for every parsable line of file; stops when fn returns non-zero. */
static int each(const char *file, int (*fn)(const struct ab_mi *, void *), void *arg)
{
	char *line = NULL;
	size_t cap = 0;
	struct ab_mi *e = malloc(sizeof(*e));
	FILE *f = fopen(file, "re");
	int rc = 0;

	if (!f || !e) {
		free(e);
		if (f)
			fclose(f);
		return -1;
	}
	while (getline(&line, &cap, f) > 0)
		if (ab_mi_parse(line, e) == 0 && (rc = fn(e, arg)) != 0)
			break;
	free(line);
	free(e);
	fclose(f);
	return rc < 0 ? -1 : 0;
}

struct find_arg {
	const char *want;
	struct ab_mi *out;
	int found;
};

static int find_one(const struct ab_mi *e, void *arg)
{
	struct find_arg *a = arg;

	if (strcmp(e->mnt, a->want) == 0) {
		*a->out = *e;
		a->found = 1;
	}
	return 0;
}

int ab_mi_find(const char *path, struct ab_mi *out)
{
	return ab_mi_find_in(AB_MI_SELF, path, out);
}

int ab_mi_find_in(const char *file, const char *path, struct ab_mi *out)
{
	char want[PATH_MAX];
	struct find_arg a = { want, out, 0 };

	if (canon_path(path, want, sizeof(want)) < 0)
		return 0;
	if (each(file, find_one, &a) < 0)
		return -1;
	return a.found;
}

struct list_arg {
	const char *dir;
	size_t dlen;
	struct ab_mi *v;
	int n;
	size_t cap;
};

static int list_one(const struct ab_mi *e, void *arg)
{
	struct list_arg *a = arg;

	if (strncmp(e->mnt, a->dir, a->dlen) != 0 || e->mnt[a->dlen] != '/' ||
	    e->mnt[a->dlen + 1] == '\0' || strchr(e->mnt + a->dlen + 1, '/'))
		return 0;
	if (ab_grow(&a->v, &a->cap, (size_t)a->n + 1, sizeof(*a->v), 4) < 0)
		return -1;
	a->v[a->n++] = *e;
	return 0;
}

int ab_mi_list_children(const char *dir, struct ab_mi **list)
{
	return ab_mi_list_children_in(AB_MI_SELF, dir, list);
}

int ab_mi_list_children_in(const char *file, const char *dir, struct ab_mi **list)
{
	struct list_arg a = { dir, strlen(dir), NULL, 0, 0 };

	*list = NULL;
	if (each(file, list_one, &a) < 0) {
		free(a.v);
		return -1;
	}
	*list = a.v;
	return a.n;
}
