// SPDX-License-Identifier: GPL-2.0
/*
 * Plans: plain text, one benchmark block after another (format documented at
 * the top of harness/plans/default.plan and in docs/plans.md). Parsing is one
 * table of keys, each with its handler and limits; expansion is the cross
 * product of a block's axes, in the order the axes are written (last axis
 * varies fastest).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "sys/infile.h"
#include "sys/parse.h"
#include "harness.h"
#include "record/record.h"
#include "render/desc.h"

/* What the parser carries from line to line. The block being filled is always
 * the last of p->blocks, found again each time: the array moves as it grows. */
struct parse {
	struct h_plan *p;
	const char *path;
	FILE *f;		/* the caller's (h_plan_load_file), or NULL: path is opened */
	int lineno;
	size_t cap;		/* allocated blocks */
	char *err;
	size_t errlen;
};

struct plan_key {
	const char *name;
	int (*parse)(struct parse *ps, const struct plan_key *k, char **args, int nargs);
	int min_args, max_args;	/* words after the key */
	int in_block;		/* only after a 'bench' line */
	size_t field;		/* numbers: offsetof(struct h_block, ...) */
	double min, max;	/* numbers: the range, min excluded when 0 */
	const char *args;	/* for messages: what the key wants */
};

/* "FILE:LINE: reason" (LINE 0: the file as a whole). -1. */
static int __attribute__((format(printf, 2, 3))) plan_err(struct parse *ps, const char *fmt, ...)
{
	va_list ap;
	int n = ps->lineno ? snprintf(ps->err, ps->errlen, "%s:%d: ", ps->path, ps->lineno) :
			     snprintf(ps->err, ps->errlen, "%s: ", ps->path);

	if (n >= 0 && (size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static struct h_block *cur_block(struct parse *ps)
{
	return &ps->p->blocks[ps->p->nblocks - 1];
}

static int valid_word(const char *s)
{
	return strspn(s, H_WORD_CHARS) == strlen(s);
}

/* Points of one block, and of the blocks before the current one. */
static size_t block_points(const struct h_block *b)
{
	size_t n = 1;

	for (int a = 0; a < b->naxes; a++)
		n *= (size_t)b->axes[a].nvals;	/* at most 32^8 = 2^40: no wrap in a size_t */
	return n;
}

static size_t points_before(const struct h_plan *p, int nblocks)
{
	size_t n = 0;

	for (int i = 0; i < nblocks; i++)
		n += block_points(&p->blocks[i]);
	return n;
}

/* ---- the keys ---- */

static int key_repeat(struct parse *ps, const struct plan_key *k, char **args, int nargs)
{
	double r;

	(void)nargs;
	if (ab_parse_double(args[0], &r) || !(r >= k->min && r <= k->max) || r != (int)r)
		return plan_err(ps, "repeat wants %s, got '%s'", k->args, args[0]);
	ps->p->repeat = (int)r;
	return 0;
}

/* precision P%, budget DURATION: when harness run stops adding repetitions (run/precision.c). */
static int key_stop(struct parse *ps, const struct plan_key *k, char **args, int nargs)
{
	int bad = k->name[0] == 'p' ? h_parse_precision(args[0], &ps->p->precision) :
				      h_parse_budget(args[0], &ps->p->budget);

	(void)nargs;
	return bad ? plan_err(ps, "%s wants %s, got '%s'", k->name, k->args, args[0]) : 0;
}

static int key_bench(struct parse *ps, const struct plan_key *k, char **args, int nargs)
{
	struct h_plan *p = ps->p;

	(void)nargs;
	if (!valid_word(args[0]) || strlen(args[0]) >= sizeof(p->blocks[0].bench))
		return plan_err(ps, "bench wants %s, got '%s'", k->args, args[0]);
	if (p->nblocks == H_BLOCKS_MAX)
		return plan_err(ps, "more than %d bench blocks", H_BLOCKS_MAX);
	if (points_before(p, p->nblocks) + 1 > H_POINTS_MAX)
		return plan_err(ps, "the plan expands to more than %d points", H_POINTS_MAX);
	if (ab_grow(&p->blocks, &ps->cap, (size_t)p->nblocks + 1, sizeof(*p->blocks), 8) < 0)
		return plan_err(ps, "out of memory");
	struct h_block *b = &p->blocks[p->nblocks++];
	memset(b, 0, sizeof(*b));
	b->instrumented = 1;	/* one repetition per point keeps the probes: docs/plans.md */
	b->duration = 1;
	b->line = ps->lineno;
	strcpy(b->bench, args[0]);
	return 0;
}

/* duration, timeout, estimate: seconds into a double of the block. */
static int key_seconds(struct parse *ps, const struct plan_key *k, char **args, int nargs)
{
	double v;

	(void)nargs;
	if (ab_parse_double(args[0], &v) || !(v >= k->min) || (k->min == 0 && v == 0) || v > k->max)
		return plan_err(ps, "%s wants %s, got '%s'", k->name, k->args, args[0]);
	*(double *)((char *)cur_block(ps) + k->field) = v;
	return 0;
}

/* A plan names benchmarks; it never names a program to run: a run directory from
 * elsewhere, resumed as root, would otherwise run whatever its plan.plan said. */
static int key_program(struct parse *ps, const struct plan_key *k, char **args, int nargs)
{
	(void)k;
	(void)args;
	(void)nargs;
	return plan_err(ps, "'program' is not a plan key: a plan names registered benchmarks, "
			"and the harness runs each one's own bin/NAME");
}

static int key_axis(struct parse *ps, const struct plan_key *k, char **args, int nargs)
{
	struct h_block *b = cur_block(ps);

	(void)k;
	if (b->naxes == H_AXES_MAX)
		return plan_err(ps, "too many axes (at most %d)", H_AXES_MAX);
	if (!valid_word(args[0]) || strlen(args[0]) >= sizeof(b->axes[0].name))
		return plan_err(ps, "bad axis name '%s' (letters, digits, - and _)", args[0]);
	for (int i = 0; i < b->naxes; i++)
		if (!strcmp(b->axes[i].name, args[0]))
			return plan_err(ps, "axis '%s' given twice", args[0]);
	for (int i = 1; i < nargs; i++) {
		if (strchr(args[i], ';') || strchr(args[i], '='))
			return plan_err(ps, "axis value '%s' may not hold ';' or '='", args[i]);
		for (int k = 1; k < i; k++)	/* the same point twice measures nothing new */
			if (!strcmp(args[k], args[i]))
				return plan_err(ps, "axis '%s': value '%s' given twice", args[0], args[i]);
	}
	size_t pts = (size_t)(nargs - 1) * block_points(b);
	size_t before = points_before(ps->p, ps->p->nblocks - 1);
	if (pts > H_POINTS_MAX || before + pts > H_POINTS_MAX)
		return plan_err(ps, "the plan expands to more than %d points (this block alone: %zu); "
				"split it or drop values", H_POINTS_MAX, pts);
	struct h_axis *a = &b->axes[b->naxes++];
	memset(a, 0, sizeof(*a));
	strcpy(a->name, args[0]);
	a->line = ps->lineno;
	for (int i = 1; i < nargs; i++)
		if (!(a->vals[a->nvals++] = strdup(args[i])))
			return plan_err(ps, "out of memory");
	return 0;
}

/* instrumented N|all: how many repetitions of each point keep the bench's probes. */
static int key_instrumented(struct parse *ps, const struct plan_key *k, char **args, int nargs)
{
	struct h_block *b = cur_block(ps);
	long v;

	(void)nargs;
	if (!strcmp(args[0], "all")) {
		b->instrumented = -1;
		return 0;
	}
	if (ab_parse_long(args[0], &v) < 0 || v < k->min || v > k->max)
		return plan_err(ps, "bad value '%s' for instrumented: %s", args[0], k->args);
	b->instrumented = (int)v;
	return 0;
}

/* extra, metrics: words appended to the block's list. */
static int key_list(struct parse *ps, const struct plan_key *k, char **args, int nargs)
{
	struct h_block *b = cur_block(ps);
	int extra = k->name[0] == 'e';
	int *n = extra ? &b->nextra : &b->nmetrics;
	char **list = extra ? b->extra : b->metrics;

	if (*n + nargs > H_ARGS_MAX)
		return plan_err(ps, "too many %s (at most %d in a block)", k->name, H_ARGS_MAX);
	const struct ab_bench_desc *d = h_desc(b->bench);	/* NULL: a test program */
	for (int i = 0; i < nargs; i++) {
		if (!extra && d && !ab_desc_has_metric(d, args[i]))
			return plan_err(ps, "%s records no metric '%s'", b->bench, args[i]);
		if (extra)
			b->extra_line[*n] = ps->lineno;
		if (!(list[(*n)++] = strdup(args[i])))
			return plan_err(ps, "out of memory");
	}
	return 0;
}

static const struct plan_key plan_keys[] = {
	{ "repeat", key_repeat, 1, 1, 0, 0, 1, 1000, "one whole number in 1..1000" },
	{ "bench", key_bench, 1, 1, 0, 0, 0, 0, "one name (letters, digits, - and _)" },
	{ "duration", key_seconds, 1, 1, 1, offsetof(struct h_block, duration), AB_MIN_DURATION, 86400,
	  "one number of seconds in " AB_STR(AB_MIN_DURATION) "..86400" },
	{ "timeout", key_seconds, 1, 1, 1, offsetof(struct h_block, timeout), 0, 1e6,
	  "one number of seconds > 0, at most 1000000" },
	{ "estimate", key_seconds, 1, 1, 1, offsetof(struct h_block, estimate), 0, 1e6,
	  "one number of seconds > 0, at most 1000000" },
	{ "instrumented", key_instrumented, 1, 1, 1, 0, 0, 1000,
	  "a whole number of repetitions in 0..1000, or all" },
	{ "program", key_program, 0, 64, 0, 0, 0, 0, "" },	/* refused, naming why */
	{ "axis", key_axis, 2, 1 + H_VALS_MAX, 1, 0, 0, 0,
	  "a name and 1 to " AB_STR(H_VALS_MAX) " values" },
	{ "extra", key_list, 1, H_ARGS_MAX, 1, 0, 0, 0, "at least one argument" },
	{ "metrics", key_list, 1, H_ARGS_MAX, 1, 0, 0, 0, "at least one metric name" },
	{ "precision", key_stop, 1, 1, 0, 0, 0, 0, "a percentage in (0, 100), as 5 or 5%" },
	{ "budget", key_stop, 1, 1, 0, 0, 0, 0, "seconds, or a number with s, m or h, up to 7 days" },
};

static int parse_line(struct parse *ps, char *line)
{
	char *words[H_VALS_MAX + 2], *save = NULL, *w;
	int nw = 0;
	char *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	for (w = strtok_r(line, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
		if (nw == (int)AB_ARRAY_SIZE(words))
			return plan_err(ps, "too many words (at most %d)", (int)AB_ARRAY_SIZE(words));
		words[nw++] = w;
	}
	if (nw == 0)
		return 0;
	for (size_t i = 0; i < AB_ARRAY_SIZE(plan_keys); i++) {
		const struct plan_key *k = &plan_keys[i];
		if (strcmp(words[0], k->name))
			continue;
		if (k->in_block && ps->p->nblocks == 0)
			return plan_err(ps, "'%s' before the first 'bench' line", k->name);
		if (nw - 1 < k->min_args || nw - 1 > k->max_args)
			return plan_err(ps, "%s wants %s", k->name, k->args);
		return k->parse(ps, k, words + 1, nw - 1);
	}
	char keys[256];
	size_t o = 0;
	for (size_t i = 0; i < AB_ARRAY_SIZE(plan_keys); i++)
		o += (size_t)snprintf(keys + o, sizeof(keys) - o, "%s%s", i ? ", " : "", plan_keys[i].name);
	return plan_err(ps, "unknown key '%s' (%s)", words[0], keys);
}

static int parse_file(struct parse *ps)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	FILE *f = ps->f;

	if (!f)
		f = ab_infile_open(ps->path, AB_INFILE_MAX_SMALL, ps->err, ps->errlen);
	if (!f)
		return -1;
	while (rc == 0 && (n = ab_infile_line(f, &line, &cap)) != -1) {
		ps->lineno++;
		if (n == -2)
			rc = plan_err(ps, "line longer than %d bytes", AB_INFILE_MAX_LINE);
		else
			rc = parse_line(ps, line);
	}
	if (rc == 0 && ferror(f)) {
		ps->lineno = 0;
		rc = plan_err(ps, "%s", strerror(errno));
	}
	free(line);
	if (!ps->f)
		fclose(f);
	return rc;
}

/* ---- after the last line: what a block needs, then the expansion ---- */

/*
 * The tests' fake benchmarks: with AFFBENCH_TEST_PROGRAMS=DIR, a name the
 * registry does not know runs DIR/NAME. A test-only hook (sys/common.h): an
 * installed build has none, and there every benchmark is a registered one.
 * 0, or -1 when there is no such hook.
 */
static int test_program(struct h_block *b)
{
	const char *dir = ab_test_hook("AFFBENCH_TEST_PROGRAMS");

	if (!dir)
		return -1;
	snprintf(b->program, sizeof(b->program), "%.900s/%s", dir, b->bench);
	return 0;
}

static int check_blocks(struct parse *ps)
{
	struct h_plan *p = ps->p;

	if (p->nblocks == 0) {
		ps->lineno = 0;
		return plan_err(ps, "no 'bench' block");
	}
	for (int i = 0; i < p->nblocks; i++) {
		struct h_block *b = &p->blocks[i];
		if (!h_desc(b->bench) && test_program(b) < 0) {
			char names[256];
			size_t o = 0;
			for (int r = 0; h_registry[r] && o < sizeof(names); r++)
				o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", r ? ", " : "",
						      h_registry[r]->name);
			ps->lineno = b->line;
			return plan_err(ps, "unknown benchmark '%s' (benchmarks: %s)", b->bench, names);
		}
		if (b->timeout == 0)
			b->timeout = b->duration * 4 + 30;
		/* estimate stays 0 when not given: measured timings come first (timings.c) */
	}
	return 0;
}

/* Every block's cross product, in plan order (bounded by the axis lines). */
static int expand(struct parse *ps)
{
	struct h_plan *p = ps->p;

	p->points = calloc(points_before(p, p->nblocks), sizeof(*p->points));
	if (!p->points) {
		ps->lineno = 0;
		return plan_err(ps, "out of memory");
	}
	for (int i = 0; i < p->nblocks; i++) {
		struct h_block *b = &p->blocks[i];
		int idx[H_AXES_MAX] = { 0 }, a;
		do {
			struct h_point *pt = &p->points[p->npoints++];
			struct ab_config c;
			pt->blk = b;
			memcpy(pt->idx, idx, sizeof(idx));
			ab_config_init(&c);
			for (a = 0; a < b->naxes; a++)
				ab_config_set(&c, b->axes[a].name, "%s", b->axes[a].vals[idx[a]]);
			ab_config_format(&c, pt->label, sizeof(pt->label));
			for (a = b->naxes - 1; a >= 0; a--) {	/* the next index, last axis fastest */
				if (++idx[a] < b->axes[a].nvals)
					break;
				idx[a] = 0;
			}
		} while (a >= 0);
	}
	return 0;
}

int h_plan_load(struct h_plan *p, const char *path, char *err, size_t errlen)
{
	return h_plan_load_file(p, NULL, path, err, errlen);
}

int h_plan_load_file(struct h_plan *p, FILE *f, const char *path, char *err, size_t errlen)
{
	struct parse ps = { .p = p, .path = path, .f = f, .err = err, .errlen = errlen };

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	if (parse_file(&ps) < 0 || check_blocks(&ps) < 0 || expand(&ps) < 0) {
		h_plan_free(p);
		return -1;
	}
	return 0;
}

void h_plan_free(struct h_plan *p)
{
	for (int i = 0; i < p->nblocks; i++) {
		struct h_block *b = &p->blocks[i];
		for (int a = 0; a < b->naxes; a++)
			for (int v = 0; v < b->axes[a].nvals; v++)
				free(b->axes[a].vals[v]);
		for (int e = 0; e < b->nextra; e++)
			free(b->extra[e]);
		for (int m = 0; m < b->nmetrics; m++)
			free(b->metrics[m]);
	}
	free(p->blocks);
	free(p->points);
	p->blocks = NULL;
	p->points = NULL;
	p->nblocks = p->npoints = 0;
}

/* Does the block set the probe option itself (an axis, or a word of extra)? */
static int sets_option(const struct h_block *b, const char *opt)
{
	char flag[40];

	snprintf(flag, sizeof(flag), "--%s", opt);
	for (int a = 0; a < b->naxes; a++)
		if (!strcmp(b->axes[a].name, opt))
			return 1;
	for (int e = 0; e < b->nextra; e++)
		if (!strncmp(b->extra[e], flag, strlen(flag)))
			return 1;
	return 0;
}

/* Repetition rep (from 1) of a bench with probes beyond the block's 'instrumented'
 * count runs without them: the probes' extra repetitions doubled cputestfs's and
 * ddpar's time, and their figures need no more than one repetition per point. */
const char *h_probes_off(const struct h_block *b, int rep)
{
	const struct ab_bench_desc *d = b->program[0] ? NULL : h_desc(b->bench);

	if (!d || !d->probes || b->instrumented < 0 || rep <= b->instrumented ||
	    sets_option(b, d->probes))
		return NULL;
	return d->probes;
}

int h_point_argv(const struct h_point *pt, int rep, const char *program, char **argv, int max,
		 char *durbuf, size_t durlen)
{
	static char fmt_csv[] = "--format", csv[] = "csv", repeat[] = "--repeat", one[] = "1",
		    dur[] = "--duration", quiet[] = "--quiet";
	static char flags[H_AXES_MAX][40], probe_flag[40], off[] = "off";
	const struct h_block *b = pt->blk;
	const char *probes = h_probes_off(b, rep);
	int n = 0;

	if (max < 10 + 2 * b->naxes + b->nextra + 1)	/* H_ARGV_MAX at most */
		return -1;
	snprintf(durbuf, durlen, "%g", b->duration);
	argv[n++] = (char *)program;
	argv[n++] = fmt_csv;
	argv[n++] = csv;
	argv[n++] = repeat;
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
	if (probes) {
		snprintf(probe_flag, sizeof(probe_flag), "--%s", probes);
		argv[n++] = probe_flag;
		argv[n++] = off;
	}
	argv[n] = NULL;
	return n;
}
