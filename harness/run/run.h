/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness run and harness restore: the run/ part. Its files:
 *   opts.c        harness run's command line, checked; then the run (run.c)
 *   run.c         one run: locks, files, the sweep of repetitions x points,
 *                 the end (restore, machine.txt, report)
 *   run_i.h       the state of one run, shared by run.c and progress.c
 *   progress.c    its estimates, ETA, progress line and --dry-run listing
 *   precision.c   --precision: rounds of added repetitions for the wide points
 *   prepare.c     its plan: loaded, programs checked, copied in as plan.plan
 *   plan_find.c   plans by name or file, and harness run --plan list
 *   plan_check.c  every point through bin/<bench> --check-options first
 *   plan_dups.c   no point measured by two blocks
 *   invoke.c      one invocation of one point: started, watched, its records
 *   spawn.c       starting a program whose output the harness reads
 *   files.c       the run's CSV files (one write() a row) and --resume's
 *   trust.c       --resume: the directory checked, then held and used by its fd
 *   lock.c        one run per directory, one measuring run per machine
 *   timings.c     how long invocations take: the shipped and learned tables
 *   machine.c     machine.txt: the machine, discoveries, knobs before/after
 *   restore.c     harness restore, and the run's own restore at its end
 * run uses report/ (a finished run renders its report) and harness.h.
 */
#ifndef H_RUN_H
#define H_RUN_H

#include <stdio.h>
#include <sys/types.h>

#include "../harness.h"
#include "sys/signals.h"	/* ab_interrupted: SIGINT/SIGTERM/SIGHUP stop the sweep */

/* The subcommands (opts.c, restore.c): argc/argv start at the name. An exit code. */
int cmd_run(int argc, char **argv);
int cmd_restore(int argc, char **argv);

/* Restore logic shared by 'restore' and the run's watchdog: replay the knob
 * journal and remove stale FUSE mounts under workdir. Messages go to log
 * (stderr when NULL). Returns the number of failures. */
int h_restore(const char *journal, const char *workdir, FILE *log);

/* ---- plans: found, listed (plan_find.c) and checked (plan_check.c) ---- */
/* Find a plan: a file path (with a '/', or an existing file), else NAME.plan in
 * harness/plans/, in the benchmark folder NAME/ of the source tree, or in the
 * installed share dir. 0, or -1 with a message listing the plans there are. */
int h_plan_find(const char *name, char *path, size_t len, char *err, size_t errlen);
/* harness run --plan list: each plan there is, its points and what it is for. */
void h_plan_list(FILE *out);
/* Every point of the registered benchmarks' blocks, distinct once h_plan_dups passed
 * the plan, through bin/<bench> ARGS --check-options (plan_check.c): 0, or -1 with
 * "FILE:LINE: ..." in err naming the plan line the benchmark refused. */
int h_plan_check(const struct h_plan *p, char *err, size_t errlen);
/* A point of a block that another block measures too (the same options, defaults
 * left out at the values records leave out; plan_dups.c): 0, or -1 with "FILE:LINE:
 * ..." in err naming the point and both blocks. */
int h_plan_dups(const struct h_plan *p, char *err, size_t errlen);

/* ---- the run (run.c, invoke.c, files.c, lock.c, machine.c) ---- */

/* An append-only CSV file of the run: one write() per row; a torn row is cut back out. */
struct h_csv {
	int fd;
	char path[4096];
};
/* Open (create with header when empty). 0 or -1 with errno. */
int h_csv_open(struct h_csv *c, const char *dir, const char *name, const char *header);
void h_csv_close(struct h_csv *c);
off_t h_csv_size(const struct h_csv *c);
/* Append one RFC 4180 row of n fields: 0 or an errno value. */
int h_csv_row(struct h_csv *c, int n, const char *const *fields);

/* --resume: mark done[rep * npoints + point] from runs.csv and cut raw.csv back to the
 * last finished point; refuses (-1, message) when runs.csv is missing or torn, or raw.csv
 * is shorter than runs.csv says, leaving raw.csv untouched. */
struct h_resume {
	int npoints, repeat;
	char *done;
	int added;	/* rows past repeat are --precision's, not refused (not marked done) */
};
int h_resume_load(struct h_resume *rs, const char *dir, char *err, size_t errlen);
/*
 * --resume DIR runs DIR's plan as us (trust.c): DIR, every directory above it and the
 * files of the run in it must be root's or ours and writable by no one else (as the
 * knob journal is root's; a parent may be sticky), and no link on the way: exit 2 with
 * one line naming the first that is not; nothing is taken or opened before. DIR's
 * descriptor is then held for the run's life; the path through it (/proc/self/fd/N),
 * which the run reads and writes through, is returned.
 */
const char *h_resume_trust(const char *dir);
/* A file of that directory, opened under its descriptor (O_NOFOLLOW) and checked on
 * what was opened as h_resume_trust checks it: the fd, or -1 with err set. */
int h_resume_openat(const char *name, int flags, char *err, size_t errlen);
/* The same, read-only, as an input within max bytes (sys/infile.h), or NULL. */
FILE *h_resume_fopen(const char *name, unsigned long long max, char *err, size_t errlen);

/* harness run's options (opts.c), the run itself (run.c) and its plan before the first
 * point (prepare.c: loaded, programs checked, copied in as plan.plan). */
struct h_run_opts {
	const char *plan, *out, *resume, *note;
	const char *via;	/* --resume's directory as the run reaches it (h_resume_trust) */
	int quick, repeat, dry, no_wait;
	const char *precision_arg, *budget_arg;	/* as given; checked into: */
	double precision, budget;	/* 0: the plan's */
};
int h_run(struct h_run_opts *o);
int h_run_plan(struct h_run_opts *o, struct h_plan *plan, char *path, size_t len);
void h_run_check_programs(const struct h_plan *plan);
int h_run_copy_plan(const struct h_plan *plan, int repeat, const char *out);
/* --resume --repeat N: plan.plan's repeat line becomes N, with a note. 0 or -1 with errno. */
int h_run_record_repeat(const char *dir, const char *name, int from, int to);

/* One run per directory, one measuring run per machine (lock.c). Refusals exit 2. */
/* dir: where the files are; name: as messages show it */
void h_out_check(const char *dir, const char *name, int resume);	/* new or empty, free */
int h_dir_lock(const char *dir, const char *name, int resume);	/* held for the run's life */
int h_machine_lock(const char *dir, int no_wait);	/* waits, or exits 2; -1: none to take */
int h_machine_lock_fd(void);			/* the one this run holds, or -1 */
void h_lock_release(int fd);			/* clear the holder's line, unlock */

/* One invocation of one point (invoke.c). */
enum h_outcome { H_OK, H_FAIL, H_SKIP };
struct h_point_run {
	const char *dir;		/* the run directory, which holds the point's log */
	const struct h_point *pt;
	int rep;			/* 1-based repetition */
	struct h_csv *raw;
	struct h_csv *hist;		/* hist.csv (record/histio.h), or NULL: no histograms asked */
	struct ab_results *got;		/* its records (rep 0 left out) also go here; NULL: no */
	int exit_code;			/* out: -1 when it did not run or was given up */
	int write_failed;		/* out: raw.csv could not be written (a full disk) */
	double seconds;			/* out */
};
enum h_outcome h_point_run(struct h_point_run *pr, const char *logp, char **argv, char *reason,
			   size_t rlen);
/* Benchmarks given up (stuck in the kernel past SIGKILL): reaped if they ever end. */
void h_reap_abandoned(void);

/* machine.txt: the machine, the discoveries, the knobs "before" (or "after"). 0 or -1. */
int h_machine_write(const char *out, const struct h_plan *plan, const char *note);
/* The knobs' block of when ("before", or "after" with the load and steal), in place of
 * an earlier one (a resumed run's finish): each key once. 0 or -1. */
int h_machine_knobs(const char *out, const char *when);

/*
 * ---- precision.c ----
 * --precision P --budget DURATION (or the plan's lines): after the plan's repetitions,
 * rounds of added ones for the points whose widest headline interval (judged at 97.5%,
 * report.md's is 95%) is wider than +-P of its median: each aimed at the next count of
 * values that narrows its interval, most narrowing per second first within what is left
 * of the budget (seconds from the sweep's start), each round in the plan's order, each
 * point up to 8x the plan's repetitions. An added round's repetitions carry one number,
 * the round's (the plan's repetitions, then one more per round), so that a pair of points
 * by repetition is a pair by round. Without a budget, the added rounds may take as long
 * as the plan's own.
 */
/* A point may run this many times its plan's repetitions, and no more: a point whose
 * values stay spread (two modes) must not take the whole budget. 8, not 6: once the
 * default plan's invocations took 0.18 s, a 15-minute run with 8x took 37 of its 74
 * points to 54 values (6 x 9) or past, and replayed on three runs' values 8x took 0.03
 * to 0.13 points off the median half-width and 0.17 to 0.63 off the p90 (docs/plans.md,
 * Precision). */
#define H_PREC_CAP_TIMES 8
struct h_prec {
	double target, budget;	/* a fraction (0.05); wall seconds from the run's start */
	int npoints;
	int repeat, rep;	/* the plan's repetitions; the number the last round's carry */
	struct ab_results *got;	/* [point]: its headline records so far; NULL: off */
	int *nrep;		/* [point]: repetitions run, the plan's and the added */
	double *gain;		/* [point]: what its step narrows per second (precision.c) */
	int *goal;		/* [point]: the repetitions its round aims at (precision.c) */
};
struct h_prec_ops {
	void *ctx;
	double (*est)(void *ctx, int pi);	/* expected seconds of one more invocation */
	int (*one)(void *ctx, int pi, int rep, const char *round);	/* 0, or -1: stop */
};
/* Off (all zero) unless plan->precision; then -1 when out of memory. */
int h_prec_init(struct h_prec *p, const struct h_plan *plan, int repeat);
void h_prec_free(struct h_prec *p);
/* An invocation of point pi that counted (ok): its headline records into p. */
void h_prec_take(struct h_prec *p, int pi, const struct ab_results *inv);
/* The added rounds until every point is within target, capped, or out of budget: how many
 * repetitions were added (h_prec_report says how many points reached the target). */
int h_prec_rounds(struct h_prec *p, double t0, const struct h_prec_ops *ops);
/* --resume: the records and repetitions of the run so far, from runs.csv (the rows that
 * ran) and raw.csv (each row's records: what raw.csv gained since the row before), read
 * through the directory --resume checked. 0, or -1 with err set. */
int h_prec_resume(struct h_prec *p, char *err, size_t errlen);
void h_prec_report(const struct h_prec *p, int added);

/*
 * ---- spawn.c ----
 * Starting a program whose output the harness reads: a benchmark's records
 * (invoke.c), its --check-options line (plan_check.c), a discovery's KEY=VALUE
 * lines (machine.c). No shell: argv runs as given, stdin on /dev/null, one of
 * its outputs on a pipe the caller reads with its own deadlines.
 */
struct h_spawn {
	int pipe_to;	/* the child's 1 (stdout) or 2 (stderr): on the pipe */
	int other;	/* its other output: onto this fd; -1: /dev/null */
	int deathsig;	/* 0: the harness's process group; else its own group (the watchdog
			 * kills it with its children), and this signal if the harness dies */
	const char *env;	/* "NAME=VALUE" added to the child's environment alone; NULL: none */
	int with_lock;		/* hand it the run's machine lock (sys/machlock.h) */
};

/* The harness probes the machine's slowness again when its figure is this old; its
 * children take its figure rather than probe themselves (sys/proc.h). */
#define H_SLOWNESS_MAX_AGE_NS (10 * AB_NS)
/* Start argv[0] (a path) as how says; the pipe's read end (close-on-exec) in *fd.
 * A failed exec says why on the child's stderr and exits 127. Its pid, or -1
 * with errno (nothing left open). */
pid_t h_spawn(char **argv, const struct h_spawn *how, int *fd);

/*
 * ---- timings.c ----
 * How long a plan's invocations take: measured, not guessed. Two tables of
 * seconds per invocation, keyed by benchmark, --duration and the point's own
 * arguments (its axes and extras, which decide how long it runs):
 *  - shipped: harness/timings.tsv (installed as share/affbench/timings.tsv),
 *    measured on the project's reference machine;
 *  - learned: this machine's, $AFFBENCH_TIMINGS or /var/lib/affbench/timings.tsv,
 *    updated by harness run after each invocation from its measured wall time.
 * Only registered benchmarks are looked up and learned: a test's fake one
 * (AFFBENCH_TEST_PROGRAMS, harness/plan.c) teaches nothing.
 * A table that is not a regular file, too large or with one bad row is not
 * used at all, with one warning; every number in it is range-checked.
 */

/* Where an estimate came from, best first (harness run --dry-run counts them). */
enum h_est_source {
	H_EST_LEARNED,		/* this point, measured on this machine */
	H_EST_SHIPPED,		/* this point, measured on the reference machine */
	H_EST_PLAN,		/* the block's 'estimate' line */
	H_EST_BENCH,		/* the benchmark's mean at this duration (learned, else shipped) */
	H_EST_GUESS,		/* duration + 1 */
	H_EST_NSOURCES
};

struct h_timing {
	char bench[32];
	double duration;
	char *args;		/* the point's arguments after --quiet, blank-separated; "-" if none */
	double seconds;		/* mean wall seconds of one invocation */
	long runs;		/* invocations behind the mean */
};

struct h_ttable {
	char path[4096];
	struct h_timing *rows;
	int n;
	size_t cap;
};

struct h_timings {
	struct h_ttable shipped, learned;
	int save_failed;	/* said once; not tried again */
};

/* Both tables (a missing one is empty; a bad one is empty after one warning). */
void h_timings_load(struct h_timings *t);
void h_timings_free(struct h_timings *t);
/* Expected seconds of repetition rep (from 1) of pt, within (0, the block's timeout]. */
double h_timings_estimate(const struct h_timings *t, const struct h_point *pt, int rep,
			  enum h_est_source *src);
/* One finished invocation of pt took seconds: folded into the learned table
 * (a number outside the sane range for its block is dropped). */
void h_timings_learn(struct h_timings *t, const struct h_point *pt, int rep, double seconds);
/* Write the learned table (through lib/sys/outfile: never through a link). 0 or -1
 * after one warning; after a failure, later calls do nothing. */
int h_timings_save(struct h_timings *t);
/* The learned table's path: $AFFBENCH_TIMINGS or /var/lib/affbench/timings.tsv. */
const char *h_timings_path(void);
/* Parse one table (for tests): 0, or -1 with "PATH:LINE: reason" in err and tb empty. */
int h_ttable_read(struct h_ttable *tb, const char *path, char *err, size_t errlen);
void h_ttable_free(struct h_ttable *tb);

#endif
