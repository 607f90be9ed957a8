// SPDX-License-Identifier: GPL-2.0
/*
 * One repetition of one sqrtio point (will-it-scale's shape): pinned worker
 * processes (readers first, then sqrt workers) wait at the start barrier, run a
 * warm-up, then the parent snapshots counters, /proc/interrupts and
 * CLOCK_MONOTONIC around the timed window and stops them.
 * Never waits forever: the barrier, a reader that stops completing reads (a hung
 * device) and the stop are bounded by ab_scaled_ns; a worker stuck in the
 * kernel is given up by ab_workers_reap and the point fails, the sweep goes on.
 * Known limits: interrupts and IPIs per IO count the whole machine in the window.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sys/clock.h"
#include "sys/common.h"
#include "sqrtio.h"

#define WARMUP_MAX_NS (500 * 1000000ull)	/* caches, queue, CPU frequency */

int sq_barrier_wait(struct ab_barrier *g, struct ab_workers *w, int n, char *why, size_t len)
{
	uint64_t deadline = ab_now_ns() + ab_scaled_ns(SQ_BARRIER_NS);
	int ended;

	while (ab_barrier_wait_arrived(g, (unsigned)n, AB_POLL_NS)) {
		if ((ended = ab_workers_ended(w)) >= 0)
			return ab_err(why, len, "worker %d exited before the start barrier", ended);
		if (ab_interrupted)
			return ab_err(why, len, "interrupted by signal %d", (int)ab_interrupted);
		if (ab_now_ns() > deadline)
			return ab_err(why, len, "workers did not reach the start barrier within %.0f s",
				      (double)ab_scaled_ns(SQ_BARRIER_NS) / AB_NS);
	}
	return 0;
}

/* ---- the workers ---- */

struct job {
	struct sq_shared *sh;
	const struct sq_point *pt;
	const struct sq_target *t;
};

static int worker(void *arg, int w)
{
	struct job *j = arg;
	struct sq_shared *sh = j->sh;
	int io = w < j->pt->nio;
	void *buf = NULL;

	if (io && posix_memalign(&buf, SQ_BLK, SQ_BLK))
		snprintf(sh->err[w], sizeof(sh->err[w]), "out of memory");
	ab_barrier_arrive_wait(&sh->barrier);
	if (sh->err[w][0])
		return 1;
	if (!io) {
		sq_sqrt_loop(sh, w);
		return 0;
	}
	return sq_io_loop(sh, w, j->t->fd, j->t->nblocks, buf) ? 1 : 0;
}

/* ---- watching the window ---- */

struct watch {
	struct sq_shared *sh;
	const struct sq_point *pt;
	struct ab_workers *w;
	uint64_t last[SQ_MAX_WORKERS / 2], moved[SQ_MAX_WORKERS / 2];	/* readers' progress */
};

/* ab_watch's check: a worker ended early, or a reader completed nothing for SQ_STALL_NS. */
static int check(void *arg, char *why, size_t len)
{
	struct watch *wt = arg;
	uint64_t now = ab_now_ns();
	int ended = ab_workers_ended(wt->w);

	if (ended >= 0)
		return ab_err(why, len, "the %s on CPU %d stopped: %s", ended < wt->pt->nio ? "reader" :
			      "sqrt worker", wt->pt->cpu[ended],
			      wt->sh->err[ended][0] ? wt->sh->err[ended] : "it exited");
	for (int r = 0; r < wt->pt->nio; r++) {
		uint64_t c = ab_counter_read(&wt->sh->count[r]);
		if (c != wt->last[r] || !wt->moved[r]) {
			wt->last[r] = c;
			wt->moved[r] = now;
		} else if (now - wt->moved[r] > ab_scaled_ns(SQ_STALL_NS)) {
			return ab_err(why, len, "no read issued on CPU %d completed for %.1f s: the "
				      "device hangs", wt->pt->cpu[r], (double)(now - wt->moved[r]) / AB_NS);
		}
	}
	return 0;
}

/* Stop every worker; a worker still in the kernel after SQ_STALL_NS is killed, then
 * given up. 0, or -1 with why (unless why holds a reason already). */
static int stop(struct sq_shared *sh, const struct sq_point *pt, struct ab_workers *w, int failed,
		char *why, size_t len)
{
	atomic_store(&sh->phase, SQ_STOP);
	ab_barrier_open(&sh->barrier);
	uint64_t deadline = ab_now_ns() + (failed ? 0 : ab_scaled_ns(SQ_STALL_NS));
	int bad = ab_workers_reap(w, deadline, NULL, NULL);

	if (!bad || failed)
		return failed ? -1 : 0;
	for (int i = 0; i < w->started; i++) {
		const char *who = i < pt->nio ? "reader" : "sqrt worker";
		if (sh->err[i][0])
			return ab_err(why, len, "the %s on CPU %d: %s", who, pt->cpu[i], sh->err[i]);
		if (w->status[i] == -1 || WIFSIGNALED(w->status[i]))
			return ab_err(why, len, "the %s on CPU %d did not stop within %.0f s%s", who,
				      pt->cpu[i], (double)ab_scaled_ns(SQ_STALL_NS) / AB_NS,
				      w->gave_up ? " and could not be killed: the device hangs" : "");
		if (w->status[i] != 0)
			return ab_err(why, len, "the %s on CPU %d exited with status %d", who, pt->cpu[i],
				      WEXITSTATUS(w->status[i]));
	}
	return ab_err(why, len, "a worker failed");
}

/* ---- one repetition ---- */

static uint64_t sum(const struct sq_shared *sh, int from, int to)
{
	return ab_counters_sum(&sh->count[from], to - from);
}

/* The numbers of one window, from counters, histograms and interrupt deltas. */
static int results(const struct sq_shared *sh, const struct sq_point *pt,
		   const struct sq_discovery *d, const struct sq_intr *a, const struct sq_intr *b,
		   uint64_t ns, uint64_t ios, uint64_t sqrts, double *v, char *why, size_t len)
{
	double secs = (double)ns / AB_NS;
	struct ab_hist h = { 0 };
	uint64_t irqs = 0;

	if (ns < AB_MIN_WINDOW_NS)
		return ab_err(why, len, "the window lasted %.3f ms, too short to time", ns / 1e6);
	/* Reads are what moves here (latency, IRQs per IO need one); sqrt workers starved
	 * by a busy host measure 0, which is what they got. */
	if (ios == 0)
		return ab_err(why, len, "no read completed in %.2f s (a read stalled: device or host "
			      "busy?)", secs);
	for (int w = 0; w < pt->nio; w++)
		ab_hist_merge(&h, &sh->hist[w]);
	for (int i = 0; i < d->nirq; i++)
		irqs += sq_intr_delta(a, b, d->irq[i], -1);
	v[SQ_SQRT] = pt->nsqrt ? (double)sqrts / secs / 1e6 : NAN;
	v[SQ_IOS] = (double)ios / secs / 1e3;
	v[SQ_P50] = ab_hist_percentile(&h, 50) / 1e3;
	v[SQ_P99] = ab_hist_percentile(&h, 99) / 1e3;
	v[SQ_IRQ] = (double)irqs / (double)ios;
	v[SQ_CAL] = (double)sq_intr_delta(a, b, "CAL", -1) / (double)ios;
	v[SQ_RES] = (double)sq_intr_delta(a, b, "RES", -1) / (double)ios;
	return 0;
}

int sq_measure(struct sq_shared *sh, const struct sq_point *pt, const struct sq_target *t,
	       const struct sq_discovery *d, double duration, struct ab_cpumon *mon, double *v,
	       char *note, char *why, size_t len)
{
	int n = pt->nio + pt->nsqrt, rc;
	struct job job = { sh, pt, t };
	struct ab_workers w;
	struct watch *wt = calloc(1, sizeof(*wt));
	struct sq_intr a = { 0 }, b = { 0 }, sa = { 0 }, sb = { 0 };
	uint64_t dur = (uint64_t)(duration * 1e9), warm = (uint64_t)fmin(WARMUP_MAX_NS, dur / 4.0);
	uint64_t slack = ab_scaled_ns(SQ_STALL_NS);

	if (!wt)
		return ab_err(why, len, "out of memory");
	memset(sh, 0, sizeof(*sh));
	ab_barrier_init(&sh->barrier);
	atomic_store(&sh->phase, SQ_WARMUP);
	*wt = (struct watch){ .sh = sh, .pt = pt, .w = &w };
	ab_lat_stride();	/* the readers inherit the answer: no probe of their own */
	if (ab_workers_start(&w, n, 0, pt->cpu, NULL, worker, &job, why, len)) {
		free(wt);
		return -1;
	}
	for (int i = 0; mon && i < w.started; i++)
		ab_cpumon_add_task(mon, w.pid[i]);
	rc = sq_barrier_wait(&sh->barrier, &w, n, why, len);
	for (int i = 0; !rc && i < n; i++)
		if (sh->err[i][0])
			rc = ab_err(why, len, "worker %d (CPU %d): %s", i, pt->cpu[i], sh->err[i]);
	if (!rc) {
		ab_barrier_open(&sh->barrier);
		uint64_t t = ab_now_ns();
		rc = ab_watch(t + warm, t + warm + slack, check, wt, why, len);
	}
	/* every counter read falls outside the clock reads around the window */
	if (!rc)
		rc = sq_intr_read("/proc/interrupts", &a, why, len);
	int soft = !rc && sq_softirqs_read(&sa) == 0;
	uint64_t t0 = 0, t1 = 0, io0 = 0, io1 = 0, sq0 = 0, sq1 = 0;
	if (!rc) {
		ab_cpumon_begin(mon);
		atomic_store(&sh->phase, SQ_MEASURE);
		t0 = ab_now_ns(), io0 = sum(sh, 0, pt->nio), sq0 = sum(sh, pt->nio, n);
		rc = ab_watch(t0 + dur, t0 + dur + slack, check, wt, why, len);
		t1 = ab_now_ns(), io1 = sum(sh, 0, pt->nio), sq1 = sum(sh, pt->nio, n);
		if (!rc && mon)
			ab_cpumon_end(mon, (double)(t1 - t0) / AB_NS);
	}
	if (!rc)
		rc = sq_intr_read("/proc/interrupts", &b, why, len);
	soft = soft && !rc && sq_softirqs_read(&sb) == 0;
	rc = stop(sh, pt, &w, rc, why, len);
	if (!rc)
		rc = results(sh, pt, d, &a, &b, t1 - t0, io1 - io0, sq1 - sq0, v, why, len);
	if (!rc)
		sq_complete_share(pt, d, t->hwq, &a, &b, &sa, &sb, v, note, SQ_NOTE_LEN);
	if (!rc && !soft)
		snprintf(note, SQ_NOTE_LEN, "completions on the submitting CPU: /proc/softirqs unreadable");
	ab_workers_free(&w);
	sq_intr_free(&a);
	sq_intr_free(&b);
	sq_intr_free(&sa);
	sq_intr_free(&sb);
	free(wt);
	return rc;
}
