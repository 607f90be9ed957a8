// SPDX-License-Identifier: GPL-2.0
/*
 * Seeded mutations of a file, for the raw.csv and hist.csv fuzz test: 1 to 4 of
 * truncation, byte flips (NUL, quotes, commas, newlines, high bytes), inserted
 * quotes, a huge field, a duplicated or deleted line; and records that mean two
 * things: a number not in the decimal form (hex floats, a leading space) or too
 * large for a count (2^53 and over), a record written twice with another value,
 * a metric under a second unit, a line copied with a count of 2^53 until the
 * sums overflow. The same seed gives the same file.
 *   mutate SEED IN OUT [raw|hist]   (the fields: raw.csv's, the default, or hist.csv's)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint64_t next(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t pick(size_t n)
{
	return n ? (size_t)(next() % n) : 0;
}

/* Replace [at, at + del) of buf by ins (len ilen). */
static void splice(char **buf, size_t *len, size_t at, size_t del, const char *ins, size_t ilen)
{
	char *nb = malloc(*len - del + ilen + 1);

	if (!nb)
		exit(1);
	memcpy(nb, *buf, at);
	memcpy(nb + at, ins, ilen);
	memcpy(nb + at + ilen, *buf + at + del, *len - at - del);
	*len = *len - del + ilen;
	free(*buf);
	*buf = nb;
}

static size_t line_start(const char *buf, size_t at)
{
	while (at > 0 && buf[at - 1] != '\n')
		at--;
	return at;
}

static size_t line_end(const char *buf, size_t len, size_t s)
{
	while (s < len && buf[s] != '\n')
		s++;
	return s;
}

/* Where each field is, counted from the right (0: the last): a quoted config may
 * hold commas, the fields after it never do. */
struct shape {
	int value, unit, rep;
};
static const struct shape raw_fields = { 1, 0, 3 };	/* bench,config,rep,metric,value,unit */
/* ...,rep,metric,unit,bucket_lo,bucket_hi,count */
static const struct shape hist_fields = { 0, 3, 5 };
static const struct shape *fields = &raw_fields;

/* Field k from the right of the line starting at s: its start and length, or -1. */
static int field(const char *buf, size_t len, size_t s, int k, size_t *fs, size_t *fl)
{
	size_t e = line_end(buf, len, s), end = e;

	for (size_t i = e; i > s; i--) {
		if (buf[i - 1] != ',')
			continue;
		if (k-- == 0)
			return *fs = i, *fl = end - i, 0;
		end = i - 1;
	}
	return k ? -1 : (*fs = s, *fl = end - s, 0);
}

/* Field k of the line at s becomes v (nothing when the line has too few fields). */
static void set_field(char **buf, size_t *len, size_t s, int k, const char *v)
{
	size_t fs, fl;

	if (!field(*buf, *len, s, k, &fs, &fl))
		splice(buf, len, fs, fl, v, strlen(v));
}

/* A copy of the line holding at, inserted before it: the copy's start. */
static size_t copy_line(char **buf, size_t *len, size_t at)
{
	size_t s = line_start(*buf, at), e = line_end(*buf, *len, s);
	char *copy = malloc(e - s + 1);

	if (!copy)
		exit(1);
	memcpy(copy, *buf + s, e - s);
	copy[e - s] = '\n';
	splice(buf, len, s, 0, copy, e - s + 1);
	free(copy);
	return s;
}

/* Numbers that are not the documented decimal form, or too large for a count. */
static const char *const odd_numbers[] = {
	"0x10", "0X1P-2", "-0x1p3", "0x1.8p1", " 7", "  7", "7 ", "+7", "\t7", "1e999", "inf", "nan",
	"9007199254740992", "9007199254740993", "18446744073709551615", "18446744073709551616",
	"99999999999999999999999",
};
static const char *const units[] = { "ns", "us", "ms", "1/s", "%", "MB/s" };
#define COUNT_2_53 "9007199254740992"

/* The records that mean two things: each on the line holding at. */
static void mutate_record(char **buf, size_t *len, size_t at, int kind)
{
	char rep[16];
	size_t s;

	switch (kind) {
	case 0:	/* a number not in the decimal form */
		set_field(buf, len, line_start(*buf, at), fields->value,
			  odd_numbers[pick(sizeof(odd_numbers) / sizeof(odd_numbers[0]))]);
		break;
	case 1:	/* the same record twice, with another value */
		s = copy_line(buf, len, at);
		set_field(buf, len, s, fields->value, pick(2) ? "1" : COUNT_2_53);
		break;
	case 2:	/* the same metric under a second unit, in the same or another repetition */
		s = copy_line(buf, len, at);
		set_field(buf, len, s, fields->unit, units[pick(sizeof(units) / sizeof(units[0]))]);
		if (pick(2)) {
			snprintf(rep, sizeof(rep), "%zu", 2 + pick(1000));
			set_field(buf, len, s, fields->rep, rep);
		}
		break;
	default:	/* copies with a count of 2^53: sums past what a double holds exactly */
		for (size_t n = 2 + pick(6); n > 0; n--) {
			s = copy_line(buf, len, at);
			set_field(buf, len, s, fields->value, COUNT_2_53);
		}
	}
}

static void mutate(char **buf, size_t *len)
{
	static const char bytes[] = { '\0', '"', '\'', ',', '\n', '\r', ';', '=', '\\', '<', '|', '$',
				      '\xff' };
	size_t at = pick(*len + 1);

	switch (pick(10)) {
	case 0:	/* truncate */
		*len = at;
		break;
	case 1:	/* flip a byte */
		if (*len)
			(*buf)[pick(*len)] = bytes[pick(sizeof(bytes))];
		break;
	case 2:	/* insert quotes */
		splice(buf, len, at, 0, "'\"'\"", 1 + pick(4));
		break;
	case 3: {	/* a huge field */
		size_t n = 1000 + pick(20000);
		char *big = malloc(n);
		if (!big)
			exit(1);
		memset(big, pick(2) ? 'A' : '9', n);
		splice(buf, len, at, 0, big, n);
		free(big);
		break;
	}
	case 4: {	/* duplicate a line */
		size_t s = line_start(*buf, at), e = s;
		while (e < *len && (*buf)[e] != '\n')
			e++;
		char *copy = malloc(e - s + 1);
		if (!copy)
			exit(1);
		memcpy(copy, *buf + s, e - s);
		copy[e - s] = '\n';
		splice(buf, len, s, 0, copy, e - s + 1);
		free(copy);
		break;
	}
	case 5: {	/* delete a line */
		size_t s = line_start(*buf, at), e = s;
		while (e < *len && (*buf)[e] != '\n')
			e++;
		splice(buf, len, s, e < *len ? e - s + 1 : e - s, "", 0);
		break;
	}
	default:
		mutate_record(buf, len, at, (int)pick(4));
	}
}

int main(int argc, char **argv)
{
	if (argc != 4 && !(argc == 5 && (!strcmp(argv[4], "raw") || !strcmp(argv[4], "hist"))))
		return 2;
	if (argc == 5 && !strcmp(argv[4], "hist"))
		fields = &hist_fields;
	state = strtoull(argv[1], NULL, 10) * 7919 + 1;
	FILE *in = fopen(argv[2], "rb");
	if (!in)
		return 1;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (int c; (c = fgetc(in)) != EOF;) {
		if (len + 1 >= cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				return 1;
		}
		buf[len++] = (char)c;
	}
	fclose(in);
	for (size_t k = 1 + pick(4); k > 0; k--)
		mutate(&buf, &len);
	FILE *out = fopen(argv[3], "wb");
	if (!out || fwrite(buf, 1, len, out) != len || fclose(out))
		return 1;
	free(buf);
	return 0;
}
