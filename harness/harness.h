/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness: turns the benchmarks into one run directory and its report.
 * main.c dispatches the subcommands to three parts, each a folder with one
 * header that maps its files:
 *   run/      harness run and restore: plans found and checked, points
 *             invoked, the run's files, locks, timings, machine.txt;
 *   report/   harness report and export: raw.csv loaded, report.md, tables,
 *             figures, warnings, results.json;
 *   compare/  harness compare: runs side by side, trends, the gate.
 * run may use report; compare may use report; report uses neither (make
 * check holds this: tests/integration/harness_parts.sh). This header is
 * what all three share: the registry (registry.c), the plan format
 * (plan.c: run follows a plan, report reads plan.plan back), the machine
 * checks (machcheck.c: run writes them, report warns about them) and
 * small helpers (util.c).
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stddef.h>
#include <stdio.h>

#include <string.h>

#include "render/desc.h"
#include "record/results.h"
#include "sys/infile.h"
#include "sys/outfile.h"

/* ---- the registry (registry.c, from registry.def) ---- */
#define H_BENCH_MAX 64
extern const struct ab_bench_desc *const h_registry[];	/* NULL-terminated */
const struct ab_bench_desc *h_desc(const char *bench);	/* NULL when not registered */

/* ---- the plan format (plan.c) ---- */
#define H_AXES_MAX 8
#define H_VALS_MAX 32
#define H_ARGS_MAX 32
#define H_POINTS_MAX 100000	/* points of a whole plan (docs/plans.md) */
#define H_BLOCKS_MAX 1000	/* bench blocks of a plan */
/* What a plan's names (a benchmark, an axis) are made of. */
#define H_WORD_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"

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
	double estimate;	/* the plan's 'estimate' (0: none; run/timings.c decides the ETA) */
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
	double precision;	/* 'precision': the headline half-width aimed at, 0.05 for 5%; 0: none */
	double budget;		/* 'budget': seconds the run may take with its added repetitions */
	int nblocks;
	struct h_block *blocks;
	int npoints;		/* <= H_POINTS_MAX */
	struct h_point *points;
};

/* Parse and expand (a regular file within AB_INFILE_MAX_SMALL; every block names a
 * registered benchmark, and no plan names a program). 0 or -1 with "FILE:LINE: reason". */
int h_plan_load(struct h_plan *p, const char *path, char *err, size_t errlen);
/* The same from a stream the caller opened (--resume's, through the directory it
 * checked); path names it in messages. f stays open: the caller closes it. */
int h_plan_load_file(struct h_plan *p, FILE *f, const char *path, char *err, size_t errlen);
void h_plan_free(struct h_plan *p);
/* argv for repetition rep (from 1; the probes' option off beyond the block's
 * 'instrumented' count) of one point (NULL-terminated, strings owned by the
 * plan/point/static); H_ARGV_MAX entries are always enough. */
#define H_ARGV_MAX (10 + 2 * H_AXES_MAX + H_ARGS_MAX + 1)
/* The option h_point_argv turns off in repetition rep of block b ("kstats"), or NULL. */
const char *h_probes_off(const struct h_block *b, int rep);
int h_point_argv(const struct h_point *pt, int rep, const char *program, char **argv, int max,
		 char *durbuf, size_t durlen);
/* Directory holding the harness binary (for bin/<bench> and the plans; util.c). */
const char *h_self_dir(void);
/* The program of a block: bin/<bench> next to the harness (a test's fake under the
 * test hook; util.c). */
const char *h_program_of(const struct h_block *b, char *buf, size_t len);

/* ---- the machine checks (machcheck.c) ---- */
/* The settings that decide what a cross-CPU ratio means (harness/machcheck.c): irqbalance,
 * boost, SMT, isolated and nohz_full CPUs, cpuidle, PM QoS, THP, a hypervisor, steal. */
/* One machine.txt line: the label in its column, then the value. */
void h_machine_put(FILE *f, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void h_machine_checks(FILE *f);
/* machfacts.c: the hypervisor, PTI and PCID, topology read or guessed, the syscall and
 * same-CPU pipe round-trip prices (measured); and report.md's warnings of them. */
void h_machine_facts(FILE *f);
int h_machine_fact_warnings(FILE *f, const char *dir);
void h_machine_steal(FILE *f, const char *label);
/* report.md's warnings about them, from dir's machine.txt; how many were written. */
int h_machine_check_warnings(FILE *f, const char *dir);

/* ---- small helpers (util.c) ---- */
/* mkdir -p with mode 0755 (lib/sys/fsutil.h). 0 or -1. */
int h_mkdirs(const char *path);
/* "1 point", "3 points": n and noun, with an s unless n is 1. */
const char *h_plural(char *buf, size_t len, int n, const char *noun);
/* --precision / 'precision': "5" or "5%", a percentage in (0, 100), as a fraction (0.05).
 * --budget / 'budget': "900", "90s", "15m" or "2h", as seconds in 1..7 days. 0 or -1. */
int h_parse_precision(const char *s, double *frac);
int h_parse_budget(const char *s, double *seconds);
/* Format seconds as m:ss or h:mm:ss. */
void h_fmt_dur(double s, char *buf, size_t len);
/* machine.txt's value for label (its last occurrence: a resumed run appends), "" if absent. */
const char *h_machine_val(const char *dir, const char *label, char *buf, size_t len);
/* Check every input that report reads in a run directory (raw.csv, failures.csv,
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
/* Is metric one bench's users compare (its descriptor's headline)? A benchmark that names
 * none (a test's program, with no descriptor) has every metric judged. */
int h_is_headline(const char *bench, const char *metric);
/* A row label in markdown, "placement=other, transport=dev": cfg's key=value pairs, in its
 * order, for which keep(key, ctx) says yes, values escaped; "(one config)" when none is. */
void h_md_cfg_label(FILE *f, const char *cfg, int (*keep)(const char *key, void *ctx), void *ctx);
/* Text into a markdown table cell or line: '|' and '`' escaped, control characters as spaces. */
void h_md_cell(FILE *f, const char *s);
/* The one run directory of `harness CMD DIR` (report, export), its inputs checked; NULL after
 * printing usage for --help; exit 2 with one line for anything else. */
const char *h_dir_arg(const char *cmd, int argc, char **argv, const char *usage);
#endif
