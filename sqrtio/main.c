// SPDX-License-Identifier: GPL-2.0
/*
 * sqrtio reproduces LKML 2008, Alan D. Brunelle, "Block IO: more
 * io-cpu-affinity results": CPU-bound processes computing sqrt and IO-bound
 * processes doing 4 KiB O_DIRECT reads that the device serves from its cache
 * (random offsets in a small --span), all pinned, with the block queue's
 * rq_affinity at 0, 1, 2 and the readers on (local=1) or off (local=0) the
 * CPU(s) that complete their reads. Records M sqrt/s, K ios/s, IO latency,
 * interrupts and IPIs per IO, what the CPUs did per IO (mon_*, lib/kstats/cpumon)
 * and where the IO completed (complete.c); the tables put local=0 against local=1.
 *
 * What to vary: --rq, --local, --sqrt-procs, --io-procs, --span, or
 * --irq-affinity to move the IRQ instead of the readers.
 * Known limits: the completing CPU is found by diffing /proc/interrupts, so a
 * busy unrelated device on the same line adds noise; interrupts and IPIs per
 * IO count the whole machine in the window; with per-CPU queues (nvme,
 * multi-queue virtio) every CPU completes its own reads and local=0 cannot be
 * offered without --irq-affinity, which managed IRQs refuse.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "knob/idle.h"
#include "knob/knob.h"
#include "record/histio.h"
#include "sys/opts.h"
#include "render/render.h"
#include "record/results.h"
#include "sqrtio.h"

static struct sq_settings set = {
	.span = 16 << 20,
	.rq = { 3, { 0, 1, 2 } },
	.local = { 2, { 0, 1 } },
	.sqrt_procs = -1,
	.io_procs = -1,
};

static const struct ab_opt opts[] = {
	AB_OPT(struct sq_settings, file, "file", AB_OPT_STR, "PATH",
	       "read this file (created with 64 MiB if missing; default: a scratch file in the "
	       "current directory, removed after)"),
	AB_OPT(struct sq_settings, device, "device", AB_OPT_STR, "DEV",
	       "read this block device instead of a file (read-only, never written; default: "
	       "none, --file's file)"),
	AB_OPT(struct sq_settings, span, "span", AB_OPT_SIZE, "SIZE",
	       "reads stay in the first SIZE bytes so the device's cache serves them", .min = 4096,
	       .max = 1ull << 40),
	AB_OPT(struct sq_settings, rq, "rq", AB_OPT_INTLIST, "LIST", "rq_affinity values to sweep; "
	       "those that cannot move a completion are skipped, exit 4 when none is left: any "
	       "but 0 with threaded IRQs, 1 off a completing CPU whose cache the readers share",
	       .min = 0, .max = 2),
	AB_OPT(struct sq_settings, local, "local", AB_OPT_INTLIST, "LIST",
	       "1: readers on CPUs that complete their own reads, 0: on CPUs whose reads complete "
	       "elsewhere", .min = 0, .max = 1),
	AB_OPT(struct sq_settings, sqrt_procs, "sqrt-procs", AB_OPT_INT, "N",
	       "sqrt processes, 0 for readers alone (-1 = 2 where four CPUs allow, else 1)",
	       .min = -1, .max = SQ_MAX_WORKERS / 2),
	AB_OPT(struct sq_settings, io_procs, "io-procs", AB_OPT_INT, "N",
	       "reader processes (-1 = 2 where four CPUs allow, else 1, and no more than local and "
	       "remote CPUs each)", .min = -1, .max = SQ_MAX_WORKERS / 2),
	AB_OPT(struct sq_settings, irq_affinity, "irq-affinity", AB_OPT_FLAG, NULL,
	       "keep the readers in place and move the device's IRQ(s) instead"),
	AB_OPT(struct sq_settings, discover, "discover", AB_OPT_FLAG, NULL,
	       "only find the disk, its IRQ(s) and the CPU completing each CPU's reads; "
	       "print key=value lines"),
	AB_OPT_END,
};

static const struct ab_prog_info info = {
	.name = "sqrtio",
	.summary = "M sqrt/s and K O_DIRECT 4 KiB reads/s with rq_affinity 0/1/2 and readers on/off "
		   "the completing CPU (LKML 2008, Brunelle)",
	.usage_extra = "Changes /sys/block/<disk>/queue/rq_affinity (and with --irq-affinity\n"
		       "/proc/irq/N/smp_affinity_list) through the knob journal; originals are\n"
		       "restored at exit and by 'harness restore' after a crash. Needs root to change them.",
	.default_duration = 2,
	.default_repeat = 3,
};

/* ---- the sweep ---- */

/* No point can run: skip with their reasons, each once (the last stderr line is
 * what the harness records). */
static void skip_all(const struct sq_point *pts, int n)
{
	char why[1024] = "";
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(pts[j].skip, pts[i].skip);
		if (!seen && len < sizeof(why))
			len += (size_t)snprintf(why + len, sizeof(why) - len, "%s%s", len ? "; " : "",
						pts[i].skip);
	}
	ab_skip("no point of the sweep can run: %s", why);
}

/* Every rq x local point placed; exits 4 when none can be. */
static struct sq_point *plan(const struct sq_discovery *d, const struct ab_common *com, int *npts)
{
	int ncpu = ab_cpuset_count(&com->allowed), deflt = ncpu >= 4 ? 2 : 1, runnable = 0;
	int nl = ab_cpuset_count(&d->local), nr = ab_cpuset_count(&d->remote);
	/* By default no more readers than either side has CPUs: two readers sharing the one
	 * completing CPU of a single-queue disk against two CPUs off it would mix "on the
	 * completing CPU or not" with "one CPU or two". */
	int dio = deflt;
	if (!set.irq_affinity && nl > 0 && nr > 0 && dio > (nl < nr ? nl : nr))
		dio = nl < nr ? nl : nr;
	int nio = set.io_procs >= 0 ? set.io_procs : dio;
	int nsqrt = set.sqrt_procs >= 0 ? set.sqrt_procs : deflt;
	struct sq_point *pts;

	*npts = set.rq.n * set.local.n;
	pts = calloc((size_t)*npts, sizeof(*pts));
	if (!pts)
		ab_fail("out of memory");
	for (int i = 0; i < *npts; i++) {
		struct sq_point *pt = &pts[i];
		pt->rq = set.rq.v[i / set.local.n];
		pt->local = set.local.v[i % set.local.n];
		pt->nio = nio;
		pt->nsqrt = nsqrt;
		sq_place(pt, d, &com->allowed, set.irq_affinity);
		if (!pt->skip && sq_rq_inert(pt, pt->inert, sizeof(pt->inert)) < 0)
			pt->skip = pt->inert;
		runnable += !pt->skip;
	}
	if (!runnable)
		skip_all(pts, *npts);	/* its one line says why, each reason once */
	for (int i = 0; i < *npts; i++)
		if (pts[i].skip)
			ab_msg("rq=%d local=%d skipped: %s", pts[i].rq, pts[i].local, pts[i].skip);
	return pts;
}

/* A signal stopped us: workers are reaped, and the knob module restored its knobs in
 * its handler (again here, harmlessly, when the signal came before it was set up). */
static void die_interrupted(void)
{
	int sig = (int)ab_interrupted;

	ab_msg("interrupted by signal %d: workers stopped, knobs restored", sig);
	ab_knob_restore_all();
	signal(sig, SIG_DFL);
	raise(sig);
	_exit(128 + sig);
}

/* The reads' latency beyond p50 and p99: p90, p99.9, max and hist.csv (record/histio.h). */
static void io_latency(struct ab_out *out, const struct sq_shared *sh, const struct sq_point *pt,
		       int rep)
{
	struct ab_hist h = { 0 };

	for (int w = 0; w < pt->nio; w++)
		ab_hist_merge(&h, &sh->hist[w]);
	ab_hist_emit(out, &pt->cfg, rep, "io_lat", "us", &h);
}

/* Repetitions interleaved across points (A B C A B C) so drift does not bias a comparison.
 * Returns the number of failed points. */
static int sweep(struct sq_point *pts, int npts, const struct sq_target *t,
		 const struct sq_discovery *d, const struct ab_common *com, struct ab_out *out)
{
	struct sq_shared *sh = ab_shm_alloc(sizeof(*sh));
	int failures = 0;

	if (!sh)
		ab_fail("shared memory: %s", strerror(errno));
	for (int r = 0; r < com->repeat; r++)
		for (int i = 0; i < npts; i++) {
			struct sq_point *pt = &pts[i];
			double v[SQ_NM];
			char why[512], note[SQ_NOTE_LEN] = "";
			/* what the CPUs did, per IO (sqrt workers share the window) */
			struct ab_cpumon *mon = ab_cpumon_new(&com->allowed);

			if (pt->skip)
				continue;
			if (ab_interrupted)	/* the knob module restored: change nothing more */
				die_interrupted();
			if (!com->quiet)
				ab_msg("rep %d/%d rq=%d local=%d: io on %s, sqrt on %s", r + 1, com->repeat,
				       pt->rq, pt->local, pt->io_list, pt->sqrt_list[0] ? pt->sqrt_list : "-");
			sq_knobs_apply(pt->rq, pt->irq_list, t, d, set.irq_affinity, com->quiet);
			if (sq_measure(sh, pt, t, d, com->duration, mon, v, note, why, sizeof(why))) {
				ab_cpumon_free(mon);
				if (ab_interrupted)
					die_interrupted();
				ab_msg("rq=%d local=%d: measurement failed: %s (%s)", pt->rq, pt->local, why,
				       t->name);
				failures++;
				continue;
			}
			for (int m = 0; m < SQ_NM; m++)
				if (!isnan(v[m]))
					ab_record(out, &pt->cfg, r + 1, sq_metrics[m].name, v[m],
						  sq_metrics[m].unit);
			io_latency(out, sh, pt, r + 1);
			ab_cpumon_record(mon, out, &pt->cfg, r + 1, v[SQ_IOS] * 1e3);
			ab_cpumon_tell(note);
			ab_cpumon_free(mon);
		}
	ab_shm_free(sh, sizeof(*sh));
	return failures;
}

int main(int argc, char **argv)
{
	struct ab_common com;
	struct sq_target t;
	struct sq_discovery d;
	char why[512];

	ab_parse_args(argc, argv, &info, opts, &set, &com);
	/* what the run refuses, --check-options refuses too (stat only, nothing changed) */
	if (set.io_procs == 0)
		ab_usage_error("bad value '0' for --io-procs: at least one reader is needed");
	sq_target_check(&set);
	ab_opts_checked(&com);
	sq_rq_check(&set);	/* before anything changes */
	ab_catch_signals();
	ab_idle_apply(&com.idle);
	sq_knobs_init();
	sq_target_find(&t, &set);
	if (ab_cpuset_count(&com.allowed) < 2)
		ab_skip("one CPU only: readers on and off the completing CPU need at least 2 (check "
			"--cpus and taskset)");
	int change = sq_knobs_check(&set, &t);

	sq_target_open(&t, &set, com.quiet);
	t.hwq = sq_hw_queues(t.blk.disk);
	int rc = sq_discover(&t, &com.allowed, &d, why, sizeof(why));
	if (ab_interrupted)
		die_interrupted();
	if (rc)
		ab_exit(rc, "finding the IRQ of %s: %s", t.name, why);
	if (!d.nirq)
		ab_skip("%s: no interrupt line in /proc/interrupts grew with reads of %s: it completes IO "
			"without an IRQ (polled or software device); use a file on an interrupt-driven disk",
			t.name, t.blk.disk);
	if (set.discover) {
		sq_discover_print(&t, &d, stdout);
		sq_discovery_free(&d);
		return fflush(stdout) ? AB_EXIT_FAIL : AB_EXIT_OK;
	}
	if (!com.quiet)
		sq_discover_note(&t, &d);

	int npts;
	struct sq_point *pts = plan(&d, &com, &npts);
	struct ab_results kept;
	struct ab_out out;

	ab_results_init(&kept);
	ab_out_init(&out, stdout, &com, "sqrtio");
	out.keep = &kept;
	int failures = sweep(pts, npts, &t, &d, &com, &out);
	if (ab_interrupted)
		die_interrupted();

	int unrestored = change && sq_knobs_restore(&t, com.quiet);
	if (ab_out_tables(&out, &ab_desc_sqrtio))
		ab_fail("writing the tables: %s", strerror(errno));
	ab_results_free(&kept);
	free(pts);
	sq_discovery_free(&d);
	return failures || unrestored ? AB_EXIT_FAIL : AB_EXIT_OK;
}
