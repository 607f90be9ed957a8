// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare --sort given|kernel|date|host: the runs in the order of a
 * machine.txt fact, read on its own (machines.c reads every fact for its table).
 * machine.txt is outside text: read bounded (sys/infile.h), each value cut to VAL_MAX.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sys/common.h"
#include "sys/infile.h"
#include "compare.h"

#define VAL_MAX 80

struct sortkey {
	char *dir;
	char key[VAL_MAX + 1];
	long long when;		/* date: seconds since the epoch, UTC */
	int known, pos;
};

/* label's value in dir's machine.txt into out (cut to len): the first line's when first
 * (the date the run began), else the last's (a resumed run appends). 1 when found. */
static int fact(const char *dir, const char *label, int first, char *out, size_t len)
{
	char path[4096], *line = NULL;
	size_t cap = 0, ll = strlen(label);
	ssize_t n;
	int found = 0;

	snprintf(path, sizeof(path), "%s/machine.txt", dir);
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_SMALL, NULL, 0);
	while (f && (!first || !found) && (n = ab_infile_line(f, &line, &cap)) != -1)
		if (n > 0 && !strncmp(line, label, ll) && line[ll] == ' ') {
			const char *v = line + ll + strspn(line + ll, " ");
			snprintf(out, len, "%.*s", VAL_MAX, v);
			found = 1;
		}
	free(line);
	if (f)
		fclose(f);
	return found;
}

/* "Linux 6.18.44-fc #1 ..." -> "6.18.44-fc": the release, compared as versions */
static void kernel_release(const char *v, char *out, size_t len)
{
	const char *r = strchr(v, ' ');
	r = r ? r + 1 : v;
	snprintf(out, len, "%.*s", (int)strcspn(r, " "), r);
}

static int by_key(const void *pa, const void *pb, void *date)
{
	const struct sortkey *a = pa, *b = pb;
	if (a->known != b->known)	/* unknown machines last */
		return b->known - a->known;
	int d = !a->known ? 0 : *(int *)date ? (a->when > b->when) - (a->when < b->when)
					     : strverscmp(a->key, b->key);
	return d ? d : a->pos - b->pos;	/* stable: ties as given */
}

void h_compare_sort(char **dirs, int nr, int by)
{
	struct sortkey *s = calloc((size_t)nr, sizeof(*s));
	const char *label = by == H_SORT_KERNEL ? "kernel" : by == H_SORT_HOST ? "host" : "date";

	if (!s)
		ab_fail("compare: out of memory");
	for (int k = 0; k < nr; k++) {
		char val[VAL_MAX + 1];
		int found = fact(dirs[k], label, by == H_SORT_DATE, val, sizeof(val));
		const char *v = found ? val : NULL;
		s[k].dir = dirs[k];
		s[k].pos = k;
		if (v) {
			struct tm tm;
			memset(&tm, 0, sizeof(tm));
			const char *end = by == H_SORT_DATE ?
					  strptime(v, "%Y-%m-%d %H:%M:%S %z", &tm) : NULL;
			if (by == H_SORT_KERNEL)
				kernel_release(v, s[k].key, sizeof(s[k].key));
			else
				snprintf(s[k].key, sizeof(s[k].key), "%s", v);
			s[k].when = end ? (long long)timegm(&tm) - tm.tm_gmtoff : 0;
			s[k].known = by != H_SORT_DATE || end;
		}
	}
	qsort_r(s, (size_t)nr, sizeof(*s), by_key, &(int){ by == H_SORT_DATE });
	for (int k = 0; k < nr; k++)
		dirs[k] = s[k].dir;
	free(s);
}
