// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/stats.c and ratio_ci.c against references written apart from them,
 * over random inputs (fixed seed, so a failure repeats):
 *  - ab_percentile and ab_median against a sort-based type-7 percentile, arrays of
 *    1-50 values, with and without ties;
 *  - ab_median_ci against the exact binomial order-statistic interval, its coverage
 *    summed in integers (C(n, i) / 2^n is exact in a double up to n = 50);
 *  - the exact bootstrap CI and p-value of a ratio of medians (up to 12 values a
 *    side) against the bootstrap enumerated: every one of the n^n resamples of each
 *    side, up to 7 values.
 * test_stats.c holds the hand-worked cases.
 */
#include "stats_fx.h"
#include "rng_fx.h"

/* n values: continuous in [-1000, 1000), or small integers 0..4 (many ties) */
static void rng_fill(uint64_t *s, double *x, size_t n, int ties)
{
	for (size_t i = 0; i < n; i++)
		x[i] = ties ? (double)(rng_next(s) % 5) : rng_unit(s) * 2000 - 1000;
}

static int cmp_d(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

/* --- percentiles: sort, then interpolate between ranks floor(h) and floor(h) + 1 --- */

static double ref_percentile(const double *x, size_t n, double p)
{
	double s[64], h = (double)(n - 1) * p / 100;
	size_t lo = (size_t)floor(h);

	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_d);
	if (lo + 1 >= n)
		return s[n - 1];
	return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

static void test_percentile_ref(void **state)
{
	static const double ps[] = { 0, 1, 5, 10, 25, 33.3, 50, 66.7, 75, 90, 95, 99, 100 };
	uint64_t seed = 0x7065726365ULL;

	(void)state;
	for (int round = 0; round < 40; round++) {
		for (size_t n = 1; n <= 50; n++) {
			double x[50], before[50];
			int ties = round % 2;

			rng_fill(&seed, x, n, ties);
			memcpy(before, x, n * sizeof(*x));
			for (size_t i = 0; i <= N(ps); i++) {
				double p = i < N(ps) ? ps[i] : rng_unit(&seed) * 100;
				char what[96];

				snprintf(what, sizeof(what), "round %d n=%zu%s p%g", round, n,
					 ties ? " (ties)" : "", p);
				check_close(what, ab_percentile(x, n, p), ref_percentile(x, n, p),
					    1e-9);
			}
			check_close("median", ab_median(x, n), ref_percentile(x, n, 50), 1e-9);
			assert_memory_equal(before, x, n * sizeof(*x));
		}
	}
}

/* --- the median's CI: (x(k), x(n-k+1)) covers the median with sum_{i=k}^{n-k} C(n,i) / 2^n --- */

static uint64_t binom[51][51];

static void binom_fill(void)
{
	for (int n = 0; n <= 50; n++) {
		binom[n][0] = binom[n][n] = 1;
		for (int i = 1; i < n; i++)
			binom[n][i] = binom[n - 1][i - 1] + binom[n - 1][i];
	}
}

static double coverage(size_t n, size_t k)
{
	uint64_t sum = 0;

	for (size_t i = k; i + k <= n; i++)
		sum += binom[n][i];
	return ldexp((double)sum, -(int)n);
}

/* The reference rule: the narrowest pair (largest k, k <= n - k) covering at least
 * level; [min, max] (k = 1) when none does. */
static size_t ref_median_k(size_t n, double level)
{
	size_t best = 1;

	for (size_t k = 1; k <= n - k; k++)
		if (coverage(n, k) >= level)
			best = k;
	return best;
}

static void test_median_ci_ref(void **state)
{
	/* none of these is a dyadic fraction, so none equals a coverage exactly */
	static const double levels[] = { 0.6, 0.8, 0.9, 0.95, 0.99 };
	uint64_t seed = 0x6d6369ULL;

	(void)state;
	binom_fill();
	for (size_t n = 1; n <= 50; n++) {
		for (size_t l = 0; l < N(levels); l++) {
			double x[50], s[50];
			size_t k = ref_median_k(n, levels[l]);
			struct ab_ci ci;
			char what[64];

			rng_fill(&seed, x, n, l % 2);
			memcpy(s, x, sizeof(s));
			qsort(s, n, sizeof(*s), cmp_d);
			snprintf(what, sizeof(what), "median ci n=%zu level %g k=%zu", n,
				 levels[l], k);
			assert_int_equal(ab_median_ci(x, n, levels[l], &ci), 0);
			check_close(what, ci.lo, s[k - 1], 0);
			check_close(what, ci.hi, s[n - k], 0);
			check_close(what, ci.level, coverage(n, k), 1e-12);
		}
	}
}

/* --- the ratio's exact bootstrap, enumerated --- */

#define ENUM_MAX 7	/* 7^7 = 823,543 resamples a side */

/* The distribution of a resample's median: distinct values and their counts. */
struct dist {
	size_t n;
	double v[ENUM_MAX * ENUM_MAX];
	uint64_t c[ENUM_MAX * ENUM_MAX];
	uint64_t total;
};

static void dist_add(struct dist *d, double v)
{
	size_t i = 0;

	while (i < d->n && d->v[i] != v)
		i++;
	if (i == d->n) {
		d->v[d->n] = v;
		d->c[d->n++] = 0;
	}
	d->c[i]++;
	d->total++;
}

/* Every n-tuple of indices into x, as a base-n counter; each one's median by sorting. */
static void enumerate(const double *x, size_t n, struct dist *d)
{
	size_t idx[ENUM_MAX] = { 0 };

	memset(d, 0, sizeof(*d));
	for (;;) {
		double r[ENUM_MAX];
		size_t i;

		for (i = 0; i < n; i++) {	/* insertion sort: n <= 7 */
			size_t j = i;
			for (; j > 0 && r[j - 1] > x[idx[i]]; j--)
				r[j] = r[j - 1];
			r[j] = x[idx[i]];
		}
		dist_add(d, n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2);
		for (i = 0; i < n && ++idx[i] == n; i++)
			idx[i] = 0;
		if (i == n)
			return;
	}
}

struct ratio_pt {
	double v;
	double w;	/* its count, exact: at most 7^14 < 2^53 */
};

static int cmp_pt(const void *pa, const void *pb)
{
	return cmp_d(&((const struct ratio_pt *)pa)->v, &((const struct ratio_pt *)pb)->v);
}

/* The smallest ratio whose share of the resamples reaches q. */
static double ref_quantile(const struct ratio_pt *r, size_t m, double total, double q)
{
	double cum = 0;

	for (size_t i = 0; i < m; i++) {
		cum += r[i].w;
		if (cum / total >= q - 1e-12)
			return r[i].v;
	}
	return r[m - 1].v;
}

/* The ratio's CI and p-value from the two sides' enumerated distributions. */
static void check_ratio(const char *what, const double *a, size_t na, const struct dist *da,
			const double *b, size_t nb, const struct dist *db)
{
	static struct ratio_pt r[ENUM_MAX * ENUM_MAX * ENUM_MAX * ENUM_MAX];
	double le1 = 0, ge1 = 0, total = (double)da->total * (double)db->total, p;
	size_t m = 0;
	struct ab_ci ci;

	for (size_t i = 0; i < da->n; i++)
		for (size_t j = 0; j < db->n; j++) {
			double v = da->v[i] / db->v[j], w = (double)da->c[i] * (double)db->c[j];
			r[m++] = (struct ratio_pt){ v, w };
			le1 += v <= 1 ? w : 0;
			ge1 += v >= 1 ? w : 0;
		}
	qsort(r, m, sizeof(*r), cmp_pt);
	double want_p = 2 * (le1 < ge1 ? le1 : ge1) / total;
	want_p = want_p > 1 ? 1 : want_p;

	assert_int_equal(ab_ratio_ci_p(a, na, b, nb, 0.95, &ci, &p), 0);
	check_close(what, ci.lo, ref_quantile(r, m, total, 0.025), 1e-12);
	check_close(what, ci.hi, ref_quantile(r, m, total, 0.975), 1e-12);
	check_close(what, p, want_p, 1e-9);
}

/*
 * Random samples of 1-7 values a side (each enumerated once), every pair of sizes;
 * and b constant at a's middle value, where a ratio of exactly 1 has weight: that is
 * where "at or below 1" and "below 1" part.
 */
static void test_ratio_ci_enumerated(void **state)
{
	static double a[ENUM_MAX + 1][ENUM_MAX], b[ENUM_MAX + 1][ENUM_MAX];
	static struct dist da[ENUM_MAX + 1], db[ENUM_MAX + 1], dc;
	uint64_t seed = 0x726174696fULL;

	(void)state;
	for (size_t n = 1; n <= ENUM_MAX; n++) {
		for (size_t i = 0; i < n; i++) {
			a[n][i] = 50 + (double)(rng_next(&seed) % 100);
			b[n][i] = 50 + (double)(rng_next(&seed) % 100);
		}
		enumerate(a[n], n, &da[n]);
		enumerate(b[n], n, &db[n]);
	}
	for (size_t na = 1; na <= ENUM_MAX; na++) {
		for (size_t nb = 1; nb <= ENUM_MAX; nb++) {
			char what[64];

			snprintf(what, sizeof(what), "ratio %zu/%zu", na, nb);
			check_ratio(what, a[na], na, &da[na], b[nb], nb, &db[nb]);
		}
		for (size_t nb = 1; nb <= 3; nb++) {
			double c[3] = { a[na][na / 2], a[na][na / 2], a[na][na / 2] };
			char what[64];

			enumerate(c, nb, &dc);
			snprintf(what, sizeof(what), "ratio %zu/%zu, b constant", na, nb);
			check_ratio(what, a[na], na, &da[na], c, nb, &dc);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_ref),
		cmocka_unit_test(test_median_ci_ref),
		cmocka_unit_test(test_ratio_ci_enumerated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
