/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by test_stats.c and test_stats_ratio.c (lib/record/stats.c): the
 * includes, the tolerance check and the small fixed-size sample type.
 */
#ifndef STATS_FX_H
#define STATS_FX_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAXN 16

/* want NAN means "must be NAN"; otherwise |got - want| <= tol. */
static inline void check_close(const char *what, double got, double want, double tol)
{
	if (isnan(want)) {
		if (!isnan(got))
			fail_msg("%s: got %.17g, want NAN", what, got);
		return;
	}
	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.17g, want %.17g (tol %g)", what, got, want, tol);
}

struct sample {
	const char *name;
	size_t n;
	double x[MAXN];
};

#endif
