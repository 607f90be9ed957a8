/* harness compare: trend tables and plots of the headline metrics (compare_trend.c). */
#ifndef H_COMPARE_TREND_H
#define H_COMPARE_TREND_H

#include <stdio.h>

#include "report/results.h"

/*
 * "## Trends of the headline metrics" into md: per headline metric of every
 * registered benchmark, a table of the runs (d[0] the base) by config; with
 * plotdir, NAME.dat and NAME.gp there for a trend plot of each, their names in
 * names (at most max). Returns how many plots were prepared.
 */
int h_compare_trends(FILE *md, const char *plotdir, const struct ab_results *d, int nr,
		      char names[][64], int max);

#endif
