// SPDX-License-Identifier: GPL-2.0
/*
 * ddpar's table of --daemon-wait: how affbench's own servers (dev, uring, one
 * /dev/fuse fd each) wait for requests, each wait beside block at the same
 * mode and N, with the serving threads' CPU time per request beside its MB/s:
 * what a gain costs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/render.h"
#include "render/render_plot.h"
#include "report_i.h"

static const char *const servers[] = { "dev", "uring" };

/* metric of server s at mode m, procs p and daemon_wait w (block: also without the key). */
static const struct ab_group *cell(struct ab_render *r, const char *metric, int m, const char *p,
				   int s, const char *w)
{
	char mw[32], pw[48], tw[48], ww[48];

	snprintf(mw, sizeof(mw), "mode=%s", ddp_modes[m]);
	snprintf(pw, sizeof(pw), "procs=%.31s", p);
	snprintf(tw, sizeof(tw), "transport=%s", servers[s]);
	snprintf(ww, sizeof(ww), "daemon_wait=%.31s%s", w, strcmp(w, "block") ? "" : "|");
	const char *want[] = { mw, pw, tw, ww, "clone_fd=off", "uring_cpu=queue|", NULL };
	return ab_r_find(r, metric, want);
}

void ddp_wait_table(struct ab_render *r)
{
	char w[AB_GRID_COLS][32], procs[AB_GRID_ROWS][32];
	FILE *f = r->out;
	int nw = 1;

	for (int m = 0; m < 2 && nw == 1; m++)
		nw = 1 + ab_r_distinct(r, ddp_mbps[m], "daemon_wait", w + 1, AB_GRID_COLS - 1);
	if (nw == 1)
		return;
	snprintf(w[0], sizeof(w[0]), "block");
	fprintf(f, "How affbench's server waits for requests (--daemon-wait; MB/s, median, with the "
		   "serving threads' CPU time per request in us and the ratio to block; one /dev/fuse "
		   "fd):\n\n| mode | procs | server |");
	for (int k = 0; k < nw; k++)
		fprintf(f, " %s |", w[k]);
	fprintf(f, "\n|---|---|---|");
	for (int k = 0; k < nw; k++)
		fprintf(f, "---|");
	fprintf(f, "\n");
	for (int m = 0; m < 2; m++) {
		int np = ab_r_distinct(r, ddp_mbps[m], "procs", procs, AB_GRID_ROWS);
		for (int i = 0; i < np; i++)
			for (int s = 0; s < 2; s++) {
				int any = 0;
				for (int k = 1; k < nw; k++)
					any |= cell(r, ddp_mbps[m], m, procs[i], s, w[k]) != NULL;
				if (!any)
					continue;
				const struct ab_group *base = cell(r, ddp_mbps[m], m, procs[i], s, "block");
				fprintf(f, "| %s | %s | %s |", ddp_modes[m], procs[i], servers[s]);
				for (int k = 0; k < nw; k++)
					ab_r_cost_cell(r, cell(r, ddp_mbps[m], m, procs[i], s, w[k]),
						       cell(r, DDP_M_SERVER_CPU, m, procs[i], s, w[k]), base);
				fprintf(f, "\n");
			}
	}
	fprintf(f, "\n(spin:US looks for the next request US microseconds after each reply before it "
		   "sleeps, poll never sleeps; * = the ratio's 95%% CI excludes 1)\n\n");
}
