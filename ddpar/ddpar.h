/*
 * ddpar: the interfaces between its files.
 *   fs.c    the sink FUSE filesystem (daemon process): writes are counted and
 *           discarded, reads return a pattern, every file is opened direct_io
 *   main.c  options, the sweep, writer/reader processes (or coreutils dd),
 *           timing, kernel statistics, output
 * Parent, workers and daemon share one struct ddp_shared (ab_shm_alloc, made
 * before fork): the parent flips the phase and samples counters; workers and
 * daemon threads only bump their own counters.
 */
#ifndef DDP_H
#define DDP_H

#include <stdatomic.h>
#include <stdint.h>

#include "cpuset.h"
#include "fusedaemon.h"
#include "pin.h"
#include "stats.h"

#define DDP_MAX_PROCS 128		/* writers or readers per point */
#define DDP_DSLOTS 128			/* daemon counter slots, one per daemon thread */
#define DDP_MAX_WRITE_LIMIT (1024 * 1024)	/* libfuse 3.14's buffer: 256 pages */
#define DDP_FILE_SIZE (1ull << 50)	/* reported size: reads never reach EOF */

enum ddp_phase { DDP_WARMUP, DDP_MEASURE, DDP_STOP };
enum ddp_dir { DDP_WRITE, DDP_READ };

/*
 * Counters of one daemon thread. A thread takes a slot on its first request;
 * past DDP_DSLOTS threads share the last one. The adds are atomic either way,
 * so the totals are exact.
 */
struct ddp_dslot {
	_Atomic uint64_t req[2];	/* indexed by enum ddp_dir */
	_Atomic uint64_t bytes[2];
	_Atomic uint64_t ns[2];		/* time inside the handler, reply included */
} __attribute__((aligned(AB_CACHELINE)));

/* Per worker: written by that worker only, read by the parent. */
struct ddp_worker {
	struct ab_counter bytes;	/* bytes moved since the gate opened */
	struct ab_counter ops;		/* read() or write() calls completed */
	_Atomic int err;		/* errno of the call that failed, 0 if none */
	struct ab_hist lat;		/* ns per call, measured interval only */
} __attribute__((aligned(AB_CACHELINE)));

struct ddp_shared {
	_Atomic int phase __attribute__((aligned(AB_CACHELINE)));	/* enum ddp_phase */
	struct ab_gate gate __attribute__((aligned(AB_CACHELINE)));
	_Atomic uint32_t nslots __attribute__((aligned(AB_CACHELINE)));
	struct ddp_dslot dslot[DDP_DSLOTS];
	struct ddp_worker w[DDP_MAX_PROCS];
};

/* Names of the files on the mount: worker i writes "w<i>" and reads "r<i>". */
#define DDP_FILE_FMT(dir) ((dir) == DDP_WRITE ? "%s/w%d" : "%s/r%d")

/* fs.c: the daemon. arg is a struct ddp_daemon_args; run as an ab_daemon_fn. */
struct ddp_daemon_args {
	struct ddp_shared *sh;
	enum ab_fuse_loop loop;
	int max_threads;		/* 0: libfuse's default */
	unsigned max_write;		/* bytes, <= DDP_MAX_WRITE_LIMIT */
	int pinned;			/* pin the whole process (all threads) to cpus */
	struct ab_cpuset cpus;
	/* Fault injection for tests: abort() on request number crash_after (0: never);
	 * miscount: count one byte too many per write, so the byte check must fail. */
	uint64_t crash_after;
	int miscount;
};
int ddp_daemon_run(void *arg, const char *mnt);

/* Sum of the daemon's counters for one direction. */
struct ddp_dtotals {
	uint64_t req, bytes, ns;
};
void ddp_daemon_totals(const struct ddp_shared *sh, enum ddp_dir dir, struct ddp_dtotals *t);

#endif
