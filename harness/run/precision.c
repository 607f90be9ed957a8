// SPDX-License-Identifier: GPL-2.0
/*
 * harness run --precision P --budget DURATION (or the plan's precision and
 * budget lines): the plan's repetitions first, then rounds of added ones.
 * The interval judged is the distribution-free CI of a headline result's
 * median, relative to the median, at 97.5% where report.md states 95% (the
 * looks' cost, below); a point's width is its widest result's. With 7 to 9
 * values that interval is the sample's whole range, with 10 to 12 the 2nd to
 * the next-to-last value, then 13, and so on: a repetition short of the next
 * step narrows nothing. So before each round the budget left is planned,
 * step by step: a point's next step is worth the width its headline results
 * have beyond P, times the share of it the step takes off, over the step's
 * expected seconds (this machine's learned timings), and each planned step
 * narrows the point's widths as 1/sqrt(n), so its later steps are worth
 * less. The steps that narrow most per second are planned first, until the
 * budget is spent (Kalibera and Jones: spend the time where the variance is,
 * at each level's cost): a cheap point, or one wide in many results, goes
 * before a costly one as wide, in every round, not only in the last that
 * cannot take every step. The points whose next step is in the plan aim at
 * it, and each round runs every point short of its goal once, in the plan's
 * order: the added repetitions stay interleaved, and carry the round's
 * number, as the plan's do. It stops when every point is within P, at its
 * cap, or no wide point's next step fits.
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
	p->goal = calloc(n, sizeof(*p->goal));
	if (!p->got || !p->nrep || !p->goal)
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
 * untouched). each (optional, room for all its results): every result's half-width, and
 * how many in *neach. */
static double h_prec_width(const struct h_prec *p, int pi, int judged, size_t *nvals,
			   double *each, size_t *neach)
{
	double w = NAN;
	size_t k = 0;

	for (size_t g = 0; g < p->got[pi].n; g++) {
		const struct ab_group *x = &p->got[pi].g[g];
		const double *v = x->v;
		struct ab_ci ci;
		double h;
		if ((judged ? judged_width(v, x->n, &h) : ab_median_ci_rel(v, x->n, 0.95, &ci, &h)) < 0)
			h = INFINITY;	/* no interval yet */
		else if (isnan(h))
			continue;	/* a median of 0: no relative width */
		if (each)
			each[k++] = h;
		if (isnan(w) || h > w) {
			w = h;
			*nvals = x->n;
		}
	}
	if (neach)
		*neach = k;
	return w;
}

/* The rank of the lowest value the judged interval of a median of n values keeps (1: its
 * whole range), asked of ab_median_ci itself on the values 1..n; 0 when it gives none.
 * Kept for n below RANKS_KEPT: each round's plan asks it at every step it plans. */
#define RANKS_KEPT 4096
static int lower_rank(int n)
{
	static int kept[RANKS_KEPT];	/* rank + 1; 0: not asked yet */

	if (n < RANKS_KEPT && kept[n])
		return kept[n] - 1;
	double *x = malloc((size_t)n * sizeof(*x));
	struct ab_ci ci = { 0 };

	for (int i = 0; x && i < n; i++)
		x[i] = i + 1;
	int k = x && ab_median_ci(x, (size_t)n, JUDGE_LEVEL, &ci) == 0 ? (int)ci.lo : 0;
	if (x && n < RANKS_KEPT)	/* none kept when out of memory */
		kept[n] = k + 1;
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

/*
 * What a step from nv to next values buys per second: the width beyond the target, times
 * the share of it the step takes off (a median's interval narrows about as 1/sqrt(n)),
 * over its seconds. A point with no interval yet (INFINITY): its first step goes first.
 */
static double step_gain(double excess, size_t nv, int next, double secs)
{
	double g = excess * (1 - sqrt((double)nv / next)) / fmax(secs, 1e-3);

	/* NaN only from an infinite excess over infinite seconds (estimates are finite,
	 * capped by the watchdog): never planned, so the plan compares numbers */
	return isnan(g) ? 0 : g;
}

/* A point in a round's plan of the budget left: its results' judged half-widths now, and
 * the steps planned for it so far. */
struct step_plan {
	int i;			/* the point */
	const double *w;	/* [nw]: its headline results' judged half-widths */
	size_t nw;
	int nv;			/* the values behind its widest result now */
	int m, next;		/* its values after the planned steps; the step after those */
	int base;		/* its repetitions less nv: a step to m values is goal base + m */
	double secs;		/* one invocation, this machine's learned timing */
	double cost, gain;	/* its next step's seconds, and what it narrows per second */
	int first;		/* the values its first planned step reaches; 0: none planned */
};

/* The width the point's results would have beyond the target after its planned steps,
 * summed: each half-width narrowing as 1/sqrt(n), from nv values to m. */
static double projected_excess(const struct step_plan *s, double target)
{
	double f = sqrt((double)s->nv / s->m), sum = 0;

	for (size_t r = 0; r < s->nw; r++)
		sum += s->w[r] * f > target ? s->w[r] * f - target : 0;
	return sum;
}

/* Price the point's next step: its seconds, and its gain (0 where it narrows nothing
 * beyond the target, -1 past the point's cap, which counts all its repetitions; plan_steps
 * plans only gains above 0). A point with no interval yet has its first step planned
 * first, and no more: what it narrows to is known when that step's values are. */
static void price_step(struct step_plan *s, double target, int cap)
{
	int within = s->base + s->next <= cap;
	double excess = projected_excess(s, target);

	if (isinf(excess) && s->first)
		excess = 0;
	s->cost = (s->next - s->m) * s->secs;
	s->gain = within ? step_gain(excess, (size_t)s->m, s->next, s->cost) : -1;
}

/*
 * Plan the budget left, step by step, the step that narrows most per second first, each
 * point's later steps worth less as its widths come down, until no step that narrows
 * fits. Planning the whole budget, not one round, is what keeps a costly point's step
 * waiting while cheap points' steps narrow more per second: each round has room for
 * every point's next step until the budget is nearly spent.
 */
static void plan_steps(struct step_plan *s, int ns, double left, double target, int cap)
{
	for (int k = 0; k < ns; k++)
		price_step(&s[k], target, cap);
	for (;;) {
		int best = -1;
		for (int k = 0; k < ns; k++)	/* on a tie, the plan's order */
			if (s[k].cost <= left && s[k].gain > (best < 0 ? 0 : s[best].gain))
				best = k;
		if (best < 0)
			return;
		struct step_plan *b = &s[best];
		left -= b->cost;
		b->first = b->first ? b->first : b->next;
		b->m = b->next;
		b->next = next_step(b->m);
		price_step(b, target, cap);
	}
}

/* Every headline result of every point: room for h_prec_width's each. */
static size_t results_held(const struct h_prec *p)
{
	size_t n = 0;

	for (int i = 0; i < p->npoints; i++)
		n += p->got[i].n;
	return n;
}

/*
 * Before each round: the points not yet aimed at a step are planned (plan_steps: a
 * point within the target has no step worth planning); each whose first step is in the
 * plan gets it as its goal, the others none this round (judged again next round). The
 * round is every point short of its goal: how many points it runs; -1: out of memory.
 */
static int plan_round(struct h_prec *p, const struct h_prec_ops *ops, double left,
		      struct step_plan *s)
{
	double *w = malloc((results_held(p) + 1) * sizeof(*w));
	int ns = 0, n = 0;
	size_t at = 0;

	if (!w)
		return -1;
	for (int i = 0; i < p->npoints; i++)
		if (p->goal[i] > p->nrep[i])
			left -= (p->goal[i] - p->nrep[i]) * ops->est(ops->ctx, i);
	for (int i = 0; i < p->npoints; i++) {
		size_t nv = 0, nw = 0;
		double wi = h_prec_width(p, i, 1, &nv, w + at, &nw);
		/* NAN: no headline record; a narrow point's steps are worth 0, never planned */
		if (!isnan(wi) && p->goal[i] <= p->nrep[i]) {
			s[ns++] = (struct step_plan){ .i = i, .w = w + at, .nw = nw, .nv = (int)nv,
						      .m = (int)nv, .next = next_step((int)nv),
						      .base = p->nrep[i] - (int)nv,
						      .secs = ops->est(ops->ctx, i) };
			at += nw;
		}
	}
	plan_steps(s, ns, left, p->target, H_PREC_CAP_TIMES * p->repeat);
	for (int k = 0; k < ns; k++)
		p->goal[s[k].i] = s[k].first ? s[k].base + s[k].first : 0;
	for (int i = 0; i < p->npoints; i++)
		n += p->goal[i] > p->nrep[i];
	free(w);
	return n;
}

int h_prec_rounds(struct h_prec *p, double t0, const struct h_prec_ops *ops)
{
	struct step_plan *s = malloc((size_t)p->npoints * sizeof(*s));
	int added = 0;

	if (!s) {
		ab_msg("run: out of memory: no repetitions added for --precision");
		return 0;
	}
	while (p->rep < AB_REP_MAX) {
		int n = plan_round(p, ops, p->budget - (ab_now_s() - t0), s);
		char what[128];
		if (n < 0)
			ab_msg("run: out of memory: no more repetitions added for --precision");
		if (n <= 0)
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
	free(s);
	return added;
}

void h_prec_report(const struct h_prec *p, int added)
{
	int judged = 0, within = 0;

	for (int i = 0; i < p->npoints; i++) {
		size_t nv;
		/* as report.md lists them */
		double w = h_prec_width(p, i, 0, &nv, NULL, NULL);
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
