// SPDX-License-Identifier: GPL-2.0
/*
 * cputestfs's own reading of the request breakdown (desc.h's
 * breakdown_reading): beside its pipe baseline, on one CPU, the pipe's round
 * trip and each transport's FUSE call, their medians as the clients timed them
 * and their steps' means; with the pipe's own breakdown (--baseline pipe
 * --kstats on), a sentence per transport on the step FUSE adds most to. The
 * generic sentences come first (lib/render/render_breakdown_text.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/render.h"
#include "render/render_breakdown.h"
#include "render/desc.h"
#include "record/stats.h"
#include "cputestfs.h"

static void cell(FILE *f, double v)
{
	char t[32];
	fprintf(f, " %s |", ab_r_num(t, sizeof(t), v));
}

/* A FUSE configuration beside the pipe: its transport, and its daemon mode when the
 * bars differ in it (the default plan sweeps three daemon modes on libfuse). */
static void fuse_name(const char *config, int with_daemon, char *buf, size_t len,
		      const char *tpre, const char *dpre)
{
	char tr[32] = "", dm[32] = "";

	ab_cfg_get(config, "transport", tr, sizeof(tr));
	if (with_daemon)
		ab_cfg_get(config, "daemon", dm, sizeof(dm));
	if (!tr[0])
		buf[0] = '\0';
	else
		snprintf(buf, len, "%s%s%s%s", tpre, tr, dm[0] ? dpre : "", dm);
}

/* Is b on one CPU, measuring baseline (records from before --baseline are FUSE)? */
static int is_same_cpu(const struct ab_breakdown_bar *b, const char *baseline)
{
	char pl[AB_VALUE_LEN], bl[AB_VALUE_LEN];

	ab_cfg_get(b->config, "baseline", bl, sizeof(bl));
	return !strcmp(ab_cfg_get(b->config, "placement", pl, sizeof(pl)), "same") &&
	       (!strcmp(bl, baseline) || (!bl[0] && !strcmp(baseline, "fuse")));
}

static void pipe_row(struct ab_render *r, const char *name, double median,
		     const struct ab_breakdown_bar *b)
{
	fprintf(r->out, "| %s |", name);
	cell(r->out, median);
	cell(r->out, b ? b->call_us : NAN);
	for (int k = 0; k < AB_BREAKDOWN_NSTEP; k++)
		cell(r->out, b ? b->step_us[k] : NAN);
	fprintf(r->out, "\n");
}

/* How many daemon modes the same-CPU FUSE bars have (2 or more: the rows name theirs). */
static int fuse_daemons(const struct ab_breakdown_bar *bars, int n)
{
	char first[AB_VALUE_LEN] = "", dm[AB_VALUE_LEN];

	for (int i = 0; i < n; i++) {
		if (!is_same_cpu(&bars[i], "fuse"))
			continue;
		ab_cfg_get(bars[i].config, "daemon", dm, sizeof(dm));
		if (!first[0])
			snprintf(first, sizeof(first), "%s", dm);
		else if (strcmp(first, dm))
			return 2;
	}
	return 1;
}

/* The header of the pipe table, its step columns from the records' step names. */
static void pipe_head(struct ab_render *r, const struct ab_breakdown_bar *pipe)
{
	fprintf(r->out, "Beside a pipe, both sides on one CPU: the median call as the clients "
			"timed it, then the mean call and its steps under the probes, in us%s:\n\n"
			"| on one CPU | median | mean |",
		pipe ? "" : " (the pipe's steps need --baseline pipe --kstats on)");
	for (int k = 0; k < AB_BREAKDOWN_NSTEP; k++)
		fprintf(r->out, " %s |", ab_breakdown_step_name(k));
	fprintf(r->out, "\n|---|---|---|");
	for (int k = 0; k < AB_BREAKDOWN_NSTEP; k++)
		fprintf(r->out, "---|");
	fprintf(r->out, "\n");
}

void ctf_pipe_reading(struct ab_render *r, const struct ab_breakdown_bar *bars, int n)
{
	static const char *const want[] = { "baseline=pipe", "placement=same", NULL };
	const struct ab_group *pg = ab_results_find(r->res, r->desc->name, CTF_M_P50, want);
	const struct ab_breakdown_bar *pipe = NULL;
	char tr[2 * AB_VALUE_LEN], name[2 * AB_VALUE_LEN + 16], text[1024];
	int said = 0;

	for (int i = 0; i < n && !pipe; i++)
		if (is_same_cpu(&bars[i], "pipe"))
			pipe = &bars[i];
	if (!(pg && pg->n) && !pipe)
		return;
	int daemons = fuse_daemons(bars, n);
	for (int i = 0; i < n; i++) {
		const struct ab_breakdown_bar *b = &bars[i];
		if (!is_same_cpu(b, "fuse"))
			continue;
		if (!said++) {
			pipe_head(r, pipe);
			pipe_row(r, "pipe round trip", pg && pg->n ? ab_median(pg->v, pg->n) / 1e3 : NAN,
				 pipe);
		}
		fuse_name(b->config, daemons > 1, tr, sizeof(tr), "", ", daemon ");
		snprintf(name, sizeof(name), "FUSE %s", tr[0] ? tr : b->label);
		pipe_row(r, name,
			 ab_breakdown_median_of(r->res, r->desc->name, b->config, CTF_M_P50, "ns") / 1e3, b);
	}
	if (!said)
		return;
	fprintf(r->out, "\n");
	for (int i = 0; i < n && pipe; i++) {
		if (!is_same_cpu(&bars[i], "fuse"))
			continue;
		fuse_name(bars[i].config, daemons > 1, tr, sizeof(tr), "transport=", ", daemon=");
		snprintf(name, sizeof(name), "%s", tr);
		fprintf(r->out, "- %s\n", ab_breakdown_compare(text, sizeof(text), &bars[i], name, pipe,
							  "baseline=pipe", "placement=same"));
	}
	fprintf(r->out, "\n");
}
