// SPDX-License-Identifier: GPL-2.0
/*
 * The timings tables (run.h): seconds per invocation, measured. A row:
 *   BENCH <tab> DURATION <tab> ARGS <tab> SECONDS <tab> RUNS
 * sorted by bench, duration and args, so a point is found by bisection and a
 * benchmark's rows at one duration lie together. The learned table's mean
 * gives its past at most LEARN_WEIGHT runs' weight, so it follows a machine
 * that changed within a few runs.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "sys/infile.h"
#include "sys/opts.h"
#include "sys/outfile.h"
#include "run.h"

#define ROWS_MAX 50000		/* the default plan has 66 points; more is not ours */
#define ARGS_MAX 2048
#define RUNS_MAX 1000000000L
#define LEARN_WEIGHT 5

/* No invocation of D seconds takes longer: fdget's --mode all, the slowest, runs ~12 x D. */
static double seconds_max(double duration)
{
	return 100 * duration + 600;
}

const char *h_timings_path(void)
{
	const char *p = getenv("AFFBENCH_TIMINGS");

	return p && *p ? p : "/var/lib/affbench/timings.tsv";
}

/* ---- keys ---- */

static int key_cmp(const char *b1, double d1, const char *a1,
		   const char *b2, double d2, const char *a2)
{
	int c = strcmp(b1, b2);

	if (c)
		return c;
	if (d1 != d2)
		return d1 < d2 ? -1 : 1;
	return strcmp(a1, a2);
}

static int row_cmp(const void *x, const void *y)
{
	const struct h_timing *a = x, *b = y;

	return key_cmp(a->bench, a->duration, a->args, b->bench, b->duration, b->args);
}

static int printable_word(const char *s)
{
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e)
			return 0;
	return 1;
}

/* The point's arguments that decide its time: "--KEY V ..." then the extras, then the
 * probes' "--kstats off" of repetitions that run without them (an instrumented one
 * takes about twice as long). -1: none that a table can hold (a registered benchmark
 * only; printable words, bounded). */
static int point_key(const struct h_point *pt, int rep, char *buf, size_t len)
{
	const char *probes = h_probes_off(pt->blk, rep);
	const struct h_block *b = pt->blk;
	size_t o = 0;

	if (b->program[0])
		return -1;
	buf[0] = '\0';
	for (int a = 0; a < b->naxes; a++) {
		const char *v = b->axes[a].vals[pt->idx[a]];
		if (!printable_word(v))
			return -1;
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s--%s %s", o ? " " : "",
				      b->axes[a].name, v);
	}
	for (int e = 0; e < b->nextra; e++) {
		if (!printable_word(b->extra[e]))
			return -1;
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", o ? " " : "", b->extra[e]);
	}
	if (probes)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s--%s off", o ? " " : "", probes);
	if (o == 0)
		o = (size_t)snprintf(buf, len, "-");
	return o < len ? 0 : -1;
}

/* The first row at or after the key: rows [lo, n) sort at or after it. */
static int lower_bound(const struct h_ttable *tb, const char *bench, double dur, const char *args)
{
	int lo = 0, hi = tb->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const struct h_timing *r = &tb->rows[mid];
		if (key_cmp(r->bench, r->duration, r->args, bench, dur, args) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct h_timing *find(const struct h_ttable *tb, const char *bench, double dur,
				   const char *args)
{
	int i = lower_bound(tb, bench, dur, args);

	if (i < tb->n && !key_cmp(tb->rows[i].bench, tb->rows[i].duration, tb->rows[i].args, bench, dur,
				  args))
		return &tb->rows[i];
	return NULL;
}

/* The mean of a benchmark's rows at one duration (weighted by runs); 0 when it has none. */
static double bench_mean(const struct h_ttable *tb, const char *bench, double dur)
{
	double s = 0, n = 0;

	for (int i = lower_bound(tb, bench, dur, ""); i < tb->n; i++) {
		const struct h_timing *r = &tb->rows[i];
		if (strcmp(r->bench, bench) || r->duration != dur)
			break;
		s += r->seconds * (double)r->runs;
		n += (double)r->runs;
	}
	return n > 0 ? s / n : 0;
}

/* ---- reading ---- */

void h_ttable_free(struct h_ttable *tb)
{
	for (int i = 0; i < tb->n; i++)
		free(tb->rows[i].args);
	free(tb->rows);
	tb->rows = NULL;
	tb->n = tb->cap = 0;
}

static int add_row(struct h_ttable *tb, const struct h_timing *r)
{
	if (ab_grow(&tb->rows, &tb->cap, (size_t)tb->n + 1, sizeof(*tb->rows), 64) < 0)
		return -1;
	tb->rows[tb->n] = *r;
	if (!(tb->rows[tb->n].args = strdup(r->args)))
		return -1;
	tb->n++;
	return 0;
}

/* One row's five fields, each checked: NULL, or what is wrong with it. */
static const char *parse_row(char *line, struct h_timing *r)
{
	char *f[5], *save = NULL;
	int n = 0;

	for (char *w = strtok_r(line, "\t", &save); w; w = strtok_r(NULL, "\t", &save)) {
		if (n == 5)
			return "more than 5 tab-separated fields";
		f[n++] = w;
	}
	if (n != 5)
		return "fewer than 5 tab-separated fields";
	if (strlen(f[0]) >= sizeof(r->bench) || strspn(f[0], H_WORD_CHARS) != strlen(f[0]))
		return "bad benchmark name";
	snprintf(r->bench, sizeof(r->bench), "%s", f[0]);
	if (ab_parse_double(f[1], &r->duration) ||
	    !(r->duration >= AB_MIN_DURATION && r->duration <= 86400))
		return "bad duration (seconds in " AB_STR(AB_MIN_DURATION) "..86400)";
	for (const char *c = f[2]; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			return "control character in the arguments";
	if (!f[2][0] || strlen(f[2]) >= ARGS_MAX)
		return "arguments empty or too long";
	r->args = f[2];
	if (ab_parse_double(f[3], &r->seconds) ||
	    !(r->seconds > 0 && r->seconds <= seconds_max(r->duration)))
		return "seconds not a number in (0, 100 x duration + 600]";
	if (ab_parse_long(f[4], &r->runs) || r->runs < 1 || r->runs > RUNS_MAX)
		return "runs not a whole number in 1..1000000000";
	return NULL;
}

static int read_rows(struct h_ttable *tb, FILE *f, const char *path, char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;

	while (rc == 0 && (len = ab_infile_line(f, &line, &cap)) != -1) {
		struct h_timing r;
		const char *why = len == -2 ? "line too long" : NULL;
		lineno++;
		if (!why && (line[0] == '#' || line[0] == '\0'))
			continue;
		if (!why && tb->n == ROWS_MAX)
			why = "more than " AB_STR(ROWS_MAX) " rows";
		if (!why)
			why = parse_row(line, &r);
		if (!why && add_row(tb, &r))
			why = "out of memory";
		if (why)
			rc = ab_err(err, errlen, "%s:%d: %s", path, lineno, why);
	}
	if (rc == 0 && ferror(f))
		rc = ab_err(err, errlen, "%s: %s", path, strerror(errno));
	free(line);
	return rc;
}

int h_ttable_read(struct h_ttable *tb, const char *path, char *err, size_t errlen)
{
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_SMALL, err, errlen);

	tb->rows = NULL;
	tb->n = tb->cap = 0;
	snprintf(tb->path, sizeof(tb->path), "%s", path);
	if (!f)
		return -1;
	int rc = read_rows(tb, f, path, err, errlen);
	fclose(f);
	if (rc < 0) {
		h_ttable_free(tb);
		return -1;
	}
	qsort(tb->rows, (size_t)tb->n, sizeof(*tb->rows), row_cmp);
	for (int i = 1; i < tb->n; i++)	/* one row per key: a second is not ours */
		if (!row_cmp(&tb->rows[i - 1], &tb->rows[i])) {
			ab_err(err, errlen, "%s: a key given twice (%s %g %s)", path, tb->rows[i].bench,
			       tb->rows[i].duration, tb->rows[i].args);
			h_ttable_free(tb);
			return -1;
		}
	return 0;
}

/* A missing table is an empty one; a bad one is empty after one warning. */
static void load_one(struct h_ttable *tb, const char *path, const char *what)
{
	char err[1024];
	struct stat st;

	/* none yet, or root's and we are not: nothing to say */
	if (lstat(path, &st) && (errno == ENOENT || errno == EACCES)) {
		snprintf(tb->path, sizeof(tb->path), "%s", path);
		return;
	}
	if (h_ttable_read(tb, path, err, sizeof(err)) == 0)
		return;
	ab_msg("warning: %s; its timings are not used (%s)", err, what);
}

void h_timings_load(struct h_timings *t)
{
	static const char *const shipped[] = { "%s/../harness/timings.tsv",
					       "%s/../share/affbench/timings.tsv" };
	char path[PATH_MAX];

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < AB_ARRAY_SIZE(shipped) && !t->shipped.path[0]; i++) {
		snprintf(path, sizeof(path), shipped[i], h_self_dir());
		if (access(path, F_OK) == 0)
			load_one(&t->shipped, path, "estimates fall back to the plan");
	}
	load_one(&t->learned, h_timings_path(), "the next run writes it anew");
}

void h_timings_free(struct h_timings *t)
{
	h_ttable_free(&t->shipped);
	h_ttable_free(&t->learned);
}

/* ---- estimating ---- */

static double point_guess(const struct h_timings *t, const struct h_point *pt, const char *key,
			  enum h_est_source *src)
{
	const struct h_block *b = pt->blk;
	const struct h_timing *r;
	double m;

	if (key && (r = find(&t->learned, b->bench, b->duration, key)))
		return *src = H_EST_LEARNED, r->seconds;
	if (key && (r = find(&t->shipped, b->bench, b->duration, key)))
		return *src = H_EST_SHIPPED, r->seconds;
	if (b->estimate > 0)
		return *src = H_EST_PLAN, b->estimate;
	if (key && ((m = bench_mean(&t->learned, b->bench, b->duration)) > 0 ||
		    (m = bench_mean(&t->shipped, b->bench, b->duration)) > 0))
		return *src = H_EST_BENCH, m;
	return *src = H_EST_GUESS, b->duration + 1;
}

double h_timings_estimate(const struct h_timings *t, const struct h_point *pt, int rep,
			  enum h_est_source *src)
{
	char key[ARGS_MAX];
	enum h_est_source s;
	double v = point_guess(t, pt, point_key(pt, rep, key, sizeof(key)) == 0 ? key : NULL, &s);

	if (src)
		*src = s;
	/* the watchdog ends an invocation at its timeout: none takes longer */
	return v < pt->blk->timeout ? v : pt->blk->timeout;
}

/* ---- learning ---- */

void h_timings_learn(struct h_timings *t, const struct h_point *pt, int rep, double seconds)
{
	const struct h_block *b = pt->blk;
	struct h_ttable *tb = &t->learned;
	char key[ARGS_MAX];

	if (point_key(pt, rep, key, sizeof(key)) < 0 || !isfinite(seconds) || !(seconds > 0) ||
	    seconds > seconds_max(b->duration) || seconds > b->timeout + 60 || tb->n == ROWS_MAX)
		return;
	int i = lower_bound(tb, b->bench, b->duration, key);
	struct h_timing *r = i < tb->n ? &tb->rows[i] : NULL;
	if (r && !key_cmp(r->bench, r->duration, r->args, b->bench, b->duration, key)) {
		double w = r->runs < LEARN_WEIGHT ? (double)r->runs : LEARN_WEIGHT;
		r->seconds = (r->seconds * w + seconds) / (w + 1);
		r->runs += r->runs < RUNS_MAX;
		return;
	}
	struct h_timing nr = { .duration = b->duration, .args = key, .seconds = seconds, .runs = 1 };
	snprintf(nr.bench, sizeof(nr.bench), "%s", b->bench);
	if (add_row(tb, &nr))
		return;
	/* keep the order: the new row (last) moves to its place */
	struct h_timing tmp = tb->rows[tb->n - 1];
	memmove(&tb->rows[i + 1], &tb->rows[i], (size_t)(tb->n - 1 - i) * sizeof(*tb->rows));
	tb->rows[i] = tmp;
}

static void write_rows(FILE *f, const struct h_ttable *tb)
{
	fputs("# affbench timings: seconds per invocation measured on this machine by harness run\n"
	      "# (harness/run/run.h); delete the file to forget them.\n"
	      "# bench\tduration\targs\tseconds\truns\n", f);
	for (int i = 0; i < tb->n; i++) {
		const struct h_timing *r = &tb->rows[i];
		fprintf(f, "%s\t%g\t%s\t%.3f\t%ld\n", r->bench, r->duration, r->args, r->seconds, r->runs);
	}
}

int h_timings_save(struct h_timings *t)
{
	char dir[PATH_MAX], base[256];
	const char *path = h_timings_path(), *slash = strrchr(path, '/');
	struct ab_outfile o;

	if (t->save_failed || t->learned.n == 0)
		return t->save_failed ? -1 : 0;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (!dir[0])
		strcpy(dir, "/");
	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : path);
	FILE *f = base[0] && h_mkdirs(dir) == 0 ? ab_outfile_open(&o, dir, base) : NULL;
	if (!f) {
		ab_msg("warning: the timings of this run are not kept: cannot write %s (set "
		       "AFFBENCH_TIMINGS=PATH to keep them elsewhere)", path);
		t->save_failed = 1;
		return -1;
	}
	write_rows(f, &t->learned);
	if (ab_outfile_close(&o)) {
		t->save_failed = 1;
		return -1;
	}
	return 0;
}
