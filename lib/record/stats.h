/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics that say how far to trust a number: median with a confidence
 * interval, CV, percentiles, and the CI of a ratio of two medians.
 *
 * Methods:
 *  - percentile: linear interpolation between closest ranks (Hyndman & Fan
 *    type 7, as R, numpy and gnuplot's stats use by default).
 *  - CI of a median: distribution-free, from order statistics of the
 *    binomial(n, 1/2) distribution: the narrowest symmetric pair of order
 *    statistics (x(k), x(n-k+1)) whose coverage is >= the requested level.
 *    With too few samples (n < 6 for 95%) no pair reaches it; the interval is
 *    then [min, max] and 'level' reports the coverage actually reached.
 *  - CI of a ratio of two medians: percentile bootstrap (resampling both
 *    samples independently, 2000 resamples, fixed seed, so results repeat;
 *    exact up to 12 values a side). A resample holds at most 10,000 values a
 *    side: a larger sample is resampled 10,000 out of n, which widens the CI
 *    (it errs towards "not significant"); see ratio_ci.c.
 */
#ifndef AB_STATS_H
#define AB_STATS_H

#include <stddef.h>
#include <stdint.h>

/* All functions take unsorted input and leave it untouched; n == 0 gives NAN. */
double ab_mean(const double *x, size_t n);
double ab_stddev(const double *x, size_t n);	/* sample standard deviation (n - 1) */
double ab_cv(const double *x, size_t n);	/* stddev / mean; NAN if mean == 0 */
double ab_min(const double *x, size_t n);
double ab_max(const double *x, size_t n);
double ab_median(const double *x, size_t n);
double ab_percentile(const double *x, size_t n, double p);	/* p in [0, 100] */
/* The k-th smallest of x[0..n-1] (0-based), x reordered so that none before it is
 * larger and none after it smaller (selection: O(n) expected, no sort). */
double ab_select_kth(double *x, size_t n, size_t k);
/* qsort's comparison of doubles: ascending, NaNs last. */
int ab_cmp_double(const void *pa, const void *pb);
/* A malloc'd copy of x sorted ascending (ab_cmp_double); NULL when out of memory. */
double *ab_sorted_copy(const double *x, size_t n);

/* The median absolute deviation from the median, unscaled (NAN when n == 0). */
double ab_mad(const double *x, size_t n);
/* The robust SD: 1.4826 x MAD, the SD of normal data. */
#define AB_MAD_SD 1.4826
/*
 * Outliers, as hyperfine flags them, by a rule stated and never applied silently:
 * a value farther than k robust SDs (k x AB_MAD_SD x MAD) from the median. out[i]
 * (n slots, may be NULL) says which; returns how many. A MAD of 0 (half the values
 * equal) flags none: a robust spread of 0 makes every other value "infinitely" far.
 * Callers report what is flagged; nothing is dropped here.
 */
size_t ab_outliers(const double *x, size_t n, double k, unsigned char *out);

struct ab_ci {
	double lo, hi;
	double level;		/* coverage actually reached (e.g. 0.9375 for n = 5) */
};
/* Distribution-free CI of the median at the wanted level (e.g. 0.95). */
int ab_median_ci(const double *x, size_t n, double level, struct ab_ci *ci);
/* The CI of x's median at level (0.95: report.md's) into ci, and its half-width relative
 * to that median into *w (NAN for a median of 0: no relative width). 0, or -1 when no
 * pair of values reaches level (at 95%, fewer than 6 values) or on failure. */
int ab_median_ci_rel(const double *x, size_t n, double level, struct ab_ci *ci, double *w);
/* Values a side in one bootstrap resample: a larger sample is resampled this many
 * out of n (the m-out-of-n bootstrap; its CI is wider, see ratio_ci.c). */
#define AB_BOOT_MAX_N 10000
/* Bootstrap resamples B of a ratio: its p-value's resolution is 1/(B + 1). */
#define AB_BOOT_RESAMPLES 2000
/* Up to this many values a side the bootstrap distribution is computed exactly (n^n
 * stays exact in a double; at most 78 support points): its p can be an exact 0. */
#define AB_BOOT_EXACT_MAX 12

/* Bootstrap CI of median(a) / median(b); -1 if a median of b is 0 or n is 0. And the
 * two-sided bootstrap p-value of "the ratio is 1" (twice the smaller share of bootstrap
 * ratios at or beyond 1 on either side; NAN on failure). */
int ab_ratio_ci_p(const double *a, size_t na, const double *b, size_t nb, double level,
		  struct ab_ci *ci, double *p);

/* What the drawn bootstraps (ratio_ci.c's, hboot.c's) share: one fixed seed, so results
 * repeat; a draw from [0, n) of the splitmix64 stream at *rng; the median of x[0..n-1]
 * (n > 0) by selection, x reordered, interpolated as ab_median's; and the percentile CI
 * at level of AB_BOOT_RESAMPLES resampled values v, with (p not NULL) the two-sided p of
 * "the value is 1" as ab_ratio_ci_p gives it. */
#define AB_BOOT_SEED 0x61666662656e6368ULL	/* "affbench" */
size_t ab_boot_draw(uint64_t *rng, size_t n);
double ab_boot_median(double *x, size_t n);
void ab_boot_ci(const double *v, double level, struct ab_ci *ci, double *p);

/*
 * Holm-Bonferroni (Holm 1979) over n p-values: adj[i] is p[i]'s adjusted
 * p-value (R's p.adjust(p, "holm")): sorted ascending, the j-th (from 0)
 * times n - j, made monotone, at most 1; reject where adj <= alpha controls the
 * family-wise error rate at alpha. NAN p-values (not judged) are left out of
 * n and get a NAN adj. adj may be p (adjusted in place). Returns how many
 * p-values were counted, or -1 (ENOMEM).
 */
long ab_holm(const double *p, size_t n, double *adj);

/* The two-sided exact sign test: the p-value of "below and above are draws of a fair
 * coin" (binomial(below + above, 1/2)), at most 1; NAN when both are 0. */
double ab_sign_p(size_t below, size_t above);

/* Summary used by tables and summary.csv. */
struct ab_summary {
	size_t n;
	double median, mean, stddev, cv, min, max;
	struct ab_ci ci;	/* 95% CI of the median */
};
void ab_summarize(const double *x, size_t n, struct ab_summary *s);

/*
 * Log-linear latency histogram for hot paths (HdrHistogram's layout): values
 * below 32 are counted exactly; above, each power of two is split into 32
 * equal buckets, so a bucket is at most 1/32 of its values wide and a
 * percentile, reported at the bucket's middle, is within 1.6% of the true
 * value. 1920 buckets (15 KiB) cover every uint64_t.
 */
#define AB_HIST_SUB_BITS 5
#define AB_HIST_SUB (1u << AB_HIST_SUB_BITS)
#define AB_HIST_BUCKETS ((64 - AB_HIST_SUB_BITS + 1) * AB_HIST_SUB)
struct ab_hist {
	uint64_t b[AB_HIST_BUCKETS];
	/* The largest value ab_hist_add saw, exact. A histogram filled bucket by
	 * bucket (brk's BPF side) leaves it 0: ab_hist_max then says its bucket's top. */
	uint64_t max;
};
static inline unsigned ab_hist_bucket(uint64_t v)
{
	if (v < AB_HIST_SUB)
		return (unsigned)v;
	unsigned e = 63 - (unsigned)__builtin_clzll(v);	/* >= AB_HIST_SUB_BITS */
	unsigned sub = (unsigned)(v >> (e - AB_HIST_SUB_BITS)) & (AB_HIST_SUB - 1);
	return (e - AB_HIST_SUB_BITS + 1) * AB_HIST_SUB + sub;
}
static inline void ab_hist_add(struct ab_hist *h, uint64_t v)
{
	h->b[ab_hist_bucket(v)]++;
	if (v > h->max)
		h->max = v;
}
void ab_hist_merge(struct ab_hist *dst, const struct ab_hist *src);
uint64_t ab_hist_count(const struct ab_hist *h);
/* The middle of bucket i, where percentiles and means report its values. */
double ab_hist_bucket_mid(unsigned i);
/* Nearest rank, reported at its bucket's middle (exact below 32); in the top bucket the
 * middle of its values up to the exact max, when that is known. NAN when empty. */
double ab_hist_percentile(const struct ab_hist *h, double p);
/* Bucket i holds the values lo .. hi - 1 (hi is the next bucket's lo). */
uint64_t ab_hist_bucket_lo(unsigned i);
uint64_t ab_hist_bucket_hi(unsigned i);	/* UINT64_MAX for the last bucket */
/* The largest value: exact when ab_hist_add counted it (h->max falls in the highest
 * non-empty bucket), else that bucket's largest value (at most 1/32 above the true
 * one). NAN when empty. */
double ab_hist_max(const struct ab_hist *h);
int ab_hist_max_exact(const struct ab_hist *h);	/* 1: ab_hist_max is the true max */

#endif
