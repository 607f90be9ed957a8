/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ddpar: the interfaces between its files.
 *   main.c         options and settings, the sweep (each timed repetition
 *                  followed by its instrumented one), the server table, output
 *   measure.c      one repetition of one point: a fresh server, the client,
 *                  the checks, the records; kernel statistics for
 *                  instrumented ones
 *   loop.c         the built-in client: worker processes streaming blocks,
 *                  and the parent timing its window (the measured loop)
 *   dd.c           the coreutils dd client: calibration, then one timed batch
 *   probe.c        an instrumented repetition's kernel statistics: the
 *                  processes followed and the window's edges
 *   fs.c           the libfuse sink filesystem (daemon process)
 *   rawsink.c      the same sink on lib/fuse/fsrv, for --transport dev, uring and
 *                  passthrough
 *   passthrough.c  passthrough's backing files and their byte check
 *   report*.c      the report's descriptor: tables (report.c), --daemon-wait
 *                  (report_wait.c), reading (report_reading.c), plots
 *                  (report_plot.c); what they share is report_data.c's, declared
 *                  in report_i.h
 * Parent, workers and daemon share one struct ddp_shared (ab_shm_alloc, made
 * before fork): the parent flips the phase and samples counters; workers and
 * daemon threads only bump their own counters.
 *
 * The arithmetic that turns counts into numbers or into a failed point is
 * inline here: the unit tests reach it through this header (the Makefile links
 * them with lib/ only).
 */
#ifndef DDP_H
#define DDP_H

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "sys/common.h"
#include "sys/cpuset.h"
#include "fuse/fsrv.h"
#include "fuse/fusedaemon.h"
#include "kstats/breakdown.h"
#include "kstats/cpumon.h"
#include "kstats/kstats.h"
#include "sys/opts.h"
#include "sys/barrier.h"
#include "sys/clock.h"
#include "sys/proc.h"
#include "record/record.h"
#include "record/stats.h"

#define DDP_MAX_PROCS 128		/* writers or readers per point */
#define DDP_DSLOTS 128			/* daemon counter slots, one per daemon thread */
#define DDP_MAX_WRITE_LIMIT (1024 * 1024)	/* libfuse 3.14's buffer: 256 pages */
#define DDP_FILE_SIZE (1ull << 50)	/* reported size: reads never reach EOF */
#define DDP_DEFAULT_BS (128 * 1024)
/* Waits that a slow (emulated) machine stretches: each goes through ab_scaled_ns. */
#define DDP_MOUNT_NS (5 * AB_NS)	/* a fresh daemon mounts */
#define DDP_BARRIER_NS (10 * AB_NS)	/* workers open their files and reach the barrier */
#define DDP_STOP_NS (5 * AB_NS)		/* workers end after STOP; a daemon unmounts */
#define DDP_STALL_NS (30 * AB_NS)	/* the parent overslept its window by this much */

enum ddp_phase { DDP_WARMUP, DDP_MEASURE, DDP_STOP };
enum ddp_dir { DDP_WRITE, DDP_READ };
enum ddp_mode { DDP_MODE_WRITE, DDP_MODE_READ, DDP_MODE_BOTH };
enum ddp_clone { DDP_CLONE_OFF, DDP_CLONE_ON, DDP_CLONE_BOTH };
enum ddp_daemon { DDP_DAEMON_SINGLE, DDP_DAEMON_MULTI };
/* --transport, in the order of its choices (docs/transports.md). */
enum ddp_transport { DDP_TR_LIBFUSE, DDP_TR_DEV, DDP_TR_URING, DDP_TR_PASSTHROUGH, DDP_TR_COUNT };
/* passthrough: the backing files' size; workers go back to offset 0 there. */
#define DDP_PT_SPAN (16ull << 20)

/* Record names, shared by measure.c (writes them) and report.c (renders them). */
#define DDP_M_WRITE "write_MB_per_s"
#define DDP_M_READ "read_MB_per_s"
#define DDP_M_REQS "requests_per_s"
#define DDP_M_P50 "lat_p50_us"
#define DDP_M_P99 "lat_p99_us"
#define DDP_M_DAEMON_US "daemon_us_per_req"
#define DDP_M_KERNEL_US "kernel_us_per_req"
#define DDP_M_SPIN_US "spin_us_per_req"
#define DDP_M_CLIENT_BYTES "client_bytes"
#define DDP_M_DAEMON_BYTES "daemon_bytes"
/* lib/fuse/fsrv's serving threads (dev, uring): their CPU time over the window's requests */
#define DDP_M_SERVER_CPU "server_cpu_us_per_req"
/* Each metric's name, unit and direction, one table (report.c: the descriptor's),
 * which measure.c records by: DDP_NM of them, then a NULL name. */
enum ddp_metric {
	DDP_WRITE_MBPS, DDP_READ_MBPS, DDP_REQS, DDP_P50, DDP_P99, DDP_DAEMON_US, DDP_KERNEL_US,
	DDP_SPIN_US, DDP_SERVER_CPU, DDP_CLIENT_BYTES, DDP_DAEMON_BYTES, DDP_NM
};
struct ab_metric_desc;
extern const struct ab_metric_desc *const ddp_metrics;

/* ---- shared memory ---- */

/*
 * Counters of one daemon thread. A thread takes a slot on its first request;
 * past DDP_DSLOTS threads share the last one. The adds are atomic either way,
 * so the totals are exact.
 */
struct ddp_dslot {
	_Atomic uint64_t req[2];	/* indexed by enum ddp_dir */
	_Atomic uint64_t bytes[2];
	_Atomic uint64_t ns[2];		/* time inside the timed handlers, reply included */
	_Atomic uint64_t timed[2];	/* the requests timed: all, or one in 64 (ddp_timed) */
} __attribute__((aligned(AB_CACHELINE)));

/*
 * Whether the daemon times this request: every one where a clock read is a vDSO
 * read, one in AB_CLOCK_STRIDE_DEAR where it enters the kernel, so that two
 * syscalls per request stay out of the window (sys/clock.h; main() decides
 * before anything forks).
 */
static inline int ddp_timed(struct ddp_dslot *s, int dir)
{
	return atomic_load_explicit(&s->req[dir], memory_order_relaxed) % ab_lat_stride() == 0;
}
static inline void ddp_time_add(struct ddp_dslot *s, int dir, uint64_t t0)
{
	atomic_fetch_add_explicit(&s->ns[dir], ab_now_ns() - t0, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->timed[dir], 1, memory_order_relaxed);
}

/* Per worker: written by that worker only, read by the parent. */
struct ddp_worker {
	struct ab_counter bytes;	/* bytes moved since the barrier opened */
	struct ab_counter calls;	/* read() or write() calls completed */
	_Atomic int err;		/* errno of the call that failed, 0 if none */
	struct ab_hist lat;		/* ns per call, measured window only */
} __attribute__((aligned(AB_CACHELINE)));

struct ddp_shared {
	_Atomic int phase __attribute__((aligned(AB_CACHELINE)));	/* enum ddp_phase */
	struct ab_barrier barrier __attribute__((aligned(AB_CACHELINE)));
	_Atomic uint32_t nslots __attribute__((aligned(AB_CACHELINE)));
	struct ddp_dslot dslot[DDP_DSLOTS];
	struct ab_fsrv_cpu srv_cpu[DDP_DSLOTS];	/* lib/fuse/fsrv's serving threads' CPU time */
	struct ddp_worker w[DDP_MAX_PROCS];
};

/* Names of the files on the mount: worker i writes "w<i>" and reads "r<i>". */
#define DDP_FILE_FMT(dir) ((dir) == DDP_WRITE ? "%s/w%d" : "%s/r%d")

/* Inodes of both sink filesystems (fs.c, rawsink.c): w<i> is 2 + 2i, r<i> is 3 + 2i. */
enum { DDP_INO_ROOT = 1, DDP_INO_FIRST = 2 };
static inline uint64_t ddp_ino(enum ddp_dir dir, int idx)
{
	return DDP_INO_FIRST + 2 * (uint64_t)idx + (dir == DDP_READ);
}
static inline int ddp_is_file(uint64_t ino)
{
	return ino >= DDP_INO_FIRST && ino < DDP_INO_FIRST + 2 * DDP_MAX_PROCS;
}
static inline enum ddp_dir ddp_ino_dir(uint64_t ino)
{
	return (ino - DDP_INO_FIRST) % 2 ? DDP_READ : DDP_WRITE;
}
/* "w12" -> write file 12; -1 for any other name. */
static inline int ddp_parse_name(const char *name, enum ddp_dir *dir, int *idx)
{
	long v = 0;
	const char *p = name + 1;

	if ((name[0] != 'w' && name[0] != 'r') || *p < '0' || *p > '9' || (*p == '0' && p[1]))
		return -1;
	for (; *p >= '0' && *p <= '9' && v < DDP_MAX_PROCS; p++)
		v = v * 10 + (*p - '0');
	if (*p || v >= DDP_MAX_PROCS)
		return -1;
	*dir = name[0] == 'w' ? DDP_WRITE : DDP_READ;
	*idx = (int)v;
	return 0;
}

/* Sum of the daemon's counters for one direction, and its serving threads' CPU
 * time (lib/fuse/fsrv only: every direction). */
struct ddp_dtotals {
	uint64_t req, bytes, ns, cpu_ns, timed;
};
void ddp_daemon_totals(const struct ddp_shared *sh, enum ddp_dir dir, struct ddp_dtotals *t);

/* ---- settings and points ---- */

struct ddp_server;

/* Everything a run is told: the options table fills the first part (main.c). */
struct ddp_settings {
	int mode;			/* enum ddp_mode */
	struct ab_intlist procs;	/* n == 0: the default sweep */
	int clone_fd;			/* enum ddp_clone */
	int daemon;			/* enum ddp_daemon */
	int threads;			/* most daemon threads; 0: libfuse's default */
	size_t bs;
	size_t max_write;		/* as given; 0: 128 KiB, or bs if larger */
	int dd;
	int max_background;		/* 0: leave the connection's value */
	int congestion;
	int kstats;			/* enum ab_kstats_mode */
	int transport;			/* enum ddp_transport */
	int uring_cpu;			/* enum ab_fsrv_uring_cpu (--transport uring only) */
	const char *daemon_wait;	/* --daemon-wait as given (dev, uring only); NULL: block */
	struct ab_fsrv_wait_cfg wait;	/* ... parsed */
	struct ab_common common;	/* --duration --repeat --cpus --format --quiet */
	/* derived */
	size_t conn_max_write;		/* the max_write the server announces */
	const struct ddp_server *server;
	char backing_dir[4096];		/* passthrough: the backing files' private directory */
	uint64_t crash_after;		/* test hook: the daemon aborts on this request (0: never) */
	int miscount;			/* test hook: the daemon counts a byte too many per write */
};

/* One repetition of one point. */
struct ddp_point {
	enum ddp_dir dir;
	int procs;
	int clone;			/* 0 off, 1 on */
	int rep;			/* from 0 */
	int instrumented;		/* probes attached: writes the kernel_* records alone */
};

/* A server: start one for pt on a private mountpoint, counting into sh->dslot.
 * 0, or -1 with a reason in err (nothing left mounted). */
struct ddp_server {
	const char *name;
	int (*start)(struct ab_daemon *d, const struct ddp_settings *s, const struct ddp_point *pt,
		     struct ddp_shared *sh, char *err, size_t errlen);
};
/* fs.c: the libfuse low-level sink. */
int ddp_libfuse_start(struct ab_daemon *d, const struct ddp_settings *s, const struct ddp_point *pt,
		      struct ddp_shared *sh, char *err, size_t errlen);

/* rawsink.c: the sink on lib/fuse/fsrv (--transport dev, uring, passthrough). */
struct ddp_raw_args {
	struct ddp_shared *sh;
	int transport;			/* enum ddp_transport */
	int uring_cpu;			/* enum ab_fsrv_uring_cpu */
	struct ab_fsrv_wait_cfg wait;	/* how its threads wait for requests */
	int threads, clone_fd, miscount, passthrough;
	uint32_t max_write;
	struct ab_cpuset cpus;		/* empty: every allowed CPU */
	char backing_dir[4096];
};
int ddp_raw_start(struct ab_daemon *d, const struct ddp_settings *s, const struct ddp_point *pt,
		  struct ddp_shared *sh, char *err, size_t errlen);
/* passthrough.c: the backing directory and its pattern file (parent), and the checks. */
int ddp_backing_make(struct ddp_settings *s, char *why, size_t len);
void ddp_backing_remove(const struct ddp_settings *s);
/* After a passthrough write point: every w<i> written by a worker holds min(its bytes,
 * DDP_PT_SPAN) bytes of 'x'. 0, or -1 with why. */
int ddp_backing_check(const struct ddp_settings *s, const struct ddp_shared *sh, int procs,
		      char *why, size_t len);

/* The bytes at file offset off of a read file (every bs block the same: what the sinks return). */
static inline void ddp_fill_pattern(char *buf, uint64_t off, size_t len, size_t bs)
{
	for (size_t k = 0; k < len; k++)
		buf[k] = (char)('a' + ((off + k) % bs) % 26);
}

/* Kernel statistics of an instrumented repetition (set up by measure.c, its window marked
 * through probe.c); NULL in a timed one. */
struct ddp_probe {
	struct ab_kstats *ks;
	int pid_err;			/* errno of a pid the map refused: no spinlock figure */
	int have;			/* res holds the window's statistics */
	struct ab_kstats_result res;
	struct ab_breakdown_result *brk;	/* the window's request breakdown; NULL: not followed */
	int brk_on, have_brk;
};
/* probe.c: follow pid (its spinlock waits); a pid the map refuses is kept in pid_err. */
void ddp_probe_add(struct ddp_probe *p, pid_t pid);
void ddp_probe_pids(struct ddp_probe *p, const struct ab_workers *w);
void ddp_probe_window_begin(struct ddp_probe *p);
void ddp_probe_window_end(struct ddp_probe *p);

/* What one repetition measured. The client fills all but total. */
struct ddp_outcome {
	uint64_t window_ns;		/* the measured window */
	uint64_t bytes, calls;		/* moved by the clients in it (calls: 0 for dd) */
	struct ddp_dtotals window;	/* what the daemon counted in it */
	uint64_t client_bytes;		/* moved over the whole repetition */
	uint64_t client_calls;		/* calls over the whole repetition; 0: not known (dd) */
	struct ddp_dtotals total;	/* the daemon's count, read once it is unmounted */
	struct ab_hist lat;		/* per call in the window, built-in client only */
};

/* What a client needs for one repetition. */
struct ddp_client {
	const struct ddp_settings *set;
	const struct ddp_point *pt;
	struct ddp_shared *sh;
	struct ab_daemon *d;
	struct ddp_probe *probe;	/* NULL: timed repetition */
	struct ab_cpumon *mon;		/* what the CPUs did in a timed window; NULL: not counted */
};
/* loop.c and dd.c: run one repetition. 0, or -1 with a reason in why; either way
 * every client process is gone when it returns. */
int ddp_loop_run(const struct ddp_client *c, struct ddp_outcome *o, char *why, size_t len);
int ddp_dd_run(const struct ddp_client *c, struct ddp_outcome *o, char *why, size_t len);
/* The monitor counts the migrations and switches of the daemon and these clients (w NULL: none). */
void ddp_mon_tasks(const struct ddp_client *c, const struct ab_workers *w);
/* Started workers, waited for at the barrier: 0, or -1 with why (workers reaped). */
int ddp_barrier_wait(const struct ddp_client *c, struct ab_workers *w, char *why, size_t len);
/* Reap the clients by deadline_ns, aborting the FUSE connection if they hang. */
int ddp_reap(const struct ddp_client *c, struct ab_workers *w, uint64_t deadline_ns);

/* measure.c: one repetition of one point, records included. 0, or -1 after a message. */
int ddp_measure(const struct ddp_settings *s, const struct ddp_point *pt, struct ddp_shared *sh,
		  struct ab_kstats *ks, struct ab_out *out);

/* ---- the arithmetic ---- */

/* --procs default: 1, 2, 4, .. up to max(8, 2 x CPUs) (that last one even when it is no
 * power of two), at most DDP_MAX_PROCS. Returns how many went into procs. */
static inline int ddp_default_procs(int cpus, int procs[AB_INTLIST_MAX])
{
	int top = 2 * cpus > 8 ? 2 * cpus : 8, n = 0;

	if (top > DDP_MAX_PROCS)
		top = DDP_MAX_PROCS;
	for (int p = 1; p <= top; p *= 2)
		procs[n++] = p;
	if (procs[n - 1] != top)
		procs[n++] = top;
	return n;
}

/*
 * May the numbers of this repetition be written? 0, or -1 with why: a window
 * too short to time, nothing moved in it, or the daemon's counts disagreeing
 * with the clients' (every request answered and unmounted by now, so they must
 * agree exactly; direct_io and bs <= max_write make one call one request).
 */
static inline int ddp_judge(const struct ddp_outcome *o, char *why, size_t len)
{
	double sec = (double)o->window_ns / 1e9;

	if (o->window_ns < AB_MIN_WINDOW_NS)
		return ab_err(why, len, "the measured window was %.6f s, too short to time", sec);
	if (o->bytes == 0)
		return ab_err(why, len, "no byte moved in the measured %.3f s", sec);
	if (o->total.bytes != o->client_bytes)
		return ab_err(why, len, "the daemon counted %llu bytes, the clients moved %llu",
			      (unsigned long long)o->total.bytes, (unsigned long long)o->client_bytes);
	if (o->client_calls && o->total.req != o->client_calls)
		return ab_err(why, len, "the daemon answered %llu requests for %llu calls",
			      (unsigned long long)o->total.req, (unsigned long long)o->client_calls);
	return 0;
}

/* The numbers of a repetition that passed ddp_judge (NAN: not measured). */
struct ddp_numbers {
	double mb_per_s, req_per_s, p50_us, p99_us, daemon_us, server_cpu_us;
};
static inline void ddp_numbers(const struct ddp_outcome *o, struct ddp_numbers *n)
{
	double sec = (double)o->window_ns / 1e9;
	int timed_calls = ab_hist_count(&o->lat) > 0;

	n->mb_per_s = (double)o->bytes / 1e6 / sec;
	/* The clients' calls; dd's are not counted, so then the daemon's requests. */
	n->req_per_s = (double)(o->calls ? o->calls : o->window.req) / sec;
	n->daemon_us = o->window.timed ? (double)o->window.ns / (double)o->window.timed / 1000.0
				       : NAN;
	n->server_cpu_us = o->window.req ? (double)o->window.cpu_ns / (double)o->window.req / 1000.0 : NAN;
	n->p50_us = timed_calls ? ab_hist_percentile(&o->lat, 50) / 1000.0 : NAN;
	n->p99_us = timed_calls ? ab_hist_percentile(&o->lat, 99) / 1000.0 : NAN;
}

/* Kernel time per request of one opcode and spinlock wait per request (us; NAN: none). */
static inline double ddp_kernel_us(const struct ab_kstats_result *r, int op)
{
	return r->op[op].count ? r->op[op].sum_ns / (double)r->op[op].count / 1000.0 : NAN;
}
static inline double ddp_spin_us(const struct ab_kstats_result *r)
{
	return r->requests ? r->spin_wait_ns / (double)r->requests / 1000.0 : NAN;
}

/*
 * dd calibration: a batch of blocks per dd took sec. Next batch size while
 * the batch is shorter than a quarter of the duration (a short batch is
 * mostly fork and exec), and the count that lasts duration once it is not.
 */
static inline uint64_t ddp_dd_grow(uint64_t blocks, double sec, double duration)
{
	double grow = ceil(duration / 4 / (sec > 1e-3 ? sec : 1e-3));

	return blocks * (grow < 2 ? 2 : grow > 64 ? 64 : (uint64_t)grow);
}
static inline uint64_t ddp_dd_count(uint64_t blocks, double sec, double duration)
{
	double c = ceil(duration * (double)blocks / (sec > 1e-6 ? sec : 1e-6));

	return c < 1 ? 1 : (uint64_t)c;
}

#endif
