// SPDX-License-Identifier: GPL-2.0
/*
 * ddpar's coreutils dd client (--dd), as the post ran it: N dd processes
 * (if=/dev/zero of=w<i>, or if=r<i> of=/dev/null), exec'd with an argument
 * vector, no shell, pinned like the built-in workers and let go together by
 * the start barrier just before exec. Throughput is the bytes moved over the
 * wall time from the barrier to the last dd's exit.
 *
 * A calibration (also the warm-up) sizes count= so that each dd lasts about
 * --duration: a short batch is mostly fork and exec, so batches grow until
 * one runs for a quarter of the duration, then the count is extrapolated.
 *
 * Known limits: exec and exit fall inside the window (as they did for the
 * post's dd); no latency per call and no call count (dd is not ours), so
 * requests_per_s is the daemon's count; the exits are polled every 1 ms.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ddpar.h"

#define DDP_DD_CAL_BYTES (4u << 20)	/* per dd in the first calibration batch */
#define DDP_DD_CAL_BATCHES 6		/* at most; the last one is used whatever its length */

struct dd_batch {
	const struct ddp_client *c;
	uint64_t count;			/* blocks per dd */
};

/* dd number i (an ab_worker_fn, in its own process): wait at the barrier, then exec. */
static int dd_child(void *arg, int i)
{
	const struct dd_batch *b = arg;
	const struct ddp_client *c = b->c;
	char path[sizeof(c->d->mnt) + 16], in[sizeof(path) + 8], out[sizeof(path) + 8];
	char bs[64], count[64];

	snprintf(path, sizeof(path), DDP_FILE_FMT(c->pt->dir), c->d->mnt, i);
	snprintf(in, sizeof(in), "if=%s", c->pt->dir == DDP_WRITE ? "/dev/zero" : path);
	snprintf(out, sizeof(out), "of=%s", c->pt->dir == DDP_WRITE ? path : "/dev/null");
	snprintf(bs, sizeof(bs), "bs=%zu", c->set->bs);
	snprintf(count, sizeof(count), "count=%llu", (unsigned long long)b->count);
	char *const argv[] = { "dd", in, out, bs, count, "status=none", NULL };
	ab_barrier_arrive_wait(&c->sh->barrier);
	execvp(argv[0], argv);
	ab_msg("cannot run dd: %s", strerror(errno));
	return 127;
}

/* One batch of procs dd's, count blocks each; *ns: barrier to the last exit. */
static int batch(const struct ddp_client *c, uint64_t count, int measured, uint64_t *ns, char *why,
		 size_t len)
{
	const struct ab_common *cm = &c->set->common;
	struct dd_batch b = { c, count };
	struct ab_workers w;

	ab_barrier_init(&c->sh->barrier);
	if (ab_workers_start(&w, c->pt->procs, 0, NULL, cm->cpus_arg ? &cm->allowed : NULL, dd_child,
			     &b, why, len) < 0)
		return -1;
	ddp_probe_pids(c->probe, &w);
	if (measured)
		ddp_mon_tasks(c, NULL);	/* dd's exits fall inside the window: the daemon alone */
	if (ddp_barrier_wait(c, &w, why, len) < 0)
		return -1;
	if (measured) {
		ddp_probe_window_begin(c->probe);
		ab_cpumon_begin(c->mon);
	}
	uint64_t t0 = ab_now_ns();
	ab_barrier_open(&c->sh->barrier);
	/* Calibrated to last the duration: ten times that, plus slack for a slow exec. */
	int bad = ddp_reap(c, &w, t0 + (uint64_t)(10 * cm->duration * 1e9) + ab_scaled_ns(10 * AB_NS));
	*ns = ab_now_ns() - t0;
	if (measured) {
		ab_cpumon_end(c->mon, (double)*ns / 1e9);
		ddp_probe_window_end(c->probe);
	}
	if (bad)
		return ab_err(why, len, "%d dd process(es) failed%s", bad,
			      ab_daemon_alive(c->d) ? "" : " (the FUSE daemon died)");
	return 0;
}

int ddp_dd_run(const struct ddp_client *c, struct ddp_outcome *o, char *why, size_t len)
{
	double dur = c->set->common.duration;
	uint64_t bs = c->set->bs, procs = (uint64_t)c->pt->procs;
	uint64_t blocks = DDP_DD_CAL_BYTES / bs ? DDP_DD_CAL_BYTES / bs : 1, cal_blocks = 0, ns;
	struct ddp_dtotals d0, d1;

	for (int i = 1;; i++) {
		if (batch(c, blocks, 0, &ns, why, len) < 0)
			return -1;
		cal_blocks += blocks;
		if ((double)ns / 1e9 >= dur / 4 || i == DDP_DD_CAL_BATCHES)
			break;
		blocks = ddp_dd_grow(blocks, (double)ns / 1e9, dur);
	}
	uint64_t count = ddp_dd_count(blocks, (double)ns / 1e9, dur);

	ddp_daemon_totals(c->sh, c->pt->dir, &d0);
	if (batch(c, count, 1, &ns, why, len) < 0)
		return -1;
	ddp_daemon_totals(c->sh, c->pt->dir, &d1);
	o->window_ns = ns;
	o->bytes = procs * count * bs;
	o->calls = 0;
	o->window = (struct ddp_dtotals){ d1.req - d0.req, d1.bytes - d0.bytes, d1.ns - d0.ns,
				     d1.cpu_ns - d0.cpu_ns, d1.timed - d0.timed };
	/* Every batch counts toward the byte check, the calibration's included. */
	o->client_bytes = o->bytes + procs * cal_blocks * bs;
	o->client_calls = 0;
	return 0;
}
