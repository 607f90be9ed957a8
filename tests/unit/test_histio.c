// SPDX-License-Identifier: GPL-2.0
/*
 * hist.csv (lib/record/histio.c) against the raw samples: histograms filled
 * from known samples of several distributions, one spanning nine decades, are
 * written as hist.csv rows, read back, and their p50, p90, p99, p99.9 and max
 * must match the exact (nearest-rank) percentiles of the samples within the
 * bounded relative error stats.h promises (1.6%; values below 32 exactly), the
 * max exactly. Then the channel (AFFBENCH_HIST, CSV only), the extra records,
 * and rows a hist.csv from elsewhere must not get through, counts whose sums
 * would overflow among them (2^40 a row, 2^53 a histogram).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/histio.h"
#include "record/stats.h"
#include "sys/opts.h"

#define NSAMPLES 20000
#define REL_ERR 0.016	/* stats.h: within 1.6% */

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static double unit_rand(void)	/* (0, 1), xorshift64: the same samples every run */
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return ((double)(rnd_state >> 11) + 0.5) / 9007199254740992.0;
}

enum dist { D_SMALL, D_NORMAL, D_EXP, D_WIDE, D_BIMODAL, D_PARETO, D_N };
static const char *const dist_names[D_N] = { "small", "normal", "exp", "wide", "bimodal",
					     "pareto" };

static uint64_t sample(enum dist d)
{
	double u = unit_rand(), v = 0;

	switch (d) {
	case D_SMALL:	/* 0 .. 40: the exact buckets and the first wide ones */
		v = floor(u * 41);
		break;
	case D_NORMAL:	/* around 10 us, Box-Muller */
		v = 10000 + 800 * sqrt(-2 * log(u)) * cos(2 * M_PI * unit_rand());
		break;
	case D_EXP:	/* a FUSE round trip's tail: exponential, mean 20 us */
		v = -20000 * log(u);
		break;
	case D_WIDE:	/* log-uniform over 1 ns .. 1 s: every decade */
		v = pow(10, 9 * u);
		break;
	case D_BIMODAL:	/* mostly fast, some 1000x slower */
		v = u < 0.97 ? 2000 + 100 * unit_rand() : 2e6 + 1e5 * unit_rand();
		break;
	case D_PARETO:	/* heavy tail, alpha 1.2, from 5 us */
		v = 5000 / pow(u, 1 / 1.2);
		break;
	case D_N:
		break;
	}
	return v < 0 ? 0 : (uint64_t)v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact nearest-rank percentile of sorted x (what ab_hist_percentile approximates). */
static uint64_t exact_pct(const uint64_t *x, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100 * (double)n);

	return x[(rank < 1 ? 1 : rank > n ? n : rank) - 1];
}

/* A row's fields checked and added to h, as the harness reads hist.csv: NULL, or why
 * the row is refused. */
static const char *row_add(char *const *f, struct ab_hist *h, uint64_t *total)
{
	uint64_t lo, hi, n;
	const char *why = ab_hist_row_check(f, &lo, &hi, &n);

	return why ? why : ab_hist_row_put(h, total, lo, hi, n);
}

/* Read f's rows (no prefix, as in hist.csv) back into h: how many rows. */
/* h's rows as hist.csv holds them: what ab_hist_rows writes, its "hist," prefix cut. */
static void hist_csv(FILE *f, const struct ab_hist *h)
{
	struct ab_common c = { .format = AB_FMT_CSV };
	struct ab_config cfg;
	struct ab_out o;
	char *text = NULL, *save = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);

	assert_non_null(m);
	ab_out_init(&o, m, &c, "cputestfs");
	ab_config_init(&cfg);
	ab_config_set(&cfg, "placement", "same");
	setenv(AB_HIST_ENV, "1", 1);
	ab_hist_rows(&o, &cfg, 1, "latency", "ns", h);
	unsetenv(AB_HIST_ENV);
	fclose(m);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(strncmp(l, "hist,", 5), 0);
		fprintf(f, "%s\n", l + 5);
	}
	free(text);
}

static int read_back(FILE *f, struct ab_hist *h)
{
	char line[1024], *fld[9];
	uint64_t total = 0;
	int rows = 0;

	rewind(f);
	memset(h, 0, sizeof(*h));
	while (fgets(line, sizeof(line), f)) {
		assert_int_equal(ab_csv_split(line, fld, 9), AB_HIST_FIELDS);
		const char *why = row_add(fld, h, &total);
		if (why)
			fail_msg("row %d refused: %s", rows + 1, why);
		rows++;
	}
	return rows;
}

static void test_percentiles_agree(void **state)
{
	static const double pcts[] = { 50, 90, 99, 99.9 };
	static uint64_t x[NSAMPLES];
	static struct ab_hist h, back;

	(void)state;
	for (int d = 0; d < D_N; d++) {
		FILE *f = tmpfile();

		assert_non_null(f);
		memset(&h, 0, sizeof(h));
		for (size_t i = 0; i < NSAMPLES; i++) {
			x[i] = sample((enum dist)d);
			ab_hist_add(&h, x[i]);
		}
		qsort(x, NSAMPLES, sizeof(x[0]), cmp_u64);
		hist_csv(f, &h);
		int rows = read_back(f, &back);
		assert_true(rows > 0 && rows <= (int)AB_HIST_BUCKETS);
		assert_int_equal(ab_hist_count(&back), NSAMPLES);
		for (size_t k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
			double want = (double)exact_pct(x, NSAMPLES, pcts[k]);
			double got = ab_hist_percentile(&back, pcts[k]);
			double tol = want < AB_HIST_SUB ? 0 : REL_ERR * want;
			/* hist.csv says what the records say */
			if (got != ab_hist_percentile(&h, pcts[k]))
				fail_msg("%s p%g: hist.csv says %.1f, the histogram %.1f", dist_names[d],
					 pcts[k], got, ab_hist_percentile(&h, pcts[k]));
			if (!(fabs(got - want) <= tol))
				fail_msg("%s p%g: hist.csv says %.1f, the samples %.0f (tolerance %.1f)",
					 dist_names[d], pcts[k], got, want, tol);
		}
		/* the max is kept exactly: the top bucket's bucket_hi is max + 1 */
		if (ab_hist_max(&back) != (double)x[NSAMPLES - 1])
			fail_msg("%s max: hist.csv says %.0f, the samples %llu", dist_names[d],
				 ab_hist_max(&back), (unsigned long long)x[NSAMPLES - 1]);
		fclose(f);
	}
}

/* A histogram filled bucket by bucket (brk's BPF side) knows no max: its top bucket's top. */
static void test_max_of_buckets(void **state)
{
	static struct ab_hist h;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_true(isnan(ab_hist_max(&h)));
	h.b[ab_hist_bucket(1000)] = 3;	/* 1000 is in [992, 1008) */
	assert_false(ab_hist_max_exact(&h));
	assert_true(ab_hist_max(&h) == 1007);
	assert_true(ab_hist_percentile(&h, 50) == 999.5);
	ab_hist_add(&h, 1001);
	assert_true(ab_hist_max_exact(&h));
	assert_true(ab_hist_max(&h) == 1001);
	assert_true(ab_hist_percentile(&h, 100) == 996.5);	/* the middle of 992 .. 1001 */
	h.max = 0;
	h.b[5] = 1;
	assert_true(ab_hist_max(&h) == 1007);
	for (unsigned i = 0; i + 1 < AB_HIST_BUCKETS; i++)	/* the edges tile the range */
		assert_true(ab_hist_bucket_hi(i) == ab_hist_bucket_lo(i + 1) &&
			    ab_hist_bucket(ab_hist_bucket_lo(i)) == i &&
			    ab_hist_bucket(ab_hist_bucket_hi(i) - 1) == i);
}

/* Count the lines of f that start with prefix. */
static int lines_with(FILE *f, const char *prefix)
{
	char line[1024];
	int n = 0;

	rewind(f);
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	return n;
}

static void test_channel(void **state)
{
	static struct ab_hist h;
	struct ab_config c;
	struct ab_out o;

	(void)state;
	memset(&h, 0, sizeof(h));
	ab_hist_add(&h, 100);
	ab_hist_add(&h, 5000);
	ab_config_init(&c);
	ab_config_set(&c, "io_cpus", "0-1,4");	/* a comma: quoted */
	for (int fmt = AB_FMT_TABLE; fmt <= AB_FMT_JSON; fmt++)
		for (int env = 0; env < 2; env++) {
			FILE *f = tmpfile();

			assert_non_null(f);
			if (env)
				setenv(AB_HIST_ENV, "1", 1);
			else
				unsetenv(AB_HIST_ENV);
			ab_out_init(&o, f, &(struct ab_common){ .format = (enum ab_format)fmt },
				    "sqrtio");
			ab_hist_emit(&o, &c, 2, "io_lat", "us", &h);
			fflush(f);
			int want = env && fmt == AB_FMT_CSV ? 2 : 0;
			assert_int_equal(lines_with(f, "hist,sqrtio,\"io_cpus=0-1,4\",2,io_lat,ns,"), want);
			if (fmt == AB_FMT_CSV)	/* the records come whatever the environment */
				assert_int_equal(lines_with(f, "sqrtio,\"io_cpus=0-1,4\",2,io_lat_p"), 2);
			assert_int_equal(lines_with(f, "sqrtio,\"io_cpus=0-1,4\",2,io_lat_max_us,5,us"),
					 fmt == AB_FMT_CSV);
			fclose(f);
		}
	unsetenv(AB_HIST_ENV);
}

static void test_bad_rows(void **state)
{
	static const char *const bad[][8] = {
		{ "Cputestfs", "", "1", "latency", "ns", "992", "1008", "1" },	/* bench */
		{ "ddpar", "a=b;c", "1", "lat", "ns", "992", "1008", "1" },	/* config */
		{ "ddpar", "", "x", "lat", "ns", "992", "1008", "1" },		/* rep */
		{ "ddpar", "", "1", "lat\"", "ns", "992", "1008", "1" },	/* metric */
		{ "ddpar", "", "1", "lat", "n s", "992", "1008", "1" },		/* unit */
		{ "ddpar", "", "1", "lat", "ns", "993", "1008", "1" },		/* not an edge */
		{ "ddpar", "", "1", "lat", "ns", "992", "1009", "1" },		/* past its bucket */
		{ "ddpar", "", "1", "lat", "ns", "992", "992", "1" },		/* empty range */
		{ "ddpar", "", "1", "lat", "ns", "992", "1008", "0" },		/* no count */
		{ "ddpar", "", "1", "lat", "ns", "992", "1008", "-1" },
		{ "ddpar", "", "1", "lat", "ns", "992", "1008", "9007199254740993" },
		{ "ddpar", "", "1", "lat", "ns", "992", "1008", "9007199254740992" },	/* 2^53 */
		{ "ddpar", "", "1", "lat", "ns", "992", "1008", "1099511627777" },	/* 2^40 + 1 */
		{ "ddpar", "", "1", "lat", "ns", "99999999999999999999999", "1008", "1" },
		{ "ddpar", "", "1", "lat", "ns", " 992", "1008", "1" },
		{ "ddpar", "", "1", "lat", "ns", "", "1008", "1" },
	};
	static struct ab_hist h;
	uint64_t total = 0;
	char *f[8];

	(void)state;
	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (int k = 0; k < 8; k++)
			f[k] = (char *)bad[i][k];
		if (!row_add(f, &h, &total))
			fail_msg("bad row %zu was taken", i);
	}
	assert_int_equal(ab_hist_count(&h), 0);
	assert_int_equal(total, 0);
	static const char *const good[8] = { "ddpar", "n=4", "1", "lat", "ns", "992", "1002", "7" };
	for (int k = 0; k < 8; k++)
		f[k] = (char *)good[k];
	assert_null(row_add(f, &h, &total));
	assert_int_equal(ab_hist_count(&h), 7);
	assert_int_equal(total, 7);
	assert_true(ab_hist_max(&h) == 1001);
	/* 2^40 a row is the bound, and is taken */
	static const char *const most[8] = { "ddpar", "n=4", "1", "lat", "ns", "992", "1002",
					     "1099511627776" };
	for (int k = 0; k < 8; k++)
		f[k] = (char *)most[k];
	assert_null(row_add(f, &h, &total));
	assert_int_equal(total, 7 + (1ULL << 40));
}

/* hist.csv's counts add up without overflow: rows of at most 2^40 samples, a histogram of
 * at most 2^53 (every running count exact in a double); a row past it changes nothing. */
static void test_count_bounds(void **state)
{
	static const struct {
		uint64_t total;		/* the histogram's count before the row */
		uint64_t n;		/* the row's */
		int taken;
	} cases[] = {
		{ 0, AB_HIST_COUNT_MAX, 1 },
		{ AB_HIST_TOTAL_MAX - AB_HIST_COUNT_MAX, AB_HIST_COUNT_MAX, 1 },
		{ AB_HIST_TOTAL_MAX - 1, 1, 1 },
		{ AB_HIST_TOTAL_MAX - 1, 2, 0 },
		{ AB_HIST_TOTAL_MAX, 1, 0 },
		{ AB_HIST_TOTAL_MAX - 5, AB_HIST_COUNT_MAX, 0 },
		{ UINT64_MAX - 1, 2, 0 },	/* no wrap-around */
		{ UINT64_MAX, AB_HIST_COUNT_MAX, 0 },
	};
	static struct ab_hist h;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t total = cases[i].total;
		memset(&h, 0, sizeof(h));
		h.b[ab_hist_bucket(992)] = total;
		const char *why = ab_hist_row_put(&h, &total, 992, 1000, cases[i].n);
		if (cases[i].taken != !why)
			fail_msg("case %zu: %s", i, why ? why : "taken");
		assert_true(total == cases[i].total + (why ? 0 : cases[i].n));
		assert_true(h.b[ab_hist_bucket(992)] == total);
		assert_true(total <= AB_HIST_TOTAL_MAX || why);
		assert_true(h.max == (why ? 0 : 999));
	}
	/* 8192 rows of 2^40 reach 2^53 exactly; one more sample is refused */
	uint64_t total = 0;
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 8192; i++)
		assert_null(ab_hist_row_put(&h, &total, 2000, 2001, AB_HIST_COUNT_MAX));
	assert_true(total == AB_HIST_TOTAL_MAX && ab_hist_count(&h) == AB_HIST_TOTAL_MAX);
	assert_non_null(ab_hist_row_put(&h, &total, 32, 33, 1));
	assert_true((double)ab_hist_count(&h) == 9007199254740992.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentiles_agree),
		cmocka_unit_test(test_max_of_buckets),
		cmocka_unit_test(test_channel),
		cmocka_unit_test(test_bad_rows),
		cmocka_unit_test(test_count_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
