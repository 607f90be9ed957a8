// SPDX-License-Identifier: GPL-2.0
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

#include "render/levers.h"
#include "render/reading.h"
#include "render/render.h"
#include "render/desc.h"

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
	for (size_t i = 0; g && i < r->res->n; i++) {
		const struct ab_group *h = &r->res->g[i];
		if (!strcmp(h->bench, g->bench) && !strcmp(h->config, g->config) &&
		    !strcmp(h->metric, metric) && h->n)
			return ab_r_median(h);
	}
	return NAN;
}

/* What a row costs in the configs of one ratio: the server's CPU per request of its
 * subject, the CPUs' mean idle share over both its configs and the idle states holding
 * at least 1% of the time there (their mean share over the configs). */
struct cost {
	double cpu, idle;
	char states[160];
	int odd_cpu, odd;	/* a negative CPU time, a share outside 0-100% was recorded */
};

/* Add g's idle records to the sums: each CPU's idle share, each state's share. */
static void idle_of(const struct ab_render *r, const struct ab_group *g, double *sum, int *n,
		    char names[][32], double *share, int *nstate, int *odd)
{
	for (size_t i = 0; g && i < r->res->n; i++) {
		const struct ab_group *h = &r->res->g[i];
		if (strcmp(h->bench, g->bench) || strcmp(h->config, g->config) || !h->n)
			continue;
		double m = ab_r_median(h);
		int idle = named(h->metric, "mon_cpu", "_idle_pct");
		int state = named(h->metric, "mon_idle_", "_pct");
		if ((idle || state) && !(m >= 0 && m <= 100)) {
			*odd = 1;	/* no share: left out */
			continue;
		}
		if (idle) {
			*sum += m;
			(*n)++;
			continue;
		}
		if (!state)
			continue;
		char name[32];
		int k, len = (int)(strlen(h->metric) - 13);
		snprintf(name, sizeof(name), "%.*s", len < 31 ? len : 31, h->metric + 9);
		for (k = 0; k < *nstate && strcmp(names[k], name); k++)
			;
		if (k == *nstate && k < 8)
			snprintf(names[(*nstate)++], 32, "%s", name);
		if (k < 8)
			share[k] += m;
	}
}

static struct cost cost_of(const struct ab_render *r, const struct ab_levers *l,
			   const struct row *w, int q)
{
	struct cost c = { NAN, NAN, "", 0, 0 };
	const struct ab_group *side[2] = { w->sub[q], w->base[q] };
	char names[8][32], a[32];
	double sum = 0, share[8] = { 0 };
	int n = 0, nstate = 0, ncfg = 0;

	if (l->cost)
		c.cpu = metric_of(r, w->sub[q], l->cost);
	if (c.cpu < 0) {
		c.cpu = NAN;
		c.odd_cpu = 1;
	}
	for (int k = 0; k < 2; k++) {
		int before = n;
		idle_of(r, side[k], &sum, &n, names, share, &nstate, &c.odd);
		ncfg += n > before;
	}
	if (n)
		c.idle = sum / n;
	for (int k = 0; k < nstate; k++)
		if (ncfg && share[k] / ncfg >= 1)
			ab_r_addf(c.states, sizeof(c.states), "%s%s %s%%", c.states[0] ? ", " : "",
				  names[k], ab_r_num(a, sizeof(a), share[k] / ncfg));
	return c;
}

/* The ratio whose configs recorded a cost (cpu 1: the server's CPU, 0: the idle share)
 * in the most rows, the first of them on a tie: one source for the whole column, so
 * its rows compare like with like; the first when none did. */
static int cost_source(const struct ab_render *r, const struct ab_levers *l, const struct row *w,
		       int n, int cpu)
{
	int best = -1, most = 0;

	for (int q = 0; q < l->nratio && q < 8; q++) {
		int rows = 0;
		for (int i = 0; i < n; i++) {
			struct cost c = cost_of(r, l, &w[i], q);
			rows += cpu ? isfinite(c.cpu) || c.odd_cpu : isfinite(c.idle) || c.odd;
		}
		if (rows > most) {
			most = rows;
			best = q;
		}
	}
	return best < 0 ? 0 : best;	/* none: the first, whose cells say why */
}

/* The cost cells of row w: the server's CPU from ratio qc's configs, the idle share
 * and states from qi's. A cell says why it is empty (cells.sh). */
static void cost_md(struct ab_render *r, const struct ab_levers *l, const struct row *w, int qc,
		    int qi)
{
	struct cost c = cost_of(r, l, w, qc), d = cost_of(r, l, w, qi);
	char a[32], b[32];

	fprintf(r->out, " %s | %s | %s%s |",
		isfinite(c.cpu) ? ab_r_num(a, sizeof(a), c.cpu) :
		c.odd_cpu ? "not recorded (a negative CPU time left out)" : "not recorded",
		isfinite(d.idle) ? ab_r_num(b, sizeof(b), d.idle) : "not recorded",
		d.states[0] ? d.states : "not recorded",
		d.odd ? " (a share outside 0-100% left out)" : "");
}

/* Ratio q of row w as its cell gives it (ab_r_ratio: paired by round where the rounds
 * allow); NAN when not measured. */
static double ratio_of(const struct row *w, int q)
{
	double x = NAN;
	struct ab_ci ci;

	return ab_r_ratio(w->sub[q], w->base[q], &x, &ci) == AB_V_NONE ? NAN : x;
}

/* The share of ratio q's gap (1 - its value as found) that row w closes; NAN when none. */
static double closed(const struct row *w0, const struct row *w, int q)
{
	double a = ratio_of(w0, q), b = ratio_of(w, q);
	return isfinite(a) && isfinite(b) && a < 1 ? (b - a) / (1 - a) : NAN;
}

/* "; 83%", within 0-100%, else what the lever did instead. */
static void closed_cell(FILE *f, double c)
{
	if (!isfinite(c))
		fprintf(f, " |");
	else if (c > 1)
		fprintf(f, "; all of it, past 1 |");
	else if (c < 0)
		fprintf(f, "; none, it widens the gap |");
	else
		fprintf(f, "; %.0f%% |", 100 * c);
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

/* The cheapest row closing at least half of some ratio's gap: least added server CPU per
 * request in that ratio's configs, then the least idle time lost; -1 when none. */
static int cheapest(struct ab_render *r, const struct ab_levers *l, const struct row *w, int n,
		    int *qbest)
{
	int best = -1;
	double cb = 0, db = 0;

	for (int i = 1; i < n; i++)
		for (int q = 0; q < l->nratio && q < 8; q++) {
			if (!(closed(&w[0], &w[i], q) >= 0.5))
				continue;
			struct cost c0 = cost_of(r, l, &w[0], q), c1 = cost_of(r, l, &w[i], q);
			double c = c1.cpu - c0.cpu, d = c0.idle - c1.idle;
			c = isfinite(c) ? c : 0;
			d = isfinite(d) ? d : 0;
			if (best < 0 || c < cb || (c == cb && d < db)) {
				best = i;
				*qbest = q;
				cb = c;
				db = d;
			}
			break;
		}
	return best;
}

/* The lever's cost as the change it makes in ratio q's own configs. */
static void cost_text(FILE *f, const struct cost *c0, const struct cost *c1)
{
	char a[32], b[32];
	int cpu = isfinite(c0->cpu) && isfinite(c1->cpu), idle = isfinite(c0->idle) &&
								 isfinite(c1->idle);

	if (!cpu && !idle) {
		fprintf(f, "; its cost in that ratio's configs was not recorded (neither the "
			   "server's CPU per request nor the CPUs' idle time on both rows%s)",
			c0->odd || c1->odd || c0->odd_cpu || c1->odd_cpu ?
			"; impossible records left out" : "");
		return;
	}
	fprintf(f, "; in that ratio's configs it ");
	if (cpu)
		fprintf(f, "takes the server's CPU per request from %s to %s us",
			ab_r_num(a, sizeof(a), c0->cpu), ab_r_num(b, sizeof(b), c1->cpu));
	if (cpu && idle)
		fprintf(f, " and ");
	if (idle)
		fprintf(f, "takes the CPUs' idle share from %s%% to %s%% of the time",
			ab_r_num(a, sizeof(a), c0->idle), ab_r_num(b, sizeof(b), c1->idle));
	if (!cpu || !idle)
		fprintf(f, " (%s not recorded on both rows)",
			cpu ? "the idle share" : "the server's CPU per request");
}

static void sentence(struct ab_render *r, const struct ab_levers *l, const struct row *w, int n)
{
	int q = 0, b = cheapest(r, l, w, n, &q);
	char a[32], c[32], lo[32], hi[32];
	double x, share;
	struct ab_ci ci;

	if (b < 0) {
		fprintf(r->out, "No lever swept here closed half the gap of any ratio.\n\n");
		return;
	}
	enum ab_verdict v = ab_r_ratio(w[b].sub[q], w[b].base[q], &x, &ci);
	double q0 = ratio_of(&w[0], q);
	share = closed(&w[0], &w[b], q);
	fprintf(r->out, "Here, %s=%s closes ", l->key[w[b].key].key, w[b].val);
	if (share > 1)
		fprintf(r->out, "all of the gap, and goes past 1,");
	else
		fprintf(r->out, "%.0f%% of the gap", 100 * share);
	fprintf(r->out, " of %s (%s as found, %s with it)", l->ratio[q].name,
		ab_r_num(a, sizeof(a), q0), ab_r_num(c, sizeof(c), x));
	struct cost c0 = cost_of(r, l, &w[0], q), c1 = cost_of(r, l, &w[b], q);
	cost_text(r->out, &c0, &c1);
	if (v == AB_V_FEW || v == AB_V_NONE)
		fprintf(r->out, "; that cannot be judged (fewer than %d repetitions).\n\n",
			AB_MIN_REPS_CI);
	else
		fprintf(r->out, "; its ratio's 95%% CI [%s, %s] %s.\n\n",
			ab_r_num(lo, sizeof(lo), ci.lo), ab_r_num(hi, sizeof(hi), ci.hi),
			ci.lo > q0 || ci.hi < q0 ? "excludes the value as found" :
			"holds the value as found: not significant");
}

/* A lever value no record holds because its points were skipped here: its key, value and
 * the benchmark's reason. */
struct inert {
	int key;
	char val[64];
	const char *reason;
};

/* The skipped points' lever values that no row holds, at most max, into v. */
static int inert_of(const struct ab_render *r, const struct ab_levers *l, const struct row *w,
		    int n, struct inert *v, int max)
{
	int ni = 0;

	for (int s = 0; s < r->nskips && r->skips; s++) {
		const struct ab_skip *sk = &r->skips[s];
		if (strcmp(sk->bench, r->desc->name))
			continue;
		for (int k = 0; k < l->nkey && k < 8 && ni < max; k++) {
			char val[64];
			int dup = 0;
			if (!ab_cfg_get(sk->config, l->key[k].key, val, sizeof(val))[0] ||
			    !strcmp(val, l->key[k].dflt))
				continue;
			for (int i = 1; i < n; i++)
				dup |= w[i].key == k && !strcmp(w[i].val, val);
			for (int i = 0; i < ni; i++)
				dup |= v[i].key == k && !strcmp(v[i].val, val);
			if (!dup) {
				v[ni] = (struct inert){ .key = k, .reason = sk->reason };
				snprintf(v[ni++].val, sizeof(v[0].val), "%s", val);
			}
		}
	}
	return ni;
}

int ab_levers_table(struct ab_render *r, const struct ab_levers *l, int with_sentence)
{
	struct row w[MAX_ROWS] = { 0 };
	struct inert in[8];
	FILE *f = r->out;
	int n = rows_of(r, l, w);
	int ni = inert_of(r, l, w, n, in, (int)(sizeof(in) / sizeof(in[0])));

	if (n + ni < 2)
		return 0;
	int qc = cost_source(r, l, w, n, 1), qi = cost_source(r, l, w, n, 0);
	fprintf(f, "What moves it: each lever swept, the ratios at it (median, 95%% CI from %d "
		   "repetitions a side, else the estimate alone; the share of the gap to 1 it "
		   "closes) beside its cost, taken from the configs of the ratio each cost column "
		   "names (the server's CPU from its first side, the idle share from both):\n\n"
		   "| lever |", AB_MIN_REPS_CI);
	for (int q = 0; q < l->nratio; q++)
		fprintf(f, " %s |", l->ratio[q].name);
	fprintf(f, " server CPU us/request (%s) | CPUs idle %% (%s) | idle states used (%s) |\n|---|",
		l->ratio[qc].name, l->ratio[qi].name, l->ratio[qi].name);
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
				closed_cell(f, i ? closed(&w[0], &w[i], q) : NAN);
		}
		cost_md(r, l, &w[i], qc, qi);
		fprintf(f, "\n");
	}
	/* a lever the benchmark refused here: no share, the reason */
	for (int i = 0; i < ni; i++) {
		fprintf(f, "| %s=%s | cannot act here: %s |", l->key[in[i].key].key, in[i].val,
			in[i].reason);
		for (int q = 1; q < l->nratio + 3; q++)
			fprintf(f, " |");
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
		sentence(r, l, w, n);
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
