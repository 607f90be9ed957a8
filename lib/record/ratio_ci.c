// SPDX-License-Identifier: GPL-2.0
/*
 * CI of a ratio of two medians: the percentile bootstrap, resampling both
 * samples independently.
 *
 * For the small samples benchmarks produce (repetitions: up to EXACT_MAX
 * values each) the bootstrap distribution is computed exactly instead of
 * drawn: the median of a resample of sorted data is one order statistic (odd
 * n) or the mean of two (even n), and the chance of each follows from
 * binomial counts of drawn indices. That is the limit Monte Carlo resampling
 * approaches, with no sampling noise, and it costs microseconds, so comparing
 * runs of 200,000 configs takes seconds. Larger samples are resampled
 * AB_BOOT_RESAMPLES times with a fixed seed, so results repeat.
 *
 * A resample holds at most AB_BOOT_MAX_N values a side: a side of n values
 * beyond it is resampled M = AB_BOOT_MAX_N out of n (the m-out-of-n
 * bootstrap), so one config of 4 million repetitions takes a fraction of a
 * second, not minutes. The median of M draws spreads about sqrt(n / M) times
 * as far as that of n, so such a CI is wider than the full bootstrap's and
 * its p-value larger: it errs towards "not significant". At M = 10,000 the
 * 95% CI of a median of M draws still spans only about +-2.5% of the values'
 * standard deviation (normal data), far below what tells two runs apart.
 * Samples within the bound (every real run: repetitions number tens) are
 * resampled whole, as before, with identical results.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/stats.h"

#define EXACT_MAX AB_BOOT_EXACT_MAX

struct point {
	double v, p;		/* a value of the resampled median and its probability */
};

static int cmp_point(const void *pa, const void *pb)
{
	double a = ((const struct point *)pa)->v, b = ((const struct point *)pb)->v;

	return (a > b) - (a < b);
}

static double choose(int n, int k)
{
	double c = 1;

	for (int i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	return c;
}

/* P(Binomial(n, q) >= k) */
static double binom_ge(int n, double q, int k)
{
	double s = 0;

	for (int i = k; i <= n; i++)
		s += choose(n, i) * pow(q, i) * pow(1 - q, n - i);
	return s;
}

/*
 * The exact distribution of the resampled median of sorted s[0..n-1] (n draws
 * with replacement, indices uniform). Odd n: the median is the draw of rank
 * lo = (n-1)/2, at index j with P(N<=j >= lo+1) - P(N<=j-1 >= lo+1), N<=j the
 * draws with index <= j. Even n: the mean of ranks lo = n/2-1 and lo+1, at
 * indices j <= l; see pair_p. Returns the number of points written to out.
 */
static double pair_p(int n, int j, int l)
{
	int k = n / 2;	/* draws at or below index j when j < l */
	double nn = pow(n, n);

	if (j < l)	/* exactly k draws <= j (one of them j), the rest >= l (one of them l) */
		return choose(n, k) * (pow(j + 1, k) - pow(j, k)) *
		       (pow(n - l, n - k) - pow(n - l - 1, n - k)) / nn;
	/* j == l: fewer than k draws below j, at least k + 1 at or below it */
	double below_ok = 1 - binom_ge(n, (double)j / n, k);
	double at_most_k = 1 - binom_ge(n, (double)(j + 1) / n, k + 1);
	double exactly_k_below_none_at = choose(n, k) * pow((double)j / n, k) *
					 pow((double)(n - j - 1) / n, n - k);
	return below_ok - (at_most_k - exactly_k_below_none_at);
}

static size_t median_points(const double *s, int n, struct point *out)
{
	size_t m = 0;

	if (n % 2) {
		int lo = (n - 1) / 2;
		for (int j = 0; j < n; j++) {
			double p = binom_ge(n, (double)(j + 1) / n, lo + 1) -
				   binom_ge(n, (double)j / n, lo + 1);
			out[m++] = (struct point){ s[j], p };
		}
		return m;
	}
	for (int j = 0; j < n; j++)
		for (int l = j; l < n; l++)
			out[m++] = (struct point){ (s[j] + s[l]) / 2, pair_p(n, j, l) };
	return m;
}

/* The smallest ratio whose cumulative probability reaches q. */
static double quantile(const struct point *r, size_t n, double q)
{
	double cum = 0;

	for (size_t i = 0; i < n; i++) {
		cum += r[i].p;
		if (cum >= q - 1e-12)
			return r[i].v;
	}
	return r[n - 1].v;
}

/*
 * The two-sided bootstrap p-value of "the ratio is 1": twice the smaller share
 * of the bootstrap distribution at or on either side of 1, at most 1. A 95%
 * percentile CI excludes 1 exactly when this is below 0.05.
 */
static double two_sided_p(double le1, double ge1)
{
	double p = 2 * (le1 < ge1 ? le1 : ge1);
	return p > 1 ? 1 : p;
}

static int exact_ci(const double *sa, size_t na, const double *sb, size_t nb, double level,
		    struct ab_ci *ci, double *pval)
{
	struct point pa[EXACT_MAX * (EXACT_MAX + 1) / 2], pb[EXACT_MAX * (EXACT_MAX + 1) / 2];
	size_t ma = median_points(sa, (int)na, pa), mb = median_points(sb, (int)nb, pb);
	struct point *r = malloc(ma * mb * sizeof(*r));
	size_t n = 0;

	if (!r)
		return -1;
	for (size_t k = 0; k < mb; k++) {
		if (pb[k].p <= 0)
			continue;
		if (pb[k].v == 0) {	/* a resample whose median of b is 0 has no ratio */
			free(r);
			errno = EDOM;
			return -1;
		}
		for (size_t i = 0; i < ma; i++)
			if (pa[i].p > 0)
				r[n++] = (struct point){ pa[i].v / pb[k].v, pa[i].p * pb[k].p };
	}
	qsort(r, n, sizeof(*r), cmp_point);
	double le1 = 0, ge1 = 0;
	for (size_t i = 0; i < n; i++) {
		le1 += r[i].v <= 1 ? r[i].p : 0;
		ge1 += r[i].v >= 1 ? r[i].p : 0;
	}
	*pval = two_sided_p(le1, ge1);
	ci->lo = quantile(r, n, (1 - level) / 2);
	ci->hi = quantile(r, n, (1 + level) / 2);
	ci->level = level;
	free(r);
	return 0;
}

/* ---- Monte Carlo, for larger samples ---- */

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* multiply-high maps to [0, n); its bias, about n / 2^64, is nothing next to resampling */
size_t ab_boot_draw(uint64_t *rng, size_t n)
{
	return (size_t)(((unsigned __int128)splitmix64(rng) * n) >> 64);
}

double ab_boot_median(double *x, size_t n)
{
	size_t lo = (n - 1) / 2;
	double vlo = ab_select_kth(x, n, lo), vhi = vlo;

	if (n % 2 == 0) {	/* the next rank: the least of those after lo */
		vhi = x[lo + 1];
		for (size_t i = lo + 2; i < n; i++)
			vhi = x[i] < vhi ? x[i] : vhi;
	}
	return vlo + 0.5 * (vhi - vlo);
}

void ab_boot_ci(const double *v, double level, struct ab_ci *ci, double *p)
{
	size_t le1 = 0, ge1 = 0;

	for (size_t i = 0; i < AB_BOOT_RESAMPLES; i++) {
		le1 += v[i] <= 1;
		ge1 += v[i] >= 1;
	}
	/* (k + 1) / (B + 1): a sampled share is never an honest 0 */
	if (p)
		*p = two_sided_p((le1 + 1.0) / (AB_BOOT_RESAMPLES + 1.0),
				 (ge1 + 1.0) / (AB_BOOT_RESAMPLES + 1.0));
	ci->lo = ab_percentile(v, AB_BOOT_RESAMPLES, 100 * (1 - level) / 2);
	ci->hi = ab_percentile(v, AB_BOOT_RESAMPLES, 100 * (1 + level) / 2);
	ci->level = level;
}

/* The median of one resample of sorted s: counting drawn indices (cnt: n slots)
 * gives the resample's order without sorting values. */
static double resample_median(const double *s, size_t n, unsigned *cnt, uint64_t *rng)
{
	double h = (double)(n - 1) * 0.5;
	size_t lo = (size_t)h, seen = 0, ilo = 0, ihi = 0;

	memset(cnt, 0, n * sizeof(*cnt));
	for (size_t i = 0; i < n; i++)
		cnt[ab_boot_draw(rng, n)]++;
	for (size_t i = 0; i < n; i++) {
		if (seen <= lo && lo < seen + cnt[i])
			ilo = i;
		if (seen <= lo + 1 && lo + 1 < seen + cnt[i])
			ihi = i;
		seen += cnt[i];
	}
	return lo + 1 >= n ? s[ilo] : s[ilo] + (h - (double)lo) * (s[ihi] - s[ilo]);
}

/* The median of AB_BOOT_MAX_N values drawn from x (n > AB_BOOT_MAX_N, in any order),
 * interpolated as ab_percentile does; buf: AB_BOOT_MAX_N slots. No sort of x needed. */
static double subsample_median(const double *x, size_t n, double *buf, uint64_t *rng)
{
	for (size_t i = 0; i < AB_BOOT_MAX_N; i++)
		buf[i] = x[ab_boot_draw(rng, n)];
	return ab_boot_median(buf, AB_BOOT_MAX_N);
}

/* A resample's median: of sorted s whole up to AB_BOOT_MAX_N values, else M out of n. */
static double boot_median(const double *s, size_t n, unsigned *cnt, double *buf, uint64_t *rng)
{
	return n > AB_BOOT_MAX_N ? subsample_median(s, n, buf, rng) : resample_median(s, n, cnt, rng);
}

static int sampled_ci(const double *sa, size_t na, const double *sb, size_t nb, double level,
		      struct ab_ci *ci, double *pval)
{
	size_t nmax = na > nb ? na : nb;
	unsigned *cnt = malloc((nmax < AB_BOOT_MAX_N ? nmax : AB_BOOT_MAX_N) * sizeof(*cnt));
	double *buf = nmax > AB_BOOT_MAX_N ? malloc(AB_BOOT_MAX_N * sizeof(*buf)) : NULL;
	double *ratio = malloc(AB_BOOT_RESAMPLES * sizeof(*ratio));
	uint64_t rng = AB_BOOT_SEED;
	int ret = -1;

	if (!cnt || !ratio || (nmax > AB_BOOT_MAX_N && !buf))
		goto out;
	for (size_t i = 0; i < AB_BOOT_RESAMPLES; i++) {
		double ma = boot_median(sa, na, cnt, buf, &rng);
		double mb = boot_median(sb, nb, cnt, buf, &rng);
		if (mb == 0) {
			errno = EDOM;
			goto out;
		}
		ratio[i] = ma / mb;
	}
	ab_boot_ci(ratio, level, ci, pval);
	ret = 0;
out:
	free(cnt);
	free(buf);
	free(ratio);
	return ret;
}

int ab_ratio_ci_p(const double *a, size_t na, const double *b, size_t nb, double level,
		  struct ab_ci *ci, double *p)
{
	double *sa, *sb;
	int ret = -1;

	*p = NAN;
	ci->lo = ci->hi = ci->level = NAN;
	if (na == 0 || nb == 0 || !(level > 0 && level < 1) || ab_median(b, nb) == 0) {
		errno = EINVAL;
		return -1;
	}
	/* sorted when resampled whole (n <= AB_BOOT_MAX_N), else NULL */
	sa = na <= AB_BOOT_MAX_N ? ab_sorted_copy(a, na) : NULL;
	sb = nb <= AB_BOOT_MAX_N ? ab_sorted_copy(b, nb) : NULL;
	if ((sa || na > AB_BOOT_MAX_N) && (sb || nb > AB_BOOT_MAX_N)) {
		if (na <= EXACT_MAX && nb <= EXACT_MAX)
			ret = exact_ci(sa, na, sb, nb, level, ci, p);
		else	/* a side past AB_BOOT_MAX_N is drawn from as it is */
			ret = sampled_ci(sa ? sa : a, na, sb ? sb : b, nb, level, ci, p);
	}
	if (ret < 0)
		ci->lo = ci->hi = ci->level = *p = NAN;
	free(sa);
	free(sb);
	return ret;
}
