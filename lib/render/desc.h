/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A benchmark's descriptor (<bench>/report.c): what it records, the roles of its
 * config keys and the callbacks that render its report (render.h); and the
 * questions the harness asks of a descriptor (desc.c).
 */
#ifndef AB_DESC_H
#define AB_DESC_H

#include <stddef.h>

#include "record/record.h"	/* struct ab_metric_desc */

struct ab_render;
struct ab_breakdown_bar;
struct ab_group;

/* A config key a record writes only when it is not at its default: a config without it
 * holds value, as a config without idle holds as-found (ab_cfg_absent_as). */
struct ab_key_absent {
	const char *key, *value;
};

/* A ratio a benchmark's readings name (other/same, uring/libfuse, rq on/off): median of
 * subject / median of base, both groups of one run. */
struct ab_named_ratio {
	char name[96];
	const struct ab_group *subject, *base;
};

struct ab_bench_desc {
	const char *name;		/* folder, program and record bench name; what it
					 * measures is said once, in its ab_prog_info.summary */
	const char *post;		/* id of the post it reproduces in lib/render/published.tsv */
	const char *const *headline;	/* metrics users compare (noise warnings, compare plots) */
	const char *discover;		/* argument the harness runs once for machine.txt, or NULL */
	const char *probes;		/* option whose value "off" drops the instrumented repetitions
					 * (the harness's 'instrumented' plan key), or NULL */
	int duration_each;		/* 1: --duration times each of many items (e.g. each CPU
					 * pair), so a short one is no warning; 0: the whole run */
	const char *op;			/* what a per-op figure (mon_*_per_op) is per
					 * ("one stat()"), or NULL: "one operation" */
	const struct ab_metric_desc *metrics;	/* units and directions, ended by a NULL
						 * name: every metric the bench records but
						 * mon_* and histogram tails (ab_desc_has_metric) */
	/* The roles of its config keys (each NULL-terminated, or NULL for none): */
	const char *const *compared;	/* what a CDF's lines and the breakdown's sentences
					 * compare, in order; every other key but follow is a
					 * panel (NULL: a line per config) */
	const char *const *follow;	/* keys that change with the compared ones (a
					 * placement's CPUs): neither a panel nor a label */
	const char *const *not_cpus;	/* keys named *_cpu or *_cpus that choose a policy
					 * (uring_cpu=queue), not CPU numbers */
	const struct ab_key_absent *absent_as;	/* keys left out at their default (ended by
						 * a NULL key), or NULL */
	const char *baseline_key;	/* the key whose values in baselines name one, or NULL */
	const char *const *baselines;	/* those values: a baseline is a reference measured
					 * beside the subject (a kernel file), not compared */
	const char *const *breakdown_keys;	/* what the request breakdown's sentences
						 * compare, in order; a bar's label keeps them */
	/* Its own reading of the request breakdown, after the generic one (NULL: none). */
	void (*breakdown_reading)(struct ab_render *r, const struct ab_breakdown_bar *bars, int n);
	void (*tables)(struct ab_render *r);	/* the post's layout and grids */
	/* report.md's section of it, in this order: "## NAME: QUESTION", the post's table
	 * beside ours, the readings, its first figures. */
	const char *question;			/* what the section answers */
	void (*beside)(struct ab_render *r);	/* the post's numbers beside ours, or NULL */
	void (*reading)(struct ab_render *r);	/* what the data say, for report.md */
	void (*plots)(struct ab_render *r);	/* .dat and .gp files (harness only) */
	/* The within-run ratios its readings name, as measured in r->res (the ones people
	 * trust across machines), at most max into out; how many. harness compare sets
	 * them side by side across runs. NULL: none. */
	int (*ratios)(struct ab_render *r, struct ab_named_ratio *out, int max);
};

/* Is key one of list (NULL-terminated, may be NULL)? keylen: key's length. */
int ab_desc_in(const char *const *list, const char *key, size_t keylen);
/* Is a lower value of metric better (d may be NULL: higher is better)? */
int ab_desc_lower_better(const struct ab_bench_desc *d, const char *metric);
/* Can d's benchmark record metric: one its list names, a what-the-CPUs-did mon_*
 * metric, or a tail (p90, p999, max) of a listed _p50_ one? 0 when d is NULL. */
int ab_desc_has_metric(const struct ab_bench_desc *d, const char *metric);
/* Is cfg (a record's config) one of d's baselines? */
int ab_desc_is_baseline(const struct ab_bench_desc *d, const char *cfg);
/* Does cfg hold kv ("key=value", as ab_cfg_matches takes it), a key that cfg lacks
 * counting as its default (d's absent_as, then ab_cfg_absent_as)? d may be NULL. */
int ab_desc_cfg_matches(const struct ab_bench_desc *d, const char *cfg, const char *kv);
/* The value a config of d without key holds (d's absent_as, then ab_cfg_absent_as), or
 * NULL when key has none. */
const char *ab_desc_absent_as(const struct ab_bench_desc *d, const char *key, size_t keylen);
/* Does key (keylen bytes) of d's configs hold CPU numbers: named *_cpu or *_cpus and
 * not one of d->not_cpus (d may be NULL)? */
int ab_desc_is_cpu_key(const struct ab_bench_desc *d, const char *key, size_t keylen);

#endif
