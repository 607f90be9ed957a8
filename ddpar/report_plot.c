// SPDX-License-Identifier: GPL-2.0
/*
 * ddpar's plots: the post's figure, the transports beside each other and the
 * time per request, drawn from the same records as the tables in report.c.
 */
#include <stdio.h>
#include <string.h>

#include "render/render.h"
#include "render/render_plot.h"
#include "report_i.h"

/* N doubles from point to point: the x axis is log, and says so like every log axis */
#define XLABEL "dd processes (N)" AB_PLOT_LOG_SCALE

/* (Each panel's key goes below it: beside it, it squeezed the panel until its
 * title was cut and its x labels ran together.)
 *
 * Time per request by N, one line per clone_fd value: a panel per measured time
 * (spin, kernel; the daemon's when no kernel statistics were taken) and mode. */
static void timereq_plot(struct ab_render *r)
{
	static const char *const ms[] = { DDP_M_SPIN_US, DDP_M_KERNEL_US, DDP_M_DAEMON_US };
	static const char *const names[] = { "spinlock wait", "kernel time", "daemon handler time" };
	static const char *const fixed[2][3] = { { "mode=write", LIBFUSE, NULL },
						 { "mode=read", LIBFUSE, NULL } };
	struct ab_grid g[3][2];
	int rows = 0, cols[2] = { 0 }, ncols = 0, any_kernel = 0;

	for (int k = 0; k < 3; k++)
		for (int m = 0; m < 2; m++) {
			ab_grid_build(r, &g[k][m], ms[k], "procs", "clone_fd", fixed[m]);
			cols[m] |= g[k][m].nr > 0;
			any_kernel |= k < 2 && g[k][m].nr > 0;
		}
	for (int k = any_kernel ? 0 : 2; k < (any_kernel ? 2 : 3); k++)
		rows += g[k][0].nr > 0 || g[k][1].nr > 0;
	ncols = cols[0] + cols[1];
	if (!rows || !ncols)
		return;
	FILE *b = ab_plot_begin(r);
	fprintf(b, "set multiplot layout %d,%d\nset logscale x 2\n"
		   "set key outside bottom center horizontal noenhanced\n"
		   "set offsets graph 0.05, graph 0.05\n", rows, ncols);
	ab_plot_set(b, "xlabel", XLABEL);
	for (int k = any_kernel ? 0 : 2; k < (any_kernel ? 2 : 3); k++) {
		if (!g[k][0].nr && !g[k][1].nr)
			continue;
		for (int m = 0; m < 2; m++) {
			char dat[64], title[96], ylabel[64];
			if (!cols[m])
				continue;
			snprintf(title, sizeof(title), "ddpar %s: %s per request", ddp_modes[m],
				 names[k]);
			ab_plot_set(b, "title", title);
			snprintf(ylabel, sizeof(ylabel), "us per request (%s)", ms[k]);
			if (!g[k][m].nr) {	/* keeps the layout: an empty panel that says why */
				fprintf(b, "set multiplot next\n");
				continue;
			}
			snprintf(dat, sizeof(dat), "ddpar_timereq_%s_%s", k == 0 ? "spin" : k == 1 ? "kernel" :
				 "daemon", ddp_modes[m]);
			ab_grid_dat(r, &g[k][m], dat);
			ab_plot_yrange(b, &g[k][m], ylabel);
			snprintf(dat + strlen(dat), sizeof(dat) - strlen(dat), ".dat");
			ab_plot_lines(b, &g[k][m], dat, "clone_fd ");
		}
	}
	fprintf(b, "unset multiplot\n");
	ab_plot_end(r, b, "ddpar_timereq", 550 * ncols, 420 * rows);
}

/* One panel per mode with data, one line per value of ckey among records holding fix;
 * drawn when some panel has at least min_lines lines. */
static void mbps_plot(struct ab_render *r, const char *name, const char *ckey, const char *fix,
		      const char *fix2, const char *key_prefix, int min_lines)
{
	/* the servers as they run by default: they sleep for their requests */
	const char *fixed[2][5] = { { "mode=write", WAIT_BLOCK, fix, fix2, NULL },
				    { "mode=read", WAIT_BLOCK, fix, fix2, NULL } };
	struct ab_grid g[2];
	int panels = 0, lines = 0;

	for (int m = 0; m < 2; m++) {
		ab_grid_build(r, &g[m], ddp_mbps[m], "procs", ckey, fixed[m]);
		panels += g[m].nr > 0;
		lines = g[m].nr && g[m].nc > lines ? g[m].nc : lines;
	}
	if (!panels || lines < min_lines)
		return;
	FILE *b = ab_plot_begin(r);
	fprintf(b, "set multiplot layout 1,%d\nset logscale x 2\n"
		   "set key outside bottom center horizontal noenhanced\n"
		   "set offsets graph 0.05, graph 0.05\n", panels);
	ab_plot_set(b, "xlabel", XLABEL);
	for (int m = 0; m < 2; m++) {
		char dat[64], title[64];
		if (!g[m].nr)
			continue;
		snprintf(dat, sizeof(dat), "%s_%s", name, ddp_modes[m]);
		ab_grid_dat(r, &g[m], dat);
		snprintf(title, sizeof(title), "ddpar %s%s", ddp_modes[m], min_lines > 1 ? " by transport" : "");
		ab_plot_set(b, "title", title);
		ab_plot_yrange(b, &g[m], "MB/s");
		snprintf(dat + strlen(dat), sizeof(dat) - strlen(dat), ".dat");
		ab_plot_lines(b, &g[m], dat, key_prefix);
	}
	fprintf(b, "unset multiplot\n");
	ab_plot_end(r, b, name, 550 * panels, 500);
}

/* The post's figure (libfuse, by clone_fd), the transports beside each other
 * (one /dev/fuse fd each), and the time per request. */
void ddp_plots(struct ab_render *r)
{
	mbps_plot(r, "ddpar", "clone_fd", LIBFUSE, NULL, "clone_fd ", 1);
	/* uring as it runs by default: the --uring-cpu points are in the table */
	mbps_plot(r, "ddpar_transports", "transport", "clone_fd=off", "uring_cpu=queue|", "", 2);
	timereq_plot(r);
}
