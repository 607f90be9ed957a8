/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a FUSE call's time goes, from BPF (breakdown.bpf.c): each syscall of the
 * caller processes that sends a FUSE request is split into five consecutive
 * steps that add up to the call, and the two wake-ups on its way are
 * classified (crossed CPUs or not; found the CPU idle or not):
 *
 *   submit        syscall entry .. the request is queued (fuse_request_send)
 *   daemon_wake   .. the server thread the caller woke is on a CPU
 *   service       .. the reply ends the request (fuse_request_end: the
 *                    server's write to /dev/fuse, or its commit on the ring)
 *   reply_wake    .. the caller, woken by the reply, is on a CPU
 *   return        .. syscall exit
 *
 * Loaded and attached together with kstats (kstats.h): instrumented
 * repetitions only. docs/breakdown.md says how to read the numbers.
 */
#ifndef AB_BREAKDOWN_H
#define AB_BREAKDOWN_H

#include <stddef.h>
#include <stdint.h>

#include "record/stats.h"

enum ab_breakdown_step {
	AB_BREAKDOWN_SUBMIT, AB_BREAKDOWN_DWAKE, AB_BREAKDOWN_SERVICE, AB_BREAKDOWN_RWAKE,
	AB_BREAKDOWN_RETURN, AB_BREAKDOWN_STEPS
};
enum ab_breakdown_wake { AB_BREAKDOWN_W_DAEMON, AB_BREAKDOWN_W_REPLY, AB_BREAKDOWN_WAKES };
/* The steps' and wake-ups' names in the records (brk_<step>_share_pct,
 * brk_<wake>_wakes_per_call): defined once, in breakdown.c, for the records written
 * here and for their reader (lib/render/render_breakdown.c). */
extern const char *const ab_breakdown_step_names[AB_BREAKDOWN_STEPS];
extern const char *const ab_breakdown_wake_names[AB_BREAKDOWN_WAKES];

/* Raw counts, as read. */
struct ab_breakdown_result {
	uint64_t calls, requests;
	double step_ns[AB_BREAKDOWN_STEPS];
	uint64_t wakes[AB_BREAKDOWN_WAKES], cross[AB_BREAKDOWN_WAKES], idle[AB_BREAKDOWN_WAKES];
	struct ab_hist hist[AB_BREAKDOWN_STEPS + 1];	/* last: the whole call */
};

/* What the records say. NAN: not known (no call, no wake-up). */
struct ab_breakdown_metrics {
	double calls, call_ns, call_p50, call_p99, call_p90, call_p999, call_max;
	double p50[AB_BREAKDOWN_STEPS], p99[AB_BREAKDOWN_STEPS], share[AB_BREAKDOWN_STEPS];
	/* max: the highest bucket's top (the BPF side counts buckets only), at most 1/32 above */
	double p90[AB_BREAKDOWN_STEPS], p999[AB_BREAKDOWN_STEPS], max[AB_BREAKDOWN_STEPS];
	struct ab_hist hist[AB_BREAKDOWN_STEPS + 1];	/* r's, for hist.csv (ab_breakdown_hist_rows) */
	double per_call[AB_BREAKDOWN_WAKES], cross_pct[AB_BREAKDOWN_WAKES], idle_pct[AB_BREAKDOWN_WAKES];
	/* From the benchmark's own clock over the same window (NAN until it sets them): */
	double loop_ns;		/* the window over the calls, per caller (includes user space) */
	double client_ns;	/* the mean call as the callers timed it (the clock around each) */
	double calls_per_s;	/* the instrumented repetition's rate, to compare with the timed one */
};

/* 0 with m filled (its window fields NAN), or -1 when r holds no call. */
int ab_breakdown_metrics(const struct ab_breakdown_result *r, struct ab_breakdown_metrics *m);
/* The mean of a histogram, each value at its bucket's middle (as ab_hist_percentile
 * reports it, so within 1.6%); NAN when empty. */
double ab_breakdown_hist_mean(const struct ab_hist *h);
/* Each brk_* record of m (the NAN ones left out), through emit. */
typedef void ab_breakdown_emit_fn(void *ctx, const char *metric, double value, const char *unit);
void ab_breakdown_emit(const struct ab_breakdown_metrics *m, ab_breakdown_emit_fn *emit, void *ctx);
/* m's histograms as hist.csv rows (record/histio.h): brk_<step> and brk_call, in ns. */
struct ab_out;
struct ab_config;
void ab_breakdown_hist_rows(const struct ab_breakdown_metrics *m, struct ab_out *o,
			    const struct ab_config *c, int rep);
/* One line for a progress message: the mean of each step and the wake-ups' flags. */
void ab_breakdown_describe(const struct ab_breakdown_metrics *m, char *buf, size_t len);
/* Step names as in the records ("daemon_wake"). */
const char *ab_breakdown_step_name(int step);

#endif
