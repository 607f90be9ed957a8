/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by test_record.c and test_record_field.c (lib/record/record.c): the
 * includes, a config's value by key, a memstream read back as one string, a
 * text comparison, and writing a few records into one.
 */
#ifndef RECORD_FX_H
#define RECORD_FX_H

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/record.h"
#include "sys/opts.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* key's value in c, or NULL. */
static inline const char *config_get(const struct ab_config *c, const char *key)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->kv[i].key, key) == 0)
			return c->kv[i].val;
	return NULL;
}

/* A memstream that the test reads back as one string. */
struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static inline void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
}

/* Closes the stream and returns its text (freed by the caller). */
static inline char *mem_close(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	return m->buf;
}

static inline void assert_text(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("%s:\n got: [%s]\nwant: [%s]", what, got, want);
}

struct rec {
	int rep;
	const char *metric;
	double value;
	const char *unit;
};

/* Opens m and writes the records r[0..n) to it in format fmt. */
static inline void write_recs(struct mem *m, enum ab_format fmt, const char *bench,
			      const struct ab_config *c, const struct rec *r, size_t n)
{
	struct ab_out o;

	mem_open(m);
	ab_out_init(&o, m->f, &(struct ab_common){ .format = fmt }, bench);
	for (size_t i = 0; i < n; i++)
		ab_record(&o, c, r[i].rep, r[i].metric, r[i].value, r[i].unit);
}

#endif
