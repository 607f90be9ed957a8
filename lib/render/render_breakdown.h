/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "Where the time goes": the request breakdown's records (brk_*, written by
 * any benchmark that follows its calls with lib/kstats/breakdown; docs/breakdown.md)
 * as a stacked bar per configuration, a table under the posts' layouts in
 * tables.md, and sentences in report.md that name the step that differs most.
 * Driven by the records, for every benchmark that has them: the bars, table and
 * sentences need no descriptor to name a step. A descriptor says which keys the
 * sentences compare (breakdown_keys), may add its own reading (breakdown_reading),
 * and may read named steps for its own tables (cputestfs's split of other minus
 * same reads the wake-up steps, AB_BREAKDOWN_DWAKE and _RWAKE).
 *
 * The bars stack each step's mean time per call (brk_<step>_share_pct of
 * brk_call_ns, per instrumented repetition, then averaged over repetitions):
 * means add up to the call, medians would not.
 */
#ifndef AB_RENDER_BREAKDOWN_H
#define AB_RENDER_BREAKDOWN_H

#include <stddef.h>

#include "kstats/breakdown.h"
#include "render/render.h"

/* The steps and wake-ups, named once by lib/kstats/breakdown (ab_breakdown_step_names). */
#define AB_BREAKDOWN_NSTEP AB_BREAKDOWN_STEPS	/* submit, daemon_wake, service, reply_wake, return */
#define AB_BREAKDOWN_NWAKE AB_BREAKDOWN_WAKES	/* the daemon's wake-up, the reply's */
#define AB_BREAKDOWN_BARS 64	/* configurations with a breakdown, per benchmark */
#define AB_BREAKDOWN_LABEL 96

/* One configuration's breakdown. NAN: not recorded. */
struct ab_breakdown_bar {
	const char *config;		/* the records' config (points into the results) */
	char label[AB_BREAKDOWN_LABEL];	/* the values of the keys that tell bars apart, ':'-joined */
	int reps;			/* instrumented repetitions behind it */
	double calls;			/* calls behind it (brk_calls summed); 0, NAN: not counted */
	double call_us;			/* mean per call */
	double call_p50_us;		/* median of brk_call_p50_ns over repetitions */
	double step_us[AB_BREAKDOWN_NSTEP];	/* mean per call of each step */
	double outside_us;		/* mean per call outside the probes (brk_outside_ns) */
	double wakes[AB_BREAKDOWN_NWAKE], cross_pct[AB_BREAKDOWN_NWAKE], idle_pct[AB_BREAKDOWN_NWAKE];
};

/* Fewer calls than this behind a breakdown: its means rest on a few calls, one slow call
 * moves them, and the report says so beside them (ab_breakdown_few). */
#define AB_BREAKDOWN_MIN_CALLS 1000
/* Does b rest on fewer than AB_BREAKDOWN_MIN_CALLS calls (counted: not 0, not NAN)? */
int ab_breakdown_few(const struct ab_breakdown_bar *b);

/* The record name of step i ("daemon_wake"): ab_breakdown_step_name, kstats/breakdown.h. */

/*
 * The bars of d's benchmark in res, in the order configs first appear, labelled
 * by the keys that tell them apart (keys whose values look like CPU lists, such
 * as client_cpu, are dropped first when the rest still tells them apart, then
 * any but d->breakdown_keys); those
 * keys, ':'-joined, in keys. Returns how many (at most max).
 */
int ab_breakdown_bars(const struct ab_results *res, const struct ab_bench_desc *d,
		      struct ab_breakdown_bar *bars, int max, char *keys, size_t keylen);
/* Median of metric in config over its repetitions, NAN when not recorded. */
double ab_breakdown_median_of(const struct ab_results *res, const char *bench, const char *config,
			 const char *metric, const char *unit);

/*
 * One sentence comparing the slower of a and b with the faster: by how much the
 * call differs, the step that makes most of the difference and, for a wake-up
 * step, how many of the slower one's wake-ups crossed CPUs and found the CPU
 * idle. sa and sb name them ("placement=other"); ctx, when not NULL, says what
 * they share ("transport=libfuse"). Says so when they take about the same time
 * (within 2%) and which steps were not recorded on both sides.
 */
const char *ab_breakdown_compare(char *buf, size_t len,
				 const struct ab_breakdown_bar *a, const char *sa,
				 const struct ab_breakdown_bar *b, const char *sb, const char *ctx);
/* One sentence for a benchmark with a single configuration's breakdown. */
const char *ab_breakdown_single(char *buf, size_t len, const struct ab_breakdown_bar *a,
				const char *name);

/* The stacked bars: .dat and .gp files in r->dir, figure names in r->figures. */
void ab_breakdown_plots(struct ab_render *r);
/* The sentences, under a heading, into r->out (report.md); nothing without brk records. */
void ab_breakdown_reading(struct ab_render *r);
/* The breakdown table into r->out (tables.md); nothing without brk records. */
void ab_breakdown_tables(struct ab_render *r);

#endif
