// SPDX-License-Identifier: GPL-2.0
/*
 * ddpar's built-in client, the measured loop: N worker processes (pinned
 * before they start, lib/sys/proc), each streaming one block per read() or
 * write() to its own file on the mount, as dd bs=128K does, and counting on
 * its own cache line; the start barrier lets them go together. The parent times
 * the window with CLOCK_MONOTONIC and samples the counters at its ends.
 *
 * Workers read the clock around each call: that is what lat_p50_us and
 * lat_p99_us measure (two vDSO reads, ~50 ns, against a FUSE round trip of
 * tens of us for 128 KiB). Where the clock has no vDSO those reads are two
 * syscalls per call inside the window, so one call in AB_CLOCK_STRIDE_DEAR is
 * timed there (sys/clock.h; the parent decides before the workers fork).
 *
 * Known limits: the warm-up is min(duration / 4, 0.25 s); calls started in
 * the warm-up and ended in the window count toward bytes but not latency; a
 * worker blocked on a hung daemon is freed by aborting the FUSE connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddpar.h"
#include "sys/clock.h"

/*
 * The measured loop: one block per call, counted; a call's time is kept only
 * inside the window. span: passthrough's backing files end there, so the
 * worker goes back to offset 0 (0: the sinks' files never end).
 */
static int stream(int fd, enum ddp_dir dir, char *buf, size_t bs, uint64_t span,
		  struct ddp_worker *w, _Atomic int *phase, uint64_t *pos)
{
	unsigned every = ab_lat_stride();	/* measured by the parent, before the fork */
	int ph;

	for (uint64_t n = 0; (ph = atomic_load_explicit(phase, memory_order_relaxed)) != DDP_STOP;
	     n++) {
		if (span && *pos + bs > span) {
			if (lseek(fd, 0, SEEK_SET) < 0)
				return errno;
			*pos = 0;
		}
		int timed = n % every == 0;
		uint64_t t0 = timed ? ab_now_ns() : 0;
		ssize_t r = dir == DDP_WRITE ? write(fd, buf, bs) : read(fd, buf, bs);
		uint64_t t1 = timed ? ab_now_ns() : 0;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		ab_counter_add(&w->bytes, (uint64_t)r);
		ab_counter_inc(&w->calls);
		if ((size_t)r != bs)
			return r == 0 ? ENODATA : EIO;	/* EOF or a short transfer: never expected */
		*pos += bs;
		if (ph == DDP_MEASURE && timed)
			ab_hist_add(&w->lat, t1 - t0);
	}
	return 0;
}

/* A reader's last block (at pos - bs) holds the pattern: the data path is right. */
static int check_last_block(const char *buf, size_t bs, uint64_t pos)
{
	char *want = malloc(bs);
	int bad = !want;

	if (want && pos >= bs) {
		ddp_fill_pattern(want, pos - bs, bs, bs);
		bad = memcmp(want, buf, bs) != 0;
	}
	free(want);
	return bad ? EILSEQ : 0;
}

/* Worker i (an ab_worker_fn, in its own process). */
static int worker(void *arg, int i)
{
	const struct ddp_client *c = arg;
	struct ddp_worker *w = &c->sh->w[i];
	size_t bs = c->set->bs;
	char path[sizeof(c->d->mnt) + 16];
	int err = 0;

	snprintf(path, sizeof(path), DDP_FILE_FMT(c->pt->dir), c->d->mnt, i);
	char *buf = aligned_alloc(4096, bs);
	int fd = open(path,
		      c->pt->dir == DDP_WRITE ? O_WRONLY | O_CREAT | O_CLOEXEC : O_RDONLY | O_CLOEXEC,
		      0644);
	if (!buf)
		err = ENOMEM;
	else if (fd < 0)
		err = errno;
	else
		memset(buf, 'x', bs);
	/* Arrive even after a failure, so the parent never waits for us in vain. */
	ab_barrier_arrive_wait(&c->sh->barrier);
	uint64_t pos = 0, span = c->set->transport == DDP_TR_PASSTHROUGH ? DDP_PT_SPAN : 0;
	if (!err)
		err = stream(fd, c->pt->dir, buf, bs, span, w, &c->sh->phase, &pos);
	if (!err && c->pt->dir == DDP_READ && pos)
		err = check_last_block(buf, bs, pos);
	atomic_store(&w->err, err);
	return err ? 1 : 0;
}

struct watched {
	const struct ddp_client *c;
	const struct ab_workers *w;
};

/* ab_watch's check: the daemon runs and no worker has ended. */
static int healthy(void *arg, char *why, size_t len)
{
	const struct watched *wa = arg;
	struct ab_daemon *d = wa->c->d;
	int i = ab_workers_ended(wa->w);

	if (!ab_daemon_alive(d))
		return ab_err(why, len, "the FUSE daemon (pid %d) died during the run", (int)d->pid);
	if (i < 0)
		return 0;
	int e = atomic_load(&wa->c->sh->w[i].err);
	const char *what = e ? strerror(e) : "ended before the end of the window";
	/* A dying daemon closes /dev/fuse (workers see ENOTCONN) before it can be reaped. */
	ab_sleep_ns(ab_scaled_ns(50 * 1000000ull));
	if (!ab_daemon_alive(d))
		return ab_err(why, len, "the FUSE daemon (pid %d) died during the run (worker %d: %s)",
			      (int)d->pid, i, what);
	return ab_err(why, len, "worker %d: %s", i, what);
}

static int watch(const struct ddp_client *c, const struct ab_workers *w, uint64_t until_ns,
		 char *why, size_t len)
{
	struct watched wa = { c, w };

	return ab_watch(until_ns, until_ns + ab_scaled_ns(DDP_STALL_NS), healthy, &wa, why, len);
}

static void sample(const struct ddp_shared *sh, int n, enum ddp_dir dir, uint64_t *bytes,
		   uint64_t *calls, struct ddp_dtotals *daemon)
{
	*bytes = *calls = 0;
	for (int i = 0; i < n; i++) {
		*bytes += ab_counter_read(&sh->w[i].bytes);
		*calls += ab_counter_read(&sh->w[i].calls);
	}
	ddp_daemon_totals(sh, dir, daemon);
}

/* Warm-up, then the window: what moved in it, by the clients and by the daemon. */
static int measure(const struct ddp_client *c, const struct ab_workers *w, struct ddp_outcome *o,
		   char *why, size_t len)
{
	struct ddp_shared *sh = c->sh;
	double dur = c->set->common.duration, warmup = dur / 4 < 0.25 ? dur / 4 : 0.25;
	uint64_t b0, b1, c0, c1;
	struct ddp_dtotals d0, d1;

	if (watch(c, w, ab_now_ns() + (uint64_t)(warmup * 1e9), why, len) < 0)
		return -1;
	ddp_probe_window_begin(c->probe);
	ab_cpumon_begin(c->mon);	/* its reads fall outside the clock reads */
	atomic_store(&sh->phase, DDP_MEASURE);
	uint64_t t0 = ab_now_ns();
	sample(sh, c->pt->procs, c->pt->dir, &b0, &c0, &d0);
	if (watch(c, w, t0 + (uint64_t)(dur * 1e9), why, len) < 0)
		return -1;
	uint64_t t1 = ab_now_ns();
	sample(sh, c->pt->procs, c->pt->dir, &b1, &c1, &d1);
	ab_cpumon_end(c->mon, (double)(t1 - t0) / 1e9);
	ddp_probe_window_end(c->probe);

	o->window_ns = t1 - t0;
	o->bytes = b1 - b0;
	o->calls = c1 - c0;
	o->window = (struct ddp_dtotals){ d1.req - d0.req, d1.bytes - d0.bytes, d1.ns - d0.ns,
				     d1.cpu_ns - d0.cpu_ns, d1.timed - d0.timed };
	return 0;
}

/* The first worker's error after a failed reap. */
static int worker_error(const struct ddp_client *c, char *why, size_t len)
{
	for (int i = 0; i < c->pt->procs; i++) {
		int e = atomic_load(&c->sh->w[i].err);
		if (e)
			return ab_err(why, len, "worker %d: %s", i, strerror(e));
	}
	return ab_err(why, len, "a worker failed");
}

int ddp_loop_run(const struct ddp_client *c, struct ddp_outcome *o, char *why, size_t len)
{
	const struct ab_common *cm = &c->set->common;
	struct ddp_shared *sh = c->sh;
	struct ab_workers w;

	ab_barrier_init(&sh->barrier);
	ab_lat_stride();	/* the workers inherit the answer */
	if (ab_workers_start(&w, c->pt->procs, 0, NULL, cm->cpus_arg ? &cm->allowed : NULL, worker,
			     (void *)c, why, len) < 0)
		return -1;
	ddp_probe_pids(c->probe, &w);
	ddp_mon_tasks(c, &w);
	if (ddp_barrier_wait(c, &w, why, len) < 0)
		return -1;
	ab_barrier_open(&sh->barrier);
	int rc = measure(c, &w, o, why, len);

	/* Workers end at STOP, or on ENOTCONN if the daemon died. */
	atomic_store(&sh->phase, DDP_STOP);
	if (ddp_reap(c, &w, ab_now_ns() + ab_scaled_ns(DDP_STOP_NS)) && rc == 0)
		rc = worker_error(c, why, len);
	/* Every worker is gone: their counts are final. */
	uint64_t bytes, calls;
	struct ddp_dtotals unused;
	sample(sh, c->pt->procs, c->pt->dir, &bytes, &calls, &unused);
	o->client_bytes = bytes;
	o->client_calls = calls;
	for (int i = 0; i < c->pt->procs; i++)
		ab_hist_merge(&o->lat, &sh->w[i].lat);
	return rc;
}

/* ---- shared with dd.c: the monitor's tasks, the barrier and the reaping ---- */

void ddp_mon_tasks(const struct ddp_client *c, const struct ab_workers *w)
{
	for (int i = 0; c->mon && w && i < w->started; i++)
		ab_cpumon_add_task(c->mon, w->pid[i]);
	if (c->mon && c->d->pid > 0)
		ab_cpumon_add_task(c->mon, c->d->pid);
}

int ddp_barrier_wait(const struct ddp_client *c, struct ab_workers *w, char *why, size_t len)
{
	uint64_t deadline = ab_now_ns() + ab_scaled_ns(DDP_BARRIER_NS);
	int ended;

	for (;;) {
		if (ab_barrier_wait_arrived(&c->sh->barrier, (unsigned)w->n, AB_POLL_NS) == 0)
			return 0;
		ended = ab_workers_ended(w);
		if (ended >= 0 || ab_interrupted || ab_now_ns() > deadline)
			break;
	}
	/* Nothing runs yet: kill them at once. */
	ab_workers_reap(w, 0, NULL, NULL);
	ab_workers_free(w);
	if (ab_interrupted)
		return ab_err(why, len, "interrupted by signal %d", (int)ab_interrupted);
	if (ended >= 0)
		return ab_err(why, len, "client %d of %d ended before the start barrier", ended, w->n);
	return ab_err(why, len, "%d clients did not reach the start barrier within %.0f s", w->n,
		      (double)ab_scaled_ns(DDP_BARRIER_NS) / 1e9);
}

static void abort_conn(void *arg)
{
	const struct ddp_client *c = arg;

	ab_msg("clients still running past their deadline: aborting FUSE connection %d", c->d->conn);
	ab_mnt_abort_conn(c->d->conn);
}

int ddp_reap(const struct ddp_client *c, struct ab_workers *w, uint64_t deadline_ns)
{
	int bad = ab_workers_reap(w, deadline_ns, abort_conn, (void *)c);

	if (w->gave_up)
		ab_msg("%d client process(es) stuck in the kernel were left behind", w->gave_up);
	ab_workers_free(w);
	return bad;
}
