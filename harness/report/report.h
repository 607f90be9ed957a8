/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness report and harness export: the report/ part. Its files:
 *   report.c          harness report (alias plot): summary.csv, tables.md, figures,
 *                     report.md, details.md
 *   data.c            raw.csv loaded; summary.csv
 *   warnings.c        report.md's warnings (the machine, too few repetitions, the plan,
 *                     knobs) and its precision line per benchmark
 *   rounds.c          report.md's Rounds paragraph: the rounds the machine ran apart in
 *   monitor.c         details.md's table of the CPU monitor's records
 *   failures.c        report.md's failed and skipped points; the skips the levers table names
 *   histplot.c        the CDF figures from hist.csv
 *   export.c          harness export: results.json
 *   export_machine.c  results.json's "machine" object from machine.txt
 * report uses harness.h alone: neither run/ nor compare/.
 */
#ifndef H_REPORT_H
#define H_REPORT_H

#include <stdio.h>

#include "../harness.h"

/* The subcommands (report.c, export.c): argc/argv start at the name. An exit code. */
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* ---- failures.csv (failures.c) ---- */
struct ab_skip;
/* report.md's "Failed and skipped points": one row per point and reason, with its reps. */
void h_failures_table(FILE *f, const char *dir);
/* The skipped points (exit 4), one per bench and config, at most max: their count. */
int h_load_skips(const char *dir, struct ab_skip *sk, int max);

/* ---- data (data.c) ---- */
/* Load DIR/raw.csv into d (bad rows reported on stderr and skipped). 0 or -1 (message in
 * err; errno EINVAL when the file is refused, a repetition written twice among the reasons:
 * report, compare, export and the gate then exit 2, for nothing read from it can be trusted). */
int h_data_load(struct ab_results *d, const char *rawcsv, char *err, size_t errlen);
/* A run without one valid record is no result to show or compare: 1 after one line
 * "CMD: RAWCSV: no valid records (N rows rejected)"; 0 when d holds records. */
int h_data_none(const struct ab_results *d, const char *cmd, const char *rawcsv);
/* The groups' indexes sorted by bench, then config (then raw.csv's order), as summary.csv
 * and tables.md's "All results" list them; malloc'd, NULL when out of memory. */
size_t *h_sorted(const struct ab_results *d);
/* Write dir/summary.csv, sorted (h_sorted). 0 or -1. */
int h_write_summary(const struct ab_results *d, const char *dir);
/* Write dir/results.json (export.c, docs/results.schema.json). 0 or -1. */
int h_write_json(const struct ab_results *d, const char *dir);
/* results.json's "machine" object from dir/machine.txt, each key once (export_machine.c). */
void h_json_machine(FILE *f, const char *dir);

/* ---- outputs (report.c, warnings.c, rounds.c) ---- */
/* Regenerate summary.csv, tables.md, the plots, report.md and details.md in dir from dir/raw.csv
 * (plus machine.txt and failures.csv when present). 0, -1 (a write failed) or -2
 * (raw.csv refused: a repetition written twice; nothing was written). name: the
 * directory as the report and messages show it (NULL: dir). */
int h_render(const char *dir, const char *name, int quiet);
void h_warnings(FILE *f, const char *dir, const struct ab_results *d);
/* report.md's "Precision": per benchmark, how wide its headline results' 95% intervals are
 * relative to their medians (at the median and at worst) and what would narrow them. */
void h_precision(FILE *f, const char *dir, const struct ab_results *d);
/* Precision's rounds line (rounds.c): the repetition rounds in which the whole machine ran
 * slower or faster than in the others; how many such rounds (0: none, or no line). And
 * share[b] (H_BENCH_MAX slots): the share of registry benchmark b's variance between
 * repetitions that a round holds in common, 0..1, as the line gives it; NAN when too
 * few results or rounds. */
int h_rounds_line(FILE *f, const struct ab_results *d, double *share);
/* details.md's table of the CPU monitor's records (mon_*) of bench, and what its logs in
 * dir/log say it could not count (monitor.c). */
void h_monitor_table(FILE *f, const char *dir, const char *bench, const struct ab_results *d);
/* histplot.c: CDF figures from DIR/hist.csv, their .dat and .gp written in the private
 * plot directory pdir (NULL: none written, a failure); names filled, at most max. How
 * many; *failed when hist.csv or a figure could not be written. */
int h_hist_plots(const char *dir, const char *pdir, char names[][64], int max, int *failed);
/* details.md's "Distributions": the figures drawn (ok[i]), nothing when none was. */
void h_hist_section(FILE *f, char names[][64], const int *ok, int n);

#endif
