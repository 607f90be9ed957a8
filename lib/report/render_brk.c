/* "Where the time goes" from the brk_* records (see render_brk.h). */
#include "report/render_brk.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "report/gpscript.h"
#include "report/results.h"

/* The records' step and wake-up names (lib/kstats/brk.c writes them; test_render_brk checks). */
static const char *const step_names[AB_BRK_NSTEP] = { "submit", "daemon_wake", "service",
						      "reply_wake", "return" };
static const char *const step_words[AB_BRK_NSTEP] = { "submitting the request",
						      "the daemon's wake-up", "the service",
						      "the reply's wake-up", "the return" };
static const char *const wake_names[AB_BRK_NWAKE] = { "daemon", "reply" };
static const int wake_step[AB_BRK_NWAKE] = { 1, 3 };	/* daemon_wake, reply_wake */

#define SAME_WITHIN 0.02	/* calls this close are "about the same" */
#define SPLIT_ABOVE 16		/* more bars than this: one figure per value of a key */
#define MAX_FIGS 6
#define MAX_SAY 8		/* sentences per compared key */
#define NKEYS 16

/* The keys sentences compare by, in this order; labels always keep them. */
static const char *const compared[] = { "baseline", "placement", "transport", "uring_cpu" };

const char *ab_brkr_step_name(int i)
{
	return i >= 0 && i < AB_BRK_NSTEP ? step_names[i] : "?";
}

__attribute__((format(printf, 3, 4)))
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t u = strlen(buf);
	va_list ap;

	if (u + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + u, len - u, fmt, ap);
	va_end(ap);
}

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

static double median_of(const struct ab_results *res, const char *bench, const char *config,
			const char *metric, const char *unit)
{
	const struct ab_group *g = ab_results_get(res, bench, config, metric, unit);

	return g && g->n ? ab_median(g->v, g->n) : NAN;
}

/* One bar from the records of config, whose brk_call_ns group is call. */
static void fill_bar(struct ab_brk_bar *b, const struct ab_results *res, const struct ab_group *call)
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
	b->call_p50_us = median_of(res, call->bench, call->config, "brk_call_p50_ns", "ns") / 1e3;
	for (int s = 0; s < AB_BRK_NSTEP; s++) {
		snprintf(m, sizeof(m), "brk_%s_share_pct", step_names[s]);
		for (size_t i = 0; i < n; i++)
			v[i] = at_rep(res, call->bench, call->config, m, "%", call->rep[i], i) / 100 *
			       call->v[i] / 1e3;
		b->step_us[s] = mean_finite(v, (int)n);
	}
	for (int w = 0; w < AB_BRK_NWAKE; w++) {
		snprintf(m, sizeof(m), "brk_%s_wakes_per_call", wake_names[w]);
		b->wakes[w] = median_of(res, call->bench, call->config, m, "ratio");
		snprintf(m, sizeof(m), "brk_%s_wake_cross_pct", wake_names[w]);
		b->cross_pct[w] = median_of(res, call->bench, call->config, m, "%");
		snprintf(m, sizeof(m), "brk_%s_wake_idle_pct", wake_names[w]);
		b->idle_pct[w] = median_of(res, call->bench, call->config, m, "%");
	}
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
 * values all CPU-like? */
static int varies(const struct ab_brk_bar *b, int n, const char *k, int *cpu)
{
	char v0[AB_VALUE_LEN] = "", v[AB_VALUE_LEN];
	int diff = 0;

	*cpu = 1;
	for (int i = 0; i < n; i++) {
		if (!ab_cfg_get(b[i].config, k, v, sizeof(v))[0])
			continue;
		if (!v0[0])
			snprintf(v0, sizeof(v0), "%s", v);
		diff |= strcmp(v, v0) != 0;
		*cpu &= cpu_like(v);
	}
	return diff;
}

/* Would the bars still be told apart by the keys with use[k] set? */
static int distinct(const struct ab_brk_bar *b, int n, char keys[][AB_KEY_LEN], int nk,
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

static void cell(FILE *f, double v);

static int is_compared(const char *key)
{
	for (size_t i = 0; i < AB_ARRAY_SIZE(compared); i++)
		if (!strcmp(key, compared[i]))
			return 1;
	return 0;
}

/* Where bar b's value of key first appears among the bars (absent is a value). */
static int first_seen(const struct ab_brk_bar *bars, int b, const char *key)
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
static void order_bars(struct ab_brk_bar *bars, int n, char keys[][AB_KEY_LEN], int nk,
		       const int *use)
{
	int changes[NKEYS] = { 0 }, rank[AB_BRK_BARS][NKEYS], by[NKEYS], nb = 0;

	if (n > AB_BRK_BARS)
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
			struct ab_brk_bar t = bars[c];
			int r[NKEYS];
			bars[c] = bars[c - 1];
			bars[c - 1] = t;
			memcpy(r, rank[c], sizeof(r));
			memcpy(rank[c], rank[c - 1], sizeof(r));
			memcpy(rank[c - 1], r, sizeof(r));
		}
}

int ab_brkr_bars(const struct ab_results *res, const char *bench, struct ab_brk_bar *bars, int max,
		 char *keys, size_t keylen)
{
	char k[NKEYS][AB_KEY_LEN];
	int n = 0, nk = 0, use[NKEYS] = { 0 }, cpu[NKEYS] = { 0 };

	for (size_t i = 0; i < res->n && n < max; i++) {
		const struct ab_group *g = &res->g[i];
		if (!strcmp(g->bench, bench) && !strcmp(g->metric, "brk_call_ns") && g->n)
			fill_bar(&bars[n++], res, g);
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
			if (use[i] && (pass ? !is_compared(k[i]) : cpu[i])) {
				use[i] = 0;
				if (!distinct(bars, n, k, nk, use))
					use[i] = 1;
			}
	order_bars(bars, n, k, nk, use);
	keys[0] = '\0';
	for (int i = 0; i < nk; i++)
		if (use[i])
			add(keys, keylen, "%s%s", keys[0] ? ":" : "", k[i]);
	for (int b = 0; b < n; b++) {
		bars[b].label[0] = '\0';
		for (int i = 0; i < nk; i++) {
			char v[AB_VALUE_LEN];
			if (use[i])
				add(bars[b].label, sizeof(bars[b].label), "%s%s",
				    bars[b].label[0] ? ":" : "",
				    ab_cfg_get(bars[b].config, k[i], v, sizeof(v))[0] ? v : "-");
		}
		if (!bars[b].label[0])
			snprintf(bars[b].label, sizeof(bars[b].label), "%s", n == 1 ? "all" : "?");
	}
	return n;
}

/* ---- sentences ---- */

static const char *us(char *t, size_t len, double v)
{
	snprintf(t, len, "%.3g", v);
	return t;
}

const char *ab_brkr_compare(char *buf, size_t len, const struct ab_brk_bar *a, const char *sa,
			    const struct ab_brk_bar *b, const char *sb, const char *ctx)
{
	char x[32], y[32], d[32], missing[160] = "";
	int best = -1;

	buf[0] = '\0';
	if (b->call_us > a->call_us) {	/* a: the slower */
		const struct ab_brk_bar *t = a;
		const char *ts = sa;
		a = b, sa = sb, b = t, sb = ts;
	}
	if (ctx && ctx[0])
		add(buf, len, "With `%s`, ", ctx);
	double delta = a->call_us - b->call_us;
	if (!(delta > SAME_WITHIN * b->call_us)) {
		add(buf, len, "`%s` and `%s` took about the same time per call (%s and %s us, within "
			      "%.0f%%).", sa, sb, us(x, sizeof(x), a->call_us),
		    us(y, sizeof(y), b->call_us), 100 * SAME_WITHIN);
		return buf;
	}
	for (int s = 0; s < AB_BRK_NSTEP; s++) {
		if (!isfinite(a->step_us[s]) || !isfinite(b->step_us[s])) {
			add(missing, sizeof(missing), "%s%s", missing[0] ? ", " : "", step_names[s]);
			continue;
		}
		if (best < 0 || a->step_us[s] - b->step_us[s] > a->step_us[best] - b->step_us[best])
			best = s;
	}
	add(buf, len, "`%s` took %s us more per call than `%s` (%s vs %s us", sa,
	    us(d, sizeof(d), delta), sb, us(x, sizeof(x), a->call_us), us(y, sizeof(y), b->call_us));
	if (a->call_p50_us > 0 && b->call_p50_us > 0)	/* a mean far above its median: a tail */
		add(buf, len, "; medians %s vs %s us", us(x, sizeof(x), a->call_p50_us),
		    us(y, sizeof(y), b->call_p50_us));
	add(buf, len, ")");
	if (best < 0 || !(a->step_us[best] - b->step_us[best] > 0)) {
		add(buf, len, "; no step recorded on both sides accounts for it");
	} else {
		add(buf, len, ", %s us of it in %s", us(d, sizeof(d), a->step_us[best] - b->step_us[best]),
		    step_words[best]);
		for (int w = 0; w < AB_BRK_NWAKE; w++)
			if (wake_step[w] == best && isfinite(a->cross_pct[w]) && isfinite(a->idle_pct[w])) {
				snprintf(x, sizeof(x), "%.2g", a->wakes[w]);
				add(buf, len, " (%s wake-up%s per call, %.0f%% of them across CPUs and "
					      "%.0f%% onto an idle CPU)", x, strcmp(x, "1") ? "s" : "",
				    a->cross_pct[w], a->idle_pct[w]);
			}
	}
	if (missing[0])
		add(buf, len, "; not recorded on both sides, so not compared: %s", missing);
	add(buf, len, ".");
	return buf;
}

const char *ab_brkr_single(char *buf, size_t len, const struct ab_brk_bar *a, const char *name)
{
	char x[32], y[32];
	int best = -1;

	for (int s = 0; s < AB_BRK_NSTEP; s++)
		if (isfinite(a->step_us[s]) && (best < 0 || a->step_us[s] > a->step_us[best]))
			best = s;
	buf[0] = '\0';
	add(buf, len, "Only one configuration has a breakdown (`%s`): %s us per call", name,
	    us(x, sizeof(x), a->call_us));
	if (best >= 0 && a->call_us > 0)
		add(buf, len, ", most of it in %s (%s us, %.0f%%)", step_words[best],
		    us(y, sizeof(y), a->step_us[best]), 100 * a->step_us[best] / a->call_us);
	add(buf, len, ".");
	return buf;
}

/* ---- which bars to compare ---- */

struct brk_set {
	struct ab_brk_bar b[AB_BRK_BARS];
	int n;
	char keys[256];		/* label keys, ':'-joined */
	char key[NKEYS][AB_KEY_LEN];
	int nk;
};

static void set_load(struct brk_set *s, const struct ab_render *r)
{
	s->n = ab_brkr_bars(r->res, r->desc->name, s->b, AB_BRK_BARS, s->keys, sizeof(s->keys));
	s->nk = 0;
	for (const char *p = s->keys; *p && s->nk < NKEYS; ) {
		size_t l = strcspn(p, ":");
		snprintf(s->key[s->nk++], AB_KEY_LEN, "%.*s", (int)(l < AB_KEY_LEN ? l : AB_KEY_LEN - 1), p);
		p += l;
		p += *p == ':';
	}
}

static int key_index(const struct brk_set *s, const char *k)
{
	for (int i = 0; i < s->nk; i++)
		if (!strcmp(s->key[i], k))
			return i;
	return -1;
}

/* Is label key k present in every bar? */
static int everywhere(const struct brk_set *s, int k)
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
static void name_of(const struct brk_set *s, int i, int k, int ctx, char *out, size_t len)
{
	out[0] = '\0';
	for (int j = 0; j < s->nk; j++) {
		char v[AB_VALUE_LEN];
		int shared = j != k && everywhere(s, j);
		if (shared != ctx || !ab_cfg_get(s->b[i].config, s->key[j], v, sizeof(v))[0])
			continue;
		add(out, len, "%s%s=%s", out[0] ? ", " : "", s->key[j], v);
	}
}

/*
 * Sentences for compare key k: among the bars that agree on every other key present
 * in all bars, each value of k at its best (its fastest bar: ddpar's uring at its best
 * --uring-cpu), the slowest of those against the fastest.
 */
static void say_key(struct ab_render *r, const struct brk_set *s, int k)
{
	int done[AB_BRK_BARS] = { 0 }, said = 0, more = 0;

	for (int i = 0; i < s->n; i++) {
		char ctx[256], c2[256], v[AB_VALUE_LEN], w[AB_VALUE_LEN];
		int best[AB_BRK_BARS], nb = 0, slow, fast;
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
		fprintf(r->out, "- %s\n", ab_brkr_compare(text, sizeof(text), &s->b[slow], sa,
							  &s->b[fast], sb, ctx));
		said++;
	}
	if (more)
		fprintf(r->out, "- (%d more comparisons of %s: their steps are in tables.md.)\n", more,
			s->key[k]);
}

/*
 * Beside a pipe (cputestfs's pipe baseline): on one CPU, the pipe's round trip
 * and each transport's FUSE call, their medians as the clients timed them and
 * their steps' means; with the pipe's own breakdown (--baseline pipe --kstats
 * on), a sentence per transport on the step FUSE adds most to.
 */
static int is_same_cpu(const struct ab_brk_bar *b, const char *baseline)
{
	char pl[AB_VALUE_LEN], bl[AB_VALUE_LEN];

	ab_cfg_get(b->config, "baseline", bl, sizeof(bl));
	return !strcmp(ab_cfg_get(b->config, "placement", pl, sizeof(pl)), "same") &&
	       (!strcmp(bl, baseline) || (!bl[0] && !strcmp(baseline, "fuse")));
}

static void pipe_row(struct ab_render *r, const char *name, double median, const struct ab_brk_bar *b)
{
	fprintf(r->out, "| %s |", name);
	cell(r->out, median);
	cell(r->out, b ? b->call_us : NAN);
	for (int k = 0; k < AB_BRK_NSTEP; k++)
		cell(r->out, b ? b->step_us[k] : NAN);
	fprintf(r->out, "\n");
}

static void pipe_reading(struct ab_render *r, const struct brk_set *s)
{
	static const char *const want[] = { "baseline=pipe", "placement=same", NULL };
	const struct ab_group *pg = ab_results_find(r->res, r->desc->name, "latency_p50_ns", want);
	const struct ab_brk_bar *pipe = NULL;
	char tr[AB_VALUE_LEN], name[AB_VALUE_LEN + 16], text[1024];
	int said = 0;

	for (int i = 0; i < s->n && !pipe; i++)
		if (is_same_cpu(&s->b[i], "pipe"))
			pipe = &s->b[i];
	if (!(pg && pg->n) && !pipe)
		return;
	for (int i = 0; i < s->n; i++) {
		const struct ab_brk_bar *b = &s->b[i];
		if (!is_same_cpu(b, "fuse"))
			continue;
		if (!said++) {
			fprintf(r->out, "Beside a pipe, both sides on one CPU: the median call as the "
					"clients timed it, then the mean call and its steps under the "
					"probes, in us%s:\n\n| on one CPU | median | mean | submit | "
					"daemon_wake | service | reply_wake | return |\n"
					"|---|---|---|---|---|---|---|---|\n",
				pipe ? "" : " (the pipe's steps need --baseline pipe --kstats on)");
			pipe_row(r, "pipe round trip", pg && pg->n ? ab_median(pg->v, pg->n) / 1e3 : NAN,
				 pipe);
		}
		ab_cfg_get(b->config, "transport", tr, sizeof(tr));
		snprintf(name, sizeof(name), "FUSE %s", tr[0] ? tr : b->label);
		pipe_row(r, name, median_of(r->res, r->desc->name, b->config, "latency_p50_ns", "ns") / 1e3,
			 b);
	}
	if (!said)
		return;
	fprintf(r->out, "\n");
	for (int i = 0; i < s->n && pipe; i++) {
		if (!is_same_cpu(&s->b[i], "fuse"))
			continue;
		ab_cfg_get(s->b[i].config, "transport", tr, sizeof(tr));
		snprintf(name, sizeof(name), "transport=%s", tr);
		fprintf(r->out, "- %s\n", ab_brkr_compare(text, sizeof(text), &s->b[i], name, pipe,
							  "baseline=pipe", "placement=same"));
	}
	fprintf(r->out, "\n");
}

void ab_brk_reading(struct ab_render *r)
{
	struct brk_set *s = calloc(1, sizeof(*s));
	int any = 0;

	if (!s)
		return;
	set_load(s, r);
	if (!s->n)
		goto out;
	fprintf(r->out, "### %s: where the time goes\n\n", r->desc->name);
	fprintf(r->out, "From the request breakdown of the instrumented repetitions "
			"(docs/breakdown.md): the mean time per call and the step that differs "
			"most, slowest against fastest.\n\n");
	if (s->n == 1) {
		char text[512];
		fprintf(r->out, "%s\n\n", ab_brkr_single(text, sizeof(text), &s->b[0], s->b[0].config));
		goto out;
	}
	for (size_t p = 0; p < AB_ARRAY_SIZE(compared); p++) {
		int k = key_index(s, compared[p]);
		if (k >= 0) {
			say_key(r, s, k);
			any = 1;
		}
	}
	if (!any && s->nk)
		say_key(r, s, 0);
	fprintf(r->out, "\n");
	pipe_reading(r, s);
out:
	free(s);
}

/* ---- the table ---- */

static void cell(FILE *f, double v)
{
	char t[32];
	fprintf(f, " %s |", ab_r_num(t, sizeof(t), v));
}

void ab_brk_tables(struct ab_render *r)
{
	struct brk_set *s = calloc(1, sizeof(*s));

	if (!s)
		return;
	set_load(s, r);
	if (!s->n)
		goto out;
	fprintf(r->out, "### %s: where the time goes (request breakdown)\n\n"
			"Mean microseconds per call of each step; they add up to the call. Each is "
			"averaged over the instrumented repetitions (n); p50 is the calls' median. "
			"Wake-ups: per call, %% that crossed CPUs, %% that found the CPU idle "
			"(docs/breakdown.md).\n\n", r->desc->name);
	fprintf(r->out, "| %s | n | call | submit | daemon_wake | service | reply_wake | return | "
			"call p50 | daemon wakes / cross %% / idle %% | reply wakes / cross %% / idle %% |\n"
			"|---|---|---|---|---|---|---|---|---|---|---|\n",
		s->keys[0] ? s->keys : "config");
	for (int i = 0; i < s->n; i++) {
		const struct ab_brk_bar *b = &s->b[i];
		fprintf(r->out, "| %s | %d |", b->label, b->reps);
		cell(r->out, b->call_us);
		for (int k = 0; k < AB_BRK_NSTEP; k++)
			cell(r->out, b->step_us[k]);
		cell(r->out, b->call_p50_us);
		for (int w = 0; w < AB_BRK_NWAKE; w++) {
			char x[32], y[32], z[32];
			fprintf(r->out, " %s / %s / %s |", ab_r_num(x, sizeof(x), b->wakes[w]),
				ab_r_num(y, sizeof(y), b->cross_pct[w]),
				ab_r_num(z, sizeof(z), b->idle_pct[w]));
		}
		fprintf(r->out, "\n");
	}
	fprintf(r->out, "\n");
out:
	free(s);
}

/* ---- the stacked bars ---- */

/*
 * The label key to split the bars by, or -1: 2 to MAX_FIGS values; among the keys
 * whose largest figure holds at most SPLIT_ABOVE bars, the one with the fewest
 * figures (ddpar's mode); else the one with the smallest largest figure (ddpar's N).
 */
static int split_key(const struct brk_set *s, char vals[][AB_VALUE_LEN], int *nv)
{
	int best = -1, bestn = 0, bestmax = 0;

	for (int k = 0; k < s->nk; k++) {
		char v[MAX_FIGS + 1][AB_VALUE_LEN];
		int n = 0, cnt[MAX_FIGS + 1] = { 0 }, most = 0;
		for (int i = 0; i < s->n && n <= MAX_FIGS; i++) {
			char x[AB_VALUE_LEN];
			int j;
			ab_cfg_get(s->b[i].config, s->key[k], x, sizeof(x));
			for (j = 0; j < n && strcmp(v[j], x); j++)
				;
			if (j == n && n <= MAX_FIGS)
				snprintf(v[n++], AB_VALUE_LEN, "%s", x);
			if (j < n)
				most = ++cnt[j] > most ? cnt[j] : most;
		}
		if (n < 2 || n > MAX_FIGS)
			continue;
		int fits = most <= SPLIT_ABOVE, best_fits = bestmax <= SPLIT_ABOVE;
		if (best < 0 || (fits && (!best_fits || n < bestn)) ||
		    (!fits && !best_fits && most < bestmax)) {
			best = k;
			bestn = n;
			bestmax = most;
			memcpy(vals, v, sizeof(v[0]) * (size_t)n);
		}
	}
	*nv = bestn;
	return best;
}

static void one_plot(struct ab_render *r, const struct brk_set *s, int sk, const char *sv,
		     const char *name)
{
	char file[96], title[256];
	double top = 0;
	int nb = 0;

	snprintf(file, sizeof(file), "%s.dat", name);
	FILE *d = ab_plot_file(r, file);
	if (!d)
		return;
	fprintf(d, "# %s, then the mean us per call of submit daemon_wake service reply_wake "
		   "return, then the call\n", s->keys[0] ? s->keys : "config");
	for (int i = 0; i < s->n; i++) {
		char v[AB_VALUE_LEN];
		if (sk >= 0 && strcmp(ab_cfg_get(s->b[i].config, s->key[sk], v, sizeof(v)), sv))
			continue;
		ab_gp_label(d, s->b[i].label);
		for (int k = 0; k < AB_BRK_NSTEP; k++)
			fprintf(d, " %.6g", isfinite(s->b[i].step_us[k]) ? s->b[i].step_us[k] : NAN);
		fprintf(d, " %.6g\n", s->b[i].call_us);
		top = fmax(top, isfinite(s->b[i].call_us) ? s->b[i].call_us : 0);
		nb++;
	}
	ab_plot_file_close(r, d, file);
	FILE *f = ab_plot_begin(r);
	if (!f)
		return;
	snprintf(title, sizeof(title), "%s: where the time goes, mean per call by step%s%s%s%s",
		 r->desc->name, sk >= 0 ? " (" : "", sk >= 0 ? s->key[sk] : "", sk >= 0 ? "=" : "",
		 sk >= 0 ? sv : "");
	if (sk >= 0)
		add(title, sizeof(title), ")");
	ab_plot_set(f, "title", title);
	ab_plot_set(f, "ylabel", "us per call");
	ab_plot_set(f, "xlabel", s->keys[0] ? s->keys : "configuration");
	if (top > 0)
		fprintf(f, "set yrange [0:%.6g]\n", top * 1.08);	/* room above the highest bar */
	else
		fprintf(f, "set yrange [0:*]\n");
	fprintf(f, "set style data histograms\nset style histogram rowstacked\n"
		   "set style fill solid 0.7 border -1\nset boxwidth 0.7\n"
		   "set key outside right top vertical noenhanced\n"
		   "set xtics nomirror noenhanced rotate by 30 right\nset bmargin 7\n");
	ab_plot_set(f, "key title", "bars: step means");
	fprintf(f, "plot ");
	for (int k = 0; k < AB_BRK_NSTEP; k++) {
		fprintf(f, "%s'%s' using %d%s title ", k ? ", " : "", file, 2 + k, k ? "" : ":xtic(1)");
		ab_gp_string(f, step_names[k]);
	}
	fprintf(f, "\n");
	ab_plot_end(r, f, name, 400 + 70 * nb, 520);
}

void ab_brk_plots(struct ab_render *r)
{
	struct brk_set *s = calloc(1, sizeof(*s));
	char vals[MAX_FIGS + 1][AB_VALUE_LEN], name[64];
	int nv = 0;

	if (!s)
		return;
	set_load(s, r);
	int sk = s->n > SPLIT_ABOVE ? split_key(s, vals, &nv) : -1;
	if (!s->n) {
	} else if (sk < 0) {
		snprintf(name, sizeof(name), "%.40s_brk", r->desc->name);
		one_plot(r, s, -1, NULL, name);
	} else {
		for (int i = 0; i < nv; i++) {
			snprintf(name, sizeof(name), "%.40s_brk%d", r->desc->name, i + 1);
			one_plot(r, s, sk, vals[i], name);
		}
	}
	free(s);
}
