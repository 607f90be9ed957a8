/* SPDX-License-Identifier: GPL-2.0 */
/* ddpar's report, one file a concern: report.c (the tables and the descriptor),
 * report_beside.c, report_wait.c (the --daemon-wait table), report_levers.c,
 * report_reading.c (the reading's sentences) and report_plot.c (the plots); the
 * harness links them all. What they share, the record selectors and the transport
 * table's columns, is report_data.c, which calls none of them. */
#ifndef DDP_DESC_I_H
#define DDP_DESC_I_H

#include "render/render.h"
#include "render/desc.h"
#include "ddpar.h"

#define POST "clonefd2015"

/* The post's server: libfuse (also records from before --transport existed). */
#define LIBFUSE "transport=libfuse|"
/* The server sleeping for each request (--daemon-wait block, the default; records of
 * other waits are in report_wait.c's table). */
#define WAIT_BLOCK "daemon_wait=block|"

/* A column of the transport table: its name, the transport it selects and, for
 * uring, the --uring-cpu choice (NULL: any). */
struct ddp_tcol {
	const char *name, *kv, *cpu;
};
#define NTCOLS 6
#define URING_COL 2	/* the first uring column; the --uring-cpu ones follow */
#define URING_NCOLS 3
extern const struct ddp_tcol ddp_tcols[NTCOLS];

/* Indexed by mode (0 write, 1 read): its name and its MB/s metric. */
extern const char *const ddp_modes[2];
extern const char *const ddp_mbps[2];

/* One row: MB/s without and with clone_fd at procs (libfuse), and their ratio. */
enum ab_verdict ddp_row(struct ab_render *r, int m, const char *procs, const struct ab_group **off,
			const struct ab_group **on, double *q, struct ab_ci *ci);
/* Column t's group of metric (ddp_mbps[m]: its MB/s) at mode m and procs (and bs when not
 * NULL: else the first bs found). */
const struct ab_group *ddp_transport_find(struct ab_render *r, const char *metric, int m,
					  const char *procs, int t, const char *bs);

void ddp_reading(struct ab_render *r);
/* report_beside.c: report.md's first table, the post's clone_fd gains beside ours. */
void ddp_beside(struct ab_render *r);
/* report_wait.c: the --daemon-wait table, when records of a wait other than block exist. */
void ddp_wait_table(struct ab_render *r);
void ddp_plots(struct ab_render *r);
/* report_levers.c: what moves the ratios, when a lever (--idle, --daemon-wait) was swept. */
void ddp_levers(struct ab_render *r);
/* Its ratios as found (clone_fd on/off, uring/libfuse): the descriptor's ratios. */
int ddp_ratios(struct ab_render *r, struct ab_named_ratio *out, int max);

#endif
