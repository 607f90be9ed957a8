// SPDX-License-Identifier: GPL-2.0
/*
 * ddpar's record selectors, shared by its report's files (report_i.h): the
 * transport table's columns, the modes and their MB/s metrics, the clone_fd row
 * and a transport's cell. They call only lib/, so the report's files form no circle.
 */
#include <stdio.h>

#include "report_i.h"

/* The transport table's columns: uring once per --uring-cpu (queue, the default,
 * also stands for uring records from before the option existed). A count other
 * than report_i.h's NTCOLS does not compile. */
const struct ddp_tcol ddp_tcols[] = {
	{ "libfuse", LIBFUSE, NULL },
	{ "dev", "transport=dev", NULL },
	{ "uring", "transport=uring", "uring_cpu=queue|" },
	{ "uring next", "transport=uring", "uring_cpu=next" },
	{ "uring none", "transport=uring", "uring_cpu=none" },
	{ "passthrough", "transport=passthrough", NULL },
};

const char *const ddp_modes[2] = { "write", "read" };
const char *const ddp_mbps[2] = { DDP_M_WRITE, DDP_M_READ };

enum ab_verdict ddp_row(struct ab_render *r, int m, const char *procs, const struct ab_group **off,
			const struct ab_group **on, double *q, struct ab_ci *ci)
{
	char mw[32], pw[48];

	snprintf(mw, sizeof(mw), "mode=%s", ddp_modes[m]);
	snprintf(pw, sizeof(pw), "procs=%.31s", procs);
	const char *woff[] = { mw, pw, "clone_fd=off", LIBFUSE, NULL };
	const char *won[] = { mw, pw, "clone_fd=on", LIBFUSE, NULL };
	*off = ab_r_find(r, ddp_mbps[m], woff);
	*on = ab_r_find(r, ddp_mbps[m], won);
	return ab_r_ratio(*on, *off, q, ci);
}

const struct ab_group *ddp_transport_find(struct ab_render *r, const char *metric, int m,
					  const char *procs, int t, const char *bs)
{
	char mw[32], pw[48], bw[48];
	const char *want[8] = { mw, pw, ddp_tcols[t].kv, "clone_fd=off", WAIT_BLOCK };
	int n = 5;

	snprintf(mw, sizeof(mw), "mode=%s", ddp_modes[m]);
	snprintf(pw, sizeof(pw), "procs=%.31s", procs);
	if (bs) {
		snprintf(bw, sizeof(bw), "bs=%.31s", bs);
		want[n++] = bw;
	}
	if (ddp_tcols[t].cpu)
		want[n++] = ddp_tcols[t].cpu;
	want[n] = NULL;
	return ab_r_find(r, metric, want);
}
