/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histograms as rows of hist.csv (docs/records.md, "hist.csv"): one
 * row per non-empty bucket of one metric of one repetition,
 *
 *   bench,config,rep,metric,unit,bucket_lo,bucket_hi,count
 *
 * a bucket holding the values bucket_lo .. bucket_hi - 1 (struct ab_hist's
 * buckets, so each is at most 1/32 of its values wide). When the benchmark
 * knew the exact largest value (it timed each call itself), the highest
 * bucket's bucket_hi is that value + 1, so hist.csv keeps the true max.
 *
 * The channel: a benchmark prints these rows on stdout, each prefixed with
 * "hist," (nine fields, where a record has six), when its output is CSV and
 * AFFBENCH_HIST=1 is in its environment. The harness sets that, checks each
 * row like a record and appends it, rep rewritten, to the run's hist.csv.
 * Without it a benchmark's CSV stays records only.
 */
#ifndef AB_HISTIO_H
#define AB_HISTIO_H

#include <stdint.h>
#include <stdio.h>

#include "record/record.h"
#include "record/stats.h"

#define AB_HIST_ENV "AFFBENCH_HIST"
#define AB_HIST_HEADER "bench,config,rep,metric,unit,bucket_lo,bucket_hi,count\n"
#define AB_HIST_FIELDS 8

/* h's non-empty buckets as "hist," rows on o, when wanted; an empty h writes nothing. */
void ab_hist_rows(struct ab_out *o, const struct ab_config *c, int rep, const char *metric,
		  const char *unit, const struct ab_hist *h);

/*
 * One latency metric of one repetition, beyond the p50 and p99 records the
 * benchmark writes itself: the records <stem>_p90_<unit>, <stem>_p999_<unit> and
 * <stem>_max_<unit> (unit "ns" or "us"; h counts nanoseconds), and h as hist rows
 * named <stem> in ns. An empty h writes nothing.
 */
void ab_hist_emit(struct ab_out *o, const struct ab_config *c, int rep, const char *stem,
		  const char *unit, const struct ab_hist *h);

/*
 * Bounds on hist.csv's counts, so that no sum overflows: a row counts at most
 * AB_HIST_COUNT_MAX samples (2^40, a trillion: days of the fastest call timed
 * one by one), and one histogram, every row of a metric of a config pooled,
 * at most AB_HIST_TOTAL_MAX (2^53), so its running counts stay exact in a
 * double (a CDF's share, a percentile's rank) and far from a uint64_t's end.
 */
#define AB_HIST_COUNT_MAX (1ull << 40)
#define AB_HIST_TOTAL_MAX (1ull << 53)

/*
 * Check one row's eight fields (bench, config, rep, metric and unit as the
 * record grammar has them; bucket_lo a bucket's lower edge; bucket_lo <
 * bucket_hi <= that bucket's upper edge; count 1 .. AB_HIST_COUNT_MAX), with
 * the row's numbers. NULL, or why the row is refused.
 */
const char *ab_hist_row_check(char *const *f, uint64_t *lo, uint64_t *hi, uint64_t *n);
/*
 * Add a checked row's numbers to h, which holds *total samples (the caller
 * keeps the sum: counting the buckets per row would cost 1920 additions):
 * *total and h->max raised. NULL, or why not: the total would pass
 * AB_HIST_TOTAL_MAX (h left as it was).
 */
const char *ab_hist_row_put(struct ab_hist *h, uint64_t *total, uint64_t lo, uint64_t hi,
			    uint64_t n);

#endif
