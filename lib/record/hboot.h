/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intervals that respect the levels of a measurement: values come in
 * invocations (a fresh process, mount and daemon), each holding one or more
 * windows. Windows of one invocation share its start-up, its placement and its
 * caches, so they are not independent draws: treating K invocations of W
 * windows as K x W independent values gives an interval too narrow whenever
 * invocations differ more than windows do (Kalibera and Jones, "Rigorous
 * Benchmarking in Reasonable Time", ISMM 2013).
 *
 * Method: the two-level (hierarchical) percentile bootstrap (Davison and
 * Hinkley 1997, section 3.8): a resample draws K invocations with
 * replacement, then, within each drawn invocation, as many windows as it has,
 * with replacement; the statistic is the median of the pooled resample.
 * AB_BOOT_RESAMPLES resamples, a fixed seed, so results repeat. Resampling the
 * windows too counts their variance a second time: the interval errs a little
 * wide, towards "not significant", which is the side a benchmark should err on.
 *
 * It needs at least two invocations: one says nothing of how invocations
 * differ (EDOM). At most AB_BOOT_MAX_N values a side (E2BIG): the cost is
 * AB_BOOT_RESAMPLES x n.
 */
#ifndef AB_HBOOT_H
#define AB_HBOOT_H

#include <stddef.h>

#include "record/stats.h"

/* A two-level sample: x[i] was measured by invocation inv[i] (any ids, any order). */
struct ab_levels {
	const double *x;
	const int *inv;
	size_t n;
};

/* Two-level bootstrap CI of s's median at level (e.g. 0.95); 0, or -1 with errno
 * (EINVAL, EDOM: fewer than 2 invocations, E2BIG, ENOMEM) and ci all NAN. */
int ab_hboot_median_ci(const struct ab_levels *s, double level, struct ab_ci *ci);

/* Two-level bootstrap CI of median(a) / median(b), the two resampled independently,
 * and the two-sided p-value of "the ratio is 1" (as ab_ratio_ci_p's); -1 as above, and
 * EDOM when a resample's median of b is 0. */
int ab_hboot_ratio_ci(const struct ab_levels *a, const struct ab_levels *b, double level,
		      struct ab_ci *ci, double *p);

#endif
