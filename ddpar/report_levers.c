// SPDX-License-Identifier: GPL-2.0
/*
 * What moves ddpar's ratios (lib/render/levers.h): clone_fd on/off and
 * uring/libfuse at the most processes measured, per mode, at each idle policy
 * and --daemon-wait swept, beside the server's CPU per request and the CPUs'
 * idle share.
 */
#include <stdio.h>

#include "render/levers.h"
#include "render/render.h"
#include "render/desc.h"
#include "render/render_plot.h"
#include "report_i.h"

static const struct ab_lever_key keys[] = { { "idle", "as-found" }, { "daemon_wait", "block" } };

/* Mode m's ratios at the most processes measured, and the levers around them. */
struct lever_set {
	char mw[32], pw[48], on[64], uq[64];
	const char *c_on[5], *c_off[5], *u[6];
	struct ab_lever_ratio ratios[2];
	struct ab_levers l;
};

/* 0, or -1 when mode m was not measured. */
static int lever_set(struct ab_render *r, int m, struct lever_set *s)
{
	char procs[AB_GRID_ROWS][32];
	int np = ab_r_distinct(r, ddp_mbps[m], "procs", procs, AB_GRID_ROWS);

	if (!np)
		return -1;
	*s = (struct lever_set){
		.c_on = { s->mw, s->pw, LIBFUSE, "clone_fd=on", NULL },
		.c_off = { s->mw, s->pw, LIBFUSE, "clone_fd=off", NULL },
		.u = { s->mw, s->pw, "transport=uring", "uring_cpu=queue|", "clone_fd=off", NULL },
		.ratios = { { s->on, s->c_on, s->c_off }, { s->uq, s->u, s->c_off } },
		.l = { ddp_mbps[m], DDP_M_SERVER_CPU, s->ratios, 2, keys, 2 },
	};
	snprintf(s->mw, sizeof(s->mw), "mode=%s", ddp_modes[m]);
	snprintf(s->pw, sizeof(s->pw), "procs=%.31s", procs[np - 1]);
	snprintf(s->on, sizeof(s->on), "clone_fd on/off (%s, N=%s)", ddp_modes[m], procs[np - 1]);
	snprintf(s->uq, sizeof(s->uq), "uring/libfuse (%s, N=%s)", ddp_modes[m], procs[np - 1]);
	return 0;
}

void ddp_levers(struct ab_render *r)
{
	for (int m = 0; m < 2; m++) {
		struct lever_set s;
		if (lever_set(r, m, &s) == 0 && ab_levers_table(r, &s.l, 1))
			fprintf(r->out, "(The table above: %ss.)\n\n", ddp_modes[m]);
	}
}

int ddp_ratios(struct ab_render *r, struct ab_named_ratio *out, int max)
{
	int n = 0;

	for (int m = 0; m < 2; m++) {
		struct lever_set s;
		if (lever_set(r, m, &s) == 0)
			n += ab_levers_ratios(r, &s.l, out + n, max - n);
	}
	return n;
}
