// SPDX-License-Identifier: GPL-2.0
/*
 * hist.csv rows: written by the benchmarks (through their stdout, see
 * histio.h), read back by the harness's CDF plots. A hist.csv may come from
 * anyone, like raw.csv: every row is checked before it counts.
 */
#include "record/histio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "record/results.h"

/* The row's bucket_hi: the bucket's edge, or max + 1 in the top bucket when max is exact
 * (the top bucket is then max's). */
static uint64_t row_hi(const struct ab_hist *h, unsigned i, int exact)
{
	if (exact && i == ab_hist_bucket(h->max) && h->max < UINT64_MAX)
		return h->max + 1;
	return ab_hist_bucket_hi(i);
}

static void rows(FILE *f, const char *prefix, const char *bench, const char *config, int rep,
		 const char *metric, const char *unit, const struct ab_hist *h)
{
	int exact = ab_hist_max_exact(h);

	for (unsigned i = 0; i < AB_HIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		fputs(prefix, f);
		ab_csv_field(f, bench);
		fputc(',', f);
		ab_csv_field(f, config);
		fprintf(f, ",%d,", rep);
		ab_csv_field(f, metric);
		fputc(',', f);
		ab_csv_field(f, unit);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", ab_hist_bucket_lo(i),
			row_hi(h, i, exact), h->b[i]);
	}
}

void ab_hist_rows(struct ab_out *o, const struct ab_config *c, int rep, const char *metric,
		  const char *unit, const struct ab_hist *h)
{
	char config[AB_CONFIG_MAX * (sizeof(c->kv[0].key) + sizeof(c->kv[0].val) + 1)];
	struct ab_config full;
	const char *e = getenv(AB_HIST_ENV);

	if (o->fmt != AB_FMT_CSV || !e || strcmp(e, "1"))	/* CSV and AFFBENCH_HIST=1 */
		return;
	c = ab_out_config(o, c, &full);
	config[0] = '\0';
	if (c)
		ab_config_format(c, config, sizeof(config));
	rows(o->f, "hist,", o->bench, config, rep, metric, unit, h);
	fflush(o->f);
}

void ab_hist_emit(struct ab_out *o, const struct ab_config *c, int rep, const char *stem,
		  const char *unit, const struct ab_hist *h)
{
	static const struct { const char *name; double p; } pcts[] = {
		{ "p90", 90 }, { "p999", 99.9 }, { "max", -1 },
	};
	double scale = strcmp(unit, "us") ? 1 : 1e-3;
	char name[AB_METRIC_LEN];

	if (!ab_hist_count(h))
		return;
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		double v = pcts[i].p < 0 ? ab_hist_max(h) : ab_hist_percentile(h, pcts[i].p);
		snprintf(name, sizeof(name), "%s_%s_%s", stem, pcts[i].name, unit);
		ab_record(o, c, rep, name, v * scale, unit);
	}
	ab_hist_rows(o, c, rep, stem, "ns", h);
}

/* A whole number of at most 20 digits that fits a uint64_t: 0 with *v, or -1. */
static int whole(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 20)
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno == ERANGE || *end ? -1 : 0;
}

const char *ab_hist_row_check(char *const *f, uint64_t *lo, uint64_t *hi, uint64_t *n)
{
	/* the record grammar, with a stand-in value: a row's names are a record's */
	const char *why = ab_record_check(f[0], f[1], f[2], f[3], "0", f[4]);

	if (why)
		return why;
	if (whole(f[5], lo) || whole(f[6], hi) || whole(f[7], n))
		return "bucket_lo, bucket_hi or count is not a whole number";
	unsigned i = ab_hist_bucket(*lo);
	if (ab_hist_bucket_lo(i) != *lo)
		return "bucket_lo is not a bucket's lower edge";
	if (*hi <= *lo || *hi > ab_hist_bucket_hi(i))
		return "bucket_hi is not within bucket_lo's bucket";
	if (*n < 1 || *n > AB_HIST_COUNT_MAX)
		return "count is not in 1 .. 2^40";
	return NULL;
}

const char *ab_hist_row_put(struct ab_hist *h, uint64_t *total, uint64_t lo, uint64_t hi,
			    uint64_t n)
{
	if (*total > AB_HIST_TOTAL_MAX || n > AB_HIST_TOTAL_MAX - *total)
		return "the histogram's counts add up past 2^53";
	h->b[ab_hist_bucket(lo)] += n;
	*total += n;
	if (hi - 1 > h->max)
		h->max = hi - 1;
	return NULL;
}
