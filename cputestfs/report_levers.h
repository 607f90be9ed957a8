/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What moves cputestfs's ratios (report_levers.c): the levers table
 * (lib/render/levers.h) and the split of "other minus same" into cache
 * transfers, wake-ups and FUSE's own path, from cpupair's records of the same
 * run directory, its wake-up part checked against the request breakdown's
 * wake-up steps when the run has brk_* records.
 */
#ifndef CPUTESTFS_DESC_LEVERS_H
#define CPUTESTFS_DESC_LEVERS_H

#include "render/render.h"
#include "render/desc.h"

/* reading 1: the table, the cheapest lever's sentence and the split's sentence
 * (report.md); 0: the table and the split's numbers (tables.md). */
void ctf_levers(struct ab_render *r, int reading);
/* The levers table's ratios as found: the descriptor's ratios (desc.h). */
int ctf_ratios(struct ab_render *r, struct ab_named_ratio *out, int max);
/* report_split.c: the split's sentence (reading 1) or its table (0); report_split_plot.c:
 * the split as a stacked bar (cputestfs_split.gp). */
void ctf_split(struct ab_render *r, int reading);
void ctf_split_plot(struct ab_render *r);

#endif
