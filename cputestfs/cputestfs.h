/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cputestfs: every interface between its files.
 *   main.c     options, placements, the sweep (timed and instrumented
 *              repetitions), records and the rendered tables
 *   measure.c  one repetition: start the server side and the clients, time
 *              the window, watch for a dead or hung side, collect the numbers
 *   loop.c     the measured loop each client process runs
 *   server.c   what clients call, one table entry per kind of server: the
 *              libfuse daemon, a kernel file, pipe servers
 *   pipes.c    the pipe ping-pong baseline: pipes and their server processes
 *   fs.c       the FUSE filesystem the libfuse daemon serves
 *   rawfs.c    the same filesystem on lib/fuse/fsrv (--transport dev, uring)
 *   report*.c  the report (lib/render descriptor), also linked into the harness:
 *              the posts' tables and the reading (report.c), what moves the
 *              ratios (report_levers.c, report_levers.h) and the split of other
 *              minus same (report_split.c, report_split.h; its figure
 *              report_split_plot.c), the posts that pulled those levers
 *              (report_pub.c, report_pub.h), the pipe beside the breakdown
 *              (report_pipe.c)
 * Parent, clients and servers share one struct ctf_shared (ab_shm_alloc, made
 * before any fork): the parent flips the phase and samples counters; clients
 * and servers only bump their own.
 *
 * The arithmetic is inline here so unit tests reach it through this header
 * (they link with lib/ only). Limits: a client's shared slot holds a 15 KiB
 * latency histogram, so --clients N maps about N x 16 KiB per repetition.
 */
#ifndef CTF_H
#define CTF_H

#include <linux/fuse.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "sys/cpuset.h"
#include "fuse/fsrv.h"
#include "fuse/fusedaemon.h"
#include "kstats/breakdown.h"
#include "kstats/kstats.h"
#include "sys/barrier.h"
#include "sys/proc.h"
#include "record/record.h"
#include "render/desc.h"
#include "record/stats.h"
#include "sys/topo.h"

#define CTF_FILE_NAME "cputest"	/* the file clients stat() on the mount */
#define CTF_LAT_EVERY 64	/* a client times one call in this many */

/* --baseline, in the order of its choices: which server clients call. */
enum ctf_baseline { CTF_BASE_FUSE, CTF_BASE_KERNEL, CTF_BASE_PIPE, CTF_BASE_COUNT };

/* --transport, in the order of its choices: the FUSE server (docs/transports.md). */
enum ctf_transport { CTF_TR_LIBFUSE, CTF_TR_DEV, CTF_TR_URING, CTF_TR_COUNT };

/* Settings of a run: filled by the options table (main.c), read everywhere else. */
struct ctf_settings {
	int transport;		/* enum ctf_transport (--baseline fuse only) */
	int uring_cpu;		/* enum ab_fsrv_uring_cpu (--transport uring only) */
	const char *daemon_wait;	/* --daemon-wait as given (dev, uring only); NULL: block */
	struct ab_fsrv_wait_cfg wait;	/* ... parsed */
	const char *placement;	/* comma-separated placement names */
	int daemon;		/* enum ab_fuse_loop */
	int clients;
	int baseline;		/* enum ctf_baseline */
	const char *mountpoint;	/* the user's empty directory, or NULL: a private one */
	int kstats;		/* enum ab_kstats_mode */
	double duration;	/* seconds of the measured window */
	int repeat;
	int quiet;
	int ncpus;		/* CPUs allowed (--cpus) */
};

/* One placement, resolved to CPUs: what a repetition runs where, and its record config. */
struct ctf_point {
	enum ab_placement placement;
	int *client_cpu;	/* client i runs on client_cpu[i] (-1: unpinned) */
	int *server_cpu;	/* and is served from server_cpu[i] (-1: unpinned) */
	int server_pinned;	/* the FUSE daemon is pinned to server_set */
	struct ab_cpuset server_set;
	char client_list[256], server_list[256];
	struct ab_config cfg;
};

/* ---- the numbers of one repetition (measure.c fills, main.c records) ---- */
/* Record names, shared by main.c (writes them) and report.c (renders them). */
#define CTF_M_STAT "stat_per_s"
#define CTF_M_SAME "same_cpu_pct"
#define CTF_M_OTHER "other_cpu_pct"
#define CTF_M_REQ "requests_per_stat"
#define CTF_M_P50 "latency_p50_ns"
#define CTF_M_P99 "latency_p99_ns"
#define CTF_M_KNS "kernel_ns_per_req"
#define CTF_M_KSAME "kernel_same_cpu_pct"
#define CTF_M_KREQ "kernel_requests"
#define CTF_M_DREQ "daemon_requests"
/* lib/fuse/fsrv's serving threads (dev, uring): their CPU time over the window's requests */
#define CTF_M_SCPU "server_cpu_us_per_req"

enum ctf_metric {
	CTF_STAT, CTF_SAME, CTF_OTHER, CTF_REQ, CTF_P50, CTF_P99, CTF_SCPU,	/* timed */
	CTF_KNS, CTF_KSAME, CTF_KREQ, CTF_DREQ,				/* instrumented */
	CTF_NM
};
#define CTF_FIRST_KERNEL CTF_KNS
/* Each metric's name, unit and direction, by enum ctf_metric (report.c: the descriptor's). */
extern const struct ab_metric_desc ctf_metrics[CTF_NM + 1];
struct ctf_result {
	double v[CTF_NM];
	int has[CTF_NM];
	struct ab_hist lat;		/* timed: the clients' calls (latency_* records, hist.csv) */
	int has_brk;			/* instrumented: the request breakdown (brk_* records) */
	struct ab_breakdown_metrics brk;
};

/*
 * The timed metrics of a window of ns nanoseconds in which clients completed
 * calls, same of them served on their own CPU, and the server side answered
 * requests. names_cpu 0 (a kernel file): no CPU share, no requests per call.
 */
static inline void ctf_window_metrics(uint64_t calls, uint64_t same, uint64_t requests, uint64_t ns,
				      int names_cpu, struct ctf_result *res)
{
	res->v[CTF_STAT] = (double)calls / ((double)ns / 1e9);
	res->v[CTF_SAME] = 100.0 * (double)same / (double)calls;
	res->v[CTF_OTHER] = 100.0 - res->v[CTF_SAME];
	res->v[CTF_REQ] = (double)requests / (double)calls;
	res->has[CTF_STAT] = 1;
	res->has[CTF_SAME] = res->has[CTF_OTHER] = res->has[CTF_REQ] = names_cpu;
}

/* The server threads' CPU time per request (us) of a window where they used cpu_ns
 * and answered requests; not written without a request. */
static inline void ctf_server_cpu(uint64_t cpu_ns, uint64_t requests, struct ctf_result *res)
{
	res->has[CTF_SCPU] = requests > 0;
	res->v[CTF_SCPU] = requests ? (double)cpu_ns / 1e3 / (double)requests : 0;
}

/* The FUSE requests stat() causes (the first LOOKUP, then GETATTR) and READDIR* for ls:
 * exactly the requests the daemon counts. */
static inline int ctf_counted_op(unsigned opcode)
{
	return opcode == FUSE_LOOKUP || opcode == FUSE_GETATTR || opcode == FUSE_READDIR ||
	       opcode == FUSE_READDIRPLUS;
}

/* Counted requests between two kstats snapshots (a NULL: since the reset): how many,
 * how many ended on the CPU that queued them, and their summed kernel time. */
static inline void ctf_kernel_delta(const struct ab_kstats_result *a,
				    const struct ab_kstats_result *b, uint64_t *n, uint64_t *same,
				    double *ns)
{
	*n = *same = 0;
	*ns = 0;
	for (unsigned op = 0; op < sizeof(b->op) / sizeof(b->op[0]); op++) {
		if (!ctf_counted_op(op))
			continue;
		*n += b->op[op].count - (a ? a->op[op].count : 0);
		*same += b->op[op].same_cpu - (a ? a->op[op].same_cpu : 0);
		*ns += b->op[op].sum_ns - (a ? a->op[op].sum_ns : 0);
	}
}

/* ---- shared memory ---- */
enum ctf_phase { CTF_WARMUP, CTF_MEASURE, CTF_STOP };
#define CTF_CPU_SLOTS 64	/* server threads past this many share slots (the sums stay exact) */

/* Per client: written by that client (and its pipe server), read by the parent. */
struct ctf_client_shm {
	_Atomic uint64_t seq;		/* odd while the client updates calls and same */
	struct ab_counter calls;	/* completed calls */
	struct ab_counter same;		/* ... served on the caller's CPU */
	struct ab_counter served;	/* pipe baseline: requests its server answered */
	_Atomic int err;		/* errno of the call that failed, 0 if none */
	struct ab_hist lat;		/* ns of one call in CTF_LAT_EVERY, measured window only */
} __attribute__((aligned(AB_CACHELINE)));

/*
 * calls and same as one consistent pair, so a call that completes while the
 * parent samples is in both counts or in neither (at a window's edges, in a
 * slow guest, a split count showed as 99.8% or requests_per_stat 0.96).
 */
static inline void ctf_count_call(struct ctf_client_shm *me, int same)
{
	uint64_t s = atomic_load_explicit(&me->seq, memory_order_relaxed);

	atomic_store_explicit(&me->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	if (same)
		ab_counter_inc(&me->same);
	ab_counter_inc(&me->calls);
	atomic_store_explicit(&me->seq, s + 2, memory_order_release);
}

/* The parent's side: retries while the client is mid-update; a client that
 * died there (seq odd for good) is read as it is after a bounded number of tries. */
static inline void ctf_read_calls(const struct ctf_client_shm *c, uint64_t *calls, uint64_t *same)
{
	struct ctf_client_shm *m = (struct ctf_client_shm *)c;
	uint64_t s0, s1;

	for (int tries = 0;; tries++) {
		s0 = atomic_load_explicit(&m->seq, memory_order_acquire);
		*calls = ab_counter_read(&m->calls);
		*same = ab_counter_read(&m->same);
		atomic_thread_fence(memory_order_acquire);
		s1 = atomic_load_explicit(&m->seq, memory_order_relaxed);
		if ((s0 == s1 && !(s0 & 1)) || tries == 100000)
			return;
	}
}

struct ctf_shared {
	_Atomic int phase __attribute__((aligned(AB_CACHELINE)));	/* enum ctf_phase */
	struct ab_barrier barrier __attribute__((aligned(AB_CACHELINE)));
	struct ab_counter requests;	/* FUSE daemon: requests served, all its threads */
	struct ab_fsrv_cpu srv_cpu[CTF_CPU_SLOTS];	/* lib/fuse/fsrv's serving threads' CPU */
	int time_every;			/* instrumented: clients time every call in the window, for
					 * the breakdown's check (lat is not recorded then) */
	struct ctf_client_shm client[];
};

/*
 * The served CPU travels in st_blocks as CPU + 1 (0: unknown). st_blocks, unlike
 * st_size or st_mtime, makes the kernel drop no page cache when it changes, and
 * the inode number stays stable.
 */
static inline blkcnt_t ctf_encode_cpu(int cpu)
{
	return cpu >= 0 ? (blkcnt_t)cpu + 1 : 0;
}
static inline int ctf_served_cpu(const struct stat *st)
{
	return (int)st->st_blocks - 1;
}

/* Warm-up before the measured window: 20% of it, within [50 ms, 500 ms]. */
static inline double ctf_warmup_s(double duration)
{
	double w = duration * 0.2;
	return w < 0.05 ? 0.05 : w > 0.5 ? 0.5 : w;
}

/* ---- pipes.c: the pipe baseline, one server process per client ---- */
struct ctf_pipe {
	int to_server, from_server;	/* the client's ends */
	int server_in, server_out;	/* the server's ends (closed in the parent once it runs) */
};
/* Make n pipe pairs (every fd is -1 until made, so a close always works). 0 or -1. */
int ctf_pipes_open(struct ctf_pipe *p, int n, char *why, size_t len);
/* In the parent once the servers run: it and the clients keep only client ends. */
void ctf_pipes_close_server_ends(struct ctf_pipe *p, int n);
/* In client i: close the other clients' ends (a server sees EOF when its client is gone). */
void ctf_pipes_keep_client(struct ctf_pipe *p, int n, int i);
void ctf_pipes_close_all(struct ctf_pipe *p, int n);
/* The servers' ab_worker_fn argument. */
struct ctf_pipe_servers {
	struct ctf_pipe *pipes;
	int n;
	struct ctf_shared *sh;
};
/* An ab_worker_fn: server i answers each byte with the CPU it runs on, until EOF (0). */
int ctf_pipe_server(void *servers, int i);
/* One round trip: 0 with the server's CPU in *served, or -1 with errno (EPIPE when it is gone). */
int ctf_pipe_ping(const struct ctf_pipe *p, int *served);

/* ---- server.c: the server side of one repetition ---- */
/* What clients call: stat(path), or, when pipes is not NULL, ping pipes[i]. */
struct ctf_target {
	char path[4200];
	struct ctf_pipe *pipes;
	int n;
};
struct ctf_serving {
	const struct ctf_settings *set;
	const struct ctf_point *pt;
	struct ctf_shared *sh;
	struct ctf_target target;
	struct ab_daemon daemon;	/* FUSE */
	int have_daemon, have_file;
	struct ab_workers pipe_servers;	/* pipe baseline */
	int have_pipe_servers;
	int unblocked;			/* unblock() ran: the server hung or was killed */
};
/*
 * One kind of server (--baseline; later also the FUSE transport). Everything
 * that differs between kinds is here, so the measured loop and the watchdog
 * never ask which kind they run.
 */
struct ctf_server {
	const char *name;	/* config value of baseline */
	const char *call;	/* what one client call is, for messages */
	const char *daemon;	/* config value of daemon; NULL: the --daemon mode */
	const char *what;	/* the server, for messages ("daemon", "pipe server") */
	const char *unblock_how;	/* what unblock() does, for messages */
	int (*start)(struct ctf_serving *s, char *why, size_t len);
	/* 0 while it runs, -1 with why once it ended (stop() says how) */
	int (*gone)(struct ctf_serving *s, char *why, size_t len);
	/* unstick clients blocked on a hung server (abort its connection, kill it) */
	void (*unblock)(struct ctf_serving *s);
	/* end it; -1 with why when it did not end cleanly. hung: do not wait long */
	int (*stop)(struct ctf_serving *s, int hung, char *why, size_t len);
};
const struct ctf_server *ctf_server_for(const struct ctf_settings *set);
/* Requests the server side answered so far (FUSE daemon, or every pipe server). */
uint64_t ctf_requests(const struct ctf_shared *sh, int nclients);

/* ---- loop.c: the measured loop ---- */
/* Client i's process (after ab_child_setup): 0, or 1 with errno in sh->client[i].err. */
int ctf_client(struct ctf_shared *sh, const struct ctf_target *t, int i);

/* ---- fs.c: the FUSE daemon, run as an ab_daemon_fn ---- */
struct ctf_daemon_args {
	struct ctf_shared *sh;
	enum ab_fuse_loop loop;
	const struct ab_cpuset *cpus;	/* pin the whole daemon (all its threads); NULL: not */
};
int ctf_daemon_run(void *arg, const char *mnt);

/* ---- rawfs.c: the filesystem on lib/fuse/fsrv (--transport dev, uring), an ab_daemon_fn ---- */
struct ctf_raw_args {
	struct ctf_shared *sh;
	int transport;		/* CTF_TR_DEV or CTF_TR_URING */
	int threads, clone_fd, pin;	/* dev */
	int uring_cpu;		/* uring: enum ab_fsrv_uring_cpu */
	struct ab_fsrv_wait_cfg wait;	/* how its threads wait for requests */
	struct ab_cpuset cpus;	/* the daemon's CPUs; empty: every allowed one */
};
int ctf_raw_run(void *arg, const char *mnt);

/* ---- measure.c: one repetition ---- */
/*
 * Run one repetition of pt. ks NULL: a timed repetition, no probe attached.
 * ks set: an instrumented one; the probes are attached for it alone and its
 * kernel_* and daemon_requests values are filled (when kstats could count:
 * otherwise a note says why). mon, when set, samples the CPUs' counters at the
 * window's edges (lib/kstats/cpumon.h) and counts the clients' and the daemon's
 * migrations and switches. 0 with res filled, or -1 with why.
 */
struct ab_cpumon;
int ctf_measure(const struct ctf_settings *set, const struct ctf_point *pt, struct ab_kstats *ks,
		struct ab_cpumon *mon, struct ctf_result *res, char *why, size_t len);

/* ---- report.c: the report, rendered from the records (lib/render) ---- */
struct ab_bench_desc;
extern const struct ab_bench_desc ab_desc_cputestfs;
/* report_pipe.c: the pipe baseline's table and sentence beside the request breakdown
 * (the descriptor's breakdown_reading). */
struct ab_render;
struct ab_breakdown_bar;
void ctf_pipe_reading(struct ab_render *r, const struct ab_breakdown_bar *bars, int n);

#endif
