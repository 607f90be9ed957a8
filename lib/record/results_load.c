// SPDX-License-Identifier: GPL-2.0
/*
 * The raw.csv loader (see results.h). Rows are checked against the grammar,
 * then logged (group, rep, value, line: 20 bytes a row) as they come; at the
 * end the log is sorted by group in place (a counting pass, then one move per
 * row), its values and reps become the packed arrays the groups point into,
 * and each group's repetitions are checked for one written twice. Every step
 * is linear in the rows, and nothing per row is allocated on its own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "sys/infile.h"
#include "sys/parse.h"
#include "record/hindex.h"
#include "record/record.h"
#include "record/results_i.h"

#define BAD_ROWS_SHOWN 20

/* The rows as read, before they are packed group by group. */
struct rowlog {
	size_t n, cap;
	uint32_t *g, *line;
	int32_t *rep;
	double *v;
};

/* The unit each (bench, metric) first came in, keyed by the interned strings. */
struct unit_of {
	const char *bench, *metric, *unit;
	size_t line;
};

struct units {
	struct unit_of *e;	/* in order of first appearance */
	size_t n, cap;
	struct ab_hindex idx;	/* by bench and metric */
};

struct load {
	struct ab_results *r;
	const char *path;
	FILE *report;
	struct rowlog rows;
	struct units units;
};

__attribute__((format(printf, 3, 4)))
static void bad_row(struct load *l, size_t lineno, const char *fmt, ...)
{
	va_list ap;

	if (l->report && l->r->bad < BAD_ROWS_SHOWN) {
		fprintf(l->report, "%s: %s:%zu: skipped a bad row: ", ab_prog, l->path, lineno);
		va_start(ap, fmt);
		vfprintf(l->report, fmt, ap);
		va_end(ap);
		fputc('\n', l->report);
	}
	l->r->bad++;
}

/* ---- one unit per metric ---- */

/* The entry of (bench, metric), interned strings, or a new empty one (bench NULL); NULL
 * when out of memory. */
static struct unit_of *unit_slot(struct units *u, const char *bench, const char *metric)
{
	uint64_t h = ab_hash_str(ab_hash_str(AB_HASH_INIT, bench), metric);
	size_t pos = 0, e;

	while ((e = ab_hindex_next(&u->idx, h, &pos)))
		if (u->e[e - 1].bench == bench && u->e[e - 1].metric == metric)
			return &u->e[e - 1];
	if (ab_grow(&u->e, &u->cap, u->n + 1, sizeof(*u->e), 64) < 0 ||
	    ab_hindex_add(&u->idx, h, u->n) < 0)
		return NULL;
	u->e[u->n] = (struct unit_of){ 0 };
	return &u->e[u->n++];
}

/*
 * The group a good row goes to, created on its first row. NULL with errno 0:
 * the row gives its metric a second unit (reported and counted); with ENOMEM.
 */
static struct ab_group *group_for(struct load *l, char **f, size_t lineno)
{
	struct ab_group *g = (struct ab_group *)ab_results_get(l->r, f[0], f[1], f[3], f[5]);
	const char *bench, *metric, *unit;
	struct unit_of *u;

	if (g)
		return g;
	errno = ENOMEM;
	if (!(bench = ab_results_intern(l->r, f[0])) || !(metric = ab_results_intern(l->r, f[3])) ||
	    !(unit = ab_results_intern(l->r, f[5])) || !(u = unit_slot(&l->units, bench, metric)))
		return NULL;
	if (u->bench && u->unit != unit) {
		bad_row(l, lineno, "%s of %s in %s, but line %zu has it in %s: one unit per metric",
			metric, bench, unit, u->line, u->unit);
		errno = 0;
		return NULL;
	}
	if (!u->bench)
		*u = (struct unit_of){ bench, metric, unit, lineno };
	struct ab_group *ng = ab_results_group_new(l->r, bench, f[1], metric, unit);
	if (ng)
		ng->line = lineno;
	return ng;
}

/* ---- the rows ---- */

static int rows_push(struct rowlog *w, uint32_t g, int rep, double v, size_t line)
{
	/* four arrays of one length: each grown from the same capacity */
	size_t cg = w->cap, cl = w->cap, cr = w->cap, cv = w->cap, need = w->n + 1;
	if (ab_grow(&w->g, &cg, need, sizeof(*w->g), 4096) < 0 ||
	    ab_grow(&w->line, &cl, need, sizeof(*w->line), 4096) < 0 ||
	    ab_grow(&w->rep, &cr, need, sizeof(*w->rep), 4096) < 0 ||
	    ab_grow(&w->v, &cv, need, sizeof(*w->v), 4096) < 0)
		return -1;
	w->cap = cv;
	w->g[w->n] = g;
	w->line[w->n] = (uint32_t)line;
	w->rep[w->n] = rep;
	w->v[w->n++] = v;
	return 0;
}

static void rows_free(struct rowlog *w)
{
	free(w->g);
	free(w->line);
	free(w->rep);
	free(w->v);
}

/* One line: 0 added or refused (counted), -1 out of memory. */
static int load_line(struct load *l, char *line, size_t len, size_t lineno)
{
	char *f[7];

	if (strlen(line) != len)
		return bad_row(l, lineno, "it holds a NUL byte"), 0;
	line[strcspn(line, "\r\n")] = '\0';
	if (!line[0] || (lineno == 1 && !strcmp(line, "bench,config,rep,metric,value,unit")))
		return 0;
	if (ab_csv_split(line, f, 7) != 6)
		return bad_row(l, lineno, "not 6 CSV fields"), 0;
	const char *why = ab_record_check(f[0], f[1], f[2], f[3], f[4], f[5]);
	if (why)
		return bad_row(l, lineno, "%s", why), 0;
	struct ab_group *g = group_for(l, f, lineno);
	if (!g)
		return errno ? -1 : 0;
	double v;
	ab_parse_decimal(f[4], &v);	/* checked above */
	if (rows_push(&l->rows, (uint32_t)(g - l->r->g), atoi(f[2]), v, lineno) < 0)
		return -1;
	g->n++;
	return 0;
}

/* ---- packing, and a repetition written twice ---- */

#define PLACED 0x80000000u	/* in a row's destination: moved already */

/*
 * Sort the log by group in place, each group's rows in file order: a
 * counting pass turns each row's group into its destination (g->cap counts
 * a group's rows placed so far), then the rows move along the permutation's
 * cycles, each once. No second copy of the rows: 20 bytes a row at the peak.
 */
static void sort_by_group(struct ab_results *r, struct rowlog *w)
{
	uint32_t *to = w->g;
	size_t off = 0;

	for (size_t i = 0; i < r->n; i++) {
		r->g[i].cap = off;
		off += r->g[i].n;
	}
	for (size_t k = 0; k < w->n; k++)
		to[k] = (uint32_t)r->g[to[k]].cap++;
	for (size_t i = 0; i < w->n; i++) {
		if (to[i] & PLACED)
			continue;
		double v = w->v[i], tv;
		int32_t rep = w->rep[i], trep;
		uint32_t line = w->line[i], tline;
		for (size_t j = i;;) {	/* carrying the row that was at j */
			size_t d = to[j] & ~PLACED;
			to[j] |= PLACED;
			if (d == i) {
				w->v[i] = v;
				w->rep[i] = rep;
				w->line[i] = line;
				break;
			}
			tv = w->v[d], w->v[d] = v, v = tv;
			trep = w->rep[d], w->rep[d] = rep, rep = trep;
			tline = w->line[d], w->line[d] = line, line = tline;
			j = d;
		}
	}
}

/*
 * The sorted log's values and reps become the results' packed arrays, the
 * groups pointing into them; its lines stay in w->line, in the same order.
 */
static void pack(struct ab_results *r, struct rowlog *w)
{
	double *v = w->n ? realloc(w->v, w->n * sizeof(*v)) : NULL;	/* shrink: cannot fail */
	int32_t *rep = w->n ? realloc(w->rep, w->n * sizeof(*rep)) : NULL;
	size_t off = 0;

	r->pool_v = v ? v : w->v;
	r->pool_rep = rep ? rep : w->rep;
	w->v = NULL;
	w->rep = NULL;
	for (size_t i = 0; i < r->n; i++) {
		r->g[i].v = r->pool_v + off;
		r->g[i].rep = r->pool_rep + off;
		r->g[i].cap = 0;	/* the arrays are the packed ones */
		off += r->g[i].n;
	}
}

/*
 * The earliest line that repeats a (bench, config, rep, metric) of an earlier
 * one (rep 0 may repeat), or 0; *first gets the earlier line, *gi its group.
 * seen[rep] holds the last group to have rep (+1): a group's rows are
 * contiguous, so one array serves every group.
 */
static size_t twice(const struct ab_results *r, const uint32_t *line, size_t *first, size_t *gi,
		    int *drep)
{
	uint32_t *seen = calloc(AB_REP_MAX + 1, sizeof(*seen));
	uint32_t *at = malloc((AB_REP_MAX + 1) * sizeof(*at));
	size_t worst = 0;

	if (!seen || !at) {
		free(seen);
		free(at);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct ab_group *g = &r->g[i];
		const uint32_t *gl = line + (g->v - r->pool_v);
		for (size_t j = 0; j < g->n; j++) {
			int rep = g->rep[j];
			if (!rep)
				continue;
			if (seen[rep] != i + 1) {
				seen[rep] = (uint32_t)(i + 1);
				at[rep] = gl[j];
			} else if (!worst || gl[j] < worst) {
				worst = gl[j];
				*first = at[rep];
				*gi = i;
				*drep = rep;
			}
		}
	}
	free(seen);
	free(at);
	return worst;
}

/* Pack the rows, then refuse a repetition written twice. 0 or -1 (with err, errno). */
static int finish(struct load *l, char *err, size_t errlen)
{
	size_t first = 0, gi = 0, dup = 0;
	int rc = 0, rep = 0;

	sort_by_group(l->r, &l->rows);
	pack(l->r, &l->rows);
	struct ab_group *all = l->r->n ? realloc(l->r->g, l->r->n * sizeof(*all)) : NULL;
	if (all) {	/* no room left for more groups: the file is whole */
		l->r->g = all;
		l->r->cap = l->r->n;
	}
	if (l->r->n)
		dup = twice(l->r, l->rows.line, &first, &gi, &rep);
	rows_free(&l->rows);
	if (dup == SIZE_MAX) {
		rc = ab_err(err, errlen, "%s: out of memory", l->path);
		errno = ENOMEM;
	} else if (dup) {
		const struct ab_group *g = &l->r->g[gi];
		rc = ab_err(err, errlen, "%s:%zu: %s rep %d of %s again, config '%.200s' (line %zu "
			    "has it): a repetition written twice is not two; raw.csv refused "
			    "(docs/records.md)", l->path, dup, g->metric, rep, g->bench, g->config, first);
		errno = EINVAL;
	}
	return rc;
}

int ab_results_load_csv(struct ab_results *r, const char *path, FILE *report, char *err,
			size_t errlen)
{
	char shown[4096];	/* the path as its user named it (sys/common.h) */
	struct load l = { .r = r, .path = ab_unalias(shown, sizeof(shown), path),
			  .report = report };
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int rc = 0;

	if (r->n) {	/* the packed arrays hold this file's rows only */
		errno = EINVAL;
		return ab_err(err, errlen, "%s: loaded into results that hold records", path);
	}
	/* raw.csv may come from anyone: a regular file within bounds, or refused (sys/infile.h) */
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_BYTES, err, errlen);
	if (!f) {
		if (errno == ENOENT)
			return 0;
		errno = EINVAL;	/* the file itself is refused, not a row */
		return -1;
	}
	while ((len = ab_infile_line(f, &line, &cap)) >= 0)
		if (load_line(&l, line, (size_t)len, ++lineno) < 0) {
			rc = ab_err(err, errlen, "%s: out of memory", path);
			errno = ENOMEM;
			break;
		}
	int e = errno;
	if (len == -2) {
		rc = ab_err(err, errlen, "%s:%zu: a line over the %d-byte limit: not a raw.csv of "
			    "affbench (docs/records.md)", path, lineno + 1, AB_INFILE_MAX_LINE);
		e = EINVAL;
	} else if (rc == 0 && ferror(f)) {
		rc = ab_err(err, errlen, "%s: read error: %s", path, strerror(errno));
		e = EIO;
	}
	if (report && r->bad > BAD_ROWS_SHOWN)
		fprintf(report, "%s: %s: %zu bad rows skipped in all\n", ab_prog, l.path, r->bad);
	free(line);
	fclose(f);
	free(l.units.e);
	ab_hindex_free(&l.units.idx);
	if (rc == 0)
		return finish(&l, err, errlen);
	/* refused or failed: the groups stay, empty, for the caller to free */
	rows_free(&l.rows);
	for (size_t i = 0; i < r->n; i++)
		r->g[i].n = 0;
	errno = e;
	return rc;
}
