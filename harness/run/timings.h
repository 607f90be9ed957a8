/*
 * How long a plan's invocations take: measured, not guessed. Two tables of
 * seconds per invocation, keyed by benchmark, --duration and the point's own
 * arguments (its axes and extras, which decide how long it runs):
 *  - shipped: harness/timings.tsv (installed as share/affbench/timings.tsv),
 *    measured on the project's reference machine;
 *  - learned: this machine's, $AFFBENCH_TIMINGS or /var/lib/affbench/timings.tsv,
 *    updated by harness run after each invocation from its measured wall time.
 * Only registered benchmarks are looked up and learned: a test's fake one
 * (AFFBENCH_TEST_PROGRAMS, harness/plan.c) teaches nothing.
 * A table that is not a regular file, too large or with one bad row is not
 * used at all, with one warning; every number in it is range-checked.
 */
#ifndef H_TIMINGS_H
#define H_TIMINGS_H

#include "../harness.h"

/* Where an estimate came from, best first (harness run --dry-run counts them). */
enum h_est_source {
	H_EST_LEARNED,		/* this point, measured on this machine */
	H_EST_SHIPPED,		/* this point, measured on the reference machine */
	H_EST_PLAN,		/* the block's 'estimate' line */
	H_EST_BENCH,		/* the benchmark's mean at this duration (learned, else shipped) */
	H_EST_GUESS,		/* duration + 1 */
	H_EST_NSOURCES
};

struct h_timing {
	char bench[32];
	double duration;
	char *args;		/* the point's arguments after --quiet, blank-separated; "-" if none */
	double seconds;		/* mean wall seconds of one invocation */
	long runs;		/* invocations behind the mean */
};

struct h_ttable {
	char path[4096];
	struct h_timing *rows;
	int n, cap;
};

struct h_timings {
	struct h_ttable shipped, learned;
	int save_failed;	/* said once; not tried again */
};

/* Both tables (a missing one is empty; a bad one is empty after one warning). */
void h_timings_load(struct h_timings *t);
void h_timings_free(struct h_timings *t);
/* Expected seconds of repetition rep (from 1) of pt, within (0, the block's timeout]. */
double h_timings_estimate(const struct h_timings *t, const struct h_point *pt, int rep,
			  enum h_est_source *src);
/* One finished invocation of pt took seconds: folded into the learned table
 * (a number outside the sane range for its block is dropped). */
void h_timings_learn(struct h_timings *t, const struct h_point *pt, int rep, double seconds);
/* Write the learned table (through lib/sys/outfile: never through a link). 0 or -1
 * after one warning; after a failure, later calls do nothing. */
int h_timings_save(struct h_timings *t);
/* The learned table's path: $AFFBENCH_TIMINGS or /var/lib/affbench/timings.tsv. */
const char *h_timings_path(void);
/* Parse one table (for tests): 0, or -1 with "PATH:LINE: reason" in err and tb empty. */
int h_ttable_read(struct h_ttable *tb, const char *path, char *err, size_t errlen);
void h_ttable_free(struct h_ttable *tb);

#endif
