// SPDX-License-Identifier: GPL-2.0
/*
 * "Where the time goes", its first part (render_breakdown.h): the brk_* records of
 * each configuration gathered into one bar, the bars labelled and ordered, and
 * what the sentences, the table and the figures all use (render_breakdown_i.h).
 * The sentences and the table are in render_breakdown_text.c, the figures in
 * render_breakdown_plot.c: one concern per file.
 */
#include "render/render_breakdown_i.h"
#include "render/render.h"
#include "render/desc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/results.h"

/* ---- the bars ---- */

/* Value of metric in config at repetition rep, NAN when not recorded. The records of one
 * repetition usually sit at the same index in every group (hint); a search beyond it is
 * bounded, so that a hostile raw.csv cannot make it quadratic. */
static double at_rep(const struct ab_results *res, const char *bench, const char *config,
		     const char *metric, const char *unit, int rep, size_t hint)
{
	const struct ab_group *g = ab_results_get(res, bench, config, metric, unit);

	if (g && hint < g->n && g->rep[hint] == rep)
		return g->v[hint];
	for (size_t i = 0; g && i < g->n && i < 1024; i++)
		if (g->rep[i] == rep)
			return g->v[i];
	return NAN;
}

/* Mean of the finite values of x[0..n). */
static double mean_finite(const double *x, int n)
{
	double s = 0;
	int k = 0;

	for (int i = 0; i < n; i++)
		if (isfinite(x[i])) {
			s += x[i];
			k++;
		}
	return k ? s / k : NAN;
}

double ab_breakdown_median_of(const struct ab_results *res, const char *bench, const char *config,
			 const char *metric, const char *unit)
{
	return ab_r_median(ab_results_get(res, bench, config, metric, unit));
}

/* One bar from the records of config, whose brk_call_ns group is call. */
static void fill_bar(struct ab_breakdown_bar *b, const struct ab_results *res,
		     const struct ab_group *call)
{
	size_t n = call->n < 1024 ? call->n : 1024;
	double v[1024];
	char m[AB_METRIC_LEN];

	memset(b, 0, sizeof(*b));
	b->config = call->config;
	b->reps = (int)n;
	for (size_t i = 0; i < n; i++)
		v[i] = call->v[i] / 1e3;
	b->call_us = mean_finite(v, (int)n);
	b->calls = 0;
	for (size_t i = 0; i < n; i++)
		b->calls += at_rep(res, call->bench, call->config, "brk_calls", "count", call->rep[i], i);
	b->call_p50_us =
		ab_breakdown_median_of(res, call->bench, call->config, "brk_call_p50_ns", "ns") / 1e3;
	for (int s = 0; s < AB_BREAKDOWN_NSTEP; s++) {
		snprintf(m, sizeof(m), "brk_%s_share_pct", ab_breakdown_step_names[s]);
		for (size_t i = 0; i < n; i++)
			v[i] = at_rep(res, call->bench, call->config, m, "%", call->rep[i], i) / 100 *
			       call->v[i] / 1e3;
		b->step_us[s] = mean_finite(v, (int)n);
	}
	for (size_t i = 0; i < n; i++)
		v[i] = at_rep(res, call->bench, call->config, "brk_outside_ns", "ns", call->rep[i], i) / 1e3;
	b->outside_us = mean_finite(v, (int)n);
	for (int w = 0; w < AB_BREAKDOWN_NWAKE; w++) {
		snprintf(m, sizeof(m), "brk_%s_wakes_per_call", ab_breakdown_wake_names[w]);
		b->wakes[w] = ab_breakdown_median_of(res, call->bench, call->config, m, "ratio");
		snprintf(m, sizeof(m), "brk_%s_wake_cross_pct", ab_breakdown_wake_names[w]);
		b->cross_pct[w] = ab_breakdown_median_of(res, call->bench, call->config, m, "%");
		snprintf(m, sizeof(m), "brk_%s_wake_idle_pct", ab_breakdown_wake_names[w]);
		b->idle_pct[w] = ab_breakdown_median_of(res, call->bench, call->config, m, "%");
	}
}

int ab_breakdown_few(const struct ab_breakdown_bar *b)
{
	return b->calls > 0 && b->calls < AB_BREAKDOWN_MIN_CALLS;	/* 0, NAN: not counted */
}

/* Keys of a "k=v;k=v" config, appended to keys[] when new. */
static void collect_keys(const char *config, char keys[][AB_KEY_LEN], int *nk)
{
	for (const char *p = config; *p; ) {
		size_t kl = strcspn(p, "=;");
		int k;
		for (k = 0; k < *nk && (strlen(keys[k]) != kl || strncmp(keys[k], p, kl)); k++)
			;
		if (k == *nk && *nk < NKEYS && kl < AB_KEY_LEN)
			snprintf(keys[(*nk)++], AB_KEY_LEN, "%.*s", (int)kl, p);
		p += strcspn(p, ";");
		p += *p == ';';
	}
}

/* A CPU number or list ("3", "0-1,4") or "any": a detail the placement already names. */
static int cpu_like(const char *v)
{
	return !strcmp(v, "any") || (v[0] && strspn(v, "0123456789,-") == strlen(v));
}

/* Does key k take two values or more among the bars (a key some bars lack, with one value
 * where present, like cputestfs's uring_cpu, says nothing the others do not)? Are its
 * values all CPU-like? A config without idle holds it as found (ab_cfg_absent_as). */
static int varies(const struct ab_breakdown_bar *b, int n, const char *k, int *cpu)
{
	char v0[AB_VALUE_LEN] = "", v[AB_VALUE_LEN];
	int diff = 0;

	*cpu = 1;
	for (int i = 0; i < n; i++) {
		if (!ab_cfg_get(b[i].config, k, v, sizeof(v))[0] && ab_cfg_absent_as(k))
			snprintf(v, sizeof(v), "%s", ab_cfg_absent_as(k));
		if (!v[0])
			continue;
		if (!v0[0])
			snprintf(v0, sizeof(v0), "%s", v);
		diff |= strcmp(v, v0) != 0;
		*cpu &= cpu_like(v);
	}
	return diff;
}

/* Would the bars still be told apart by the keys with use[k] set? */
static int distinct(const struct ab_breakdown_bar *b, int n, char keys[][AB_KEY_LEN], int nk,
		    const int *use)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			int same = 1;
			for (int k = 0; k < nk && same; k++) {
				char x[AB_VALUE_LEN], y[AB_VALUE_LEN];
				if (use[k])
					same = !strcmp(ab_cfg_get(b[i].config, keys[k], x, sizeof(x)),
						       ab_cfg_get(b[j].config, keys[k], y, sizeof(y)));
			}
			if (same)
				return 0;
		}
	return 1;
}

/* Where bar b's value of key first appears among the bars (absent is a value). */
static int first_seen(const struct ab_breakdown_bar *bars, int b, const char *key)
{
	char v[AB_VALUE_LEN], w[AB_VALUE_LEN];
	int j;

	ab_cfg_get(bars[b].config, key, v, sizeof(v));
	for (j = 0; j < b && strcmp(ab_cfg_get(bars[j].config, key, w, sizeof(w)), v); j++)
		;
	return j;
}

/* Does rank a come after rank b (element by element)? */
static int later(const int *a, const int *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] > b[i];
	return 0;
}

/*
 * Bars in the sweep's nesting: the keys whose value changes least often from
 * one bar to the next are the outer ones, each value in the order it first
 * appeared; a configuration whose first repetition failed (so appears late)
 * goes back beside its own.
 */
static void order_bars(struct ab_breakdown_bar *bars, int n, char keys[][AB_KEY_LEN], int nk,
		       const int *use)
{
	int changes[NKEYS] = { 0 }, rank[AB_BREAKDOWN_BARS][NKEYS], by[NKEYS], nb = 0;

	if (n > AB_BREAKDOWN_BARS)
		return;
	for (int i = 0; i < nk; i++)
		for (int b = 1; b < n; b++) {
			char x[AB_VALUE_LEN], y[AB_VALUE_LEN];
			changes[i] += use[i] && strcmp(ab_cfg_get(bars[b].config, keys[i], x, sizeof(x)),
						       ab_cfg_get(bars[b - 1].config, keys[i], y, sizeof(y)));
		}
	for (int i = 0; i < nk; i++)	/* the used keys, fewest changes first (stable) */
		if (use[i]) {
			int j = nb++;
			for (; j > 0 && changes[by[j - 1]] > changes[i]; j--)
				by[j] = by[j - 1];
			by[j] = i;
		}
	for (int b = 0; b < n; b++)
		for (int j = 0; j < nb; j++)
			rank[b][j] = first_seen(bars, b, keys[by[j]]);
	for (int b = 1; b < n; b++)	/* insertion sort: stable, and n is small */
		for (int c = b; c > 0 && later(rank[c - 1], rank[c], nb); c--) {
			struct ab_breakdown_bar t = bars[c];
			int r[NKEYS];
			bars[c] = bars[c - 1];
			bars[c - 1] = t;
			memcpy(r, rank[c], sizeof(r));
			memcpy(rank[c], rank[c - 1], sizeof(r));
			memcpy(rank[c - 1], r, sizeof(r));
		}
}

int ab_breakdown_bars(const struct ab_results *res, const struct ab_bench_desc *d,
		      struct ab_breakdown_bar *bars, int max, char *keys, size_t keylen)
{
	const char *bench = d->name;
	char k[NKEYS][AB_KEY_LEN];
	int n = 0, nk = 0, use[NKEYS] = { 0 }, cpu[NKEYS] = { 0 };

	for (size_t i = 0; i < res->n && n < max; i++) {
		const struct ab_group *g = &res->g[i];
		if (strcmp(g->bench, bench) || strcmp(g->metric, "brk_call_ns") || !g->n)
			continue;
		fill_bar(&bars[n], res, g);
		/* a call whose steps are not all recorded (a cut raw.csv) is no bar: its
		 * stack would not add up, and gnuplot draws nothing of an all-NaN row */
		int whole = 1;
		for (int s = 0; s < AB_BREAKDOWN_NSTEP; s++)
			whole &= isfinite(bars[n].step_us[s]);
		n += whole;
	}
	for (int i = 0; i < n; i++)
		collect_keys(bars[i].config, k, &nk);
	for (int i = 0; i < nk; i++)
		use[i] = n > 1 && varies(bars, n, k[i], &cpu[i]);
	/* Short labels: leave out keys the others determine while the rest tells bars apart,
	 * CPU numbers first (they follow from the placement), then in the configs' order any
	 * but the keys sentences compare by. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nk; i++)
			if (use[i] && (pass ? !ab_desc_in(d->breakdown_keys, k[i], strlen(k[i])) :
				       cpu[i])) {
				use[i] = 0;
				if (!distinct(bars, n, k, nk, use))
					use[i] = 1;
			}
	order_bars(bars, n, k, nk, use);
	keys[0] = '\0';
	for (int i = 0; i < nk; i++)
		if (use[i])
			ab_r_addf(keys, keylen, "%s%s", keys[0] ? ":" : "", k[i]);
	for (int b = 0; b < n; b++) {
		bars[b].label[0] = '\0';
		for (int i = 0; i < nk; i++) {
			char v[AB_VALUE_LEN];
			if (use[i])
				ab_r_addf(bars[b].label, sizeof(bars[b].label), "%s%s",
					  bars[b].label[0] ? ":" : "",
					  ab_cfg_get(bars[b].config, k[i], v, sizeof(v))[0] ? v :
					  ab_cfg_absent_as(k[i]) ? ab_cfg_absent_as(k[i]) : "-");
		}
		if (!bars[b].label[0])
			snprintf(bars[b].label, sizeof(bars[b].label), "%s", n == 1 ? "all" : "?");
	}
	return n;
}

/* ---- the bars of one benchmark, with their label keys ---- */

struct breakdown_set *ab_breakdown_set_load(const struct ab_render *r)
{
	struct breakdown_set *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->n = ab_breakdown_bars(r->res, r->desc, s->b, AB_BREAKDOWN_BARS, s->keys, sizeof(s->keys));
	if (!s->n) {
		free(s);
		return NULL;
	}
	for (const char *p = s->keys; *p && s->nk < NKEYS; ) {
		size_t l = strcspn(p, ":");
		snprintf(s->key[s->nk++], AB_KEY_LEN, "%.*s", (int)(l < AB_KEY_LEN ? l : AB_KEY_LEN - 1), p);
		p += l;
		p += *p == ':';
	}
	return s;
}
