/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a command line's values are parsed with (sys/parse.c): decimal numbers,
 * sizes with K/M/G and lists of integers. The option layer (sys/opts.h) and the
 * harness's plans use them; sys/opts.h includes this header.
 */
#ifndef AB_PARSE_H
#define AB_PARSE_H

#include <stddef.h>

#define AB_INTLIST_MAX 64
struct ab_intlist {
	int n;
	int v[AB_INTLIST_MAX];
};

/*
 * Numbers on a command line are decimal: "0x10", "inf", "nan", "1e999" and
 * trailing text are refused (strtod alone would take 0x10 as 16). 0 or -1.
 */
int ab_parse_double(const char *s, double *v);
/*
 * The same form for records read back (raw.csv's value, docs/records.md): a
 * value too small for a double reads as 0 or its nearest subnormal, as any
 * decimal reader takes it (lkp parse's Float does), where ab_parse_double
 * refuses it; and a point must be followed by a digit (".5", not "5."), as
 * Float takes them. Too large (1e999) is refused by both. 0 or -1.
 */
int ab_parse_decimal(const char *s, double *v);
int ab_parse_long(const char *s, long *v);

/* Parse helpers, also used by tests. 0 or -1 with a message in err. */
int ab_parse_size(const char *s, size_t *out, char *err, size_t errlen);
int ab_parse_intlist(const char *s, struct ab_intlist *l, int min, int max, char *err,
		     size_t errlen);

#endif
