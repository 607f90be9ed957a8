// SPDX-License-Identifier: GPL-2.0
/*
 * "Where the time goes" in words (render_breakdown.h): report.md's sentences (the
 * step that differs most, slowest against fastest, per compared key, then the
 * descriptor's own reading) and tables.md's breakdown table. The bars they read
 * come from render_breakdown.c; the figures are in render_breakdown_plot.c.
 */
#include "render/render_breakdown_i.h"
#include "render/render.h"
#include "render/desc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/results.h"

static const char *const step_words[AB_BREAKDOWN_NSTEP] = { "submitting the request",
						      "the daemon's wake-up", "the service",
						      "the reply's wake-up", "the return" };
static const int wake_step[AB_BREAKDOWN_NWAKE] = { 1, 3 };	/* daemon_wake, reply_wake */

#define SAME_WITHIN 0.02	/* calls this close are "about the same" */
#define MAX_SAY 8		/* sentences per compared key */

/* ---- sentences ---- */

static void cell(FILE *f, double v)
{
	char t[32];
	fprintf(f, " %s |", ab_r_num(t, sizeof(t), v));
}

/* " `name` rests on 12 calls, fewer than 1000: ..." where a bar has too few calls. */
static void few_calls(char *buf, size_t len, const struct ab_breakdown_bar *a, const char *name)
{
	char x[32];

	if (!ab_breakdown_few(a))
		return;
	ab_r_num(x, sizeof(x), a->calls);
	ab_r_addf(buf, len, " `%s`'s breakdown rests on %s call%s, fewer than the %d it needs: "
		  "one slow call moves its means.", name, x, strcmp(x, "1") ? "s" : "",
		  AB_BREAKDOWN_MIN_CALLS);
}

const char *ab_breakdown_compare(char *buf, size_t len,
				 const struct ab_breakdown_bar *a, const char *sa,
				 const struct ab_breakdown_bar *b, const char *sb, const char *ctx)
{
	char x[32], y[32], d[32], missing[160] = "";
	int best = -1;

	buf[0] = '\0';
	if (b->call_us > a->call_us) {	/* a: the slower */
		const struct ab_breakdown_bar *t = a;
		const char *ts = sa;
		a = b, sa = sb, b = t, sb = ts;
	}
	if (ctx && ctx[0])
		ab_r_addf(buf, len, "With `%s`, ", ctx);
	double delta = a->call_us - b->call_us;
	if (!(delta > SAME_WITHIN * b->call_us)) {
		ab_r_addf(buf, len, "`%s` and `%s` took about the same time per call (%s and %s us, "
			  "within %.0f%%).", sa, sb, ab_r_num(x, sizeof(x), a->call_us),
			  ab_r_num(y, sizeof(y), b->call_us), 100 * SAME_WITHIN);
		few_calls(buf, len, a, sa);
		few_calls(buf, len, b, sb);
		return buf;
	}
	for (int s = 0; s < AB_BREAKDOWN_NSTEP; s++) {
		if (!isfinite(a->step_us[s]) || !isfinite(b->step_us[s])) {
			ab_r_addf(missing, sizeof(missing), "%s%s", missing[0] ? ", " : "",
				  ab_breakdown_step_names[s]);
			continue;
		}
		if (best < 0 || a->step_us[s] - b->step_us[s] > a->step_us[best] - b->step_us[best])
			best = s;
	}
	ab_r_addf(buf, len, "`%s` took %s us more per call than `%s` (%s vs %s us", sa,
		  ab_r_num(d, sizeof(d), delta), sb, ab_r_num(x, sizeof(x), a->call_us),
		  ab_r_num(y, sizeof(y), b->call_us));
	if (a->call_p50_us > 0 && b->call_p50_us > 0)	/* a mean far above its median: a tail */
		ab_r_addf(buf, len, "; medians %s vs %s us", ab_r_num(x, sizeof(x), a->call_p50_us),
			  ab_r_num(y, sizeof(y), b->call_p50_us));
	ab_r_addf(buf, len, ")");
	if (best < 0 || !(a->step_us[best] - b->step_us[best] > 0)) {
		ab_r_addf(buf, len, "; no step recorded on both sides accounts for it");
	} else {
		ab_r_addf(buf, len, ", %s us of it in %s",
			  ab_r_num(d, sizeof(d), a->step_us[best] - b->step_us[best]), step_words[best]);
		for (int w = 0; w < AB_BREAKDOWN_NWAKE; w++)
			if (wake_step[w] == best && isfinite(a->cross_pct[w]) && isfinite(a->idle_pct[w])) {
				ab_r_num(x, sizeof(x), a->wakes[w]);
				ab_r_addf(buf, len, " (%s wake-up%s per call, %s%% of them across CPUs "
					  "and %s%% onto an idle CPU)", x, strcmp(x, "1") ? "s" : "",
					  ab_r_num(y, sizeof(y), a->cross_pct[w]),
					  ab_r_num(d, sizeof(d), a->idle_pct[w]));
			}
	}
	if (missing[0])
		ab_r_addf(buf, len, "; not recorded on both sides, so not compared: %s", missing);
	ab_r_addf(buf, len, ".");
	few_calls(buf, len, a, sa);
	few_calls(buf, len, b, sb);
	return buf;
}

const char *ab_breakdown_single(char *buf, size_t len, const struct ab_breakdown_bar *a,
				const char *name)
{
	char x[32], y[32], z[32];
	int best = -1;

	for (int s = 0; s < AB_BREAKDOWN_NSTEP; s++)
		if (isfinite(a->step_us[s]) && (best < 0 || a->step_us[s] > a->step_us[best]))
			best = s;
	buf[0] = '\0';
	ab_r_addf(buf, len, "Only one configuration has a breakdown (`%s`): %s us per call", name,
		  ab_r_num(x, sizeof(x), a->call_us));
	if (best >= 0 && a->call_us > 0)
		ab_r_addf(buf, len, ", most of it in %s (%s us, %s%%)", step_words[best],
			  ab_r_num(y, sizeof(y), a->step_us[best]),
			  ab_r_num(z, sizeof(z), 100 * a->step_us[best] / a->call_us));
	ab_r_addf(buf, len, ".");
	few_calls(buf, len, a, name);
	return buf;
}

/* ---- which bars to compare ---- */

/* Is label key k present in every bar? */
static int everywhere(const struct breakdown_set *s, int k)
{
	char v[AB_VALUE_LEN];

	for (int i = 0; i < s->n; i++)
		if (!ab_cfg_get(s->b[i].config, s->key[k], v, sizeof(v))[0])
			return 0;
	return 1;
}

/* "k=v, k=v" of bar i: what it shares with the bars it is compared with (ctx 1: the
 * label keys other than the compared key k that every bar has), or what names it among
 * them (ctx 0: k and the keys only some bars have, such as uring_cpu). */
static void name_of(const struct breakdown_set *s, int i, int k, int ctx, char *out, size_t len)
{
	out[0] = '\0';
	for (int j = 0; j < s->nk; j++) {
		char v[AB_VALUE_LEN];
		int shared = j != k && everywhere(s, j);
		if (shared != ctx || !ab_cfg_get(s->b[i].config, s->key[j], v, sizeof(v))[0])
			continue;
		ab_r_addf(out, len, "%s%s=%s", out[0] ? ", " : "", s->key[j], v);
	}
}

/*
 * Sentences for compare key k: among the bars that agree on every other key present
 * in all bars, each value of k at its best (its fastest bar: ddpar's uring at its best
 * --uring-cpu), the slowest of those against the fastest.
 */
static void say_key(struct ab_render *r, const struct breakdown_set *s, int k)
{
	int done[AB_BREAKDOWN_BARS] = { 0 }, said = 0, more = 0;

	for (int i = 0; i < s->n; i++) {
		char ctx[256], c2[256], v[AB_VALUE_LEN], w[AB_VALUE_LEN];
		int best[AB_BREAKDOWN_BARS], nb = 0, slow, fast;
		if (done[i] || !ab_cfg_get(s->b[i].config, s->key[k], v, sizeof(v))[0])
			continue;
		name_of(s, i, k, 1, ctx, sizeof(ctx));
		for (int j = i; j < s->n; j++) {
			int b;
			if (done[j] || !ab_cfg_get(s->b[j].config, s->key[k], v, sizeof(v))[0])
				continue;
			name_of(s, j, k, 1, c2, sizeof(c2));
			if (strcmp(ctx, c2))
				continue;
			done[j] = 1;
			for (b = 0; b < nb; b++)	/* the fastest of each value of k */
				if (!strcmp(ab_cfg_get(s->b[best[b]].config, s->key[k], w, sizeof(w)), v))
					break;
			if (b == nb)
				best[nb++] = j;
			else if (s->b[j].call_us < s->b[best[b]].call_us)
				best[b] = j;
		}
		if (nb < 2)
			continue;
		if (said >= MAX_SAY) {
			more++;
			continue;
		}
		slow = fast = best[0];
		for (int b = 1; b < nb; b++) {
			slow = s->b[best[b]].call_us > s->b[slow].call_us ? best[b] : slow;
			fast = s->b[best[b]].call_us < s->b[fast].call_us ? best[b] : fast;
		}
		char sa[128], sb[128], text[1024];
		name_of(s, slow, k, 0, sa, sizeof(sa));
		name_of(s, fast, k, 0, sb, sizeof(sb));
		fprintf(r->out, "- %s\n", ab_breakdown_compare(text, sizeof(text), &s->b[slow], sa,
							  &s->b[fast], sb, ctx));
		said++;
	}
	if (more)
		fprintf(r->out, "- (%d more comparisons of %s: their steps are in tables.md.)\n", more,
			s->key[k]);
}


void ab_breakdown_reading(struct ab_render *r)
{
	struct breakdown_set *s = ab_breakdown_set_load(r);
	int any = 0;

	if (!s)
		return;
	fprintf(r->out, "### %s: where the time goes\n\n", r->desc->name);
	fprintf(r->out, "From the request breakdown of the instrumented repetitions "
			"(docs/breakdown.md): the mean time per call and the step that differs "
			"most, slowest against fastest.\n\n");
	if (s->n == 1) {
		char text[512];
		fprintf(r->out, "%s\n\n", ab_breakdown_single(text, sizeof(text), &s->b[0], s->b[0].config));
		goto out;
	}
	for (int p = 0; r->desc->breakdown_keys && r->desc->breakdown_keys[p]; p++)
		for (int k = 0; k < s->nk; k++)
			if (!strcmp(s->key[k], r->desc->breakdown_keys[p])) {
				say_key(r, s, k);
				any = 1;
			}
	if (!any && s->nk)
		say_key(r, s, 0);
	fprintf(r->out, "\n");
	if (r->desc->breakdown_reading)
		r->desc->breakdown_reading(r, s->b, s->n);
out:
	free(s);
}

/* ---- the table ---- */

void ab_breakdown_tables(struct ab_render *r)
{
	struct breakdown_set *s = ab_breakdown_set_load(r);

	if (!s)
		return;
	/* Runs recorded before the outside row existed render as they did. */
	int outside = 0, few = 0;
	char few_note[128];
	for (int i = 0; i < s->n; i++) {
		outside |= !isnan(s->b[i].outside_us);
		few |= ab_breakdown_few(&s->b[i]);
	}
	snprintf(few_note, sizeof(few_note), " Too few: fewer than %d calls behind the row, so "
					     "one slow call moves its means.", AB_BREAKDOWN_MIN_CALLS);
	fprintf(r->out, "### %s: where the time goes (request breakdown)\n\n"
			"Mean microseconds per call of each step; they add up to the call. Each is "
			"averaged over the instrumented repetitions (n); p50 is the calls' median. "
			"Wake-ups: per call, %% that crossed CPUs, %% that found the CPU idle "
			"(docs/breakdown.md).%s%s\n\n", r->desc->name, few ? few_note : "",
		outside ? " Outside the probes: what the clients' own clock saw beyond the steps "
			  "(syscall entry and exit, the clock reads); call + outside = the clients' "
			  "time per call." : "");
	fprintf(r->out, "| %s | n | call | submit | daemon_wake | service | reply_wake | return |%s "
			"call p50 | daemon wakes / cross %% / idle %% | reply wakes / cross %% / idle %% |\n"
			"|---|---|---|---|---|---|---|---|%s---|---|---|\n",
		s->keys[0] ? s->keys : "config", outside ? " outside the probes |" : "",
		outside ? "---|" : "");
	for (int i = 0; i < s->n; i++) {
		const struct ab_breakdown_bar *b = &s->b[i];
		char x[32];
		fprintf(r->out, "| %s | %d", b->label, b->reps);
		if (ab_breakdown_few(b)) {	/* flagged where it stands */
			ab_r_num(x, sizeof(x), b->calls);
			fprintf(r->out, " (%s call%s: too few)", x, strcmp(x, "1") ? "s" : "");
		}
		fprintf(r->out, " |");
		cell(r->out, b->call_us);
		for (int k = 0; k < AB_BREAKDOWN_NSTEP; k++)
			cell(r->out, b->step_us[k]);
		if (outside)
			cell(r->out, b->outside_us);
		cell(r->out, b->call_p50_us);
		for (int w = 0; w < AB_BREAKDOWN_NWAKE; w++) {
			char x[32], y[32], z[32];
			fprintf(r->out, " %s / %s / %s |", ab_r_num(x, sizeof(x), b->wakes[w]),
				ab_r_num(y, sizeof(y), b->cross_pct[w]),
				ab_r_num(z, sizeof(z), b->idle_pct[w]));
		}
		fprintf(r->out, "\n");
	}
	fprintf(r->out, "\n");
	free(s);
}
