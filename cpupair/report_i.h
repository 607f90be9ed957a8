/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpupair's report, between its files: report.c (the tables, the heatmaps, the
 * descriptor), report_read.c (the reading: what each class costs, what a wake-up
 * costs, and which figures are not to be trusted) and, below both, report_data.c
 * (what they read from the records, declared here).
 */
#ifndef CPUPAIR_DESC_I_H
#define CPUPAIR_DESC_I_H

#include "render/render.h"
#include "cpupair.h"

#define MAX_SETTINGS 4	/* settings (e.g. idle policies) rendered apart */
#define CP_NCLASS 6

/* Classes as recorded, in the order shown, and how a sentence says each. */
extern const char *const cp_classes[CP_NCLASS], *const cp_where[CP_NCLASS];

/* Is g a record of r's benchmark, of metric, with values? */
int cp_mine(const struct ab_render *r, const struct ab_group *g, const char *metric);
/* The config without the pair's keys: the setting it was measured under. */
const char *cp_rest_of(const char *config, char *buf, size_t len);
/* Distinct settings of the records, in the order first recorded; how many (at most max). */
int cp_settings(const struct ab_render *r, char rest[][AB_CONFIG_LEN], int max);
/* Median over the pairs of class cls (NULL: every class but same) under setting rest
 * of each pair's median, flagged line figures left out; *npairs set. */
double cp_class_median(const struct ab_render *r, const char *metric, const char *rest,
		       const char *cls, int *npairs);
/* Did class cls (NULL: any) under setting rest record a cache line, flagged or not? */
int cp_line_recorded(const struct ab_render *r, const char *rest, const char *cls);
/* Is g (a cache-line record) flagged: its windows disturbed (cp_line_disturbed), or it
 * above CP_DESCHED_SHARE of its pair's futex round trip? */
int cp_flagged(const struct ab_render *r, const struct ab_group *g);

/* report_read.c */
void cp_reading(struct ab_render *r);

#endif
