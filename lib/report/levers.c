/*
 * The levers table (levers.h): one row for the machine as found and one per
 * swept value of each lever key, every ratio of the benchmark at that
 * setting, beside its cost: the server's CPU time per request and the share
 * of time the CPUs idled (mon_cpu<N>_idle_pct), with the idle states used
 * (mon_idle_<state>_pct), which shows the setting took effect.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/levers.h"
#include "report/reading.h"

#define MAX_ROWS 12
#define MAX_WANT 16

struct row {
	int key;		/* -1: as found */
	char val[AB_DISTINCT_LEN];	/* whole: ab_r_distinct never cuts */
	const struct ab_group *sub[8], *base[8];
};

/* side's want list at row w (defaults for every key but w's), into kv and want. */
static void row_want(const struct ab_levers *l, const struct row *w, const char *const *side,
		     char kv[][AB_KEY_LEN + AB_DISTINCT_LEN + 2], const char **want)
{
	int n = 0;

	for (; side && side[n] && n < MAX_WANT - 8; n++)
		want[n] = side[n];
	for (int k = 0; k < l->nkey && k < 8; k++) {
		if (k == w->key)
			snprintf(kv[k], sizeof(kv[k]), "%s=%s", l->key[k].key, w->val);
		else
			snprintf(kv[k], sizeof(kv[k]), "%s=%s|", l->key[k].key, l->key[k].dflt);
		want[n++] = kv[k];
	}
	want[n] = NULL;
}

static void row_find(struct ab_render *r, const struct ab_levers *l, struct row *w)
{
	char kv[8][AB_KEY_LEN + AB_DISTINCT_LEN + 2];
	const char *want[MAX_WANT];

	for (int q = 0; q < l->nratio && q < 8; q++) {
		row_want(l, w, l->ratio[q].subject, kv, want);
		w->sub[q] = ab_r_find(r, l->metric, want);
		row_want(l, w, l->ratio[q].base, kv, want);
		w->base[q] = ab_r_find(r, l->metric, want);
	}
}

/* Does name match PREFIX<digits or a state>SUFFIX? */
static int named(const char *name, const char *prefix, const char *suffix)
{
	size_t n = strlen(name), p = strlen(prefix), s = strlen(suffix);
	return n > p + s && !strncmp(name, prefix, p) && !strcmp(name + n - s, suffix);
}

/* The median of metric in g's config (NAN: not recorded). */
static double metric_of(const struct ab_render *r, const struct ab_group *g, const char *metric)
{
	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *h = &r->res->g[i];
		if (!strcmp(h->bench, g->bench) && !strcmp(h->config, g->config) &&
		    !strcmp(h->metric, metric))
			return ab_r_median(h);
	}
	return NAN;
}

/* The cost cells of config: the server's CPU per request, the CPUs' mean idle share,
 * the idle states holding at least 1% of the time. */
static void cost_md(struct ab_render *r, const struct ab_levers *l, const struct row *w,
		    double *cpu_us, double *idle)
{
	const struct ab_group *g = NULL;
	char a[32], b[32], states[160] = "";
	double sum = 0;
	int n = 0;

	*cpu_us = NAN;
	*idle = NAN;
	/* the idle share of the first ratio's subject measured; the server's CPU of the
	 * first that recorded it (a server that measures its threads) */
	for (int q = 0; q < l->nratio && q < 8; q++) {
		g = g ? g : w->sub[q];
		if (l->cost && w->sub[q] && !isfinite(*cpu_us))
			*cpu_us = metric_of(r, w->sub[q], l->cost);
	}
	for (size_t i = 0; g && i < r->res->n; i++) {
		const struct ab_group *h = &r->res->g[i];
		if (strcmp(h->bench, g->bench) || strcmp(h->config, g->config) || !h->n)
			continue;
		double m = ab_r_median(h);
		if (named(h->metric, "mon_cpu", "_idle_pct")) {
			sum += m;
			n++;
		} else if (named(h->metric, "mon_idle_", "_pct") && m >= 1)
			ab_r_addf(states, sizeof(states), "%s%.*s %s%%", states[0] ? ", " : "",
				  (int)(strlen(h->metric) - 13), h->metric + 9,
				  ab_r_num(a, sizeof(a), m));
	}
	if (n)
		*idle = sum / n;
	/* a cell says why it is empty (cells.sh) */
	fprintf(r->out, " %s | %s | %s |", isnan(*cpu_us) ? "not recorded" : ab_r_num(a, sizeof(a), *cpu_us),
		isnan(*idle) ? "not recorded" : ab_r_num(b, sizeof(b), *idle),
		states[0] ? states : "not recorded");
}

/* The share of ratio q's gap (1 - its value as found) that row w closes; NAN when none. */
static double closed(const struct row *w0, const struct row *w, int q)
{
	double a = ab_r_median(w0->sub[q]) / ab_r_median(w0->base[q]);
	double b = ab_r_median(w->sub[q]) / ab_r_median(w->base[q]);
	return isfinite(a) && isfinite(b) && a < 1 ? (b - a) / (1 - a) : NAN;
}

static int rows_of(struct ab_render *r, const struct ab_levers *l, struct row *w)
{
	int n = 1;

	w[0].key = -1;
	for (int k = 0; k < l->nkey && k < 8; k++) {
		char vals[MAX_ROWS][32];
		int nv = ab_r_distinct(r, l->metric, l->key[k].key, vals, MAX_ROWS);
		for (int i = 0; i < nv && n < MAX_ROWS; i++)
			if (strcmp(vals[i], l->key[k].dflt)) {
				w[n].key = k;
				snprintf(w[n].val, sizeof(w[n].val), "%s", vals[i]);
				n++;
			}
	}
	for (int i = 0; i < n; i++)
		row_find(r, l, &w[i]);
	return n;
}

/* The cheapest row closing at least half of some ratio's gap: least server CPU per
 * request, then most idle; -1 when none. */
static int cheapest(const struct ab_levers *l, const struct row *w, int n, const double *cpu,
		    const double *idle, int *qbest)
{
	int best = -1;

	for (int i = 1; i < n; i++)
		for (int q = 0; q < l->nratio && q < 8; q++) {
			if (!(closed(&w[0], &w[i], q) >= 0.5))
				continue;
			double c = isfinite(cpu[i]) ? cpu[i] : 0, cb = best < 0 ? 0 :
				   isfinite(cpu[best]) ? cpu[best] : 0;
			double d = isfinite(idle[i]) ? idle[i] : 0, db = best < 0 ? 0 :
				   isfinite(idle[best]) ? idle[best] : 0;
			if (best < 0 || c < cb || (c == cb && d > db)) {
				best = i;
				*qbest = q;
			}
			break;
		}
	return best;
}

static void sentence(struct ab_render *r, const struct ab_levers *l, const struct row *w, int n,
		     const double *cpu, const double *idle)
{
	int q = 0, b = cheapest(l, w, n, cpu, idle, &q);
	char a[32], c[32], lo[32], hi[32];
	double x;
	struct ab_ci ci;

	if (b < 0) {
		fprintf(r->out, "No lever swept here closed half the gap of any ratio.\n\n");
		return;
	}
	enum ab_verdict v = ab_r_ratio(w[b].sub[q], w[b].base[q], &x, &ci);
	double q0 = ab_r_median(w[0].sub[q]) / ab_r_median(w[0].base[q]);
	fprintf(r->out, "Here, %s=%s closes %.0f%% of the gap of %s (%s as found, %s with it) "
			"at a cost of ", l->key[w[b].key].key, w[b].val, 100 * closed(&w[0], &w[b], q),
		l->ratio[q].name, ab_r_num(a, sizeof(a), q0), ab_r_num(c, sizeof(c), x));
	if (isfinite(cpu[b]))
		fprintf(r->out, "%s us of server CPU per request, ", ab_r_num(a, sizeof(a), cpu[b]));
	if (isfinite(idle[b]))
		fprintf(r->out, "the CPUs idle %s%% of the time", ab_r_num(c, sizeof(c), idle[b]));
	else
		fprintf(r->out, "CPU idle time not recorded (no mon_* records)");
	if (v == AB_V_FEW || v == AB_V_NONE)
		fprintf(r->out, "; that cannot be judged (fewer than %d repetitions).\n\n",
			AB_MIN_REPS_CI);
	else if (ci.lo > q0 || ci.hi < q0)
		fprintf(r->out, "; its ratio's 95%% CI [%s, %s] excludes the value as found.\n\n",
			ab_r_num(lo, sizeof(lo), ci.lo), ab_r_num(hi, sizeof(hi), ci.hi));
	else
		fprintf(r->out, "; its ratio's 95%% CI [%s, %s] holds the value as found: not "
				"significant.\n\n", ab_r_num(lo, sizeof(lo), ci.lo),
			ab_r_num(hi, sizeof(hi), ci.hi));
}

int ab_levers_table(struct ab_render *r, const struct ab_levers *l, int with_sentence)
{
	struct row w[MAX_ROWS] = { 0 };
	double cpu[MAX_ROWS], idle[MAX_ROWS];
	FILE *f = r->out;
	int n = rows_of(r, l, w);

	if (n < 2)
		return 0;
	fprintf(f, "What moves it: each lever swept, the ratios at it (median, 95%% CI from %d "
		   "repetitions a side, else the estimate alone; the share of the gap to 1 it "
		   "closes) beside its cost:\n\n| lever |", AB_MIN_REPS_CI);
	for (int q = 0; q < l->nratio; q++)
		fprintf(f, " %s |", l->ratio[q].name);
	fprintf(f, " server CPU us/request | CPUs idle %% | idle states used |\n|---|");
	for (int q = 0; q < l->nratio + 3; q++)
		fprintf(f, "---|");
	fprintf(f, "\n");
	for (int i = 0; i < n; i++) {
		if (w[i].key < 0)
			fprintf(f, "| as found |");
		else
			fprintf(f, "| %s=%s |", l->key[w[i].key].key, w[i].val);
		for (int q = 0; q < l->nratio && q < 8; q++) {
			double x;
			struct ab_ci ci;
			enum ab_verdict v = ab_r_ratio(w[i].sub[q], w[i].base[q], &x, &ci);
			double c = i ? closed(&w[0], &w[i], q) : NAN;
			char xs[32], lo[32], hi[32];
			if (v == AB_V_NONE)
				fprintf(f, " not measured |");
			else if (v == AB_V_FEW)
				fprintf(f, " %s (n<%d)", ab_r_num(xs, sizeof(xs), x),
					AB_MIN_REPS_CI);
			else
				fprintf(f, " %s [%s, %s]", ab_r_num(xs, sizeof(xs), x),
					ab_r_num(lo, sizeof(lo), ci.lo),
					ab_r_num(hi, sizeof(hi), ci.hi));
			if (v != AB_V_NONE)
				fprintf(f, isfinite(c) ? "; %.0f%% |" : " |", 100 * c);
		}
		cost_md(r, l, &w[i], &cpu[i], &idle[i]);
		fprintf(f, "\n");
	}
	for (int k = 0; k < l->nkey && k < 8; k++) {
		int lost = ab_r_too_long(r, l->metric, l->key[k].key);
		if (lost)	/* left out, never cut into a row of its own that finds nothing */
			fprintf(f, "\n(%d results whose %s has %d characters or more are left out "
				   "of this table.)\n", lost, l->key[k].key, AB_DISTINCT_LEN);
	}
	fprintf(f, "\n");
	if (with_sentence)
		sentence(r, l, w, n, cpu, idle);
	return 1;
}

int ab_levers_ratios(struct ab_render *r, const struct ab_levers *l, struct ab_named_ratio *out,
		     int max)
{
	struct row w = { .key = -1 };	/* as found */
	int n = 0;

	row_find(r, l, &w);
	for (int q = 0; q < l->nratio && q < 8 && n < max; q++)
		if (w.sub[q] && w.base[q]) {
			snprintf(out[n].name, sizeof(out[n].name), "%s", l->ratio[q].name);
			out[n].subject = w.sub[q];
			out[n++].base = w.base[q];
		}
	return n;
}
