/*
 * harness: turns the four benchmarks into one run directory and report.
 * Subcommands: run, plot, compare, restore (one file each); this header is
 * the interface between those files.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stddef.h>
#include <stdio.h>

#include <string.h>

#include "report/render.h"
#include "report/results.h"
#include "sys/infile.h"
#include "sys/outfile.h"

/* Subcommands: argc/argv start at the subcommand name. Return an exit code. */
int cmd_run(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_restore(int argc, char **argv);

/* Restore logic shared by 'restore' and the run's watchdog: replay the knob
 * journal and remove stale FUSE mounts under workdir. Messages go to log
 * (stderr when NULL). Returns the number of failures. */
int h_restore(const char *journal, const char *workdir, FILE *log);

/* ---- the registry (registry.c, from registry.def) ---- */
#define H_BENCH_MAX 64
extern const struct ab_bench_desc *const h_registry[];	/* NULL-terminated */
const struct ab_bench_desc *h_desc(const char *bench);	/* NULL when not registered */

/* ---- plans (plan.c) ---- */
#define H_AXES_MAX 8
#define H_VALS_MAX 32
#define H_ARGS_MAX 32
#define H_POINTS_MAX 100000	/* points of a whole plan (docs/plans.md) */
#define H_BLOCKS_MAX 1000	/* bench blocks of a plan */

struct h_axis {
	char name[32];
	int line;		/* its line in the plan file, for messages */
	int nvals;
	char *vals[H_VALS_MAX];
};

/* One benchmark block of a plan. */
struct h_block {
	char bench[32];
	int line;		/* the 'bench' line */
	char program[1024];	/* "": bin/<bench> next to the harness, always for a registered
				 * bench; else a test's fake (AFFBENCH_TEST_PROGRAMS, plan.c) */
	double duration;	/* --duration per invocation */
	double timeout;		/* watchdog per invocation, seconds */
	double estimate;	/* the plan's 'estimate' (0: none; timings.h decides the ETA) */
	int instrumented;	/* repetitions that keep the bench's probes (-1: every one) */
	int naxes;
	struct h_axis axes[H_AXES_MAX];
	int nextra;
	char *extra[H_ARGS_MAX];
	int extra_line[H_ARGS_MAX];
	int nmetrics;		/* "metrics M...": keep only these metrics (0 = all) */
	char *metrics[H_ARGS_MAX];
};

/* One point of the cross product: a block and one value index per axis. */
struct h_point {
	struct h_block *blk;
	int idx[H_AXES_MAX];
	char label[512];	/* "daemon=single;placement=same" (sorted like record configs) */
};

struct h_plan {
	char path[1024];
	int repeat;		/* 0 = not given in the plan */
	int nblocks;
	struct h_block *blocks;
	int npoints;		/* <= H_POINTS_MAX */
	struct h_point *points;
};

/* Find a plan: a file path (with a '/', or an existing file), else NAME.plan in
 * harness/plans/, in the benchmark folder NAME/ of the source tree, or in the
 * installed share dir. 0, or -1 with a message listing the plans there are. */
int h_plan_find(const char *name, char *path, size_t len, char *err, size_t errlen);
/* Parse and expand (a regular file within AB_INFILE_MAX_SMALL; every block names a
 * registered benchmark, and no plan names a program). 0 or -1 with "FILE:LINE: reason". */
int h_plan_load(struct h_plan *p, const char *path, char *err, size_t errlen);
void h_plan_free(struct h_plan *p);
/* harness run --plan list: each plan there is, its points and what it is for. */
void h_plan_list(FILE *out);
/* Every distinct point of the registered benchmarks' blocks through
 * bin/<bench> ARGS --check-options (plan_check.c): 0, or -1 with
 * "FILE:LINE: ..." in err naming the plan line the benchmark refused. */
int h_plan_check(const struct h_plan *p, char *err, size_t errlen);
/* argv for repetition rep (from 1; the probes' option off beyond the block's
 * 'instrumented' count) of one point (NULL-terminated, strings owned by the
 * plan/point/static); H_ARGV_MAX entries are always enough. */
#define H_ARGV_MAX (10 + 2 * H_AXES_MAX + H_ARGS_MAX + 1)
/* The option h_point_argv turns off in repetition rep of block b ("kstats"), or NULL. */
const char *h_probes_off(const struct h_block *b, int rep);
int h_point_argv(const struct h_point *pt, int rep, const char *program, char **argv, int max,
		 char *durbuf, size_t durlen);
/* Directory holding the harness binary (for bin/<bench> and the plans). */
const char *h_self_dir(void);

/* ---- a run (run.c, point.c, runfiles.c, machine.c) ---- */
#include <signal.h>
#include <sys/types.h>

extern volatile sig_atomic_t h_stop_sig;	/* SIGINT/SIGTERM/SIGHUP received: stop the sweep */

/* An append-only CSV file of the run: one write() per row; a torn row is cut back out. */
struct h_csv {
	int fd;
	char path[4096];
};
/* Open (create with header when empty). 0 or -1 with errno. */
int h_csv_open(struct h_csv *c, const char *dir, const char *name, const char *header);
void h_csv_close(struct h_csv *c);
off_t h_csv_size(const struct h_csv *c);
/* Append text whole, or cut it back out: 0 or an errno value. */
int h_csv_write(struct h_csv *c, const char *text, size_t len);
/* Append one RFC 4180 row of n fields: 0 or an errno value. */
int h_csv_row(struct h_csv *c, int n, const char *const *fields);

/* --resume: mark done[rep * npoints + point] from runs.csv and cut raw.csv back to the
 * last finished point; refuses (-1, message) when runs.csv is missing or torn, or raw.csv
 * is shorter than runs.csv says, leaving raw.csv untouched. */
struct h_resume {
	int npoints, repeat;
	char *done;
};
int h_resume_load(struct h_resume *rs, const char *dir, char *err, size_t errlen);
/* --resume DIR runs DIR's plan as us, so DIR and the files of the run in it must be
 * root's or ours and writable by no one else (as the knob journal is root's): exit 2
 * with one line naming the first that is not; nothing is taken or opened before. */
void h_resume_trust(const char *dir);

/* harness run's options (run_opts.c) and the run itself (run.c). */
struct h_run_opts {
	const char *plan, *out, *resume, *note;
	int quick, repeat, dry, no_wait;
};
int h_run(struct h_run_opts *o);
int h_run_plan(struct h_run_opts *o, struct h_plan *plan, char *path, size_t len);
void h_run_check_programs(const struct h_plan *plan);
int h_run_copy_plan(const struct h_plan *plan, int repeat, const char *out);
/* --resume --repeat N: plan.plan's repeat line becomes N, with a note. 0 or -1 with errno. */
int h_run_record_repeat(const char *dir, int from, int to);

/* One run per directory, one measuring run per machine (runlock.c). Refusals exit 2. */
void h_out_check(const char *dir, int resume);	/* new or empty; not held by a live run */
int h_dir_lock(const char *dir, int resume);	/* held for the run's life: the fd */
int h_machine_lock(const char *dir, int no_wait);	/* waits, or exits 2; -1: none to take */
void h_lock_release(int fd);			/* clear the holder's line, unlock */

/* One invocation of one point (point.c). */
enum h_outcome { H_OK, H_FAIL, H_SKIP };
struct h_point_run {
	const char *dir;		/* the run directory, which holds the point's log */
	const struct h_point *pt;
	int rep;			/* 1-based repetition */
	struct h_csv *raw;
	struct h_csv *hist;		/* hist.csv (report/histio.h), or NULL: no histograms asked */
	int exit_code;			/* out: -1 when it did not run or was given up */
	int write_failed;		/* out: raw.csv could not be written (a full disk) */
	double seconds;			/* out */
};
enum h_outcome h_point_run(struct h_point_run *pr, const char *logp, char **argv, char *reason,
			   size_t rlen);
/* Benchmarks given up (stuck in the kernel past SIGKILL): reaped if they ever end. */
void h_abandon(pid_t pid);
void h_reap_abandoned(void);
/* The program of a block: bin/<bench> next to the harness (a test's fake under the test hook). */
const char *h_program_of(const struct h_block *b, char *buf, size_t len);

/* machine.txt: the machine, the discoveries, the knobs "before" (or "after"). 0 or -1. */
int h_machine_write(const char *out, const struct h_plan *plan, const char *note);
int h_machine_knobs(const char *out, const char *when);
/* The settings that decide what a cross-CPU ratio means (harness/machcheck.c): irqbalance,
 * boost, SMT, isolated and nohz_full CPUs, cpuidle, PM QoS, THP, a hypervisor, steal. */
void h_machine_checks(FILE *f);
void h_machine_steal(FILE *f, const char *label);
/* report.md's warnings about them, from dir's machine.txt; how many were written. */
int h_machine_check_warnings(FILE *f, const char *dir);

/* ---- data (data.c) ---- */
/* Load DIR/raw.csv into d (bad rows reported on stderr and skipped). 0 or -1 (message in
 * err; errno EINVAL when the file is refused, a repetition written twice among the reasons:
 * plot, compare, export and the gate then exit 2, for nothing read from it can be trusted). */
int h_data_load(struct ab_results *d, const char *rawcsv, char *err, size_t errlen);
/* Write dir/summary.csv. 0 or -1. */
int h_write_summary(const struct ab_results *d, const char *dir);
/* Write dir/results.json (export.c, docs/results.schema.json). 0 or -1. */
int h_write_json(const struct ab_results *d, const char *dir);
/* results.json's "machine" object from dir/machine.txt, each key once (export_machine.c). */
void h_json_machine(FILE *f, const char *dir);

/* ---- outputs (report.c, warnings.c) ---- */
/* Regenerate summary.csv, tables.md, the plots and report.md in dir from dir/raw.csv
 * (plus machine.txt and failures.csv when present). 0, -1 (a write failed) or -2
 * (raw.csv refused: a repetition written twice; nothing was written). */
int h_render(const char *dir, int quiet);
void h_warnings(FILE *f, const char *dir, const struct ab_results *d);
/* report.md's table of the CPU monitor's records (mon_*) of bench, and what its logs in
 * dir/log say it could not count (monitor.c). */
void h_monitor_table(FILE *f, const char *dir, const char *bench, const struct ab_results *d);
/* histplot.c: CDF figures from DIR/hist.csv, their .dat and .gp written in the private
 * plot directory pdir (NULL: none written, a failure); names filled, at most max. How
 * many; *failed when hist.csv or a figure could not be written. */
int h_hist_plots(const char *dir, const char *pdir, char names[][64], int max, int *failed);
/* report.md's "Distributions": the figures drawn (ok[i]), nothing when none was. */
void h_hist_section(FILE *f, char names[][64], const int *ok, int n);

/* ---- small helpers (util.c) ---- */
/* mkdir -p with mode 0755 (lib/sys/fsutil.h). 0 or -1. */
int h_mkdirs(const char *path);
/* "1 point", "3 points": n and noun, with an s unless n is 1. */
const char *h_plural(char *buf, size_t len, int n, const char *noun);
/* Format seconds as m:ss or h:mm:ss. */
void h_fmt_dur(double s, char *buf, size_t len);
/* machine.txt's value for label (its last occurrence: a resumed run appends), "" if absent. */
const char *h_machine_val(const char *dir, const char *label, char *buf, size_t len);
/* May path be read: absent, or a regular file (not a link) of at most max bytes and
 * lines of at most AB_INFILE_MAX_LINE (sys/infile.h)? 0, or -1 with one line in err. */
int h_input_check(const char *path, unsigned long long max, char *err, size_t errlen);
/* Check every input that plot reads in a run directory (raw.csv, failures.csv,
 * machine.txt, plan.plan) before any is read: exit 2 with one line naming the first bad one. */
void h_inputs_check(const char *cmd, const char *dir);
/* A log (or machine.txt) under the run directory dir, path being dir/...: appended
 * to, or emptied first (trunc), a regular file reached without following any link
 * below dir (sys/outfile.h). fd or -1 / stream or NULL, with errno. */
int h_log_fd(const char *dir, const char *path, int trunc);
FILE *h_log_open(const char *dir, const char *path, int trunc);
/* Is key (keylen bytes) of bench's configs a placement's CPU numbers ("client_cpu=3",
 * "io_cpus=0-3,8", "daemon_cpu=any"), which differ between machines and are left out of
 * comparisons and row labels? A key its descriptor lists in not_cpus names a policy
 * (queue, next, none), not CPUs: it is kept (ab_desc_is_cpu_key). */
int h_cfg_is_cpu_numbers(const char *bench, const char *key, size_t keylen);
/* A row label in markdown, "placement=other, transport=dev": cfg's key=value pairs, in its
 * order, for which keep(key, ctx) says yes, values escaped; "(one config)" when none is. */
void h_md_cfg_label(FILE *f, const char *cfg, int (*keep)(const char *key, void *ctx), void *ctx);
/* Text into a markdown table cell or line: '|' and '`' escaped, control characters as spaces. */
void h_md_cell(FILE *f, const char *s);
/* The one run directory of `harness CMD DIR` (plot, export), its inputs checked; NULL after
 * printing usage for --help; exit 2 with one line for anything else. */
const char *h_dir_arg(const char *cmd, int argc, char **argv, const char *usage);
#endif
