// SPDX-License-Identifier: GPL-2.0
/*
 * What moves cputestfs's ratios: the levers table (lib/render/levers.h) of
 * other/same, none/same and uring/libfuse at each idle policy and
 * --daemon-wait swept, beside the server's CPU per request and the CPUs' idle
 * share of the same configs; then the split of "other minus same"
 * (report_split.c).
 */
#include <stdio.h>

#include "render/levers.h"
#include "render/render.h"
#include "render/desc.h"
#include "cputestfs.h"
#include "report_levers.h"
#include "report_pub.h"

static const char *const d_same[] = { "placement=same", "daemon=single", "baseline=fuse",
				      "transport=dev", NULL };
static const char *const d_other[] = { "placement=other", "daemon=single", "baseline=fuse",
				       "transport=dev", NULL };
static const char *const u_none[] = { "placement=none", "daemon=percpu", "baseline=fuse",
				      "transport=uring", "uring_cpu=queue|", NULL };

static const struct ab_lever_ratio ratios[] = {
	{ "other/same (libfuse)", ctf_w_other, ctf_w_same },
	{ "none/same (libfuse)", ctf_w_none, ctf_w_same },
	{ "other/same (dev)", d_other, d_same },
	{ "uring/libfuse (none)", u_none, ctf_w_none },
};
static const struct ab_lever_key keys[] = { { "idle", "as-found" }, { "daemon_wait", "block" } };
static const struct ab_levers levers = { CTF_M_STAT, CTF_M_SCPU, ratios, 4, keys, 2 };

void ctf_levers(struct ab_render *r, int reading)
{
	ab_levers_table(r, &levers, reading);
	ctf_split(r, reading);
}

int ctf_ratios(struct ab_render *r, struct ab_named_ratio *out, int max)
{
	return ab_levers_ratios(r, &levers, out, max);
}
