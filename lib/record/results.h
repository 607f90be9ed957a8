/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result model: records grouped by (bench, config, metric, unit), each
 * group holding its values and their repetitions, in the order groups first
 * appear. Benchmarks fill one in memory as they measure; the harness loads
 * one from raw.csv. Both render tables from it (lib/render).
 *
 * Loading trusts nothing: a raw.csv may come from anyone. Every row must match
 * the record grammar (ab_record_check); a row that does not is reported once
 * with file:line and skipped, and the rest still loads. Lines have no length
 * limit (a long line is read whole, then refused), NUL bytes are refused, and
 * groups are found through a hash index, so 200,000 configs load in seconds.
 *
 * Memory stays a small multiple of the file: each distinct string is kept
 * once (a config shared by 30 metrics is one copy), a group is a few pointers,
 * and a loaded file's values and repetitions lie in two packed arrays (12
 * bytes a row; 20 at the peak, while the rows are logged and sorted in
 * place). Measured peaks: a 62 MiB raw.csv of 2.95 million rows, each a
 * config of its own, 340 MB (2.4 GB when a group held its strings in fixed
 * arrays); one config with 2.92 million repetitions 66 MB.
 */
#ifndef AB_RESULTS_H
#define AB_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Field limits of the record grammar (sizes include the NUL). */
#define AB_BENCH_LEN 32
#define AB_CONFIG_LEN 512
#define AB_KEY_LEN 32
#define AB_VALUE_LEN 128
#define AB_METRIC_LEN 64
#define AB_UNIT_LEN 32
#define AB_REP_MAX 1000000

/* The strings are the results' own (interned: equal strings, one copy), read-only. */
struct ab_group {
	const char *bench, *config, *metric, *unit;
	size_t n, cap;		/* cap 0 with n > 0: v and rep lie in the loader's packed arrays */
	size_t line;		/* its first row's raw.csv line, for messages; 0: in memory */
	double *v;
	int *rep;		/* the repetition of each value, for paired comparisons */
};

struct ab_strings;		/* the interned strings (results.c) */

struct ab_results {
	size_t n, cap;
	struct ab_group *g;
	uint32_t *slot;		/* open-addressing hash index: group index + 1, 0 = empty */
	size_t nslot;
	size_t bad;		/* rows refused by ab_results_load_csv */
	struct ab_strings *str;
	double *pool_v;		/* a loaded file's values and repetitions, group after group */
	int *pool_rep;
};

void ab_results_init(struct ab_results *r);
void ab_results_free(struct ab_results *r);

/*
 * Why a record's text fields break the grammar, or NULL when they are good:
 * bench [a-z][a-z0-9_-]*, config "" or key=value;... (keys [a-z][a-z0-9_]*,
 * sorted, each once; values from [A-Za-z0-9_.,:+-]), rep 0..AB_REP_MAX in
 * digits, metric [A-Za-z][A-Za-z0-9_]*, a finite value in decimal
 * (ab_parse_decimal: no 0x10, inf, nan, spaces or trailing text), unit from
 * [A-Za-z0-9%/_.^-], every field within its length limit. Nothing that passes can break out of a
 * quoted string in a gnuplot script, a shell word or a markdown table cell.
 */
const char *ab_record_check(const char *bench, const char *config, const char *rep,
			    const char *metric, const char *value, const char *unit);

/* Add one value (fields must pass ab_record_check). 0, or -1 with errno (EINVAL, ENOMEM). */
int ab_results_add(struct ab_results *r, const char *bench, const char *config, int rep,
		   const char *metric, double value, const char *unit);

/*
 * Load a raw.csv (bench,config,rep,metric,value,unit; RFC 4180) into r, which
 * must be initialised and empty. Bad rows: "file:line: reason" on report
 * (NULL: silent; at most 20 lines, then a count), skipped, counted in r->bad.
 * A bad row is one that breaks the grammar, or gives a metric of a bench a
 * second unit (the first row's unit is the metric's; lkp parse does the same).
 * A missing file gives empty results. The file is opened as sys/infile.h says
 * (a regular file, not a link, within AB_INFILE_MAX_BYTES and lines of
 * AB_INFILE_MAX_LINE). 0, or -1 with one line in err and errno EINVAL (the
 * file is refused: not a regular file, a link, too large, a line too long, or
 * a second row for the same bench, config, rep and metric: "file:line: ...
 * first at line N", since a repetition written twice cannot be told from two
 * repetitions; rep 0, a benchmark's own per-invocation summary, may repeat),
 * EIO or ENOMEM. On -1, r holds what loaded and must still be freed.
 */
int ab_results_load_csv(struct ab_results *r, const char *path, FILE *report, char *err,
			size_t errlen);

/* The group exactly matching all four keys, or NULL. */
const struct ab_group *ab_results_get(const struct ab_results *r, const char *bench,
				      const char *config, const char *metric, const char *unit);
/* Does config hold kv ("key=value")? "key=value|" also matches a config without key:
 * records written before the key existed (a new sweep axis) count as its default. */
int ab_cfg_matches(const char *config, const char *kv);
/* The value a common key means where a config lacks it (written only when it is not
 * that, docs/records.md): "as-found" for idle, which ab_cfg_matches takes for "idle=as-found";
 * NULL for any other key. */
const char *ab_cfg_absent_as(const char *key);
/* First group of bench/metric whose config holds every "k=v" in want (NULL-terminated,
 * each as ab_cfg_matches takes it). */
const struct ab_group *ab_results_find(const struct ab_results *r, const char *bench,
				       const char *metric, const char *const *want);
/* The value of key in a "k=v;k=v" config, copied into buf ("" if absent). */
const char *ab_cfg_get(const char *config, const char *key, char *buf, size_t len);

#endif
