// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare's rows (compare.h): one ratio run/A into compare.csv, and
 * into compare.md and the terminal as its class says. Holm's family is the
 * headline metrics' ratios (the descriptors' headline lists), the numbers
 * people compare, so that a change of one is not drowned among a thousand
 * monitor counters. The other metrics and the monitor counters (mon_*: what
 * the CPUs did) are described apart, with their intervals, without verdicts.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "record/record.h"
#include "record/stats.h"
#include "render/render.h"

int h_cmp_pair_class(const struct ab_group *a)
{
	if (!strncmp(a->metric, "mon_", 4))
		return CLS_MONITOR;
	return h_is_headline(a->bench, a->metric) ? CLS_HEADLINE : CLS_OTHER;
}

/* The ratio's cell; a CI that excludes 1 while the verdict is "not significant" says why. */
static const char *ratio_cell(char *buf, size_t len, enum ab_verdict v, const struct pair *q)
{
	char x[32], lo[32], hi[32];

	if (v == AB_V_SAME && q->p < ALPHA && (q->v == AB_V_UP || q->v == AB_V_DOWN))
		snprintf(buf, len, "%s [%s, %s] 95%% CI: significant alone, not after the "
			 "correction for the number of comparisons", ab_r_x(x, sizeof(x), q->r),
			 ab_r_num(lo, sizeof(lo), q->ci.lo), ab_r_num(hi, sizeof(hi), q->ci.hi));
	else
		ab_r_ratio_text(buf, len, v, q->r, &q->ci, 0);
	return buf;
}

/*
 * The resolution of a bootstrap p for sides of na and nb values: 2/(B+1) drawn
 * (ratio_ci.c: never below it), the chance of the least likely resample pair, twice,
 * when the distribution is exact. An exact p of 0 (every resample on one side of 1) is
 * below it, and compare.csv writes it as that bound: a p, never an impossible 0.
 */
static double p_floor(size_t na, size_t nb)
{
	if (na <= AB_BOOT_EXACT_MAX && nb <= AB_BOOT_EXACT_MAX)
		return 2 * pow((double)na, -(double)na) * pow((double)nb, -(double)nb);
	return 2.0 / (AB_BOOT_RESAMPLES + 1);
}

/* compare.csv's reason: why the verdict is what it is, in words (significant: 0 or 1). */
static const char *csv_reason(enum ab_verdict v, const struct pair *q)
{
	if (q->cls == CLS_MONITOR)
		return "not judged: a monitor counter (described apart)";
	if (q->cls == CLS_OTHER)
		return "not judged: not a headline metric (described apart)";
	if (v == AB_V_FEW)
		return "not judged: too few repetitions";
	if (v == AB_V_UP || v == AB_V_DOWN)
		return "95% CI excludes 1 and Holm-adjusted p <= 0.05";
	if (q->p < ALPHA && (q->v == AB_V_UP || q->v == AB_V_DOWN))
		return "95% CI excludes 1 but Holm-adjusted p > 0.05";
	return "95% CI includes 1";
}

/* The verdict after the correction: significant only when Holm's adjusted p stays
 * within ALPHA; outside the family, none. */
static enum ab_verdict verdict(const struct pair *q)
{
	if (q->cls != CLS_HEADLINE && q->v != AB_V_NONE && q->v != AB_V_FEW)
		return AB_V_SAME;
	if ((q->v == AB_V_UP || q->v == AB_V_DOWN) && !(q->adj <= ALPHA))
		return AB_V_SAME;
	return q->v;
}

/* compare.csv's row of q (every class). */
static void csv_row(struct cmp *c, const struct pair *q)
{
	char num[8][32];
	enum ab_verdict v = verdict(q);
	const struct ab_group *a = q->a;
	snprintf(num[0], sizeof(num[0]), "%.6g", ab_r_median(a));
	snprintf(num[1], sizeof(num[1]), "%.6g", ab_r_median(q->b));
	snprintf(num[2], sizeof(num[2]), "%.6g", q->r);
	snprintf(num[3], sizeof(num[3]), "%d", v == AB_V_UP || v == AB_V_DOWN);
	double floor = p_floor(a->n, q->b->n);	/* a p of 0: below its resolution */
	snprintf(num[4], sizeof(num[4]), "%.6g", fmax(q->p, floor));
	snprintf(num[5], sizeof(num[5]), "%.6g", fmax(q->adj, floor));
	snprintf(num[6], sizeof(num[6]), "%.6g", q->ci.lo);
	snprintf(num[7], sizeof(num[7]), "%.6g", q->ci.hi);
	int ci = v != AB_V_FEW;
	const char *row[] = { a->bench, a->config, a->metric, a->unit, c->dirs[0], c->dirs[q->k],
			      num[0], num[1], num[2], ci ? num[6] : "", ci ? num[7] : "",
			      isnan(q->p) ? "" : num[4], isnan(q->adj) ? "" : num[5], num[3],
			      csv_reason(v, q) };
	for (int j = 0; j < 15; j++) {
		ab_csv_field(c->csv, row[j]);
		fputc(j < 14 ? ',' : '\n', c->csv);
	}
}

/* The terminal's row of q: bench, config, metric, run, medians, ratio. A config or metric
 * too long for its column is written whole on a line of its own above its rows (once for
 * rows in a row of the same), and the rows show '"' there: a cut never makes two rows
 * read the same. */
static void term_row(struct cmp *c, const struct pair *q, const char *ma, const char *mb,
		     const char *rt)
{
	static const struct ab_group *said;	/* the last group whose label was written */
	const struct ab_group *a = q->a;
	char sc[AB_CONFIG_LEN], lab[16];

	h_cmp_short_cfg(c, a, sc, sizeof(sc));	/* always into sc */
	if (strlen(sc) <= 23 && strlen(a->metric) <= 19) {
		printf(TERM_ROW, a->bench, sc, a->metric, h_cmp_run_label(lab, sizeof(lab), q->k),
		       ma, mb, rt);
		return;
	}
	if (said != a) {	/* wrapped at 90 columns, so that the line stays within 100 */
		char whole[AB_CONFIG_LEN + AB_METRIC_LEN + 2];
		size_t n = (size_t)snprintf(whole, sizeof(whole), "%s %s", sc, a->metric);
		for (size_t o = 0; o < n; o += 90)
			printf("%-9.9s %.90s\n", o ? "" : a->bench, whole + o);
		said = a;
	}
	printf(TERM_ROW, "", "\"", "\"", h_cmp_run_label(lab, sizeof(lab), q->k), ma, mb, rt);
}

void h_cmp_one_pair(struct cmp *c, const struct pair *q)
{
	char buf[160], num[32], lab[16];
	enum ab_verdict v = verdict(q);
	const struct ab_group *a = q->a;

	if (v == AB_V_NONE) {
		c->no_ratio++;	/* a median of 0 in A: no ratio exists */
		return;
	}
	c->judged += v != AB_V_FEW;
	c->few += v == AB_V_FEW;
	c->sig += v == AB_V_UP || v == AB_V_DOWN;
	c->sig_raw += q->p < ALPHA;
	c->subsampled += !isnan(q->p) && (a->n > AB_BOOT_MAX_N || q->b->n > AB_BOOT_MAX_N);
	csv_row(c, q);
	snprintf(num, sizeof(num), "%.6g", fmax(q->adj, p_floor(a->n, q->b->n)));
	fprintf(c->md, "| %s | ", a->bench);
	h_cmp_md_cfg(c->md, c, a);
	/* medians as every human table prints them; the CSV keeps %.6g */
	char ma[32], mb[32], rt[128], x[32], lo[32], hi[32];
	ab_r_num(ma, sizeof(ma), ab_r_median(a));
	ab_r_num(mb, sizeof(mb), ab_r_median(q->b));
	fprintf(c->md, " | %s | %s | %s | %s | %s | %s |\n", a->metric,
		h_cmp_run_label(lab, sizeof(lab), q->k), ma, mb,
		ratio_cell(buf, sizeof(buf), v, q),
		isnan(q->adj) ? "-" : q->adj < 0.001 ? "< 0.001" : num);	/* never an exact 0 */
	const char *star = v == AB_V_UP || v == AB_V_DOWN ? "*" : "";
	ab_r_x(x, sizeof(x), q->r);
	if (v == AB_V_FEW)
		snprintf(rt, sizeof(rt), "%s (few reps)", x);
	else
		snprintf(rt, sizeof(rt), "%s [%s,%s]%s", x, ab_r_num(lo, sizeof(lo), q->ci.lo),
			 ab_r_num(hi, sizeof(hi), q->ci.hi), star);
	if (strlen(rt) > TERM_RATIO_W)	/* a wide CI: its bounds are in compare.md */
		snprintf(rt, sizeof(rt), "%s%s (CI: .md)", x, star);
	term_row(c, q, ma, mb, rt);
}

/* compare.md's row of a ratio described without a verdict: its ratio "0.9x [0.85, 0.95]
 * 95% CI", or "0.9x (too few repetitions for a CI)". */
static void described_row(struct cmp *c, const struct pair *q)
{
	char x[32], lo[32], hi[32], lab[16], ma[32], mb[32];

	fprintf(c->md, "| %s | ", q->a->bench);
	h_cmp_md_cfg(c->md, c, q->a);
	fprintf(c->md, " | %s | %s | %s | %s | %s", q->a->metric,
		h_cmp_run_label(lab, sizeof(lab), q->k), ab_r_num(ma, sizeof(ma), ab_r_median(q->a)),
		ab_r_num(mb, sizeof(mb), ab_r_median(q->b)), ab_r_x(x, sizeof(x), q->r));
	if (q->v == AB_V_FEW)
		fprintf(c->md, " (too few repetitions for a CI) |\n");
	else
		fprintf(c->md, " [%s, %s] 95%% CI |\n", ab_r_num(lo, sizeof(lo), q->ci.lo),
			ab_r_num(hi, sizeof(hi), q->ci.hi));
}

/* compare.md's row of a metric described apart (no verdict), and its compare.csv row. */
void h_cmp_other_pair(struct cmp *c, const struct pair *q)
{
	if (q->v == AB_V_NONE)
		return;	/* counted with c->no_ratio in table() */
	csv_row(c, q);
	if (q->cls != CLS_MONITOR)	/* the largest of them: monitor_said */
		described_row(c, q);
}

/* How far a ratio is from 1, either way, for the monitor counters' largest changes. */
static double change_of(const struct pair *q)
{
	return q->v == AB_V_NONE || !(q->r > 0) ? -1 : fabs(log(q->r));
}

/* The monitor counters (what the CPUs did), described apart: how many, and the ten
 * that changed most (either way), with their intervals; compare.csv has every one. */
void h_cmp_monitor_said(struct cmp *c, const struct pair *q, size_t n)
{
	enum { TOP = 10 };
	const struct pair *top[TOP];
	int nt = 0, all = 0;

	for (size_t i = 0; i < n; i++) {
		if (q[i].cls != CLS_MONITOR || change_of(&q[i]) < 0)
			continue;
		all++;
		if (nt == TOP && change_of(top[TOP - 1]) >= change_of(&q[i]))
			continue;
		int j = nt < TOP ? nt++ : TOP - 1;
		for (; j > 0 && change_of(top[j - 1]) < change_of(&q[i]); j--)
			top[j] = top[j - 1];
		top[j] = &q[i];
	}
	fprintf(c->md, "\n## What the CPUs did: the monitor counters\n\n%d ratios of monitor "
		       "counters (mon_*: idle, interrupts, switches of the CPUs around a point), "
		       "described without verdicts: they say how the runs differ, not whether the "
		       "change under test helped. compare.csv has each with its 95%% CI.%s\n",
		all, nt ? " The ones that changed most:" : "");
	if (!nt)
		return;
	fprintf(c->md, "\n| bench | config | counter | run | A median | median | ratio run/A |\n"
		       "|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < nt; i++)
		described_row(c, top[i]);
}
