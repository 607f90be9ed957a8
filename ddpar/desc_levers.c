/*
 * What moves ddpar's ratios (lib/report/levers.h): clone_fd on/off and
 * uring/libfuse at the most processes measured, per mode, at each idle policy
 * and --daemon-wait swept, beside the server's CPU per request and the CPUs'
 * idle share.
 */
#include <stdio.h>

#include "report/levers.h"
#include "desc_i.h"

static const struct ab_lever_key keys[] = { { "idle", "as-found" }, { "daemon_wait", "block" } };

void ddp_levers(struct ab_render *r)
{
	for (int m = 0; m < 2; m++) {
		char procs[AB_GRID_ROWS][32], mw[32], pw[48], on[64], uq[64];
		int np = ab_r_distinct(r, ddp_mbps[m], "procs", procs, AB_GRID_ROWS);
		if (!np)
			continue;
		snprintf(mw, sizeof(mw), "mode=%s", ddp_modes[m]);
		snprintf(pw, sizeof(pw), "procs=%.31s", procs[np - 1]);
		const char *const c_on[] = { mw, pw, LIBFUSE, "clone_fd=on", NULL };
		const char *const c_off[] = { mw, pw, LIBFUSE, "clone_fd=off", NULL };
		const char *const u[] = { mw, pw, "transport=uring", "uring_cpu=queue|", "clone_fd=off",
					  NULL };
		snprintf(on, sizeof(on), "clone_fd on/off (%s, N=%s)", ddp_modes[m], procs[np - 1]);
		snprintf(uq, sizeof(uq), "uring/libfuse (%s, N=%s)", ddp_modes[m], procs[np - 1]);
		const struct ab_lever_ratio ratios[] = { { on, c_on, c_off }, { uq, u, c_off } };
		const struct ab_levers l = { ddp_mbps[m], DDP_M_SERVER_CPU, ratios, 2, keys, 2 };
		if (ab_levers_table(r, &l, 1))
			fprintf(r->out, "(The table above: %ss.)\n\n", ddp_modes[m]);
	}
}
