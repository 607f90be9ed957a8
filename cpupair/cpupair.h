/*
 * cpupair: the interfaces between its files.
 *   main.c      options, the pairs and methods swept, records and tables
 *   pairs.c     which ordered pairs of CPUs: all, a few per class, or a sample
 *   measure.c   one repetition of one pair and method: two pinned threads
 *               behind the start barrier, warm-up, the timed window, stop, join
 *   loop.c      the measured loops: cache-line, futex and pipe ping-pong
 *   desc.c      the report (class summary, reading, heatmaps); linked into the
 *               harness too, so it uses lib/ and the names below only
 */
#ifndef CPUPAIR_H
#define CPUPAIR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/barrier.h"
#include "sys/proc.h"
#include "sys/topo.h"

/* Record names, shared by main.c (writes them) and desc.c (renders them). */
#define CP_M_LINE "line_rt_ns"		/* cache-line round trip, ns */
#define CP_M_FUTEX "futex_rt_us"	/* futex wake-up round trip, us */
#define CP_M_PIPE "pipe_rt_us"		/* pipe wake-up round trip, us */
/* Config keys: the CPUs, their places in topology order (the heatmaps' axes,
 * so the harness draws them without the measuring machine's sysfs), the class. */
#define CP_K_A "cpu_a"
#define CP_K_B "cpu_b"
#define CP_K_POS_A "pos_a"
#define CP_K_POS_B "pos_b"
#define CP_K_CLASS "class"

/* Workers reach the start barrier within this (ab_scaled_ns). */
#define CP_BARRIER_NS (10 * AB_NS)
/* Windows a measurement may take before it counts no round trip as a failure. */
#define CP_WINDOWS_MAX 100

enum cp_method { CP_LINE, CP_FUTEX, CP_PIPE, CP_NMETHOD };

/* ---- pairs.c ---- */
enum cp_pairs_mode { CP_PAIRS_ALL, CP_PAIRS_CLASSES, CP_PAIRS_N };
struct cp_pair {
	int a, b;		/* CPU numbers: a pings, b answers */
	int pa, pb;		/* their places in topology order */
	enum ab_placement cls;	/* ab_topo_pair_class */
};
/* "all", "classes" or a count N >= 1: 0, or -1 with the reason in err. */
int cp_pairs_parse(const char *s, enum cp_pairs_mode *mode, long *n, char *err, size_t errlen);
/*
 * The ordered pairs (i, j), i != j, of the CPUs t describes, in topology order
 * (a pair on one CPU cannot ping-pong by spinning: the diagonal is never
 * measured). all: every one; classes: for each class present, the last pair of
 * that class in topology order and its reverse (high CPUs take fewer
 * housekeeping interrupts); N: N pairs spread over the matrix, one drawn in each
 * of N equal strides by a fixed-seed generator (all when N is at least their
 * number). *out is malloc'd. Returns the count, or -1 (out of memory, or fewer
 * than 2 CPUs) with the reason in err.
 */
long cp_pairs_select(const struct ab_topo *t, enum cp_pairs_mode mode, long n,
		     struct cp_pair **out, char *err, size_t errlen);
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

/* ---- measure.c ---- */
/* One repetition of method m on pair p: warm-up, then round trips counted over
 * duration seconds. 0 with *rt_ns (ns per round trip), or -1 with why. mon (may
 * be NULL) samples what the CPUs did just outside the window's clock reads. */
struct ab_cpumon;
int cp_measure(const struct cp_pair *p, enum cp_method m, double duration, struct ab_cpumon *mon,
	       double *rt_ns, char *why, size_t len);

/* ---- desc.c ---- */
struct ab_bench_desc;
extern const struct ab_bench_desc ab_desc_cpupair;

#endif
