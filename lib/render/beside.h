/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The post's table beside ours: a descriptor's beside callback builds it from
 * these cells (beside.c).
 */
#ifndef AB_BESIDE_H
#define AB_BESIDE_H

#include <stddef.h>

#include "render/render.h"

/* "| corner | col... |" and its rule; cols NULL-terminated. */
void ab_r_beside_head(struct ab_render *r, const char *corner, const char *const *cols);
/* A row: its label, then one cell per column, then ab_r_beside_row_end. */
void ab_r_beside_row(struct ab_render *r, const char *label);
void ab_r_beside_row_end(struct ab_render *r);
void ab_r_cell_text(struct ab_render *r, const char *text);	/* NULL or "": "not measured" */
void ab_r_cell_not_in_post(struct ab_render *r);		/* "not in the post" */
/* The post's number as it printed it, and a ratio of two of them ("1.93x"). */
void ab_r_cell_pub(struct ab_render *r, const char *post, const char *key);
void ab_r_cell_pub_ratio(struct ab_render *r, const char *post, const char *num, const char *den);
/* This run: g's median (ab_r_num), and a / b as "7.75x [7.03, 12.4] *" (paired: the
 * median of per-repetition ratios), "7.75x (n < 6)" when too few to judge. */
void ab_r_cell_median(struct ab_render *r, const struct ab_group *g);
void ab_r_cell_ratio(struct ab_render *r, const struct ab_group *a, const struct ab_group *b,
		     int paired);
/* The same ratio for a list or a cell: "0.761x [0.643, 0.888] *", "0.761x (n < 6)", or
 * "not measured" when not both were. */
const char *ab_r_ratio_brief(char *buf, size_t len, enum ab_verdict v, double q,
			     const struct ab_ci *ci);
/* Under the table: the post's source, and what the brackets are. */
void ab_r_beside_note(struct ab_render *r, const char *post);

#endif
