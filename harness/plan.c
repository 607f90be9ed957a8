/*
 * Plans: plain text, one benchmark block after another (format documented at
 * the top of harness/plans/default.plan). Expansion is the cross product of a
 * block's axes, in the order the axes are written (last axis varies fastest).
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
#include "harness.h"
#include "report/record.h"

const char *h_self_dir(void)
{
	static char dir[PATH_MAX];

	if (!dir[0]) {
		ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
		if (n <= 0) {
			strcpy(dir, ".");
		} else {
			dir[n] = '\0';
			char *slash = strrchr(dir, '/');
			if (slash)
				*slash = '\0';
		}
	}
	return dir;
}

/* bin/harness -> ../harness/plans and ../<bench>/ in the source tree; bin/ -> ../share/affbench/plans installed */
static const char *const plan_dirs[] = { "%s/../harness/plans", "%s/../share/affbench/plans" };

/* The names of the plans there are, for a message ("default, quick, cputestfs, ..."). */
static void plan_names(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < AB_ARRAY_SIZE(plan_dirs); i++) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), plan_dirs[i], h_self_dir());
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			size_t n = strlen(de->d_name);
			if (n > 5 && !strcmp(de->d_name + n - 5, ".plan") && o + n < len)
				o += (size_t)snprintf(buf + o, len - o, "%s%.*s", o ? ", " : "",
						      (int)(n - 5), de->d_name);
		}
		if (d)
			closedir(d);
	}
	for (int b = 0; h_registry[b]; b++) {
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "%s/../%s/%s.plan", h_self_dir(), h_registry[b]->name,
			 h_registry[b]->name);
		if (access(p, R_OK) == 0 && o + 64 < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", h_registry[b]->name);
	}
}

static int valid_plan_name(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(s) && strlen(s) < 64;
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
	return ab_err(err, errlen, "bad value '%s' for --plan: no such plan or file (plans: %s)", name,
		      names[0] ? names : "none found");
}

static int parse_pos(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

static int valid_word(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_'))
			return 0;
	return 1;
}

static size_t block_points(const struct h_block *b)
{
	size_t n = 1;

	for (int a = 0; a < b->naxes; a++)
		n *= (size_t)b->axes[a].nvals;
	return n;
}

static void block_defaults(struct h_block *b)
{
	memset(b, 0, sizeof(*b));
	b->duration = 1;
}

int h_plan_load(struct h_plan *p, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int lineno = 0, cap = 0;
	struct h_block *b = NULL;
	size_t total_before = 0;	/* points of the blocks before b */

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	if (!f)
		return ab_err(err, errlen, "plan %s: %s", path, strerror(errno));
#define PLAN_ERR(...) do { int _n = snprintf(err, errlen, "%s:%d: ", path, lineno); \
		if (_n >= 0 && (size_t)_n < errlen) snprintf(err + _n, errlen - _n, __VA_ARGS__); \
		goto fail; } while (0)
	while (fgets(line, sizeof(line), f)) {
		char *words[H_VALS_MAX + 2], *save = NULL, *w;
		int nw = 0;

		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
			if (nw == (int)AB_ARRAY_SIZE(words))
				PLAN_ERR("too many words (at most %d)", (int)AB_ARRAY_SIZE(words));
			words[nw++] = w;
		}
		if (nw == 0)
			continue;
		const char *key = words[0];
		if (!strcmp(key, "repeat")) {
			double r;
			if (nw != 2 || parse_pos(words[1], &r) || r != (int)r || r > 1000)
				PLAN_ERR("repeat wants one whole number in 1..1000");
			p->repeat = (int)r;
			continue;
		}
		if (!strcmp(key, "bench")) {
			if (nw != 2 || !valid_word(words[1]) || strlen(words[1]) >= sizeof(b->bench))
				PLAN_ERR("bench wants one name (letters, digits, - and _)");
			if (p->nblocks == cap) {
				cap = cap ? 2 * cap : 8;
				struct h_block *nb = realloc(p->blocks, cap * sizeof(*nb));
				if (!nb)
					PLAN_ERR("out of memory");
				p->blocks = nb;
			}
			if (b)
				total_before += block_points(b);
			b = &p->blocks[p->nblocks++];
			block_defaults(b);
			strcpy(b->bench, words[1]);
			continue;
		}
		if (!b)
			PLAN_ERR("'%s' before the first 'bench' line", key);
		if (!strcmp(key, "duration") || !strcmp(key, "timeout") || !strcmp(key, "estimate")) {
			double v;
			if (nw != 2 || parse_pos(words[1], &v))
				PLAN_ERR("%s wants one number of seconds > 0, got '%s'", key,
					 nw > 1 ? words[1] : "");
			if (key[0] == 'd' && v < AB_MIN_DURATION)
				PLAN_ERR("duration %s is below the %g s any benchmark can time", words[1],
					 AB_MIN_DURATION);
			*(key[0] == 'd' ? &b->duration : key[0] == 't' ? &b->timeout : &b->estimate) = v;
		} else if (!strcmp(key, "program")) {
			if (nw != 2)
				PLAN_ERR("program wants one path");
			/* relative to the plan file, so test plans can name a fake benchmark */
			/* absolute, so the copy of the plan in a run directory still finds it */
			char abs[PATH_MAX];
			if (words[1][0] == '/') {
				snprintf(b->program, sizeof(b->program), "%s", words[1]);
			} else if (realpath(path, abs)) {
				*strrchr(abs, '/') = '\0';
				snprintf(b->program, sizeof(b->program), "%.700s/%.300s", abs, words[1]);
			} else {
				PLAN_ERR("cannot resolve program '%s': %s", words[1], strerror(errno));
			}
		} else if (!strcmp(key, "axis")) {
			if (nw < 3)
				PLAN_ERR("axis wants a name and at least one value");
			if (b->naxes == H_AXES_MAX)
				PLAN_ERR("too many axes (at most %d)", H_AXES_MAX);
			if (!valid_word(words[1]) || strlen(words[1]) >= sizeof(b->axes[0].name))
				PLAN_ERR("bad axis name '%s'", words[1]);
			for (int i = 0; i < b->naxes; i++)
				if (!strcmp(b->axes[i].name, words[1]))
					PLAN_ERR("axis '%s' given twice", words[1]);
			struct h_axis *a = &b->axes[b->naxes++];
			memset(a, 0, sizeof(*a));
			strcpy(a->name, words[1]);
			for (int i = 2; i < nw; i++) {
				if (strchr(words[i], ';') || strchr(words[i], '='))
					PLAN_ERR("axis value '%s' may not hold ';' or '='", words[i]);
				a->vals[a->nvals++] = strdup(words[i]);
			}
			/* size_t and checked: 8 axes of 32 values would wrap an int */
			size_t pts = 1;
			for (int i = 0; i < b->naxes; i++)
				pts *= (size_t)b->axes[i].nvals;	/* at most 32^8 = 2^40 */
			if (pts > H_POINTS_MAX || total_before + pts > H_POINTS_MAX)
				PLAN_ERR("the plan expands to more than %d points (this block alone: %zu); "
					 "split it or drop values", H_POINTS_MAX, pts);
		} else if (!strcmp(key, "extra")) {
			for (int i = 1; i < nw; i++) {
				if (b->nextra == H_ARGS_MAX)
					PLAN_ERR("too many extra arguments");
				b->extra[b->nextra++] = strdup(words[i]);
			}
		} else if (!strcmp(key, "metrics")) {
			for (int i = 1; i < nw; i++) {
				if (b->nmetrics == H_ARGS_MAX)
					PLAN_ERR("too many metrics");
				b->metrics[b->nmetrics++] = strdup(words[i]);
			}
		} else {
			PLAN_ERR("unknown key '%s' (repeat, bench, duration, timeout, estimate, program, axis, "
				 "extra, metrics)", key);
		}
	}
	fclose(f);
	f = NULL;
	if (p->nblocks == 0) {
		lineno = 0;
		PLAN_ERR("no 'bench' block");
	}

	/* Expand: every block's cross product, in plan order (bounded above). */
	size_t total = 0;
	for (int i = 0; i < p->nblocks; i++) {
		b = &p->blocks[i];
		if (b->timeout == 0)
			b->timeout = b->duration * 4 + 30;
		if (b->estimate == 0)
			b->estimate = b->duration + 1;
		total += block_points(b);
	}
	p->points = calloc(total, sizeof(*p->points));
	if (!p->points) {
		lineno = 0;
		PLAN_ERR("out of memory");
	}
	for (int i = 0; i < p->nblocks; i++) {
		b = &p->blocks[i];
		int idx[H_AXES_MAX] = { 0 };
		for (;;) {
			struct h_point *pt = &p->points[p->npoints++];
			struct ab_config c;
			pt->blk = b;
			memcpy(pt->idx, idx, sizeof(idx));
			ab_config_init(&c);
			for (int a = 0; a < b->naxes; a++)
				ab_config_set(&c, b->axes[a].name, "%s", b->axes[a].vals[idx[a]]);
			ab_config_format(&c, pt->label, sizeof(pt->label));
			int a = b->naxes - 1;
			for (; a >= 0; a--) {
				if (++idx[a] < b->axes[a].nvals)
					break;
				idx[a] = 0;
			}
			if (a < 0)
				break;
		}
	}
	return 0;
fail:
	if (f)
		fclose(f);
	h_plan_free(p);
	return -1;
#undef PLAN_ERR
}

void h_plan_free(struct h_plan *p)
{
	for (int i = 0; i < p->nblocks; i++) {
		for (int a = 0; a < p->blocks[i].naxes; a++)
			for (int v = 0; v < p->blocks[i].axes[a].nvals; v++)
				free(p->blocks[i].axes[a].vals[v]);
		for (int e = 0; e < p->blocks[i].nextra; e++)
			free(p->blocks[i].extra[e]);
	}
	free(p->blocks);
	free(p->points);
	p->blocks = NULL;
	p->points = NULL;
	p->nblocks = p->npoints = 0;
}

int h_point_argv(const struct h_point *pt, const char *program, char **argv, int max,
		 char *durbuf, size_t durlen)
{
	static char fmt_csv[] = "--format", csv[] = "csv", rep[] = "--repeat", one[] = "1",
		    dur[] = "--duration", quiet[] = "--quiet";
	static char flags[H_AXES_MAX][40];
	const struct h_block *b = pt->blk;
	int n = 0;

	if (max < 8 + 2 * b->naxes + b->nextra + 1)
		return -1;
	snprintf(durbuf, durlen, "%g", b->duration);
	argv[n++] = (char *)program;
	argv[n++] = fmt_csv;
	argv[n++] = csv;
	argv[n++] = rep;
	argv[n++] = one;
	argv[n++] = dur;
	argv[n++] = durbuf;
	argv[n++] = quiet;
	for (int a = 0; a < b->naxes; a++) {
		snprintf(flags[a], sizeof(flags[a]), "--%s", b->axes[a].name);
		argv[n++] = flags[a];
		argv[n++] = b->axes[a].vals[pt->idx[a]];
	}
	for (int e = 0; e < b->nextra; e++)
		argv[n++] = b->extra[e];
	argv[n] = NULL;
	return n;
}
