// SPDX-License-Identifier: GPL-2.0
/*
 * Where plans are: harness/plans/NAME.plan next to the harness's source tree
 * or in the installed share directory, and each benchmark's NAME/NAME.plan.
 * Finding one by name, and listing them (harness run --plan list).
 */
#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/infile.h"
#include "run.h"

/*
 * bin/harness -> ../harness/plans and ../<bench>/ in the source tree;
 * bin/ -> ../share/affbench/plans installed
 */
static const char *const plan_dirs[] = { "%s/../harness/plans", "%s/../share/affbench/plans" };

static int valid_plan_name(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(s) && strlen(s) < 64;
}

/* The plans there are, by name, sorted; a name found twice is the one h_plan_find takes. */
#define PLANS_MAX 64
struct plan_entry {
	char name[64];
	char path[PATH_MAX];
};

static int has_plan(const struct plan_entry *e, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(e[i].name, name))
			return 1;
	return 0;
}

static int add_plan(struct plan_entry *e, int n, const char *name, const char *path)
{
	if (n == PLANS_MAX || has_plan(e, n, name) || access(path, R_OK))
		return n;
	snprintf(e[n].name, sizeof(e[n].name), "%s", name);
	snprintf(e[n].path, sizeof(e[n].path), "%s", path);
	return n + 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct plan_entry *)a)->name, ((const struct plan_entry *)b)->name);
}

static int find_plans(struct plan_entry *e)
{
	int n = 0;

	for (size_t i = 0; i < AB_ARRAY_SIZE(plan_dirs); i++) {
		char dir[PATH_MAX], name[64], path[PATH_MAX + 64];
		snprintf(dir, sizeof(dir), plan_dirs[i], h_self_dir());
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			size_t len = strlen(de->d_name);
			if (len <= 5 || len - 5 >= sizeof(name) || strcmp(de->d_name + len - 5, ".plan"))
				continue;
			snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (valid_plan_name(name))
				n = add_plan(e, n, name, path);
		}
		if (d)
			closedir(d);
	}
	for (int b = 0; h_registry[b]; b++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/../%s/%s.plan", h_self_dir(), h_registry[b]->name,
			 h_registry[b]->name);
		n = add_plan(e, n, h_registry[b]->name, path);
	}
	qsort(e, (size_t)n, sizeof(*e), by_name);
	return n;
}

/* The names of the plans there are, for a message ("cputestfs, default, quick, ..."). */
static void plan_names(char *buf, size_t len)
{
	static struct plan_entry e[PLANS_MAX];
	int n = find_plans(e);
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && o + strlen(e[i].name) + 3 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", e[i].name);
}

int h_plan_find(const char *name, char *path, size_t len, char *err, size_t errlen)
{
	char names[1024];

	struct stat st;
	/* a path, or an existing regular file: the folder cputestfs/ is not a plan */
	if (strchr(name, '/') || (stat(name, &st) == 0 && S_ISREG(st.st_mode))) {
		if (access(name, R_OK) != 0)
			return ab_err(err, errlen, "bad value '%s' for --plan: %s", name, strerror(errno));
		snprintf(path, len, "%s", name);
		return 0;
	}
	if (valid_plan_name(name)) {
		for (size_t i = 0; i < AB_ARRAY_SIZE(plan_dirs); i++) {
			char dir[PATH_MAX];
			snprintf(dir, sizeof(dir), plan_dirs[i], h_self_dir());
			snprintf(path, len, "%s/%s.plan", dir, name);
			if (access(path, R_OK) == 0)
				return 0;
		}
		snprintf(path, len, "%s/../%s/%s.plan", h_self_dir(), name, name);
		if (access(path, R_OK) == 0)
			return 0;
	}
	plan_names(names, sizeof(names));
	return ab_err(err, errlen, "bad value '%s' for --plan: no such plan or file (plans: %s%s)", name,
		      names[0] ? names : "none found", names[0] ? "; harness run --plan list" : "");
}

/*
 * What a plan is for: its first comment, up to the first line that ends a
 * sentence, without the "affbench plan: NAME" every plan starts with.
 */
static void plan_summary(const char *path, const char *name, char *buf, size_t len)
{
	char err[256], *line = NULL;
	size_t cap = 0, o = 0;
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_SMALL, err, sizeof(err));
	ssize_t n;

	buf[0] = '\0';
	while (f && (n = ab_infile_line(f, &line, &cap)) >= 0 && line[0] == '#') {
		const char *t = line + 1 + strspn(line + 1, " \t");
		if (!*t)
			break;
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", t);
		if (o >= len || t[strlen(t) - 1] == '.')
			break;
	}
	free(line);
	if (f)
		fclose(f);
	char prefix[96];
	snprintf(prefix, sizeof(prefix), "affbench plan: %.63s ", name);
	if (!strncmp(buf, prefix, strlen(prefix)))
		memmove(buf, buf + strlen(prefix), strlen(buf + strlen(prefix)) + 1);
	size_t blen = strlen(buf);	/* "(about 2 minutes ...)." -> "about 2 minutes ..." */
	if (blen > 3 && buf[0] == '(' && !strcmp(buf + blen - 2, ").")) {
		buf[blen - 2] = '\0';
		memmove(buf, buf + 1, blen - 2);
	}
}

/* Expected seconds: every point's estimate in each repetition (the run's default 5). */
static double plan_seconds(const struct h_timings *t, const struct h_plan *p)
{
	double s = 0;

	for (int rep = 1; rep <= (p->repeat ? p->repeat : 5); rep++)
		for (int i = 0; i < p->npoints; i++)
			s += h_timings_estimate(t, &p->points[i], rep, NULL);
	return s;
}

void h_plan_list(FILE *out)
{
	static struct plan_entry e[PLANS_MAX];
	struct h_timings t;
	int n = find_plans(e);

	h_timings_load(&t);
	if (n == 0)
		fprintf(out, "no plans found next to %s\n", h_self_dir());
	for (int i = 0; i < n; i++) {
		struct h_plan p;
		char err[1024], what[512], eta[32];
		if (h_plan_load(&p, e[i].path, err, sizeof(err)) < 0) {
			fprintf(out, "%-10s (cannot be read: %s)\n", e[i].name, err);
			continue;
		}
		plan_summary(e[i].path, e[i].name, what, sizeof(what));
		h_fmt_dur(plan_seconds(&t, &p), eta, sizeof(eta));
		fprintf(out, "%-10s %5d points x %d repetitions (estimated %s)  %s\n", e[i].name,
			p.npoints, p.repeat ? p.repeat : 5, eta, what[0] ? what : "(no comment)");
		h_plan_free(&p);
	}
	h_timings_free(&t);
}
