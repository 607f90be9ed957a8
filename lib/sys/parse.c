// SPDX-License-Identifier: GPL-2.0
/*
 * Numbers, sizes and CPU-style lists as the command line writes them: decimal
 * only, each refused whole with one line naming the bad value (sys/parse.h).
 */
#include "sys/parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"

/* Is s a plain decimal number: [+-]digits[.digits][e[+-]digits]? No hex, inf, nan, spaces. */
static int is_decimal(const char *s, int fraction)
{
	size_t digits = 0;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (fraction && *s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	if (!digits)
		return 0;
	if (fraction && (*s == 'e' || *s == 'E')) {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

int ab_parse_long(const char *s, long *v)
{
	char *end;

	if (!s || !is_decimal(s, 0))
		return -1;
	errno = 0;
	*v = strtol(s, &end, 10);
	return (errno || *end) ? -1 : 0;
}

int ab_parse_double(const char *s, double *v)
{
	char *end;

	if (!s || !is_decimal(s, 1))
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	return (errno || *end || !isfinite(*v)) ? -1 : 0;
}

int ab_parse_decimal(const char *s, double *v)
{
	char *end;

	const char *dot = s ? strchr(s, '.') : NULL;

	if (!s || !is_decimal(s, 1) || (dot && (dot[1] < '0' || dot[1] > '9')))
		return -1;	/* "5." and "5.e3": lkp parse's Float refuses them too */
	*v = strtod(s, &end);	/* ERANGE below the smallest double: 0 or subnormal, finite */
	return (*end || !isfinite(*v)) ? -1 : 0;
}

int ab_parse_size(const char *s, size_t *out, char *err, size_t errlen)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')	/* strtoull alone takes " 5", "+5", "-5" */
		return ab_err(err, errlen, "'%s' is not a size", s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return ab_err(err, errlen, "'%s' is not a size", s);
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end == 'i' && shift) /* accept KiB-style "Ki", "KiB" */
		end++;
	if ((*end == 'B' || *end == 'b') && shift)
		end++;
	if (*end)
		return ab_err(err, errlen, "'%s' is not a size (use e.g. 4096, 128K, 1M)", s);
	if (shift && v > (~0ull >> shift))
		return ab_err(err, errlen, "'%s' is too large", s);
	*out = (size_t)(v << shift);
	return 0;
}

/* Was v given before in l? A point swept twice measures nothing new. */
static int seen(const struct ab_intlist *l, int v)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return 1;
	return 0;
}

int ab_parse_intlist(const char *arg, struct ab_intlist *l, int min, int max, char *err,
		     size_t errlen)
{
	char cut[AB_CUT_LEN + 4];
	const char *p = arg, *s = ab_cut(arg, cut);

	l->n = 0;
	if (!arg || !*arg)
		return ab_err(err, errlen, "empty list");
	while (*p) {
		char tok[64];
		size_t len = strcspn(p, ",");
		long a, b;

		if (len == 0 || len >= sizeof(tok))
			return ab_err(err, errlen, "bad list '%s': %s entry", s, len ? "too long an" : "empty");
		memcpy(tok, p, len);
		tok[len] = 0;
		char *dash = strchr(tok + 1, '-');
		if (dash) {
			*dash = 0;
			if (ab_parse_long(tok, &a) || ab_parse_long(dash + 1, &b))
				return ab_err(err, errlen, "bad list '%s': '%s-%s' is not a range", s, tok, dash + 1);
		} else if (ab_parse_long(tok, &a)) {
			return ab_err(err, errlen, "bad list '%s': '%s' is not a number", s, tok);
		} else {
			b = a;
		}
		if (a > b)
			return ab_err(err, errlen, "bad list '%s': range %ld-%ld is reversed", s, a, b);
		for (long v = a; v <= b; v++) {
			if ((min || max) && (v < min || v > max))
				return ab_err(err, errlen, "bad list '%s': %ld is outside %d..%d", s, v, min, max);
			if (seen(l, (int)v))
				return ab_err(err, errlen, "bad list '%s': %ld is given twice", s, v);
			if (l->n >= AB_INTLIST_MAX)
				return ab_err(err, errlen, "bad list '%s': more than %d values", s, AB_INTLIST_MAX);
			l->v[l->n++] = (int)v;
		}
		p += len;
		if (*p == ',') {
			p++;
			if (!*p)
				return ab_err(err, errlen, "bad list '%s': trailing comma", s);
		}
	}
	return 0;
}
