// SPDX-License-Identifier: GPL-2.0
/* ddpar's first table in report.md: the 2015 post's clone_fd gain (with / without,
 * MB/s) by number of dd processes beside this run's, libfuse. Rows are the post's
 * process counts and this run's, in order; a count one side did not run is "-". */
#include <stdio.h>
#include <stdlib.h>

#include "report_i.h"
#include "render/render.h"
#include "render/beside.h"
#include "render/render_plot.h"

static const int post_procs[] = { 4, 8, 16, 32, 64, 128 };
#define NPOST ((int)(sizeof(post_procs) / sizeof(post_procs[0])))

static int in_post(long p)
{
	for (int i = 0; i < NPOST; i++)
		if (post_procs[i] == p)
			return 1;
	return 0;
}

static void row(struct ab_render *r, long p, int ours)
{
	char ps[32], num[48], den[48];

	snprintf(ps, sizeof(ps), "%ld", p);	/* the row's label and the procs key's value */
	ab_r_beside_row(r, ps);
	for (int m = 0; m < 2; m++) {
		snprintf(num, sizeof(num), "%s.%ld.with", ddp_modes[m], p);
		snprintf(den, sizeof(den), "%s.%ld.without", ddp_modes[m], p);
		if (in_post(p))
			ab_r_cell_pub_ratio(r, POST, num, den);
		else
			ab_r_cell_not_in_post(r);
	}
	for (int m = 0; m < 2; m++) {
		const struct ab_group *off = NULL, *on = NULL;
		double q;
		struct ab_ci ci;
		if (ours)
			ddp_row(r, m, ps, &off, &on, &q, &ci);
		ab_r_cell_ratio(r, on, off, 0);
	}
	ab_r_beside_row_end(r);
}

void ddp_beside(struct ab_render *r)
{
	static const char *const cols[] = { "post: write", "post: read", "this run: write",
					    "this run: read", NULL };
	char procs[AB_GRID_ROWS][32];
	int np = ab_r_distinct(r, ddp_mbps[0], "procs", procs, AB_GRID_ROWS), i = 0, k = 0;

	if (np == 0)
		return;
	ab_r_beside_head(r, "clone_fd with / without, dd processes", cols);
	/* both lists ascending (ab_r_distinct sorts numbers): merge them */
	while (i < NPOST || k < np) {
		long ours = k < np ? strtol(procs[k], NULL, 10) : -1;
		if (k < np && (i >= NPOST || ours <= post_procs[i])) {
			i += i < NPOST && ours == post_procs[i];
			row(r, ours, 1);
			k++;
		} else {
			row(r, post_procs[i++], 0);
		}
	}
	ab_r_beside_note(r, POST);
}
