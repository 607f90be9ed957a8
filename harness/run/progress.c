// SPDX-License-Identifier: GPL-2.0
/*
 * A run's estimates and its progress line: each point's expected seconds
 * (timings.c), scaled as the run learns how far off they are; the ETA; the
 * line on stderr before each invocation; and --dry-run's listing.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "run_i.h"
#include "sys/barrier.h"

/* The block of point pi (its index in the plan). */
static int block_of(const struct run *r, int pi)
{
	return (int)(r->plan.points[pi].blk - r->plan.blocks);
}

/* How far off this benchmark's estimates were in this run so far: measured / expected,
 * within [1/20, 20] (one odd invocation must not make the ETA absurd); 1 before any. */
static double bench_ratio(const struct run *r, int blk)
{
	int b = r->bench_of[blk];
	double q = r->took_est[b] > 0 ? r->took[b] / r->took_est[b] : 1;

	return q < 0.05 ? 0.05 : q > 20 ? 20 : q;
}

/* Where est holds repetition rep (from 0) of point i: the probes' or not. */
static size_t est_at(const struct run *r, int i, int rep)
{
	return 2 * (size_t)i + (h_probes_off(r->plan.points[i].blk, rep + 1) != NULL);
}

/* Seconds left: each remaining invocation's estimate, scaled by its benchmark's ratio. */
double h_eta(const struct run *r, int from_rep, int from_pt)
{
	double s = 0;

	for (int rep = from_rep; rep < r->repeat; rep++)
		for (int i = rep == from_rep ? from_pt : 0; i < r->plan.npoints; i++)
			if (!r->done[(size_t)rep * r->plan.npoints + i])
				s += r->est[est_at(r, i, rep)] * bench_ratio(r, block_of(r, i));
	return s;
}

/* Estimates for every point, and which block stands for each benchmark. */
void h_estimates(struct run *r)
{
	int nb = r->plan.nblocks;

	h_timings_load(&r->timings);
	r->est = calloc(2 * (size_t)r->plan.npoints, sizeof(*r->est));
	r->bench_of = calloc((size_t)nb, sizeof(*r->bench_of));
	r->took = calloc((size_t)nb, sizeof(*r->took));
	r->took_est = calloc((size_t)nb, sizeof(*r->took_est));
	if (!r->est || !r->bench_of || !r->took || !r->took_est)
		ab_fail("run: out of memory");
	for (int i = 0; i < r->plan.npoints; i++) {	/* with the probes (rep 1), and without */
		r->est[2 * i] = h_timings_estimate(&r->timings, &r->plan.points[i], 1, NULL);
		r->est[2 * i + 1] = h_timings_estimate(&r->timings, &r->plan.points[i], 1001, NULL);
	}
	for (int b = 0; b < nb; b++) {
		r->bench_of[b] = b;
		for (int a = 0; a < b; a++)
			if (!strcmp(r->plan.blocks[a].bench, r->plan.blocks[b].bench)) {
				r->bench_of[b] = a;
				break;
			}
	}
}

/* One invocation took seconds: the ETA's ratio, and the learned table when it measured. */
void h_took(struct run *r, int pi, int rep, enum h_outcome o, double seconds)
{
	int b = r->bench_of[block_of(r, pi)];

	r->took[b] += seconds;
	r->took_est[b] += r->est[est_at(r, pi, rep)];
	if (o == H_FAIL)	/* a crash or the watchdog: not how long the point takes */
		return;
	h_timings_learn(&r->timings, &r->plan.points[pi], rep + 1, seconds);
	h_timings_save(&r->timings);
}

void h_progress(struct run *r, int ndone, int total, int rep, int pi)
{
	char el[32], et[32];
	const struct h_point *pt = &r->plan.points[pi];

	h_fmt_dur(ab_now_s() - r->t0, el, sizeof(el));
	if (r->round) {	/* added repetitions: no ETA, the budget says when they end */
		h_fmt_dur(r->prec.budget - (ab_now_s() - r->t0), et, sizeof(et));
		fprintf(stderr, "%s[%s] rep %d %s %s ...  elapsed %s  budget left %s%s",
			r->tty ? "\r\033[K" : "", r->round, rep + 1, pt->blk->bench, pt->label, el, et,
			r->tty ? "" : "\n");
		return;
	}
	h_fmt_dur(h_eta(r, rep, pi), et, sizeof(et));
	fprintf(stderr, "%s[%d/%d] rep %d/%d %s %s ...  elapsed %s  ETA %s%s%s",
		r->tty ? "\r\033[K" : "", ndone, total, rep + 1, r->repeat, pt->blk->bench, pt->label,
		el, et, r->prec.target > 0 ? " (then added repetitions)" : "", r->tty ? "" : "\n");
}

static void est_sources(const struct run *r)
{
	static const char *const what[H_EST_NSOURCES] = {
		"measured on this machine", "measured on the project's VM (harness/timings.tsv)",
		"from the plan's estimate lines", "its benchmark's mean", "guessed (duration + 1 s)"
	};
	int n[H_EST_NSOURCES] = { 0 };
	const char *sep = "";

	for (int i = 0; i < r->plan.npoints; i++) {
		enum h_est_source src;
		h_timings_estimate(&r->timings, &r->plan.points[i], 1, &src);
		n[src]++;
	}
	printf("timings of the %d point%s:", r->plan.npoints, r->plan.npoints == 1 ? "" : "s");
	for (int k = 0; k < H_EST_NSOURCES; k++)
		if (n[k]) {
			printf("%s %d %s", sep, n[k], what[k]);
			sep = ",";
		}
	printf(" (learned: %s)\n", h_timings_path());
}

/* What a run (or, resumed, what is left of it: r->done) would invoke, and its ETA. */
void h_dry_run(struct run *r, int resumed)
{
	char prog[PATH_MAX], dur[32], et[32], a[32], b[32], c[32];
	char *av[H_ARGV_MAX];
	int all = r->plan.npoints * r->repeat, left = 0;

	for (int k = 0; k < all; k++)
		left += !r->done[k];
	printf("plan %s: %s x %s = %s", r->plan.path, h_plural(a, sizeof(a), r->plan.npoints, "point"),
	       h_plural(b, sizeof(b), r->repeat, "repetition"), h_plural(c, sizeof(c), all, "invocation"));
	printf(resumed ? "; %d left to run\n" : "\n", left);
	for (int rep = 0; rep < r->repeat; rep++)
		for (int i = 0; i < r->plan.npoints; i++) {
			struct h_point *pt = &r->plan.points[i];
			if (r->done[(size_t)rep * r->plan.npoints + i])
				continue;
			h_point_argv(pt, rep + 1, h_program_of(pt->blk, prog, sizeof(prog)), av, AB_ARRAY_SIZE(av),
				     dur, sizeof(dur));
			printf("rep %d point %d:", rep + 1, i);
			for (int k = 0; av[k]; k++)
				printf(" %s", av[k]);
			putchar('\n');
		}
	h_fmt_dur(h_eta(r, 0, 0), et, sizeof(et));
	printf("ETA %s\n", et);
	h_prec_plan_line(r, stdout);
	est_sources(r);
}

/* Expected seconds of one more repetition of pi (precision.c's rounds): the next round's
 * number, which decides its probes (h_probes_off). */
double h_est_more(void *ctx, int pi)
{
	struct run *r = ctx;

	return r->est[est_at(r, pi, r->prec.rep)] * bench_ratio(r, block_of(r, pi));
}

void h_prec_plan_line(const struct run *r, FILE *f)
{
	char b[32];

	if (!(r->prec.target > 0))
		return;
	if (r->prec.budget > 0)
		h_fmt_dur(r->prec.budget, b, sizeof(b));
	fprintf(f, "then repetitions added where a headline interval (judged at 97.5%%) is "
		   "wider than +-%.3g%% of its median, each point up to %dx its repetitions%s%s\n",
		100 * r->prec.target, H_PREC_CAP_TIMES,
		r->prec.budget > 0 ? ", until the run has taken " : ", for as long again as the "
		"repetitions took", r->prec.budget > 0 ? b : "");
}
