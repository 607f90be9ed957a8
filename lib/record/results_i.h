/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the result model: what the raw.csv loader (results_load.c) uses of
 * results.c's groups and strings.
 */
#ifndef AB_RESULTS_I_H
#define AB_RESULTS_I_H

#include "record/results.h"

/* r's one copy of s (equal strings, one pointer), or NULL when out of memory. */
const char *ab_results_intern(struct ab_results *r, const char *s);

/* A new, empty group (its strings interned), or NULL when out of memory. The
 * caller has looked it up first: no two groups have the same four keys. */
struct ab_group *ab_results_group_new(struct ab_results *r, const char *bench,
				      const char *config, const char *metric, const char *unit);

#endif
