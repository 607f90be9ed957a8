// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare --gate FILE: the regression gate (compare.h). Rules come from
 * a file someone wrote, so each field is checked against the record grammar
 * and a bad line ends in FILE:LINE and exit 2 before anything is judged.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/infile.h"
#include "render/render.h"
#include "render/desc.h"
#include "record/stats.h"
#include "compare.h"

#define BAD(g, ln, ...)                                                                  \
	do {                                                                              \
		char why_[256];                                                           \
		snprintf(why_, sizeof(why_), __VA_ARGS__);                                \
		ab_usage_error("compare: gate %s:%d: %s", (g)->file, (ln), why_);         \
	} while (0)

/* "5%" or "2.5%": within (0, 100) for a drop, (0, 1000] for a rise. */
static int parse_pct(const char *s, int rise, double *pct)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || strcmp(end, "%") || !(v > 0) || v >= (rise ? 1000.0001 : 100) ||
	    strpbrk(s, "xXpPnN"))	/* no hex, no nan/inf */
		return -1;
	*pct = v;
	return 0;
}

/* One rule from its whitespace-separated words; exits 2 naming the line on a bad one. */
static void parse_rule(struct h_gate *g, int ln, char **w, int nw)
{
	struct h_gate_rule *r = &g->r[g->n];
	static const char usage[] =
		"want BENCH METRIC [KEY=VALUE ...] max-regression|max-drop|max-rise N%";

	if (nw < 4)
		BAD(g, ln, "%s", usage);
	memset(r, 0, sizeof(*r));
	r->line = ln;
	if (strlen(w[0]) >= sizeof(r->bench) || !h_desc(w[0]))
		BAD(g, ln, "'%.40s' is not a benchmark", w[0]);
	const char *why = ab_record_check(w[0], "", "0", w[1], "0", "x");
	if (why)
		BAD(g, ln, "metric '%.64s': %s", w[1], why);
	snprintf(r->bench, sizeof(r->bench), "%s", w[0]);
	snprintf(r->metric, sizeof(r->metric), "%s", w[1]);
	for (int i = 2; i < nw - 2; i++)	/* words after the threshold: blame the first */
		if (!strncmp(w[i], "max-", 4) && !strchr(w[i], '='))
			BAD(g, ln, "'%.40s' after the threshold: %s", w[i + 2], usage);
	for (int i = 2; i < nw - 2; i++) {
		if (r->nfilter == H_GATE_FILTERS)
			BAD(g, ln, "more than %d KEY=VALUE filters", H_GATE_FILTERS);
		if (!strchr(w[i], '=') || (why = ab_record_check(w[0], w[i], "0", w[1], "0", "x")))
			BAD(g, ln, "filter '%.64s': %s", w[i], why ? why : "want KEY=VALUE");
		snprintf(r->filter[r->nfilter++], sizeof(r->filter[0]), "%s", w[i]);
	}
	if (!strcmp(w[nw - 2], "max-regression"))	/* the metric's descriptor says which way */
		r->rise = ab_desc_lower_better(h_desc(r->bench), r->metric);
	else if (!strcmp(w[nw - 2], "max-rise"))
		r->rise = 1;
	else if (strcmp(w[nw - 2], "max-drop"))
		BAD(g, ln, "'%.40s': want max-regression, max-drop or max-rise", w[nw - 2]);
	if (parse_pct(w[nw - 1], r->rise, &r->pct))
		BAD(g, ln, "threshold '%.40s': want a percentage such as 5%% (below 100%% for a drop)",
		    w[nw - 1]);
	size_t o = 0;
	for (int i = 0; i < nw; i++)	/* every word passed the grammar: safe to print */
		o += (size_t)snprintf(r->text + o, o < sizeof(r->text) ? sizeof(r->text) - o : 0,
				      "%s%s", i ? " " : "", w[i]);
	g->n++;
}

void h_gate_load(struct h_gate *g, const char *file)
{
	char err[512], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ln = 0;

	g->file = file;
	g->n = 0;
	FILE *f = ab_infile_open(file, AB_INFILE_MAX_SMALL, err, sizeof(err));
	if (!f)
		ab_usage_error("compare: gate: %s", err);
	while ((len = ab_infile_line(f, &line, &cap)) != -1) {
		char *w[4 + H_GATE_FILTERS + 1], *save = NULL;
		int nw = 0;
		ln++;
		if (len == -2 || memchr(line, '\0', (size_t)len))
			BAD(g, ln, "%s", len == -2 ? "line too long" : "a NUL byte");
		char *hash = strchr(line, '#');	/* a comment runs to the end of the line */
		if (hash)
			*hash = '\0';
		for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
			if (nw == (int)AB_ARRAY_SIZE(w))
				BAD(g, ln, "too many words (at most %d filters)", H_GATE_FILTERS);
			w[nw++] = t;
		}
		if (!nw)
			continue;
		if (g->n == H_GATE_RULES)
			BAD(g, ln, "more than %d rules", H_GATE_RULES);
		parse_rule(g, ln, w, nw);
	}
	int rerr = ferror(f);
	free(line);
	fclose(f);
	if (rerr)
		ab_usage_error("compare: gate: %s: read error (over %llu bytes?)", file,
			       AB_INFILE_MAX_SMALL);
	if (!g->n)
		ab_usage_error("compare: gate: %s: no rules", file);
}

/* What one rule found in one run. */
struct verdict {
	int matched, judged, few, missing, worse;
	int baselines;		/* matched configs that are the benchmark's baselines */
	double worst, lo, hi, adj;	/* the worst violating ratio, its CI and adjusted p */
	char config[AB_CONFIG_LEN];
};

static int holds(const struct h_gate_rule *r, const struct ab_group *a)
{
	if (strcmp(a->bench, r->bench) || strcmp(a->metric, r->metric))
		return 0;
	for (int i = 0; i < r->nfilter; i++)	/* a key left out at its default holds it */
		if (!ab_desc_cfg_matches(h_desc(a->bench), a->config, r->filter[i]))
			return 0;
	return 1;
}

/* One judged config: its ratio new/base, 95% CI, and the two-sided bootstrap p-value
 * of "the ratio is the threshold" when the ratio lies beyond it (else 1: a ratio on the
 * good side is no evidence of a regression). */
struct judged {
	const struct ab_group *a;
	double q, p;
	struct ab_ci ci;
};

static int judge_config(const struct h_gate_rule *r, const struct ab_group *a,
			const struct ab_group *b, struct judged *j)
{
	double lim = r->rise ? 1 + r->pct / 100 : 1 - r->pct / 100;
	double *scaled = malloc(a->n * sizeof(*scaled));
	struct ab_ci ci;

	if (!scaled)
		ab_fail("compare: gate: out of memory");
	for (size_t i = 0; i < a->n; i++)	/* new/(lim x base) against 1 is new/base against lim */
		scaled[i] = a->v[i] * lim;
	j->a = a;
	j->p = 1;
	int bad = r->rise ? j->q > lim : j->q < lim;
	if (bad && ab_ratio_ci_p(b->v, b->n, scaled, a->n, 0.95, &ci, &j->p) < 0)
		j->p = NAN;
	free(scaled);
	return isnan(j->p) ? -1 : 0;
}

/*
 * A rule over k configs makes k tests: judged each at 95%, a rule of 50 configs
 * would fail on noise alone most of the time. So the configs' p-values are
 * Holm-corrected over the k the rule judged in this run (family-wise error
 * rate 5%); with one config that is "the whole 95% CI beyond the threshold".
 */
static void judge_one(const struct h_gate_rule *r, const struct cmp *c, int k,
		      struct verdict *v)
{
	const struct ab_results *base = &c->d[0];
	size_t cap = base->n ? base->n : 1;
	struct judged *j = malloc(cap * sizeof(*j));
	double *adj = malloc(cap * sizeof(*adj));	/* the p-values, then Holm's in place */

	if (!j || !adj)
		ab_fail("compare: gate: out of memory");
	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < base->n; i++) {
		const struct ab_group *a = &base->g[i];
		if (!holds(r, a))
			continue;
		v->matched++;
		v->baselines += ab_desc_is_baseline(h_desc(a->bench), a->config);
		const struct ab_group *b = h_cmp_match(c, 0, a, k);
		struct judged *o = &j[v->judged];
		enum ab_verdict e = b ? ab_r_ratio_apart(b, a, &o->q, &o->ci) : AB_V_NONE;
		if (e == AB_V_NONE || (e != AB_V_FEW && judge_config(r, a, b, o) < 0))
			v->missing++;	/* absent from the run, or a base median of 0 */
		else if (e == AB_V_FEW)
			v->few++;
		else
			adj[v->judged++] = o->p;
	}
	if (ab_holm(adj, (size_t)v->judged, adj) < 0)
		ab_fail("compare: gate: out of memory");
	for (int i = 0; i < v->judged; i++) {
		if (!(adj[i] <= 0.05) || j[i].p == 1)
			continue;
		if (!v->worse++ || (r->rise ? j[i].q > v->worst : j[i].q < v->worst)) {
			v->worst = j[i].q;
			v->lo = j[i].ci.lo;
			v->hi = j[i].ci.hi;
			v->adj = adj[i];
			snprintf(v->config, sizeof(v->config), "%s", j[i].a->config);
		}
	}
	free(j);
	free(adj);
}

/* A rule's filter that holds baselines too (cputestfs's kernel file) judges them with the
 * FUSE configs: said, so that a filter can leave them out. */
static void baselines_said(const struct verdict *v)
{
	if (v->baselines)
		printf("gate:   note: the rule's configs include %d baseline%s (the benchmark's "
		       "baselines); add a KEY=VALUE filter to leave them out\n", v->baselines,
		       v->baselines == 1 ? "" : "s");
}

/*
 * A rule that can match nothing is a typo, not a run that lacks the data: exit 2
 * naming its line, before any verdict. Its metric must be one the benchmark records
 * (ab_desc_has_metric) or the base run holds; its filters must
 * hold for some config of the base that has the metric. A benchmark the base did not
 * run at all stays CANNOT JUDGE: that is the run's doing, not the rule's.
 */
void h_gate_check(const struct h_gate *g, const struct ab_results *base)
{
	for (int i = 0; i < g->n; i++) {
		const struct h_gate_rule *r = &g->r[i];
		int metric = 0, held = 0;

		for (size_t k = 0; k < base->n; k++) {
			const struct ab_group *a = &base->g[k];
			if (strcmp(a->bench, r->bench) || strcmp(a->metric, r->metric))
				continue;
			metric = 1;
			held += holds(r, a);
		}
		if (!metric && !ab_desc_has_metric(h_desc(r->bench), r->metric))
			BAD(g, r->line, "%s records no metric '%s'", r->bench, r->metric);
		if (metric && !held)
			BAD(g, r->line, "no config of the base run's %s %s holds %s%s", r->bench,
			    r->metric, r->filter[0], r->nfilter > 1 ? " and the other filters" : "");
	}
}

int h_gate_judge(const struct h_gate *g, const struct cmp *c)
{
	int violated = 0, unjudged = 0, nr = c->nr, strict = c->strict;
	char *const *dirs = c->dirs;

	for (int i = 0; i < g->n; i++) {
		const struct h_gate_rule *r = &g->r[i];
		for (int k = 1; k < nr; k++) {
			struct verdict v;
			judge_one(r, c, k, &v);
			printf("gate: %s %s:%d '%s': ", v.worse ? "VIOLATED" : v.few || !v.judged ?
			       "CANNOT JUDGE" : "ok", g->file, r->line, r->text);
			h_md_cell(stdout, dirs[k]);	/* outside text: escaped */
			if (v.worse) {
				violated++;
				char adj[16], x[32], lo[32], hi[32];
				snprintf(adj, sizeof(adj), v.adj < 0.001 ? "< 0.001" : "%.2g", v.adj);
				printf(": %d config%s, Holm-corrected: %d %s by more than %g%%; worst %s "
				       "[%s, %s] 95%% CI, adjusted p %s, at %s\n", v.judged,
				       v.judged == 1 ? "" : "s", v.worse, r->rise ? "rose" : "dropped", r->pct,
				       ab_r_x(x, sizeof(x), v.worst), ab_r_num(lo, sizeof(lo), v.lo),
				       ab_r_num(hi, sizeof(hi), v.hi), adj, v.config);
				baselines_said(&v);
			} else if (v.few || !v.judged) {
				unjudged++;
				if (!v.matched)
					printf(": no config of the base matches the rule\n");
				else
					printf(": %d of %d configs have too few repetitions (%d a side needed), "
					       "%d not in both runs\n", v.few, v.matched, AB_MIN_REPS_CI,
					       v.missing);
			} else {
				printf(": %d config%s, Holm-corrected: none surely beyond %g%%\n", v.judged,
				       v.judged == 1 ? "" : "s", r->pct);
				baselines_said(&v);
			}
		}
	}
	fflush(stdout);
	ab_msg("compare: gate %s: %d rule%s x %d run%s: %d violated, %d cannot be judged%s", g->file,
	       g->n, g->n == 1 ? "" : "s", nr - 1, nr == 2 ? "" : "s", violated, unjudged,
	       unjudged && !strict ? " (not a failure without --strict)" : "");
	return violated || (strict && unjudged) ? H_EXIT_GATE : 0;
}
