/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fdget: the interfaces between the benchmark's files.
 *   main.c     options, set-up, the sweep (ops x repetitions x modes) and records
 *   measure.c  one repetition in a fresh child, and the waits that time it
 *   modes.c    inside that child: the workers of each mode around the loop, and
 *              when a repetition counts as hung
 *   loop.c     the measured loops, one per operation
 *   calib.c    iteration count, loop overhead and clock cost, timed here
 *   perf.c     cycles and instructions through perf_event_open
 *   watch.c    --watch-threads: a process that samples the thread count
 *   spawn.c    --spawn: process start-up with and without a thread
 *   report.c     the tables, drawn by the renderer from the records
 * The pure helpers (--mode lists, the calibration step) are inline here, so
 * the unit tests reach them through this header.
 */
#ifndef FDGET_H
#define FDGET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "kstats/cpumon.h"
#include "sys/common.h"
#include "render/desc.h"

#define FDGET_FILE_BYTES (1u << 20)	/* read advances 1 MiB before it seeks back */
#define FDGET_MAX_REPEAT 1000

/* Record names, shared by main.c (writes them) and report.c (renders them). */
#define FDGET_M_NS "ns_per_op"
#define FDGET_M_CYCLES "cycles_per_op"
#define FDGET_M_INSTR "instructions_per_op"
#define FDGET_M_THREADS "threads_seen"
#define FDGET_M_THREADS_MAX "threads_seen_max"
#define FDGET_M_ITERS "iterations"
#define FDGET_M_OVERHEAD "overhead_ns_per_op"
#define FDGET_M_TIMER "timer_ns"
#define FDGET_M_BARE "bare_ns_per_op"
#define FDGET_M_SPAWN "us_per_spawn"
/* Each metric's name, unit and direction, one table (report.c: the descriptor's),
 * which main.c records by. */
enum fdget_metric {
	FDGET_NS, FDGET_CYCLES, FDGET_INSTR, FDGET_OVERHEAD, FDGET_BARE, FDGET_SPAWN,
	FDGET_THREADS, FDGET_THREADS_MAX, FDGET_ITERS, FDGET_TIMER, FDGET_NM
};
extern const struct ab_metric_desc fdget_metrics[FDGET_NM + 1];

/* Operations under test, plus the empty loop used to measure loop+timer overhead. */
enum fdget_op { OP_PREAD, OP_READ, OP_FSTAT, OP_LSEEK, OP_COUNT, OP_NOP = OP_COUNT };

/*
 * A measured loop: n calls of one syscall on fd. Returns 0, or -1 with errno
 * set by the first call that failed. The loop body is the syscall and its
 * check, nothing else (no clock read, no counter, no indirection).
 */
typedef int (*fdget_loop_fn)(int fd, uint64_t n);

/* How the loops make their calls: libc wrappers (default) or syscall(2). */
enum fdget_call { CALL_LIBC, CALL_RAW, CALL_COUNT };

struct fdget_op_info {
	const char *name;
	fdget_loop_fn loop[CALL_COUNT];
};
/* Indexed by enum fdget_op, OP_NOP included ("nop": the loop without a syscall). */
extern const struct fdget_op_info fdget_ops[OP_COUNT + 1];

/* Execution modes; the measured loop is the same in all of them. */
enum fdget_mode { MODE_SINGLE, MODE_IDLE, MODE_SHARED, MODE_PRIVATE, MODE_PROCS, MODE_COUNT };
#define FDGET_MODE_CHOICES "single|idle-thread|shared-fd|private-fd|procs|all"

static inline const char *fdget_mode_name(int m)
{
	static const char *const names[MODE_COUNT] = {
		[MODE_SINGLE] = "single",
		[MODE_IDLE] = "idle-thread",
		[MODE_SHARED] = "shared-fd",
		[MODE_PRIVATE] = "private-fd",
		[MODE_PROCS] = "procs",
	};
	return m >= 0 && m < MODE_COUNT ? names[m] : "?";
}

/* The modes that run one loop in the process's main thread; the others run N workers. */
static inline int fdget_mode_is_single(int m)
{
	return m == MODE_SINGLE || m == MODE_IDLE;
}

/* One entry of a --mode list, sets want[] for it: 0, or -1 when it names no mode. */
static inline int fdget_mode_word(const char *p, size_t len, int want[MODE_COUNT])
{
	if (len == 3 && !strncmp(p, "all", 3)) {
		for (int m = 0; m < MODE_COUNT; m++)
			want[m] = 1;
		return 0;
	}
	for (int m = 0; m < MODE_COUNT; m++)
		if (strlen(fdget_mode_name(m)) == len && !strncmp(p, fdget_mode_name(m), len)) {
			want[m] = 1;
			return 0;
		}
	return -1;
}

/*
 * Parse a --mode value: one name, "all", or a comma list ("single,procs").
 * Sets want[m] for each mode named; single is always measured because the
 * others are read against it, so it is added when missing. 0, or -1 with a
 * message naming the bad entry in err.
 */
static inline int fdget_parse_modes(const char *s, int want[MODE_COUNT], char *err, size_t errlen)
{
	const char *p = s;

	memset(want, 0, MODE_COUNT * sizeof(want[0]));
	if (!s || !*s)
		return ab_err(err, errlen, "bad value '' for --mode: expected %s", FDGET_MODE_CHOICES);
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == 0)
			return ab_err(err, errlen, "bad value '%s' for --mode: empty entry", s);
		if (fdget_mode_word(p, len, want) < 0)
			return ab_err(err, errlen, "bad value '%s' for --mode: '%.*s' is not one of %s", s,
				      (int)len, p, FDGET_MODE_CHOICES);
		p += len;
		if (*p == ',' && !*++p)
			return ab_err(err, errlen, "bad value '%s' for --mode: trailing comma", s);
	}
	want[MODE_SINGLE] = 1;
	return 0;
}

/*
 * Calibration (lmbench's idea): given that n iterations took elapsed_ns, the
 * iteration count for the next try. A timing under 1/100 of the target says
 * little about the rate, so the count grows by 100x at most; otherwise it
 * scales to the rate seen and aims 10% past the target, so the final timing
 * is >= target. 0 once elapsed_ns >= target_ns (n is good); never below n + 1,
 * capped at max_n.
 */
static inline uint64_t fdget_calib_next(uint64_t n, uint64_t elapsed_ns, uint64_t target_ns,
					uint64_t max_n)
{
	uint64_t next;

	if (elapsed_ns >= target_ns)
		return 0;
	if (n == 0)
		n = 1;
	if (elapsed_ns == 0 || (double)target_ns / (double)elapsed_ns > 100.0)
		next = n * 100;
	else
		next = (uint64_t)((double)n * (double)target_ns / (double)elapsed_ns * 1.1) + 1;
	if (next <= n)
		next = n + 1;
	return next > max_n ? max_n : next;
}

/* Is the calibration's timing of part_ns suspect, to be timed again? When its count
 * came from a 100x jump (no rate behind it), or it ran over twice the part where its
 * count, scaled from a rate, aimed at 1.1 x: something slowed it, and its rate
 * would shorten every window. */
static inline int fdget_calib_suspect(uint64_t elapsed_ns, uint64_t part_ns, int jumped)
{
	return jumped || elapsed_ns > 2 * part_ns;
}

/* The count for a timing of target_ns, from n iterations that took elapsed_ns (the
 * calibration's last, a part of the target): scaled by that rate and aimed 10% past
 * the target, as fdget_calib_next aims; at least 1, capped at max_n. */
static inline uint64_t fdget_calib_scale(uint64_t n, uint64_t elapsed_ns, uint64_t target_ns,
					 uint64_t max_n)
{
	double x = (double)n * (double)target_ns * 1.1 / (double)(elapsed_ns ? elapsed_ns : 1);

	if (x < 1.0)
		return 1;
	return x >= (double)max_n ? max_n : (uint64_t)x;
}

/* ---- settings: the options, and what main.c derives from them before the first fork ---- */

struct fdget_watch;

/* --op none: no op's loop, only --spawn (the op choices' index after all). */
#define FDGET_OP_NONE (OP_COUNT + 1)

struct fdget_settings {
	/* options (one table in main.c) */
	int op;			/* enum fdget_op; OP_COUNT = all, FDGET_OP_NONE = none */
	const char *mode;	/* --mode list */
	int threads;		/* workers of the N-worker modes; 0 = one per allowed CPU */
	int oversubscribe;
	int spawn;		/* start-ups each way; 0 = none */
	int verify_overhead;
	int watch_threads;
	int call;		/* enum fdget_call */
	/* common options */
	double duration;	/* seconds one timing is calibrated to */
	int repeat, quiet;
	const struct ab_common *common;	/* all of them, for the records' common keys (--idle) */
	/* derived; children inherit them read-only */
	int want[MODE_COUNT];
	int ncpu;		/* allowed CPUs */
	struct ab_cpuset allowed;	/* which: the CPU monitor watches them */
	int nworkers;		/* workers of shared-fd, private-fd and procs */
	int cpu_main, cpu_idle;	/* single's loop, idle-thread's sleeper */
	int *worker_cpu;	/* worker i runs on worker_cpu[i] */
	uint64_t file_bytes;	/* size of the test file */
	int fd;			/* the test file: single, idle-thread, shared-fd; procs reopen it */
	int *private_fd;	/* private-fd: worker i's own struct file */
	int perf;		/* cycles and instructions can be counted */
	int monitor;		/* the CPU monitor samples each repetition's window */
	struct fdget_watch *watch;	/* the --watch-threads sampler, or NULL */
};

static inline int fdget_mode_workers(const struct fdget_settings *s, int m)
{
	return fdget_mode_is_single(m) ? 1 : s->nworkers;
}

/* What one repetition measured. */
struct fdget_rep {
	double ns_per_op;
	double cycles_per_op, instr_per_op;	/* NAN when not counted */
	int threads_min, threads_max;		/* -1 when not watched */
	int nmon;				/* the CPU monitor's numbers of the window */
	struct ab_cpumon_val mon[AB_CPUMON_VALS];
	char mon_missing[512];			/* what it could not count, and why */
};

/* ---- measure.c: every repetition in a fresh child of a parent that never creates a thread ---- */

/* One repetition of op in mode; a failure ends the program (exit 1, the child said why). */
void fdget_measure(const struct fdget_settings *s, enum fdget_op op, enum fdget_mode mode,
		   uint64_t iters, struct fdget_rep *r);
/* The same loop timed bare (no barrier, no counters, nothing around it) in the same kind of
 * child: ns per operation; a failure ends the program. */
double fdget_measure_bare(const struct fdget_settings *s, enum fdget_op op, uint64_t iters);
/*
 * A wait that sleeps, for the stretches where a process waits beside a measured
 * loop (lib's ab_workers_reap and ab_reap_one poll every millisecond, a wake-up
 * on the measuring CPU; lib/sys/barrier's ab_wait_count is the other): until pid
 * exits (pidfd), a signal or deadline_ns; collect it with ab_workers_reap or
 * ab_reap_one afterwards. 0, or -1 at the deadline or on a signal.
 */
int fdget_wait_exit(pid_t pid, uint64_t deadline_ns);

/* ---- modes.c: in the repetition's child ---- */

/* When a repetition of n workers counts as hung (absolute CLOCK_MONOTONIC ns). */
uint64_t fdget_deadline(const struct fdget_settings *s, int n);
/* Run op in mode with iters per worker and fill r. 0, or -1 with a message in err. */
int fdget_mode_run(const struct fdget_settings *s, enum fdget_op op, enum fdget_mode mode,
		   uint64_t iters, struct fdget_rep *r, char *err, size_t errlen);

/* ---- calib.c ---- */

/* One timing of the loop of op in this process: ns; a failing call ends the program. */
uint64_t fdget_time_loop(const struct fdget_settings *s, enum fdget_op op, uint64_t iters);
/* Iterations for one timing to take the --duration (a test hook may force it). */
uint64_t fdget_calibrate(const struct fdget_settings *s, enum fdget_op op);
/* The cost of one clock read, ns: the median of many back-to-back reads. */
double fdget_timer_ns(void);

/* ---- perf.c: cycles and instructions of the calling thread (user + kernel) ---- */

struct fdget_perf {
	int fd_cycles, fd_instr;	/* -1 when not open */
};
struct fdget_perf_val {
	uint64_t cycles, instr;
};
/* Open both counters for the calling thread, disabled. 0, or -1 with a reason in why. */
int fdget_perf_open(struct fdget_perf *p, char *why, size_t whylen);
void fdget_perf_start(struct fdget_perf *p);
/* Stop and read; 0, or -1 when a counter could not be read. */
int fdget_perf_stop(struct fdget_perf *p, struct fdget_perf_val *v);
void fdget_perf_close(struct fdget_perf *p);

/* ---- watch.c: --watch-threads ---- */

/* Start the sampler process, pinned to cpu; NULL never (a failure ends the program). */
struct fdget_watch *fdget_watch_start(int cpu);
/* From the process under test: sample my Threads: until fdget_watch_end. */
void fdget_watch_begin(struct fdget_watch *w);
/* Stop sampling; the fewest and most threads seen (-1, -1 when nothing was sampled). */
void fdget_watch_end(struct fdget_watch *w, int *min, int *max);
void fdget_watch_stop(struct fdget_watch *w);

/* ---- spawn.c: --spawn ---- */

#define FDGET_SPAWN_CHILD "--spawn-child"
/* The helper --spawn starts: "0" exits at once, "1" creates one thread first. Its exit status. */
int fdget_spawn_child(const char *arg);
/* Start the helper n times, one after the other: microseconds per start-up. */
double fdget_spawn_batch(int with_thread, int n);

/* ---- report.c ---- */

extern const struct ab_bench_desc ab_desc_fdget;

#endif
