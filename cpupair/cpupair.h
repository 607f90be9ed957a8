/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpupair: the interfaces between its files.
 *   main.c        options, the pairs and methods swept, records and tables
 *   pairs.c       which ordered pairs of CPUs: all, a few per class, or a sample
 *   measure.c     one repetition of one pair and method: two pinned threads
 *                 behind the start barrier, warm-up, the timed window, stop, join
 *   loop.c        the measured loops: cache-line, futex and pipe ping-pong
 *   switches.c    a thread's context switches, read at a window's edges
 *   report.c      the report (class summary, tables, heatmaps) and its
 *                 descriptor; linked into the harness too, so it uses lib/ and
 *                 the names below only
 *   report_data.c what the report's files read: the metrics table main.c
 *                 records by, the classes, the selectors and medians over pairs
 *   report_read.c the reading: what each class and a wake-up cost, which
 *                 figures not to trust
 *   report_heat.c which records the heatmaps draw, and where (for report.c)
 *   report_i.h    what the report's files share
 */
#ifndef CPUPAIR_H
#define CPUPAIR_H

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sys/barrier.h"
#include "sys/proc.h"
#include "sys/topo.h"
#include "record/record.h"

/* Record names, shared by main.c (writes them) and report.c (renders them); another
 * benchmark that reads cpupair's records (cputestfs's split) takes them from here. */
#define CP_BENCH "cpupair"
#define CP_M_LINE "line_rt_ns"		/* cache-line round trip, ns */
#define CP_M_FUTEX "futex_rt_us"	/* futex wake-up round trip, us */
#define CP_M_PIPE "pipe_rt_us"		/* pipe wake-up round trip, us */
/* The share of a wake-up round trip's waits that slept (%): between two CPUs the
 * voluntary switches of both sides per two waits a round trip; on one CPU (the
 * diagonal) every switch, as the two sides can only take turns. */
#define CP_M_FUTEX_SLEPT "futex_slept_pct"
#define CP_M_PIPE_SLEPT "pipe_slept_pct"
/* A wake-up round trip is a wake-up's cost only when at least this share slept. */
#define CP_SLEPT_MIN 98.0
/* The involuntary switches of the two spinning sides in the cache line's window: above
 * 0 a spinner lost its CPU for a moment at least. */
#define CP_M_LINE_INVOL "line_invol_switches"
/* The time the two spinning sides waited for their CPUs in the cache line's window
 * (the run-queue wait of /proc/self/task/TID/schedstat), as a share of the window:
 * the part of the round trip that is the scheduler's. A switch alone says little
 * where the parent has no CPU of its own (2 CPUs): it wakes on one of the pair's. */
#define CP_M_LINE_WAIT "line_wait_pct"
/* A window whose spinners waited more than this share of it for their CPUs is
 * disturbed; without CP_M_LINE_WAIT (no schedstat, older records) any involuntary
 * switch is. */
#define CP_WAIT_MAX_PCT 2.0
/* A cache-line round trip above this share of the pair's futex round trip means a
 * spinning side lost its CPU too (records without CP_M_LINE_INVOL included). The
 * report flags such a pair and keeps its line out of every median. */
#define CP_DESCHED_SHARE 0.5
/* Windows a cache-line round trip may take to find one the scheduler did not
 * disturb (cp_line_disturbed); past them the least disturbed is recorded, flagged. */
#define CP_LINE_TRIES 3
/* Config keys: the CPUs, their places in topology order (the heatmaps' axes,
 * so the harness draws them without the measuring machine's sysfs), the class. */
#define CP_K_A "cpu_a"
#define CP_K_B "cpu_b"
#define CP_K_POS_A "pos_a"
#define CP_K_POS_B "pos_b"
#define CP_K_CLASS "class"
/* The class of a pair on one CPU (the diagonal), and of one whose cache relation
 * sysfs does not tell (no cache/ directory: a VM often has none). */
#define CP_CLASS_SAME "same"
#define CP_CLASS_UNKNOWN "unknown"

/* Workers reach the start barrier within this (ab_scaled_ns). */
#define CP_BARRIER_NS (10 * AB_NS)
/* Windows a measurement may take before it counts no round trip as a failure. */
#define CP_WINDOWS_MAX 100

enum cp_method { CP_LINE, CP_FUTEX, CP_PIPE, CP_NMETHOD };

/* ---- report_data.c: the metrics, in one table (the descriptor's, which main.c
 * records by): each method's round trip at its enum cp_method, then these. ---- */
enum { CP_FUTEX_SLEPT = CP_NMETHOD, CP_PIPE_SLEPT, CP_LINE_INVOL, CP_LINE_WAIT, CP_NM };
extern const struct ab_metric_desc cp_metrics[CP_NM + 1];	/* then a NULL name */
/* Each method: what the report calls it, its heatmap's name, and the metric of the share
 * of its waits that slept (a cp_metrics index; -1: the line, which never sleeps). */
struct cp_meth {
	const char *what, *fig;
	int slept;
};
extern const struct cp_meth cp_meth[CP_NMETHOD];

/* ---- report_heat.c: one heatmap's cells at a time ---- */
struct cp_cells;
struct ab_group;
struct ab_heat;
/* Room for what the records say of each place (100 KB: never on a stack); free(). */
struct cp_cells *cp_cells_new(void);
/* A new heatmap, named fig in its messages: nothing said of any place yet. */
void cp_cells_start(struct cp_cells *c, const char *fig);
/* Where g, a record of this heatmap, is drawn: 0 with its places *pa and *pb (each
 * below AB_HEAT_MAX), or -1: no pair's record, beyond AB_HEAT_MAX (counted), or
 * refused (one line naming its raw.csv line, and the one it contradicts). */
int cp_cells_place(struct cp_cells *c, const struct ab_group *g, int *pa, int *pb);
/* Write the n records cp_cells_place took into h (every place they name below h->n):
 * a cell once (a second value is refused), the labels their CPUs. 0, or -1 (ENOMEM). */
int cp_cells_draw(struct cp_cells *c, const struct ab_group *const *take, size_t n,
		  struct ab_heat *h);
/* The refused records past the few named, and those beyond AB_HEAT_MAX: a line each. */
void cp_cells_end(struct cp_cells *c);

/* ---- pairs.c ---- */
enum cp_pairs_mode { CP_PAIRS_ALL, CP_PAIRS_CLASSES, CP_PAIRS_N };
struct cp_pair {
	int a, b;		/* CPU numbers: a pings, b answers (a == b: the diagonal) */
	int pa, pb;		/* their places in topology order */
	enum ab_placement cls;	/* ab_topo_pair_class */
};
/* The class recorded: "same" on the diagonal; where sysfs has no cache topology
 * (cache_known 0), "unknown" for a pair it cannot tell (not SMT, one node). */
const char *cp_class_name(const struct cp_pair *p, int cache_known);
/* Does sysroot's sysfs (NULL: the machine's) describe the caches of t's CPUs? */
int cp_cache_known(const char *sysroot, const struct ab_topo *t);
/* "all", "classes" or a count N >= 1: 0, or -1 with the reason in err. */
int cp_pairs_parse(const char *s, enum cp_pairs_mode *mode, long *n, char *err, size_t errlen);
/*
 * The ordered pairs (i, j), i != j, of the CPUs t describes, in topology order
 * (a pair on one CPU cannot ping-pong by spinning: the cache line's diagonal is
 * never measured; cp_pairs_diagonal gives the wake-ups'). all: every one;
 * classes: for each class present, the last pair of that class in topology
 * order and its reverse (high CPUs take fewer housekeeping interrupts); N: N
 * pairs spread over the matrix, one drawn in each of N equal strides by a
 * fixed-seed generator (all when N is at least their number). *out is
 * malloc'd. Returns the count, or -1 (out of memory, or fewer than 2 CPUs)
 * with the reason in err.
 */
long cp_pairs_select(const struct ab_topo *t, enum cp_pairs_mode mode, long n,
		     struct cp_pair **out, char *err, size_t errlen);
/* The diagonal of the n pairs: (i, i) for each CPU they name, in topology order.
 * *out is malloc'd; the count, or -1 (out of memory). */
long cp_pairs_diagonal(const struct cp_pair *pairs, long n, struct cp_pair **out);
/* "line,futex,pipe" or a subset: a bit per enum cp_method. 0, or -1 with err. */
int cp_methods_parse(const char *s, unsigned *mask, char *err, size_t errlen);
const char *cp_method_name(enum cp_method m);

/* ---- loop.c: the measured loops, one thread on each CPU of the pair ---- */
enum { CP_RUN, CP_STOP };
/* The line's (or futex's) values: the pinging side writes PING, the answer PONG. */
enum { CP_PONG, CP_PING, CP_QUIT };
struct cp_shared {
	struct ab_barrier barrier;
	_Atomic int phase __attribute__((aligned(AB_CACHELINE)));
	_Atomic uint32_t line __attribute__((aligned(AB_CACHELINE)));	/* the line, or the futex */
	char pad[AB_CACHELINE - sizeof(uint32_t)];
	struct ab_counter count;	/* round trips, bumped by the pinging side */
	int ping_pipe[2], pong_pipe[2];
	_Atomic pid_t tid[2];		/* each side's thread id, set before the barrier */
	char err[200];
};
/* Each runs until phase is CP_STOP (the pinging side) or the pinging side says
 * stop through the channel (the answering side). 0, or -1 with a message in err. */
int cp_line_ping(struct cp_shared *sh);
int cp_line_pong(struct cp_shared *sh);
int cp_futex_ping(struct cp_shared *sh);
int cp_futex_pong(struct cp_shared *sh);
int cp_pipe_ping(struct cp_shared *sh);
int cp_pipe_pong(struct cp_shared *sh);

/* ---- switches.c ---- */
struct cp_switches {
	unsigned long vol, invol;	/* voluntary, involuntary context switches */
	double wait_ns;			/* time on a run queue, waiting for its CPU; NAN: unknown */
};
/* Thread tid's (of this process) switches so far: 0, or -1 (not readable). Its
 * run-queue wait is NAN where /proc has no schedstat (CONFIG_SCHED_INFO). */
int cp_switches(pid_t tid, struct cp_switches *s);

/* ---- measure.c ---- */
struct cp_result {
	double rt_ns;		/* ns per round trip */
	double slept_pct;	/* CP_M_*_SLEPT's share; NAN: the line, or not readable */
	unsigned long invol;	/* involuntary switches of the two sides in the window */
	double wait_pct;	/* CP_M_LINE_WAIT's share; NAN: not readable */
	int switches_known;	/* invol and slept_pct were read */
};
/* Whether a cache-line window (or the medians of a pair's) was disturbed by the
 * scheduler: wait_pct (NAN: unknown) above CP_WAIT_MAX_PCT, or without it, any
 * involuntary switch (NAN: unknown, not disturbed). */
static inline int cp_line_disturbed(double wait_pct, double invol)
{
	return !isnan(wait_pct) ? wait_pct > CP_WAIT_MAX_PCT : invol > 0;
}
/* One repetition of method m on pair p (a == b: both sides on one CPU, futex and pipe
 * only): warm-up, then round trips counted over duration seconds, the sides' context
 * switches read at the window's edges. 0 with *res, or -1 with why. mon (may be NULL)
 * samples what the CPUs did just outside the window's clock reads. */
struct ab_cpumon;
int cp_measure(const struct cp_pair *p, enum cp_method m, double duration, struct ab_cpumon *mon,
	       struct cp_result *res, char *why, size_t len);

/* ---- report.c ---- */
struct ab_bench_desc;
extern const struct ab_bench_desc ab_desc_cpupair;

#endif
