// SPDX-License-Identifier: GPL-2.0
/*
 * report.md's Precision section, its rounds line: did the whole machine run slower
 * (or faster) in one repetition round than in the others? harness run interleaves the
 * repetitions: round r runs repetition r of every point, so a busy spell of a shared
 * machine (another tenant, a backup) lands in one round across every benchmark, and
 * widens every interval it is in. More repetitions dilute it; windows within an
 * invocation cannot, as they ran in the same spell.
 *
 * Each headline result with AB_MIN_REPS_CI values or more votes in each round it has
 * a value in: below its own median or above it, signed so that below is slower (for a
 * time, a higher value). A round stands apart when the sign test of its votes,
 * Holm-adjusted over the rounds, is below ROUND_ALPHA and its results moved by
 * ROUND_SHIFT or more at the median. The votes are results, not invocations (one
 * invocation may give several results), so the p-value screens, and is said as such.
 * Nothing is dropped: the intervals keep every value, and the line says where their
 * width came from: per benchmark, the share of its variance between repetitions that
 * the round holds in common (round_share), what no window within an invocation narrows.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "report.h"
#include "record/stats.h"
#include "render/desc.h"
#include "render/render.h"

#define ROUND_ALPHA 0.01
#define ROUND_SHIFT 0.02	/* 2% at the median */
#define ROUNDS_LISTED 3

/* One value's vote: its round, its benchmark (registry index) and log(value / median),
 * negated for a metric where lower is better, so that below 0 is slower. */
struct vote {
	int rep, bench;
	double s;
};

struct round {
	int rep;
	size_t from, n;		/* its votes: v[from .. from + n) */
	size_t below, above;
	double shift, p;
};

struct rounds {
	struct vote *v;
	size_t nv, nres;
	struct round *r;
	size_t nr;
};

static int cmp_vote(const void *pa, const void *pb)
{
	const struct vote *a = pa, *b = pb;

	if (a->rep != b->rep)
		return (a->rep > b->rep) - (a->rep < b->rep);
	return (a->bench > b->bench) - (a->bench < b->bench);
}

/* g's votes appended at v (room for g->n); how many. */
static size_t group_votes(const struct ab_group *g, int bench, struct vote *v)
{
	int lower = ab_desc_lower_better(h_registry[bench], g->metric);
	double m = ab_median(g->v, g->n);
	size_t n = 0;

	if (g->n < AB_MIN_REPS_CI || !(m > 0))
		return 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->rep[i] >= 1 && g->v[i] > 0)
			v[n++] = (struct vote){ g->rep[i], bench, (lower ? -1 : 1) * log(g->v[i] / m) };
	return n;
}

/* The headline results' votes, sorted by round; -1 when out of memory. */
static int collect(const struct ab_results *d, struct rounds *rs)
{
	size_t cap = 0;

	for (size_t i = 0; i < d->n; i++)
		cap += d->g[i].n;
	rs->v = malloc((cap ? cap : 1) * sizeof(*rs->v));
	if (!rs->v)
		return -1;
	/* by the registry, as h_precision walks it: only a registered bench has headlines */
	for (int b = 0; h_registry[b]; b++)
		for (size_t i = 0; i < d->n; i++) {
			const struct ab_group *g = &d->g[i];
			size_t n = !strcmp(g->bench, h_registry[b]->name) &&
				   h_is_headline(g->bench, g->metric) ?
				   group_votes(g, b, rs->v + rs->nv) : 0;
			rs->nv += n;
			rs->nres += n > 0;
		}
	qsort(rs->v, rs->nv, sizeof(*rs->v), cmp_vote);
	return 0;
}

/* The median of the s of n votes from v (scratch: n slots). */
static double vote_median(const struct vote *v, size_t n, double *scratch)
{
	for (size_t i = 0; i < n; i++)
		scratch[i] = v[i].s;
	return ab_median(scratch, n);
}

/* Split the sorted votes into rounds, each with its sign test; -1 when out of memory. */
static int judge(struct rounds *rs, double *scratch)
{
	rs->r = malloc((rs->nv ? rs->nv : 1) * sizeof(*rs->r));
	if (!rs->r)
		return -1;
	for (size_t i = 0; i < rs->nv;) {
		struct round *r = &rs->r[rs->nr++];
		*r = (struct round){ .rep = rs->v[i].rep, .from = i };
		for (; i < rs->nv && rs->v[i].rep == r->rep; i++, r->n++) {
			r->below += rs->v[i].s < 0;
			r->above += rs->v[i].s > 0;
		}
		r->shift = expm1(vote_median(rs->v + r->from, r->n, scratch));
		r->p = ab_sign_p(r->below, r->above);
	}
	double *p = malloc((rs->nr ? rs->nr : 1) * sizeof(*p));
	if (!p)
		return -1;
	for (size_t i = 0; i < rs->nr; i++)
		p[i] = rs->r[i].p;
	long ok = ab_holm(p, rs->nr, p);
	for (size_t i = 0; i < rs->nr; i++)
		rs->r[i].p = p[i];
	free(p);
	return ok < 0 ? -1 : 0;
}

static int apart(const struct round *r)
{
	return r->p < ROUND_ALPHA && fabs(r->shift) >= ROUND_SHIFT;
}

/* " (by benchmark, minus is slower: ddpar -16.7%, cputestfs -5.7%)": each benchmark's
 * shift at the median in round r, signed as the votes are (a time that rose is minus). */
static void round_benches(FILE *f, const struct rounds *rs, const struct round *r,
			  double *scratch)
{
	const struct vote *v = rs->v + r->from;

	for (size_t i = 0, j; i < r->n; i = j) {
		for (j = i; j < r->n && v[j].bench == v[i].bench; j++)
			;
		fprintf(f, "%s%s %+.1f%%", i ? ", " : " (by benchmark, minus is slower: ",
			h_registry[v[i].bench]->name,
			100 * expm1(vote_median(v + i, j - i, scratch)));
	}
	fprintf(f, ")");
}

static void round_text(FILE *f, const struct rounds *rs, const struct round *r, double *scratch)
{
	int slow = r->shift < 0;

	/* "slower than", not "below": a time that is slower lies above its median */
	fprintf(f, " Round %d ran %s: %zu of %zu headline results %s than their medians, by %.1f%% "
		   "at the median", r->rep, slow ? "slower" : "faster", slow ? r->below : r->above,
		r->n, slow ? "slower" : "faster", 100 * fabs(r->shift));
	round_benches(f, rs, r, scratch);
	if (r->p < 0.001)	/* no e-notation in a report */
		fprintf(f, "; sign test p < 0.001.");
	else
		fprintf(f, "; sign test p %.2g.", r->p);
}

/*
 * The round's share of one benchmark's variance between repetitions. Over its headline
 * results with AB_MIN_REPS_CI values or more that have all of rounds 1..R (share_rounds:
 * --precision adds rounds to some points only, a failure takes one from one), on log values,
 * d[j][r] the deviation of result j in round r from its mean over the R rounds:
 *   total  the mean over results of d's variance over rounds
 *   round  the variance over rounds of rho[r], d's mean over the J results, less what
 *          the results' own noise puts in it: the mean residual variance / (J - 1)
 * Results of one invocation (fdget's modes, cpupair's methods) share it too.
 */
struct share {
	size_t nres;
	int nrounds;
	double cv, share;	/* sqrt(total) (a CV for small spreads); round / total */
};

/* g's log values of rounds 1..n into y (NAN where a round is missing), negated for a
 * metric where lower is better (a busy round moves rates and times alike); the rounds
 * it has from 1 on without a gap. */
static int group_rounds(const struct ab_group *g, int bench, double *y)
{
	double sign = ab_desc_lower_better(h_registry[bench], g->metric) ? -1 : 1;
	int k = 0;

	for (size_t i = 0; i < g->n; i++)
		y[i] = NAN;
	for (size_t i = 0; i < g->n; i++)	/* a round written twice: the first kept */
		if (g->rep[i] >= 1 && (size_t)g->rep[i] <= g->n && g->v[i] > 0 &&
		    isnan(y[g->rep[i] - 1]))
			y[g->rep[i] - 1] = sign * log(g->v[i]);
	while ((size_t)k < g->n && !isnan(y[k]))
		k++;
	return k;
}

static int share_result(const struct ab_group *g, int bench)
{
	const char *name = h_registry[bench]->name;

	return !strcmp(g->bench, name) && h_is_headline(name, g->metric) &&
	       g->n >= AB_MIN_REPS_CI;
}

/* Each result's deviations over rounds 1..R: into tot and rho[] (pass 0), or the
 * residuals from rho into *res (pass 1). */
static void share_pass(const struct ab_results *d, int bench, int R, double *y,
		       double *rho, double *tot, double *res, int pass)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct ab_group *g = &d->g[i];
		double m = 0;
		if (!share_result(g, bench) || group_rounds(g, bench, y) < R)
			continue;
		for (int r = 0; r < R; r++)
			m += y[r] / R;
		for (int r = 0; r < R; r++) {
			double dev = y[r] - m;
			if (pass == 0) {
				*tot += dev * dev / (R - 1);
				rho[r] += dev;
			} else {
				*res += (dev - rho[r]) * (dev - rho[r]) / (R - 1);
			}
		}
	}
}

static int more_rounds_first(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

/* The rounds 1..R to judge by, and in *J how many results have them all: of the results'
 * gapless rounds k (descending), the R = k[i] that keeps the most values, (i + 1) x k[i],
 * so a result a failure cut short, or --precision's added rounds, cost neither the
 * others' rounds nor the result count. 0 when no choice has 2 results and 3 rounds. */
static int share_rounds(int *k, size_t n, size_t *J)
{
	size_t best = 0;
	int R = 0;

	qsort(k, n, sizeof(*k), more_rounds_first);
	for (size_t i = 0; i < n; i++)
		if (k[i] >= 3 && (i + 1) * (size_t)k[i] > best) {
			best = (i + 1) * (size_t)k[i];
			R = k[i];
			*J = i + 1;
		}
	return *J >= 2 ? R : 0;
}

/* bench's share; -1: out of memory, or fewer than 2 results or 3 rounds to judge by. */
static int round_share(const struct ab_results *d, int bench, struct share *sh)
{
	size_t most = 0, n = 0, J = 0;
	int R = 0, rc = -1;

	for (size_t i = 0; i < d->n; i++)
		if (share_result(&d->g[i], bench)) {
			most = d->g[i].n > most ? d->g[i].n : most;
			n++;
		}
	double *y = malloc((most ? most : 1) * sizeof(*y));
	double *rho = calloc(most ? most : 1, sizeof(*rho));
	int *k = malloc((n ? n : 1) * sizeof(*k));
	if (!y || !rho || !k)
		goto out;
	for (size_t i = 0, j = 0; i < d->n; i++)
		if (share_result(&d->g[i], bench))
			k[j++] = group_rounds(&d->g[i], bench, y);
	if (!(R = share_rounds(k, n, &J)))
		goto out;
	double tot = 0, res = 0, var_rho = 0;
	share_pass(d, bench, R, y, rho, &tot, &res, 0);
	for (int r = 0; r < R; r++) {
		rho[r] /= (double)J;
		var_rho += rho[r] * rho[r] / (R - 1);
	}
	share_pass(d, bench, R, y, rho, &tot, &res, 1);
	tot /= (double)J;
	double var_round = var_rho - res / (double)J / (double)(J - 1);
	*sh = (struct share){ J, R, sqrt(tot), tot > 0 && var_round > 0 ? var_round / tot : 0 };
	rc = 0;
out:
	free(y);
	free(rho);
	free(k);
	return rc;
}

/* " Of each benchmark's variance ...: cputestfs 57% of a CV of 15.7%, ...", each into
 * share[b]: nothing when no benchmark has the results and rounds to judge by. */
static void round_shares(FILE *f, const struct ab_results *d, double *share)
{
	int n = 0;

	for (int b = 0; b < H_BENCH_MAX && h_registry[b]; b++) {
		struct share sh;
		if (round_share(d, b, &sh) < 0)
			continue;
		share[b] = sh.share;
		if (!n++)
			fprintf(f, " Of each benchmark's variance between repetitions (its headline "
				   "results that have every one of rounds 1 to R, R chosen to keep the "
				   "most values), the round held in common:");
		fprintf(f, "%s %s %.0f%% of a CV of %.1f%% (%zu results, rounds 1-%d)",
			n > 1 ? "," : "", h_registry[b]->name, 100 * sh.share, 100 * sh.cv,
			sh.nres, sh.nrounds);
	}
	if (n)
		fprintf(f, " (on log values: the variance of the round's mean, less what the "
			   "results' own noise puts in it; results of one invocation share it too). "
			   "No window within an invocation narrows that share (an invocation's "
			   "windows all lie in one round); a quieter machine does, and more "
			   "repetitions narrow all of it. A ratio of two points of the run pairs "
			   "them by round, so the share they hold in common divides out of it.");
}

/* Say the rounds apart, at most ROUNDS_LISTED; how many there are. */
static size_t rounds_apart(FILE *f, const struct rounds *rs, double *scratch)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->nr; i++)
		if (apart(&rs->r[i]) && n++ < ROUNDS_LISTED)
			round_text(f, rs, &rs->r[i], scratch);
	if (n > ROUNDS_LISTED)
		fprintf(f, " And %zu more round%s.", n - ROUNDS_LISTED,
			n - ROUNDS_LISTED == 1 ? "" : "s");
	return n;
}

int h_rounds_line(FILE *f, const struct ab_results *d, double *share)
{
	struct rounds rs = { 0 };
	double *scratch = NULL;
	size_t n = 0;

	for (int b = 0; b < H_BENCH_MAX; b++)
		share[b] = NAN;

	if (collect(d, &rs) < 0 || !rs.nres ||
	    !(scratch = malloc(rs.nv * sizeof(*scratch))) || judge(&rs, scratch) < 0)
		goto out;	/* out of memory, or no headline result: no line */
	fprintf(f, "Rounds (harness run's round r runs repetition r of every point, "
		   "interleaved): %zu headline results over %zu rounds.", rs.nres, rs.nr);
	n = rounds_apart(f, &rs, scratch);
	if (!n)
		fprintf(f, " No round ran apart from the others");
	else
		fprintf(f, " The machine was busier or quieter then: every interval holding "
			   "those rounds is wider for it, and nothing was dropped");
	fprintf(f, " (a round is apart when the sign test of its results, Holm-adjusted over "
		   "the rounds, gives p below %g, a screen, as results of one invocation are not "
		   "independent, and they moved by %g%% or more at the median).", ROUND_ALPHA,
		100 * ROUND_SHIFT);
	round_shares(f, d, share);
	fprintf(f, "\n\n");
out:
	free(scratch);
	free(rs.v);
	free(rs.r);
	return (int)n;
}
