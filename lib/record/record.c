// SPDX-License-Identifier: GPL-2.0
/*
 * Tidy records (docs/records.md): one row per metric per repetition,
 * written as an aligned table for people, or CSV / JSON lines for programs.
 * Every record is flushed as it is written so a crash loses nothing already
 * measured, and a non-finite value is never written at all: a failed
 * measurement must not turn into a number downstream.
 */
#include "record/record.h"
#include "sys/common.h"
#include "record/results.h"
#include "sys/opts.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

void ab_config_init(struct ab_config *c)
{
	memset(c, 0, sizeof(*c));
}

/*
 * Besides "full" and "too long", a key that is empty or holds '=' or ';' and a
 * value that holds ';' are refused: they would not survive
 * ab_config_format -> ab_config_parse.
 */
int ab_config_set(struct ab_config *c, const char *key, const char *fmt, ...)
{
	char val[sizeof(c->kv[0].val)];
	va_list ap;
	int len, i, cmp = 1;

	va_start(ap, fmt);
	len = vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(val) || strlen(key) >= sizeof(c->kv[0].key) ||
	    !key[0] || strpbrk(key, "=;") || strchr(val, ';')) {
		errno = EINVAL;
		return -1;
	}
	/* Insertion into a sorted array: at most AB_CONFIG_MAX entries, a linear scan is enough. */
	for (i = 0; i < c->n; i++) {
		cmp = strcmp(c->kv[i].key, key);
		if (cmp >= 0)
			break;
	}
	if (i < c->n && cmp == 0) {
		memcpy(c->kv[i].val, val, (size_t)len + 1);
		return 0;
	}
	if (c->n >= AB_CONFIG_MAX) {
		errno = ENOSPC;
		return -1;
	}
	memmove(&c->kv[i + 1], &c->kv[i], (size_t)(c->n - i) * sizeof(c->kv[0]));
	strcpy(c->kv[i].key, key);	/* length checked above */
	memcpy(c->kv[i].val, val, (size_t)len + 1);
	c->n++;
	return 0;
}

/* Returns the length written, or -1 (ENOSPC) when buf is too small; buf is always terminated. */
int ab_config_format(const struct ab_config *c, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0) {
		errno = ENOSPC;
		return -1;
	}
	buf[0] = '\0';
	for (int i = 0; i < c->n; i++) {
		int w = snprintf(buf + used, len - used, "%s%s=%s", i ? ";" : "", c->kv[i].key,
				 c->kv[i].val);

		if (w < 0 || (size_t)w >= len - used) {
			errno = ENOSPC;
			return -1;
		}
		used += (size_t)w;
	}
	return (int)used;
}

/* "" is the empty config; each ';'-separated part must be key=value (the value may hold '='). */
int ab_config_parse(struct ab_config *c, const char *s)
{
	ab_config_init(c);
	if (!*s)
		return 0;
	for (;;) {
		const char *end = strchrnul(s, ';');
		const char *eq = memchr(s, '=', (size_t)(end - s));
		char key[sizeof(c->kv[0].key)];

		if (!eq || eq == s || (size_t)(eq - s) >= sizeof(key)) {
			errno = EINVAL;
			return -1;
		}
		memcpy(key, s, (size_t)(eq - s));
		key[eq - s] = '\0';
		if (ab_config_set(c, key, "%.*s", (int)(end - eq - 1), eq + 1) < 0)
			return -1;
		if (!*end)
			return 0;
		s = end + 1;
	}
}

void ab_out_init(struct ab_out *o, FILE *f, const struct ab_common *common, const char *bench)
{
	o->f = f;
	o->fmt = common->format;
	o->bench = bench;
	o->idle[0] = '\0';
	if (common->idle.kind != AB_IDLE_AS_FOUND)
		ab_idle_format(&common->idle, o->idle, sizeof(o->idle));
	o->header_done = 0;
	o->keep = NULL;
}

const struct ab_config *ab_out_config(const struct ab_out *o, const struct ab_config *c,
				      struct ab_config *buf)
{
	char text[AB_CONFIG_MAX * (sizeof(c->kv[0].key) + sizeof(c->kv[0].val) + 1)];

	if (!o->idle[0])
		return c;
	if (c)
		*buf = *c;
	else
		ab_config_init(buf);
	if (ab_config_set(buf, AB_IDLE_KEY, "%s", o->idle) < 0) {
		ab_config_format(buf, text, sizeof(text));
		ab_fail("record config %s: no room for %s=%s", text, AB_IDLE_KEY, o->idle);
	}
	return buf;
}

void ab_csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0 when s starts with a
 * byte that begins none.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;	/* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;	/* UTF-16 surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;	/* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;	/* past U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void ab_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	while (s && *s) {
		unsigned char ch = (unsigned char)*s;
		size_t n = utf8_len((const unsigned char *)s);

		if (!n) {	/* a file from elsewhere: the document stays UTF-8 */
			fputs("\\ufffd", f);
			s++;
			continue;
		}
		switch (ch) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (ch < 0x20)
				fprintf(f, "\\u%04x", ch);
			else
				fwrite(s, 1, n, f);
		}
		s += n;
	}
	fputc('"', f);
}

/* Table widths fit the usual configs; a longer one pushes its row right but keeps every
 * character. */
#define TBL_CONFIG_W 40
#define TBL_METRIC_W 20
#define TBL_VALUE_W 16

static void write_table(struct ab_out *o, const char *config, int rep, const char *metric,
			double value, const char *unit)
{
	char v[32];

	if (!o->header_done) {
		fprintf(o->f, "%-*s %3s  %-*s %*s  %s\n", TBL_CONFIG_W, "config", "rep",
			TBL_METRIC_W, "metric", TBL_VALUE_W, "value", "unit");
		o->header_done = 1;
	}
	snprintf(v, sizeof(v), "%.10g", value);
	fprintf(o->f, "%-*s %3d  %-*s %*s  %s\n", TBL_CONFIG_W, config[0] ? config : "-", rep,
		TBL_METRIC_W, metric, TBL_VALUE_W, v, unit);
}

static void write_csv(struct ab_out *o, const char *config, int rep, const char *metric,
		      double value, const char *unit)
{
	if (!o->header_done) {
		fputs("bench,config,rep,metric,value,unit\n", o->f);
		o->header_done = 1;
	}
	ab_csv_field(o->f, o->bench);
	fputc(',', o->f);
	ab_csv_field(o->f, config);
	fprintf(o->f, ",%d,", rep);
	ab_csv_field(o->f, metric);
	fprintf(o->f, ",%.10g,", value);
	ab_csv_field(o->f, unit);
	fputc('\n', o->f);
}

static void write_json(struct ab_out *o, const struct ab_config *c, int rep, const char *metric,
		       double value, const char *unit)
{
	fputs("{\"bench\":", o->f);
	ab_json_string(o->f, o->bench);
	fputs(",\"config\":{", o->f);
	for (int i = 0; c && i < c->n; i++) {
		if (i)
			fputc(',', o->f);
		ab_json_string(o->f, c->kv[i].key);
		fputc(':', o->f);
		ab_json_string(o->f, c->kv[i].val);
	}
	fprintf(o->f, "},\"rep\":%d,\"metric\":", rep);
	ab_json_string(o->f, metric);
	fprintf(o->f, ",\"value\":%.10g,\"unit\":", value);
	ab_json_string(o->f, unit);
	fputs("}\n", o->f);
}

/*
 * A NAN or infinite value writes nothing: "a failed measurement is never
 * written as a number" (docs/records.md). The caller knows why it failed and is
 * the one to say so on stderr and exit 1.
 */
void ab_record(struct ab_out *o, const struct ab_config *c, int rep, const char *metric,
	       double value, const char *unit)
{
	/* 16 pairs of at most 31 + 1 + 127 characters plus separators: always fits. */
	char config[AB_CONFIG_MAX * (sizeof(c->kv[0].key) + sizeof(c->kv[0].val) + 1)];
	struct ab_config full;

	if (!isfinite(value))
		return;
	c = ab_out_config(o, c, &full);
	if (!metric)
		metric = "";
	if (!unit)
		unit = "";
	config[0] = '\0';
	if (c)
		ab_config_format(c, config, sizeof(config));
	if (o->keep && ab_results_add(o->keep, o->bench, config, rep, metric, value, unit) < 0)
		ab_msg("cannot keep record %s %s: %s", config, metric, strerror(errno));
	switch (o->fmt) {
	case AB_FMT_TABLE:
		if (!o->keep)
			write_table(o, config, rep, metric, value, unit);
		break;
	case AB_FMT_CSV:
		write_csv(o, config, rep, metric, value, unit);
		break;
	case AB_FMT_JSON:
		write_json(o, c, rep, metric, value, unit);
		break;
	}
	fflush(o->f);
}

/*
 * RFC 4180 for one line: a field is either bare (no '"' in it) or quoted,
 * with "" standing for one '"' and nothing but ',' or the end after the
 * closing quote. A trailing LF or CRLF ends the line. Fields are unquoted in
 * place: the write position never passes the read position.
 */
int ab_csv_split(char *line, char **fields, int max)
{
	size_t len = strlen(line);
	char *r = line, *w = line;
	int n = 0;

	if (len && line[len - 1] == '\n') {
		line[--len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
	}
	for (;;) {
		if (n >= max) {
			errno = E2BIG;
			return -1;
		}
		fields[n++] = w;
		if (*r == '"') {
			for (r++;; r++) {
				if (*r == '\0') {	/* unterminated quote */
					errno = EINVAL;
					return -1;
				}
				if (*r == '"') {
					if (r[1] != '"')
						break;
					r++;	/* "" -> " */
				}
				*w++ = *r;
			}
			r++;	/* past the closing quote */
			if (*r != ',' && *r != '\0') {
				errno = EINVAL;
				return -1;
			}
		} else {
			for (; *r != ',' && *r != '\0'; r++) {
				if (*r == '"') {	/* a quote in a bare field */
					errno = EINVAL;
					return -1;
				}
				*w++ = *r;
			}
		}
		if (*r == '\0') {
			*w = '\0';
			return n;
		}
		*w++ = '\0';	/* replaces at most the ',' at r */
		r++;
	}
}
