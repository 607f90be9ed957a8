// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare's first table: the ratios inside each run that its
 * benchmark's descriptor names (other/same, none/same, uring/libfuse,
 * clone_fd on/off, rq 1/0, thread/no thread: the descriptors' ratios
 * callback), side by side across the runs. These are the numbers to trust
 * across machines: each divides two configs measured on one machine, so
 * what the machine adds to both cancels. Each run's ratio carries its 95%
 * CI (ab_r_ratio: paired by round where the rounds allow); the change, run's
 * ratio / A's, carries a bootstrap 95% CI of the ratio of the two ratios (each
 * run's per-round ratios resampled, or else the four groups, independently)
 * and a verdict, Holm-corrected over the changes this table judges (their own
 * family).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "record/stats.h"
#include "compare.h"
#include "render/render.h"
#include "render/desc.h"

#define MAXR 32		/* named ratios of one benchmark */
#define ALPHA_T 0.05

struct trow {
	const struct ab_bench_desc *d;
	struct ab_named_ratio a, b;	/* in A, in run k */
	int k;
	double ra, rb, change, p, adj;
	struct ab_ci ca, cb, cc;
	enum ab_verdict va, vb;
	int judged;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The median of a resample of g (at most AB_BOOT_MAX_N values) through buf. */
static double resampled_median(const struct ab_group *g, double *buf, uint64_t *s)
{
	size_t m = g->n < AB_BOOT_MAX_N ? g->n : AB_BOOT_MAX_N;

	for (size_t i = 0; i < m; i++)
		buf[i] = g->v[rnd(s) % g->n];
	return ab_median(buf, m);
}

/* The bootstrap 95% CI of (sb/bb) / (sa/ba) and its two-sided p of 1; -1 when a
 * resample's median is 0 or memory runs out. */
static int change_ci(const struct trow *t, struct ab_ci *ci, double *p)
{
	const struct ab_group *g[4] = { t->b.subject, t->b.base, t->a.subject, t->a.base };
	size_t most = 0;
	uint64_t s = 0x9e3779b97f4a7c15ull;	/* a fixed seed: results repeat */
	int bad = 0;

	for (int i = 0; i < 4; i++)
		most = g[i]->n > most ? g[i]->n : most;
	double *buf = malloc((most < AB_BOOT_MAX_N ? most : AB_BOOT_MAX_N) * sizeof(*buf));
	double *x = malloc(AB_BOOT_RESAMPLES * sizeof(*x));
	for (int r = 0; buf && x && r < AB_BOOT_RESAMPLES; r++) {
		double m[4];
		for (int i = 0; i < 4; i++)
			m[i] = resampled_median(g[i], buf, &s);
		x[r] = m[0] / m[1] / (m[2] / m[3]);
		bad |= !isfinite(x[r]) || !(x[r] > 0);
	}
	if (!buf || !x || bad) {
		free(buf);
		free(x);
		return -1;
	}
	ab_boot_ci(x, 0.95, ci, p);
	free(buf);
	free(x);
	return 0;
}

/* Where both runs pair their ratio by round (ab_r_ratio), each run's ratio is the median
 * of its per-round ratios and the change's CI resamples those of each run, independently:
 * the rounds are each run's own. Where either cannot, both ratios are ratios of medians
 * (ab_r_ratio_apart) and the CI resamples the four groups: an estimate and its CI always
 * come from one method. */
static void judge(struct trow *t)
{
	double qa[AB_PAIRS_MAX], qb[AB_PAIRS_MAX];
	size_t na = ab_r_round_ratios(t->a.subject, t->a.base, qa);
	size_t nb = ab_r_round_ratios(t->b.subject, t->b.base, qb);
	int paired = na >= AB_MIN_REPS_CI && nb >= AB_MIN_REPS_CI;
	ab_r_ratio_fn *ratio = paired ? ab_r_ratio : ab_r_ratio_apart;

	t->va = ratio(t->a.subject, t->a.base, &t->ra, &t->ca);
	t->vb = ratio(t->b.subject, t->b.base, &t->rb, &t->cb);
	t->change = t->rb / t->ra;
	t->p = NAN;
	t->judged = t->va != AB_V_NONE && t->vb != AB_V_NONE && t->va != AB_V_FEW &&
		    t->vb != AB_V_FEW &&
		    (paired ? ab_ratio_ci_p(qb, nb, qa, na, 0.95, &t->cc, &t->p)
			    : change_ci(t, &t->cc, &t->p)) == 0;
}

/* "0.133x [0.12, 0.15]" or "0.133x (n<6)". */
static const char *cell(char *buf, size_t len, enum ab_verdict v, double r, const struct ab_ci *ci)
{
	char x[32], lo[32], hi[32];

	ab_r_x(x, sizeof(x), r);
	if (v == AB_V_FEW)
		snprintf(buf, len, "%s (n<%d)", x, AB_MIN_REPS_CI);
	else
		snprintf(buf, len, "%s [%s, %s]", x, ab_r_num(lo, sizeof(lo), ci->lo),
			 ab_r_num(hi, sizeof(hi), ci->hi));
	return buf;
}

static const char *verdict_of(const struct trow *t)
{
	if (!t->judged)
		return "not judged (fewer than 6 repetitions a side)";
	if (!(t->adj <= ALPHA_T))
		return t->cc.lo > 1 || t->cc.hi < 1 ? "CI excludes 1, not after the correction" :
						       "no change shown";
	return t->change > 1 ? "higher *" : "lower *";
}

/* Every named ratio of every benchmark in A and in each other run that names it too. */
static struct trow *rows_of(struct cmp *c, int *nrows)
{
	struct trow *t = NULL;
	size_t cap = 0;
	int n = 0;

	for (int b = 0; h_registry[b]; b++) {
		const struct ab_bench_desc *d = h_registry[b];
		struct ab_named_ratio a[MAXR], o[MAXR];
		if (!d->ratios)
			continue;
		struct ab_render ra = { .desc = d, .res = &c->d[0] };
		int na = d->ratios(&ra, a, MAXR);
		for (int k = 1; k < c->nr; k++) {
			struct ab_render rk = { .desc = d, .res = &c->d[k] };
			int no = d->ratios(&rk, o, MAXR);
			for (int i = 0; i < na; i++)
				for (int j = 0; j < no; j++) {
					if (strcmp(a[i].name, o[j].name))
						continue;
					if (ab_grow(&t, &cap, (size_t)n + 1, sizeof(*t), 64) < 0)
						ab_fail("compare: out of memory");
					t[n] = (struct trow){ .d = d, .a = a[i], .b = o[j],
							      .k = k };
					judge(&t[n++]);
				}
		}
	}
	*nrows = n;
	return t;
}

static void holm(struct trow *t, int n)
{
	double *p = malloc((size_t)(n ? n : 1) * sizeof(*p));

	if (!p)
		ab_fail("compare: out of memory");
	for (int i = 0; i < n; i++)
		p[i] = t[i].judged ? t[i].p : NAN;
	if (ab_holm(p, (size_t)n, p) < 0)	/* adjusted in place */
		ab_fail("compare: out of memory");
	for (int i = 0; i < n; i++)
		t[i].adj = p[i];
	free(p);
}

void h_cmp_trusted(struct cmp *c)
{
	int n, judged = 0, sig = 0;
	struct trow *t = rows_of(c, &n);
	char l[16], ca[64], cb[64], cc[64];

	holm(t, n);
	fprintf(c->md, "## The ratios people trust\n\nThe ratios inside each run that its "
		       "benchmark's readings name: each divides two configs measured on one "
		       "machine, so what the machine adds to both cancels, and they compare "
		       "across machines. Each run's ratio with its 95%% CI; the change is the "
		       "run's ratio over A's, with the bootstrap 95%% CI of that ratio of ratios "
		       "(each run's per-round ratios resampled where it paired them by round), "
		       "Holm-corrected over the changes of this table (family-wise error rate "
		       "5%%; * significant).\n\n");
	if (!n) {
		fprintf(c->md, "No benchmark's ratio was measured in A and another run.\n\n");
		return;
	}
	fprintf(c->md, "| bench | ratio | run | A's [95%% CI] | run's [95%% CI] | change run/A "
		       "[95%% CI] | verdict |\n|---|---|---|---|---|---|---|\n");
	printf("The ratios people trust (each run's own; change = run's / A's, 95%% CI):\n");
	for (int i = 0; i < n; i++) {
		const struct trow *r = &t[i];
		judged += r->judged;
		sig += r->judged && r->adj <= ALPHA_T;
		cell(ca, sizeof(ca), r->va, r->ra, &r->ca);
		cell(cb, sizeof(cb), r->vb, r->rb, &r->cb);
		cell(cc, sizeof(cc), r->judged ? AB_V_SAME : AB_V_FEW, r->change, &r->cc);
		h_cmp_run_label(l, sizeof(l), r->k);
		fprintf(c->md, "| %s | %s | %s | %s | %s | %s | %s |\n", r->d->name, r->a.name, l,
			ca, cb, cc, verdict_of(r));
		/* two lines a ratio, so that its name and its three intervals fit 100 columns */
		printf("%-9.9s %s, run %s\n          A %s, %s %s; change %s%s\n", r->d->name,
		       r->a.name, l, ca, l, cb, cc, r->judged && r->adj <= ALPHA_T ? " *" : "");
	}
	fprintf(c->md, "\n%d changes judged, %d significant after the Holm-Bonferroni correction "
		       "for those %d.\n\n", judged, sig, judged);
	printf("\n");
	free(t);
}
