/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside one run: the state run.c keeps for its life, and what progress.c
 * computes from it (estimates, ETA, the progress line, --dry-run's listing).
 */
#ifndef H_RUN_I_H
#define H_RUN_I_H

#include "run.h"

struct run {
	char out[2048];		/* run directory; shorter than PATH_MAX so "out/file" fits */
	char shown[2048];	/* as its user named it: --resume's out is its descriptor's path */
	struct h_plan plan;
	int repeat;
	struct h_csv raw, runs, fail, hist;
	char *done;		/* [rep * npoints + point]: already run (resume) */
	int tty, write_failed;
	const char *journal, *workdir;
	double t0, helpers_cpu;
	int n_ok, n_fail, n_skip;
	struct h_timings timings;
	double *est;		/* [2 x point + probes off]: expected seconds of one invocation */
	int *bench_of;		/* [block]: the first block of the same benchmark */
	double *took, *took_est;	/* [first block of a bench]: measured and expected seconds so far */
	struct h_prec prec;		/* --precision's records and widths (precision.c) */
	const char *round;		/* the added round running (progress), or NULL */
};

/* Seconds left from repetition from_rep (from 0), point from_pt on. */
double h_eta(const struct run *r, int from_rep, int from_pt);
/* Each point's estimate, and which block stands for each benchmark. */
void h_estimates(struct run *r);
/* One invocation of pi took seconds: the ETA's ratio; learned unless it failed. */
void h_took(struct run *r, int pi, int rep, enum h_outcome o, double seconds);
/* The progress line before an invocation ([done/total] or the added round's). */
void h_progress(struct run *r, int ndone, int total, int rep, int pi);
/* --dry-run: what would run (resumed: what is left), the ETA and its sources. */
void h_dry_run(struct run *r, int resumed);
/* What --precision will add after the plan's repetitions, one line on f (none without). */
void h_prec_plan_line(const struct run *r, FILE *f);
/* Expected seconds of one more repetition of pi (precision.c's rounds; ctx a run). */
double h_est_more(void *ctx, int pi);

#endif
