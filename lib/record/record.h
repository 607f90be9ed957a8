/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tidy record format (docs/records.md): one row per metric per repetition.
 *   CSV:  bench,config,rep,metric,value,unit   (RFC 4180 quoting)
 *   JSON: {"bench":..,"config":{..},"rep":N,"metric":..,"value":..,"unit":..} per line
 *   table: aligned columns for people
 * config is key=value pairs kept sorted by key ("daemon=single;placement=same").
 */
#ifndef AB_RECORD_H
#define AB_RECORD_H

#include <stdio.h>

#include "sys/format.h"

/* One metric a benchmark records, as its records name it and the harness judges it:
 * the one table a benchmark records by and its report reads. */
struct ab_metric_desc {
	const char *name;	/* as in raw.csv ("stat_per_s") */
	const char *unit;	/* as in raw.csv ("1/s") */
	int lower_better;	/* 1: a rise is a regression (ns_per_op); 0: a drop is */
};

#define AB_CONFIG_MAX 16
struct ab_config {
	int n;
	struct {
		char key[32];
		char val[128];
	} kv[AB_CONFIG_MAX];
};
void ab_config_init(struct ab_config *c);
/* Set (or replace) key; keeps keys sorted. Returns -1 if full or too long. */
int ab_config_set(struct ab_config *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "k1=v1;k2=v2" */
int ab_config_format(const struct ab_config *c, char *buf, size_t len);
/* Parse "k1=v1;k2=v2" back (keys sorted on the way in). */
int ab_config_parse(struct ab_config *c, const char *s);

struct ab_results;
struct ab_common;
struct ab_out {
	FILE *f;
	enum ab_format fmt;
	const char *bench;
	char idle[32];			/* the idle key's value, "" for as-found (no key) */
	int header_done;
	struct ab_results *keep;	/* not NULL: every record is also kept here, and table
					 * format prints none (the rendered tables replace them) */
};
/*
 * Records of bench to f, in the common options' --format. Each record's config also
 * gets the keys of the common options a benchmark does not build itself:
 * idle=<policy> when --idle is not as-found (sys/idle_policy.h's AB_IDLE_KEY), in
 * its sorted place like any key, so no benchmark has to remember to add it.
 */
void ab_out_init(struct ab_out *o, FILE *f, const struct ab_common *common, const char *bench);
/* The config a record of o is written with: c and the common options' keys (above),
 * in *buf when there is one to add (else c itself; c may be NULL). Exits 1 when c is
 * full (AB_CONFIG_MAX keys): a record must not lose its policy. */
const struct ab_config *ab_out_config(const struct ab_out *o, const struct ab_config *c,
				      struct ab_config *buf);
/* Write one record and flush, so a crash loses nothing already measured. */
void ab_record(struct ab_out *o, const struct ab_config *c, int rep, const char *metric,
	       double value, const char *unit);

/* Field writers, exposed for the harness and tests. */
void ab_csv_field(FILE *f, const char *s);	/* quotes when s has , " CR or LF */
/* "..." with \" \\ \n \t \uXXXX escapes; always valid UTF-8: well-formed UTF-8 passes
 * through, and each byte of an ill-formed sequence becomes \ufffd (U+FFFD, the
 * replacement character), so a strict decoder reads every document we write. */
void ab_json_string(FILE *f, const char *s);

/* Split one CSV line (RFC 4180, no embedded newlines) into at most max fields,
 * unquoting in place. Returns the number of fields or -1 on a malformed line. */
int ab_csv_split(char *line, char **fields, int max);

#endif
