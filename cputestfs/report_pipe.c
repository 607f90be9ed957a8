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

#include "render/reading.h"
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

#define ROW_KEYS 8	/* keys beside transport that may tell the rows apart */

/* A CPU of key ("client_cpu=1"), which placement same already names; not a count. */
static int cpu_like(const char *key, const char *v)
{
	size_t kl = strlen(key);

	return kl > 4 && !strcmp(key + kl - 4, "_cpu") && v[0] &&
	       strspn(v, "0123456789,-") == strlen(v);
}

/* Does key take two values or more among the same-CPU FUSE bars? A bar without it holds
 * ab_cfg_absent_as (idle: as-found), or says nothing (uring_cpu on libfuse's bars). */
static int varies(const struct ab_breakdown_bar *bars, int n, const char *key)
{
	char first[AB_VALUE_LEN] = "", v[AB_VALUE_LEN];

	for (int i = 0; i < n; i++) {
		if (!is_same_cpu(&bars[i], "fuse"))
			continue;
		if (!ab_cfg_get(bars[i].config, key, v, sizeof(v))[0])
			snprintf(v, sizeof(v), "%s", ab_cfg_absent_as(key) ? ab_cfg_absent_as(key) : "");
		if (!v[0] || cpu_like(key, v))
			continue;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", v);
		else if (strcmp(first, v))
			return 1;
	}
	return 0;
}

/* The keys beside transport that tell the same-CPU FUSE rows apart, in the configs'
 * order: daemon where the plan sweeps daemon modes, idle where idle=poll repeats a
 * transport and daemon. Returns how many. */
static int row_keys(const struct ab_breakdown_bar *bars, int n, char keys[][AB_KEY_LEN])
{
	int nk = 0;

	for (int i = 0; i < n; i++) {
		if (!is_same_cpu(&bars[i], "fuse"))
			continue;
		for (const char *p = bars[i].config; *p; p += *p == ';') {
			size_t kl = strcspn(p, "=;");
			char k[AB_KEY_LEN];
			int seen = 0;
			snprintf(k, sizeof(k), "%.*s", (int)(kl < sizeof(k) ? kl : sizeof(k) - 1), p);
			p += strcspn(p, ";");
			for (int j = 0; j < nk; j++)
				seen |= !strcmp(keys[j], k);
			if (seen || nk == ROW_KEYS || !strcmp(k, "transport") || !strcmp(k, "baseline") ||
			    !strcmp(k, "placement") || !varies(bars, n, k))
				continue;
			snprintf(keys[nk++], AB_KEY_LEN, "%s", k);
		}
	}
	return nk;
}

/* A FUSE configuration beside the pipe: its transport, then each of keys that its config
 * holds ("libfuse, daemon single, idle poll" with kv " ", "transport=libfuse, daemon=single"
 * with tpre "transport=" and kv "="). */
static void fuse_name(const char *config, char keys[][AB_KEY_LEN], int nk, char *buf,
		      size_t len, const char *tpre, const char *kv)
{
	char v[AB_VALUE_LEN];

	buf[0] = '\0';
	if (!ab_cfg_get(config, "transport", v, sizeof(v))[0])
		return;
	snprintf(buf, len, "%s%s", tpre, v);
	for (int k = 0; k < nk; k++)
		if (ab_cfg_get(config, keys[k], v, sizeof(v))[0])
			ab_r_addf(buf, len, ", %s%s%s", keys[k], kv, v);
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
	char keys[ROW_KEYS][AB_KEY_LEN];
	int nk = row_keys(bars, n, keys);
	for (int i = 0; i < n; i++) {
		const struct ab_breakdown_bar *b = &bars[i];
		if (!is_same_cpu(b, "fuse"))
			continue;
		if (!said++) {
			pipe_head(r, pipe);
			pipe_row(r, "pipe round trip", pg && pg->n ? ab_median(pg->v, pg->n) / 1e3 : NAN,
				 pipe);
		}
		fuse_name(b->config, keys, nk, tr, sizeof(tr), "", " ");
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
		fuse_name(bars[i].config, keys, nk, tr, sizeof(tr), "transport=", "=");
		fprintf(r->out, "- %s\n", ab_breakdown_compare(text, sizeof(text), &bars[i], tr, pipe,
							  "baseline=pipe", "placement=same"));
	}
	fprintf(r->out, "\n");
}
