// SPDX-License-Identifier: GPL-2.0
/* The renderer's lookups, verdicts and published numbers (see render.h). */
#include "render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "record/record.h"
#include "render/desc.h"

int ab_render_has(const struct ab_bench_desc *d, const struct ab_results *res)
{
	for (size_t i = 0; i < res->n; i++)
		if (!strcmp(res->g[i].bench, d->name))
			return 1;
	return 0;
}

int ab_render_tables(const struct ab_bench_desc *d, const struct ab_results *res, FILE *f,
		     int markdown)
{
	struct ab_render r = { .desc = d, .res = res, .out = f, .markdown = markdown };

	if (d->tables && ab_render_has(d, res))
		d->tables(&r);
	return ferror(f) || r.failed ? -1 : 0;
}

int ab_out_tables(const struct ab_out *o, const struct ab_bench_desc *d)
{
	if (o->fmt != AB_FMT_TABLE || !o->keep)
		return 0;
	int rc = ab_render_tables(d, o->keep, o->f, 0);
	return fflush(o->f) || rc ? -1 : 0;
}

/* ---- lookups ---- */

#define WANT_MAX 32

/* A lookup that names no idle policy reads the machine as found (records without
 * the common key idle, docs/records.md): a run that also swept --idle poll must
 * not answer it with whichever of the two came first. */
const struct ab_group *ab_r_find(const struct ab_render *r, const char *metric,
				 const char *const *want)
{
	const char *with[WANT_MAX + 2];
	int n = 0;

	for (; want && want[n]; n++) {
		if (n == WANT_MAX || !strncmp(want[n], "idle=", 5))
			return ab_results_find(r->res, r->desc->name, metric, want);
		with[n] = want[n];
	}
	with[n++] = "idle=as-found|";
	with[n] = NULL;
	return ab_results_find(r->res, r->desc->name, metric, with);
}

const struct ab_group *ab_r_find_kv(const struct ab_render *r, const char *metric, const char *k1,
				    const char *v1, const char *k2, const char *v2)
{
	char a[48], b[48];

	snprintf(a, sizeof(a), "%.15s=%.31s", k1, v1);
	if (k2)
		snprintf(b, sizeof(b), "%.15s=%.31s", k2, v2);
	const char *want[] = { a, k2 ? b : NULL, NULL };
	return ab_r_find(r, metric, want);
}

double ab_r_median(const struct ab_group *g)
{
	return g && g->n ? ab_median(g->v, g->n) : NAN;
}

static int all_numbers(char vals[][32], int n)
{
	for (int i = 0; i < n; i++) {
		char *end;
		strtod(vals[i], &end);
		if (end == vals[i] || *end)
			return 0;
	}
	return 1;
}

static int cmp_num(const void *a, const void *b)
{
	double x = atof(a), y = atof(b);
	return (x > y) - (x < y);
}

int ab_r_distinct(const struct ab_render *r, const char *metric, const char *key, char vals[][32],
		  int max)
{
	int n = 0;

	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		char v[AB_VALUE_LEN];
		int k;
		if (strcmp(g->bench, r->desc->name) || strcmp(g->metric, metric) ||
		    !ab_cfg_get(g->config, key, v, sizeof(v))[0])
			continue;
		if (strlen(v) >= AB_DISTINCT_LEN)
			continue;	/* never cut (render.h) */
		for (k = 0; k < n && strcmp(vals[k], v); k++)
			;
		if (k == n && n < max)
			snprintf(vals[n++], AB_DISTINCT_LEN, "%s", v);
	}
	if (all_numbers(vals, n))
		qsort(vals, (size_t)n, AB_DISTINCT_LEN, cmp_num);
	return n;
}

int ab_r_too_long(const struct ab_render *r, const char *metric, const char *key)
{
	int n = 0;

	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		char v[AB_VALUE_LEN];
		n += !strcmp(g->bench, r->desc->name) && !strcmp(g->metric, metric) &&
		     strlen(ab_cfg_get(g->config, key, v, sizeof(v))) >= AB_DISTINCT_LEN;
	}
	return n;
}

const char *ab_r_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v))
		snprintf(buf, len, "%s", v < 0 ? "-inf" : "inf");
	else if (a == 0)
		snprintf(buf, len, "0");	/* -0 too */
	else if (a < AB_NUM_PLAIN_MIN || a >= AB_NUM_PLAIN_MAX)
		snprintf(buf, len, "%.3g", v);	/* 1.23e+40: no digits past a buffer's end */
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);	/* stat/s, MB/s: digits, not exponents */
	else {
		/* 3 significant digits in plain notation: 0.0000197, never 1.97e-05 */
		int dec = 2 - (int)floor(log10(a));
		snprintf(buf, len, "%.*f", dec > 0 ? dec : 0, v);
		if (dec > 0 && strchr(buf, '.')) {	/* no trailing zeros, as %g: 5, not 5.00 */
			char *e = buf + strlen(buf) - 1;
			while (*e == '0')
				*e-- = '\0';
			if (*e == '.')
				*e = '\0';
		}
	}
	return buf;
}

const char *ab_r_x(char *buf, size_t len, double q)
{
	char t[32];

	if (isnan(q))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%sx", ab_r_num(t, sizeof(t), q));
	return buf;
}

int ab_r_table_no(struct ab_render *r)
{
	return ++r->ntables;
}

void ab_r_fence(struct ab_render *r)
{
	if (r->markdown)
		fputs("```\n", r->out);
}

/* ---- verdicts ---- */

static enum ab_verdict judge(const struct ab_ci *ci)
{
	return ci->lo > 1 ? AB_V_UP : ci->hi < 1 ? AB_V_DOWN : AB_V_SAME;
}

enum ab_verdict ab_r_ratio_apart(const struct ab_group *a, const struct ab_group *b,
				 double *ratio, struct ab_ci *ci)
{
	double p;

	return ab_r_ratio_apart_p(a, b, ratio, ci, &p);
}

enum ab_verdict ab_r_ratio_apart_p(const struct ab_group *a, const struct ab_group *b,
				   double *ratio, struct ab_ci *ci, double *p)
{
	double mb = ab_r_median(b);

	*p = NAN;
	ci->lo = ci->hi = ci->level = NAN;
	if (!a || !b || !a->n || !b->n || !(mb != 0))
		return AB_V_NONE;
	*ratio = ab_r_median(a) / mb;
	if (a->n < AB_MIN_REPS_CI || b->n < AB_MIN_REPS_CI)
		return AB_V_FEW;
	if (ab_ratio_ci_p(a->v, a->n, b->v, b->n, 0.95, ci, p) < 0) {
		*p = NAN;
		return AB_V_NONE;
	}
	return judge(ci);
}

struct repval {
	int rep;
	double v;
};

static int cmp_repval(const void *pa, const void *pb)
{
	const struct repval *a = pa, *b = pb;

	return (a->rep > b->rep) - (a->rep < b->rep);
}

/* g's values of repetitions 1 and up into s, sorted by repetition; how many. */
static size_t by_rep(const struct ab_group *g, struct repval *s)
{
	size_t n = 0;

	for (size_t i = 0; i < g->n; i++)
		if (g->rep && g->rep[i] > 0)
			s[n++] = (struct repval){ g->rep[i], g->v[i] };
	qsort(s, n, sizeof(*s), cmp_repval);
	return n;
}

size_t ab_r_round_ratios(const struct ab_group *a, const struct ab_group *b, double *q)
{
	struct repval sa[AB_PAIRS_MAX], sb[AB_PAIRS_MAX];
	size_t n = 0, i = 0, j = 0;

	if (!a || !b || a->n > AB_PAIRS_MAX || b->n > AB_PAIRS_MAX)
		return 0;
	size_t na = by_rep(a, sa), nb = by_rep(b, sb);
	while (i < na && j < nb) {	/* a merge of the two sorted sides */
		int r = sa[i].rep;
		if (r != sb[j].rep) {
			r < sb[j].rep ? i++ : j++;
			continue;
		}
		if (!(sb[j].v > 0))
			return 0;	/* a base of 0 in a round: no ratio of that round */
		q[n++] = sa[i].v / sb[j].v;
		j++;	/* a repetition twice (in memory) pairs once: b's next ones fall below */
		while (i < na && sa[i].rep == r)	/* a's next repetition */
			i++;
	}
	return n;
}

/* The verdict on the n ratios of q, pairs of one repetition: their median, and the
 * distribution-free 95% CI of that median. */
static enum ab_verdict paired_of(double *q, size_t n, double *ratio, struct ab_ci *ci)
{
	ci->lo = ci->hi = ci->level = NAN;
	if (!n)
		return AB_V_NONE;
	*ratio = ab_median(q, n);
	if (n < AB_MIN_REPS_CI || ab_median_ci(q, n, 0.95, ci) < 0 || ci->level < 0.95)
		return AB_V_FEW;
	return judge(ci);
}

enum ab_verdict ab_r_paired(const struct ab_group *a, const struct ab_group *b, double *ratio,
			    struct ab_ci *ci)
{
	double q[AB_PAIRS_MAX];

	if (a && b && (a->n > AB_PAIRS_MAX || b->n > AB_PAIRS_MAX))
		return ab_r_ratio_apart(a, b, ratio, ci);	/* too many to pair in bounds */
	return paired_of(q, ab_r_round_ratios(a, b, q), ratio, ci);
}

enum ab_verdict ab_r_ratio(const struct ab_group *a, const struct ab_group *b, double *ratio,
			   struct ab_ci *ci)
{
	double q[AB_PAIRS_MAX];
	size_t n = ab_r_round_ratios(a, b, q);

	if (n >= AB_MIN_REPS_CI)
		return paired_of(q, n, ratio, ci);
	return ab_r_ratio_apart(a, b, ratio, ci);
}

const char *ab_r_ratio_text(char *buf, size_t len, enum ab_verdict v, double ratio,
			    const struct ab_ci *ci, int pct)
{
	char est[48], lo[32], hi[32];

	if (v == AB_V_NONE) {
		snprintf(buf, len, "not compared: not both measured in this run");
		return buf;
	}
	if (pct)
		snprintf(est, sizeof(est), "%+.1f%%", 100 * (ratio - 1));
	else
		ab_r_x(est, sizeof(est), ratio);
	if (v == AB_V_FEW) {
		snprintf(buf, len, "%s (too few repetitions to judge: %d or more needed)", est,
			 AB_MIN_REPS_CI);
	} else if (pct) {
		snprintf(buf, len, "%s [%+.1f%%, %+.1f%%] 95%% CI, %s", est, 100 * (ci->lo - 1),
			 100 * (ci->hi - 1), v == AB_V_SAME ? "not significant" : "significant");
	} else {
		snprintf(buf, len, "%s [%s, %s] 95%% CI, %s", est, ab_r_num(lo, sizeof(lo), ci->lo),
			 ab_r_num(hi, sizeof(hi), ci->hi),
			 v == AB_V_SAME ? "not significant" : "significant");
	}
	return buf;
}

const char *ab_r_star(enum ab_verdict v)
{
	return v == AB_V_UP || v == AB_V_DOWN ? " *" : "";
}

/* ---- published numbers ---- */

extern const char ab_published_tsv[];	/* build/published.c, from lib/render/published.tsv */

/* The value text of post/key: a pointer into the table and its length, or NULL. */
static const char *pub_find(const char *post, const char *key, size_t *len)
{
	size_t pl = strlen(post), kl = strlen(key);

	for (const char *l = ab_published_tsv; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		if (strncmp(l, post, pl) || l[pl] != '\t' || strncmp(l + pl + 1, key, kl) ||
		    l[pl + 1 + kl] != '\t')
			continue;
		const char *v = l + pl + kl + 2;
		*len = strcspn(v, "\n");
		return v;
	}
	return NULL;
}

double ab_pub(const char *post, const char *key)
{
	size_t len;
	const char *v = pub_find(post, key, &len);
	char buf[64];

	if (!v || len >= sizeof(buf))
		return NAN;
	memcpy(buf, v, len);
	buf[len] = '\0';
	return atof(buf);
}

const char *ab_pub_text(const char *post, const char *key)
{
	static char buf[4][512];
	static int k;
	size_t len;
	const char *v = pub_find(post, key, &len);

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%.*s", v ? (int)len : 0, v ? v : "");
	return buf[k];
}

void ab_r_cost_cell(struct ab_render *r, const struct ab_group *g, const struct ab_group *cpu,
		    const struct ab_group *base)
{
	char a[32], b[32], rt[48] = "";
	double q = NAN;
	struct ab_ci ci;

	if (!g) {
		fprintf(r->out, " not measured |");
		return;
	}
	enum ab_verdict v = g != base ? ab_r_ratio(g, base, &q, &ci) : AB_V_NONE;
	if (v != AB_V_NONE)
		snprintf(rt, sizeof(rt), ", %s%s", ab_r_x(a, sizeof(a), q), ab_r_star(v));
	fprintf(r->out, " %s (%s us%s) |", ab_r_num(a, sizeof(a), ab_r_median(g)),
		ab_r_num(b, sizeof(b), ab_r_median(cpu)), rt);
}
