// SPDX-License-Identifier: GPL-2.0
/*
 * harness run --precision P --budget DURATION (or the plan's precision and
 * budget lines): the plan's repetitions first, then rounds of added ones.
 * The interval judged is the distribution-free CI of a headline result's
 * median, relative to the median, at 97.5% where report.md states 95% (the
 * looks' cost, below); a point's width is its widest result's. With 7 to 9
 * values that interval is the sample's whole range, with 10 to 12 the 2nd to
 * the next-to-last value, then 13, and so on: a repetition short of the next
 * step narrows nothing. So a wide point is
 * given a goal, the next step, while all the repetitions to every goal fit
 * in what is left of the budget, and each round runs every point short of
 * its goal once, in the plan's order: the added repetitions stay
 * interleaved, and carry the round's number, as the plan's do. Where the
 * budget cannot take every step, the steps that narrow most per second go
 * first: a point's step is worth the width its headline results have beyond
 * P, times the share of it the step takes off, over the step's expected
 * seconds (this machine's learned timings), so a cheap point, or one wide in
 * many results, goes before a costly one as wide (Kalibera and Jones: spend
 * the time where the variance is, at each level's cost). It stops when every
 * point is within P, at its cap, or no wide point's next step fits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/parse.h"
#include "run.h"
#include "record/record.h"
#include "record/results.h"
#include "record/stats.h"
#include "sys/barrier.h"
#include "render/render.h"

int h_prec_init(struct h_prec *p, const struct h_plan *plan, int repeat)
{
	size_t n = (size_t)plan->npoints;

	memset(p, 0, sizeof(*p));
	if (!(plan->precision > 0))
		return 0;
	*p = (struct h_prec){ .target = plan->precision, .budget = plan->budget,
			      .npoints = plan->npoints, .repeat = repeat, .rep = repeat };
	p->got = calloc(n, sizeof(*p->got));
	p->nrep = calloc(n, sizeof(*p->nrep));
	p->gain = calloc(n, sizeof(*p->gain));
	p->goal = calloc(n, sizeof(*p->goal));
	if (!p->got || !p->nrep || !p->gain || !p->goal)
		return -1;
	for (size_t i = 0; i < n; i++) {
		ab_results_init(&p->got[i]);
		p->nrep[i] = repeat;
	}
	return 0;
}

void h_prec_free(struct h_prec *p)
{
	for (int i = 0; p->got && i < p->npoints; i++)
		ab_results_free(&p->got[i]);
	free(p->got);
	free(p->nrep);
	free(p->gain);
	free(p->goal);
	memset(p, 0, sizeof(*p));
}

void h_prec_take(struct h_prec *p, int pi, const struct ab_results *inv)
{
	for (size_t g = 0; g < inv->n; g++) {
		const struct ab_group *x = &inv->g[g];
		if (!h_is_headline(x->bench, x->metric))
			continue;
		for (size_t k = 0; k < x->n; k++)	/* out of memory: judged on fewer */
			ab_results_add(&p->got[pi], x->bench, x->config, x->rep[k], x->metric,
				       x->v[k], x->unit);
	}
}

/*
 * The level a point's width is judged at: 97.5%, where report.md states 95%. Stopping a
 * point the first time its interval looks narrow picks the samples that happen to be
 * tight, and judged at 95% the 95% interval a point ended with covered its truth in
 * 92 to 93% of simulated points at spreads of 10 to 15%; judged at 97.5%, in 93 to 97%
 * (tests/unit/test_plan_precision.c). A point stops a step or two later for it.
 */
#define JUDGE_LEVEL 0.975

/* x's median's JUDGE_LEVEL half-width relative to the median into *h (NAN: a median of 0);
 * with 6 values, too few for that level, the 95% one (--repeat 6: a point with no spread
 * needs no more); -1: fewer. */
static int judged_width(const double *x, size_t n, double *h)
{
	struct ab_ci ci;

	if (ab_median_ci_rel(x, n, JUDGE_LEVEL, &ci, h) == 0)
		return 0;
	return ab_median_ci_rel(x, n, 0.95, &ci, h);
}

/* pi's widest headline half-width relative to its median, judged (else the 95% one
 * report.md states), and that result's values in *nvals; INFINITY: fewer values than an
 * interval needs; NAN: no headline record (skipped, failed, none measured; *nvals
 * untouched). *excess (optional): the sum of its results' half-widths beyond the target. */
static double h_prec_width(const struct h_prec *p, int pi, int judged, size_t *nvals,
			   double *excess)
{
	double w = NAN, sum = 0;

	for (size_t g = 0; g < p->got[pi].n; g++) {
		const struct ab_group *x = &p->got[pi].g[g];
		const double *v = x->v;
		struct ab_ci ci;
		double h;
		if ((judged ? judged_width(v, x->n, &h) : ab_median_ci_rel(v, x->n, 0.95, &ci, &h)) < 0)
			h = INFINITY;	/* no interval yet */
		else if (isnan(h))
			continue;	/* a median of 0: no relative width */
		sum += h > p->target ? h - p->target : 0;
		if (isnan(w) || h > w) {
			w = h;
			*nvals = x->n;
		}
	}
	if (excess)
		*excess = sum;
	return w;
}

/* The rank of the lowest value the judged interval of a median of n values keeps (1: its
 * whole range), asked of ab_median_ci itself on the values 1..n; 0 when it gives none. */
static int lower_rank(int n)
{
	double *x = malloc((size_t)n * sizeof(*x));
	struct ab_ci ci = { 0 };

	for (int i = 0; x && i < n; i++)
		x[i] = i + 1;
	int k = x && ab_median_ci(x, (size_t)n, JUDGE_LEVEL, &ci) == 0 ? (int)ci.lo : 0;
	free(x);
	return k;
}

/* The fewest values past n whose judged interval is narrower: it drops one more value at
 * each end (7 to 9 values: the whole range; 10 to 12: the 2nd to the next-to-last; then
 * 13, 16, 19, 22, 24, ...). An added repetition short of that narrows nothing, so rounds
 * aim at the next step. */
static int next_step(int n)
{
	if (n < AB_MIN_REPS_CI)
		return AB_MIN_REPS_CI;
	int k = lower_rank(n), m = n + 1;
	while (m < n + 64 && lower_rank(m) <= k)
		m++;
	return m;
}

static int gain_first(const void *a, const void *b, void *ctx)
{
	const double *g = ctx;
	double x = g[*(const int *)a], y = g[*(const int *)b];

	return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

/*
 * What a step from nv to next values buys per second: the width beyond the target, times
 * the share of it the step takes off (a median's interval narrows about as 1/sqrt(n)),
 * over its seconds. A point with no interval yet (INFINITY) goes first.
 */
static double step_gain(double excess, size_t nv, int next, double secs)
{
	double g = excess * (1 - sqrt((double)nv / next)) / fmax(secs, 1e-3);

	/* NaN only from an infinite excess over infinite seconds (estimates are finite,
	 * capped by the watchdog): last, so the sort sees an order */
	return isnan(g) ? 0 : g;
}

/*
 * Before each round: the points still wide and not yet aimed at a step get a goal, the
 * next step of their widest result, most narrowing per second first while all their
 * repetitions to it fit in what the budget leaves after the goals already set. The round
 * is every point short of its goal: how many points it runs.
 */
static int plan_round(struct h_prec *p, const struct h_prec_ops *ops, double left, int *order)
{
	int nw = 0, n = 0;

	for (int i = 0; i < p->npoints; i++)
		if (p->goal[i] > p->nrep[i])
			left -= (p->goal[i] - p->nrep[i]) * ops->est(ops->ctx, i);
	for (int i = 0; i < p->npoints; i++) {
		size_t nv = 0;
		double excess, w = h_prec_width(p, i, 1, &nv, &excess);
		if (w > p->target && p->goal[i] <= p->nrep[i]) {	/* NAN: never */
			int next = next_step((int)nv);
			p->goal[i] = p->nrep[i] - (int)nv + next;
			p->gain[i] = step_gain(excess, nv, next,
					       (next - (int)nv) * ops->est(ops->ctx, i));
			order[nw++] = i;
		}
	}
	qsort_r(order, (size_t)nw, sizeof(*order), gain_first, p->gain);
	for (int k = 0; k < nw; k++) {
		int i = order[k];
		double s = (p->goal[i] - p->nrep[i]) * ops->est(ops->ctx, i);
		if (p->goal[i] > H_PREC_CAP_TIMES * p->repeat || s > left)
			p->goal[i] = 0;	/* out of reach: judged again next round */
		else
			left -= s;
	}
	for (int i = 0; i < p->npoints; i++)
		n += p->goal[i] > p->nrep[i];
	return n;
}

int h_prec_rounds(struct h_prec *p, double t0, const struct h_prec_ops *ops)
{
	int *order = malloc((size_t)p->npoints * sizeof(*order)), added = 0;

	if (!order) {
		ab_msg("run: out of memory: no repetitions added for --precision");
		return 0;
	}
	while (p->rep < AB_REP_MAX) {
		int n = plan_round(p, ops, p->budget - (ab_now_s() - t0), order);
		char what[128];
		if (!n)
			break;
		/* numbered by the round, not by the point's count: a point that joins late
		 * pairs with the others' values of its own round (render.h, ab_r_ratio); a
		 * resumed run goes on from its last round */
		p->rep++;
		snprintf(what, sizeof(what), "precision round %d: %d point%s", p->rep - p->repeat,
			 n, n == 1 ? "" : "s");
		for (int i = 0; i < p->npoints; i++)
			if (p->goal[i] > p->nrep[i] &&
			    (added++, p->nrep[i]++, ops->one(ops->ctx, i, p->rep, what) < 0))
				goto out;
	}
out:
	free(order);
	return added;
}

void h_prec_report(const struct h_prec *p, int added)
{
	int judged = 0, within = 0;

	for (int i = 0; i < p->npoints; i++) {
		size_t nv;
		double w = h_prec_width(p, i, 0, &nv, NULL);	/* as report.md lists them */
		judged += !isnan(w);
		within += w <= p->target;
	}
	ab_msg("run: precision +-%.3g%%: %d repetition%s added; %d of %d points with headline "
	       "results within it (report.md's Precision lists the others)", 100 * p->target, added,
	       added == 1 ? "" : "s", within, judged);
}

/* raw.csv's lines up to byte keep into got[pi] (take: the row ran ok), *at moved on. */
static int take_upto(struct h_prec *p, FILE *raw, long long *at, long long keep, int pi,
		     int take, char **line, size_t *cap)
{
	ssize_t n;
	char *f[7];
	double x;
	long rep;

	while (*at < keep && (n = ab_infile_line(raw, line, cap)) != -1) {
		*at += n < 0 ? keep : n + 1;	/* a line too long: nothing of ours */
		if (n < 0 || !take || ab_csv_split(*line, f, 7) != 6 ||
		    ab_record_check(f[0], f[1], f[2], f[3], f[4], f[5]) ||
		    ab_parse_long(f[2], &rep) < 0 || rep == 0 || ab_parse_decimal(f[4], &x) < 0 ||
		    !h_is_headline(f[0], f[3]))
			continue;
		ab_results_add(&p->got[pi], f[0], f[1], (int)rep, f[3], x, f[5]);
	}
	return *at >= keep ? 0 : -1;
}

int h_prec_resume(struct h_prec *p, char *err, size_t errlen)
{
	FILE *runs = h_resume_fopen("runs.csv", AB_INFILE_MAX_BYTES, err, errlen);
	FILE *raw = runs ? h_resume_fopen("raw.csv", AB_INFILE_MAX_BYTES, err, errlen) : NULL;
	char *line = NULL, *rl = NULL, *f[9];
	size_t cap = 0, rcap = 0;
	long long at = 0;
	long pi, rep, keep;
	int rc = raw ? 0 : -1, first = 1;

	while (!rc && ab_infile_line(runs, &line, &cap) >= 0) {
		if (first-- > 0)	/* the header; h_resume_load checked every row */
			continue;
		if (ab_csv_split(line, f, 9) != 8 || ab_parse_long(f[1], &pi) < 0 ||
		    ab_parse_long(f[2], &rep) < 0 || ab_parse_long(f[6], &keep) < 0 ||
		    pi < 0 || pi >= p->npoints || rep < 1 || rep > AB_REP_MAX)
			rc = ab_err(err, errlen, "runs.csv: a row changed under the resume");
		else if (take_upto(p, raw, &at, keep, (int)pi, !strcmp(f[3], "ok"), &rl, &rcap) < 0)
			rc = ab_err(err, errlen, "raw.csv: shorter than runs.csv says");
		else if (rep > p->repeat) {	/* an added one: one more value, its round */
			p->nrep[pi]++;
			p->rep = rep > p->rep ? (int)rep : p->rep;
		}
	}
	free(line);
	free(rl);
	if (raw)
		fclose(raw);
	if (runs)
		fclose(runs);
	return rc;
}
