// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare: do two runs' headline medians agree as their intervals say?
 *
 * A run's 95% CI of a median holds what its repetitions vary by. Another run's median
 * varies as well, so from two runs alike, A's median lies in B's interval with
 * probability P(|Z| < 1.96 b / sqrt(a^2 + b^2)), a and b the two half-widths (83% at
 * equal widths). Fewer, and something beyond the repetitions moved the medians between
 * the runs. What moves a whole benchmark alike (another machine, a host busier for one
 * run, a change that touches every config the same) shows as the median of its
 * results' ratios run/A: said per benchmark, and the counts again with it divided out.
 * It cancels in the ratios within a run, which is why compare.md leads with those.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "compare.h"

/* One headline result of A and run k: medians and 95% CIs. */
struct med2 {
	int k;
	const char *bench;
	double ma, mb;
	struct ab_ci ca, cb;
	double wa, wb;		/* half-widths relative to the medians */
};

struct tally {
	size_t n;
	int in_b, in_a;		/* A's medians in B's CI, B's in A's */
	double exp_b, exp_a;	/* what the two runs' widths lead one to expect */
	int in_b_moved, in_a_moved;	/* the same, each benchmark's move divided out */
};

/* P(another run's median lies in this one's interval): own and other half-widths. */
static double p_inside(double own, double other)
{
	if (own + other == 0)
		return 1;
	return erf(1.96 * own / sqrt(own * own + other * other) / sqrt(2));
}

static int in_ci(double x, const struct ab_ci *ci)
{
	return x >= ci->lo && x <= ci->hi;
}

/* By run, then benchmark: a run's results together, its benchmarks each together. */
static int cmp_run_bench(const void *pa, const void *pb)
{
	const struct med2 *a = pa, *b = pb;

	if (a->k != b->k)
		return (a->k > b->k) - (a->k < b->k);
	return strcmp(a->bench, b->bench);
}

/* q's medians and CIs into m; 0 when a side has no 95% CI or a median not above 0. */
static int med2_of(const struct pair *q, struct med2 *m)
{
	m->k = q->k;
	m->bench = q->a->bench;
	m->ma = ab_median(q->a->v, q->a->n);
	m->mb = ab_median(q->b->v, q->b->n);
	return m->ma > 0 && m->mb > 0 &&
	       ab_median_ci_rel(q->a->v, q->a->n, 0.95, &m->ca, &m->wa) == 0 &&
	       ab_median_ci_rel(q->b->v, q->b->n, 0.95, &m->cb, &m->wb) == 0;
}

/* The median of m[0..n-1]'s ratios B/A (one benchmark's move); r has room for n. */
static double move_of(const struct med2 *m, size_t n, double *r)
{
	for (size_t i = 0; i < n; i++)
		r[i] = m[i].mb / m[i].ma;
	return ab_median(r, n);
}

/* One benchmark's results m[0..n-1] counted into t, its move s divided out too. */
static void tally_bench(struct tally *t, const struct med2 *m, size_t n, double s)
{
	for (size_t i = 0; i < n; i++) {
		t->n++;
		t->in_b += in_ci(m[i].ma, &m[i].cb);
		t->in_a += in_ci(m[i].mb, &m[i].ca);
		t->exp_b += p_inside(m[i].wb, m[i].wa);
		t->exp_a += p_inside(m[i].wa, m[i].wb);
		t->in_b_moved += in_ci(m[i].ma * s, &m[i].cb);
		t->in_a_moved += in_ci(m[i].mb / s, &m[i].ca);
	}
}

/* Do two results belong together: one run's, or one benchmark's? */
typedef int same_fn(const struct med2 *a, const struct med2 *b);

static int same_run(const struct med2 *a, const struct med2 *b)
{
	return a->k == b->k;
}

static int same_bench(const struct med2 *a, const struct med2 *b)
{
	return !strcmp(a->bench, b->bench);
}

/* The end of the group m[i] begins: m sorted so that each group is together. */
static size_t group_end(const struct med2 *m, size_t n, size_t i, same_fn *same)
{
	size_t j = i + 1;

	while (j < n && same(&m[j], &m[i]))
		j++;
	return j;
}

/* The benchmarks of m[0..n-1] (sorted by benchmark) and their moves: "cpupair +1.2%, ...". */
static void say_moves(FILE *md, const struct med2 *m, size_t n, const double *mv)
{
	for (size_t i = 0, j; i < n; i = j) {
		j = group_end(m, n, i, same_bench);
		fprintf(md, "%s %s %+.1f%%", i ? "," : "", m[i].bench, 100 * (mv[i] - 1));
	}
}

/* Run k's paragraph: m[0..n-1] its results, sorted by benchmark; r and mv scratch for n. */
static void agree_run(FILE *md, int k, struct med2 *m, size_t n, double *r, double *mv)
{
	struct tally t = { 0 };
	char l[16];

	for (size_t i = 0, j; i < n; i = j) {	/* a benchmark's move: at its first result */
		j = group_end(m, n, i, same_bench);
		mv[i] = move_of(m + i, j - i, r);
		tally_bench(&t, m + i, j - i, mv[i]);
	}
	h_cmp_run_label(l, sizeof(l), k);
	fprintf(md, "\nDo %s and A agree? Of the %zu headline results both hold with a 95%% CI, "
		    "%d of A's medians lie in %s's CI and %d of %s's in A's, where about %.1f and "
		    "%.1f would were each run's repetitions all the noise there is (a median lies "
		    "in the other run's interval with probability P(|Z| < 1.96 b / sqrt(a^2 + "
		    "b^2)), a and b the two half-widths, b the interval's: 83%% at equal widths). "
		    "Each benchmark moved as a whole by (the median of its results' ratios %s/A):",
		l, t.n, t.in_b, l, t.in_a, l, t.exp_b, t.exp_a, l);
	say_moves(md, m, n, mv);
	fprintf(md, "; with those moves divided out, %d and %d. Fewer than expected means that "
		    "something beyond the repetitions moved the medians between the runs. A move of a "
		    "whole benchmark is what another machine, or a host busier or quieter for one "
		    "run, does, as does a change that touches every config alike; neither run's "
		    "intervals hold it, and it cancels in the ratios within a run (the first "
		    "table).\n",
		t.in_b_moved, t.in_a_moved);
	printf("%s against A: %d and %d of %zu medians in the other's 95%% CI, about %.0f and "
	       "%.0f expected;\n  %d and %d with each benchmark's move divided out (compare.md)\n",
	       l, t.in_b, t.in_a, t.n, t.exp_b, t.exp_a, t.in_b_moved, t.in_a_moved);
}

void h_cmp_agree(struct cmp *c, const struct pair *q, size_t n)
{
	struct med2 *m = malloc((n ? n : 1) * sizeof(*m));
	double *r = malloc((n ? n : 1) * sizeof(*r)), *mv = malloc((n ? n : 1) * sizeof(*mv));
	size_t nm = 0;

	if (!m || !r || !mv)
		ab_fail("compare: out of memory");
	for (size_t i = 0; i < n; i++)
		if (q[i].cls == CLS_HEADLINE && med2_of(&q[i], &m[nm]))
			nm++;
	qsort(m, nm, sizeof(*m), cmp_run_bench);	/* q holds each A result's runs together */
	for (size_t i = 0, j; i < nm; i = j) {
		j = group_end(m, nm, i, same_run);
		agree_run(c->md, m[i].k, m + i, j - i, r, mv);
	}
	free(m);
	free(r);
	free(mv);
}
