// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics for repetitions and latency streams; the methods are described
 * in stats.h. Inputs are never modified: order statistics work on a malloc'd
 * copy, sorted with qsort or, for one percentile, selected in O(n). n == 0 (or an
 * allocation failure) gives NAN, so an empty sample can never turn into a number in a
 * table.
 */
#include "record/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sorts NaN last so a stray NaN cannot break qsort's ordering contract. */
int ab_cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

double *ab_sorted_copy(const double *x, size_t n)
{
	double *c = malloc(n * sizeof(*c));

	if (!c)
		return NULL;
	memcpy(c, x, n * sizeof(*c));
	qsort(c, n, sizeof(*c), ab_cmp_double);
	return c;
}

double ab_mean(const double *x, size_t n)
{
	double sum = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

/* Two passes (mean, then squared deviations): no cancellation for large means. */
double ab_stddev(const double *x, size_t n)
{
	double m, ss = 0;

	if (n < 2)	/* the sample stddev of one value is undefined */
		return NAN;
	m = ab_mean(x, n);
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (double)(n - 1));
}

double ab_cv(const double *x, size_t n)
{
	double m = ab_mean(x, n);

	if (n == 0 || m == 0)
		return NAN;
	return ab_stddev(x, n) / m;
}

static double extreme(const double *x, size_t n, int max)
{
	double v;

	if (n == 0)
		return NAN;
	v = x[0];
	for (size_t i = 1; i < n; i++)
		if (max ? x[i] > v : x[i] < v)
			v = x[i];
	return v;
}

double ab_min(const double *x, size_t n)
{
	return extreme(x, n, 0);
}

double ab_max(const double *x, size_t n)
{
	return extreme(x, n, 1);
}

/* Wirth's selection, O(n) expected. The scans are bounded, so a NaN cannot run
 * them off the array. */
double ab_select_kth(double *x, size_t n, size_t k)
{
	long l = 0, r = (long)n - 1, kk = (long)k;

	while (l < r) {
		double pivot = x[kk];
		long i = l, j = r;
		do {
			while (i < r && x[i] < pivot)
				i++;
			while (j > l && pivot < x[j])
				j--;
			if (i <= j) {
				double t = x[i];
				x[i++] = x[j];
				x[j--] = t;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			r = j;
	}
	return x[k];
}

/*
 * Type 7: h = (n - 1) p, interpolated between ranks floor(h) and the next, found by
 * selection in O(n), not by a sort in O(n log n): a percentile of 4 million
 * repetitions is taken many times over in one compare. NaNs rank last, as
 * ab_cmp_double sorts them.
 */
double ab_percentile(const double *x, size_t n, double p)
{
	if (n == 0 || !(p >= 0 && p <= 100))
		return NAN;
	double *c = malloc(n * sizeof(*c)), h = (double)(n - 1) * p / 100.0;
	size_t m = 0, lo = (size_t)floor(h);

	if (!c)
		return NAN;
	for (size_t i = 0; i < n; i++)	/* the numbers first: m of them */
		if (!isnan(x[i]))
			c[m++] = x[i];
	if (lo + 1 >= n)
		lo = n - 1;
	double vlo = lo < m ? ab_select_kth(c, m, lo) : NAN, vhi = vlo;
	if (lo + 1 < n) {	/* the next rank: the least of those after lo */
		vhi = lo + 1 < m ? c[lo + 1] : NAN;
		for (size_t i = lo + 2; i < m; i++)
			vhi = c[i] < vhi ? c[i] : vhi;
	}
	free(c);
	return lo + 1 >= n ? vlo : vlo + (h - (double)lo) * (vhi - vlo);
}

double ab_median(const double *x, size_t n)
{
	return ab_percentile(x, n, 50);
}

double ab_mad(const double *x, size_t n)
{
	double m = ab_median(x, n), *d = n ? malloc(n * sizeof(*d)) : NULL;

	if (!d)
		return NAN;
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - m);
	m = ab_median(d, n);
	free(d);
	return m;
}

size_t ab_outliers(const double *x, size_t n, double k, unsigned char *out)
{
	double m = ab_median(x, n), lim = k * AB_MAD_SD * ab_mad(x, n);
	size_t c = 0;

	for (size_t i = 0; i < n; i++) {
		int far = lim > 0 && fabs(x[i] - m) > lim;	/* NAN or 0 limit: none */
		c += far;
		if (out)
			out[i] = (unsigned char)far;
	}
	return c;
}

/* P(B = i) for B ~ binomial(n, 1/2), in log space because 2^-n underflows past n ~ 1074. */
static double binom_half_pmf(size_t n, size_t i)
{
	return exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
		   (double)n * M_LN2);
}

double ab_sign_p(size_t below, size_t above)
{
	size_t n = below + above, k = below < above ? below : above;
	double tail = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i <= k; i++)
		tail += binom_half_pmf(n, i);
	return fmin(1, 2 * tail);
}

int ab_median_ci(const double *x, size_t n, double level, struct ab_ci *ci)
{
	double *s, cdf, cover, best;
	size_t k;

	ci->lo = ci->hi = ci->level = NAN;
	if (n == 0 || !(level > 0 && level < 1)) {
		errno = EINVAL;
		return -1;
	}
	s = ab_sorted_copy(x, n);
	if (!s)
		return -1;
	/*
	 * (x(k), x(n-k+1)) covers the median with probability
	 * 1 - 2 P(B <= k-1). Coverage falls as k grows: take the largest k
	 * (narrowest pair) still >= level, and at least k = 1 ([min, max]),
	 * reporting what that pair actually reaches.
	 */
	k = 1;
	cdf = binom_half_pmf(n, 0);
	best = 1 - 2 * cdf;
	while (k + 1 <= n - k) {	/* x(k+1) stays strictly left of x(n-k) */
		cdf += binom_half_pmf(n, k);
		cover = 1 - 2 * cdf;
		if (cover < level)
			break;
		k++;
		best = cover;
	}
	ci->lo = s[k - 1];
	ci->hi = s[n - k];
	ci->level = best;
	free(s);
	return 0;
}

int ab_median_ci_rel(const double *x, size_t n, double level, struct ab_ci *ci, double *w)
{
	double med = ab_median(x, n);

	*w = NAN;
	if (ab_median_ci(x, n, level, ci) < 0 || ci->level < level)
		return -1;
	if (med != 0)
		*w = (ci->hi - ci->lo) / 2 / fabs(med);
	return 0;
}

void ab_summarize(const double *x, size_t n, struct ab_summary *s)
{
	s->n = n;
	s->median = ab_median(x, n);
	s->mean = ab_mean(x, n);
	s->stddev = ab_stddev(x, n);
	s->cv = ab_cv(x, n);
	s->min = ab_min(x, n);
	s->max = ab_max(x, n);
	ab_median_ci(x, n, 0.95, &s->ci);	/* leaves NANs on failure */
}

void ab_hist_merge(struct ab_hist *dst, const struct ab_hist *src)
{
	for (unsigned i = 0; i < AB_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t ab_hist_count(const struct ab_hist *h)
{
	uint64_t c = 0;

	for (unsigned i = 0; i < AB_HIST_BUCKETS; i++)
		c += h->b[i];
	return c;
}

/* Middle of bucket i: [low, low + width). */
double ab_hist_bucket_mid(unsigned i)
{
	if (i < AB_HIST_SUB)
		return i;
	return (double)ab_hist_bucket_lo(i) + (ldexp(1.0, (int)(i / AB_HIST_SUB) - 1) - 1) / 2;
}

/* The middle of what bucket i is known to hold: up to the max in the top bucket when the
 * max is exact (hist.csv narrows that bucket the same way), else the whole bucket. */
static double hist_mid(const struct ab_hist *h, unsigned i)
{
	if (i >= AB_HIST_SUB && ab_hist_bucket(h->max) == i)
		return ((double)ab_hist_bucket_lo(i) + (double)h->max) / 2;
	return ab_hist_bucket_mid(i);
}

double ab_hist_percentile(const struct ab_hist *h, double p)
{
	uint64_t count = ab_hist_count(h), rank, cum = 0;

	if (count == 0 || !(p >= 0 && p <= 100))
		return NAN;
	rank = (uint64_t)ceil(p / 100.0 * (double)count);
	if (rank < 1)
		rank = 1;
	if (rank > count)	/* rounding of p/100 * count near the top */
		rank = count;
	for (unsigned i = 0; i < AB_HIST_BUCKETS; i++) {
		cum += h->b[i];
		if (cum >= rank)
			return hist_mid(h, i);
	}
	return NAN;	/* not reached: cum ends at count >= rank */
}

uint64_t ab_hist_bucket_lo(unsigned i)
{
	if (i < AB_HIST_SUB)
		return i;
	unsigned k = i / AB_HIST_SUB, sub = i % AB_HIST_SUB;
	return (uint64_t)(AB_HIST_SUB + sub) << (k - 1);
}

uint64_t ab_hist_bucket_hi(unsigned i)
{
	return i + 1 < AB_HIST_BUCKETS ? ab_hist_bucket_lo(i + 1) : UINT64_MAX;
}

/* The highest non-empty bucket, or -1. */
static int hist_top(const struct ab_hist *h)
{
	for (int i = AB_HIST_BUCKETS - 1; i >= 0; i--)
		if (h->b[i])
			return i;
	return -1;
}

int ab_hist_max_exact(const struct ab_hist *h)
{
	int top = hist_top(h);

	return top >= 0 && ab_hist_bucket((uint64_t)h->max) == (unsigned)top;
}

double ab_hist_max(const struct ab_hist *h)
{
	int top = hist_top(h);

	if (top < 0)
		return NAN;
	if (ab_hist_max_exact(h))
		return (double)h->max;
	return (double)(ab_hist_bucket_hi((unsigned)top) - 1);
}
