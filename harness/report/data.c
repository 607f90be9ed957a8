// SPDX-License-Identifier: GPL-2.0
/*
 * raw.csv -> the result model (lib/record/results: every row checked against the
 * record grammar), and summary.csv from it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "report.h"
#include "record/record.h"
#include "record/stats.h"

int h_data_load(struct ab_results *d, const char *rawcsv, char *err, size_t errlen)
{
	ab_results_init(d);
	if (ab_results_load_csv(d, rawcsv, stderr, err, errlen) < 0) {
		int e = errno;	/* EINVAL: the file itself is refused */
		ab_results_free(d);
		errno = e;
		return -1;
	}
	return 0;
}

int h_data_none(const struct ab_results *d, const char *cmd, const char *rawcsv)
{
	if (d->n)
		return 0;
	ab_msg("%s: %s: no valid records (%zu row%s rejected)", cmd, rawcsv, d->bad,
	       d->bad == 1 ? "" : "s");
	return 1;
}

static int by_bench_config(const void *a, const void *b, void *arg)
{
	const struct ab_results *d = arg;
	size_t i = *(const size_t *)a, k = *(const size_t *)b;
	int c = strcmp(d->g[i].bench, d->g[k].bench);

	if (!c)
		c = strcmp(d->g[i].config, d->g[k].config);
	return c ? c : (i > k) - (i < k);	/* then the order raw.csv gave the metrics */
}

size_t *h_sorted(const struct ab_results *d)
{
	size_t *ix = malloc((d->n ? d->n : 1) * sizeof(*ix));

	if (!ix)
		return NULL;
	for (size_t i = 0; i < d->n; i++)
		ix[i] = i;
	qsort_r(ix, d->n, sizeof(*ix), by_bench_config, (void *)d);
	return ix;
}

int h_write_summary(const struct ab_results *d, const char *dir)
{
	struct ab_outfile o;
	size_t *ix = h_sorted(d);
	FILE *f = ix ? ab_outfile_open(&o, dir, "summary.csv") : NULL;

	if (!f) {
		free(ix);
		return -1;
	}
	fputs("bench,config,metric,unit,n,median,mean,stddev,cv,min,max,ci_lo,ci_hi\n", f);
	for (size_t i = 0; i < d->n; i++) {
		const struct ab_group *g = &d->g[ix[i]];
		struct ab_summary s;
		ab_summarize(g->v, g->n, &s);
		ab_csv_field(f, g->bench);
		fputc(',', f);
		ab_csv_field(f, g->config);
		fputc(',', f);
		ab_csv_field(f, g->metric);
		fputc(',', f);
		ab_csv_field(f, g->unit);
		/* %.6g keeps every digit a benchmark could mean; nan stays "nan" (n = 1 stddev) */
		fprintf(f, ",%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", s.n, s.median, s.mean,
			s.stddev, s.cv, s.min, s.max, s.ci.lo, s.ci.hi);
	}
	free(ix);
	return ab_outfile_close(&o);
}
