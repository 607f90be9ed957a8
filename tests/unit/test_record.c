/*
 * lib/report/record.c: the exact text of CSV, JSON and table records (written into
 * an open_memstream), config keys kept sorted, RFC 4180 quoting and its
 * inverse, that a non-finite value is never written, and that a JSON string
 * is valid UTF-8 whatever bytes it is given.
 */
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

#include "report/record.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A memstream that the test reads back as one string. */
struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
}

/* Closes the stream and returns its text (freed by the caller). */
static char *mem_close(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	return m->buf;
}

static void assert_text(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("%s:\n got: [%s]\nwant: [%s]", what, got, want);
}

/* --- ab_format_parse --- */

static void test_format_parse(void **state)
{
	static const struct {
		const char *s;
		int ret;
		enum ab_format f;
	} cases[] = {
		{ "table", 0, AB_FMT_TABLE }, { "csv", 0, AB_FMT_CSV }, { "json", 0, AB_FMT_JSON },
		{ "", -1, 0 }, { "CSV", -1, 0 }, { "xml", -1, 0 }, { "tab", -1, 0 },
		{ "jsonl", -1, 0 }, { "csv ", -1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		enum ab_format f = (enum ab_format)99;

		if (ab_format_parse(cases[i].s, &f) != cases[i].ret)
			fail_msg("format '%s': want %d", cases[i].s, cases[i].ret);
		if (cases[i].ret == 0)
			assert_int_equal(f, cases[i].f);
		else
			assert_int_equal(f, 99);	/* untouched on error */
	}
}

/* --- config: sorted insert, replace, limits --- */

static void test_config_set(void **state)
{
	static const struct {
		const char *name;
		const char *kv[6][2];	/* set in this order; NULL key ends */
		const char *want;
	} cases[] = {
		{ "design example", { { "placement", "same" }, { "daemon", "single" } },
		  "daemon=single;placement=same" },
		{ "replace", { { "placement", "same" }, { "daemon", "single" }, { "placement", "other" } },
		  "daemon=single;placement=other" },
		{ "reverse", { { "c", "3" }, { "b", "2" }, { "a", "1" } }, "a=1;b=2;c=3" },
		{ "middle", { { "a", "1" }, { "c", "3" }, { "b", "2" } }, "a=1;b=2;c=3" },
		{ "prefix keys", { { "cpu_b", "1" }, { "cpu", "0" } }, "cpu=0;cpu_b=1" },
		{ "cpu list", { { "io_cpus", "0-1,4" }, { "burn", "2" } }, "burn=2;io_cpus=0-1,4" },
		{ "empty value", { { "x", "" } }, "x=" },
		{ "none", { { NULL, NULL } }, "" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct ab_config c;
		char buf[256];
		int n = 0;

		ab_config_init(&c);
		for (int j = 0; j < 6 && cases[i].kv[j][0]; j++)
			assert_int_equal(ab_config_set(&c, cases[i].kv[j][0], "%s", cases[i].kv[j][1]), 0);
		assert_int_equal(ab_config_format(&c, buf, sizeof(buf)), (int)strlen(cases[i].want));
		assert_text(cases[i].name, buf, cases[i].want);
		/* every key reads back with its last value */
		for (int j = 0; j < 6 && cases[i].kv[j][0]; j++) {
			const char *want = cases[i].kv[j][1];

			for (int k = j + 1; k < 6 && cases[i].kv[k][0]; k++)
				if (strcmp(cases[i].kv[k][0], cases[i].kv[j][0]) == 0)
					want = cases[i].kv[k][1];
			assert_non_null(ab_config_get(&c, cases[i].kv[j][0]));
			assert_string_equal(ab_config_get(&c, cases[i].kv[j][0]), want);
			n++;
		}
		assert_true(c.n <= n);
	}
}

static void test_config_limits(void **state)
{
	static const struct {
		const char *name;
		const char *key;
		const char *val;
		int ret;
	} cases[] = {
		{ "key 31", "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", "v", 0 },
		{ "key 32", "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", "v", -1 },
		{ "empty key", "", "v", -1 },
		{ "key with =", "a=b", "v", -1 },
		{ "key with ;", "a;b", "v", -1 },
		{ "value with ;", "a", "1;2", -1 },
		{ "value with =", "a", "x=y", 0 },
		{ "value with comma", "a", "0-1,4", 0 },
		{ "value with quote", "a", "say \"hi\"", 0 },
	};
	char v127[128], v128[129];
	struct ab_config c;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		ab_config_init(&c);
		if (ab_config_set(&c, cases[i].key, "%s", cases[i].val) != cases[i].ret)
			fail_msg("%s: want %d", cases[i].name, cases[i].ret);
		assert_int_equal(c.n, cases[i].ret == 0 ? 1 : 0);
	}

	memset(v127, 'v', 127);
	v127[127] = '\0';
	memset(v128, 'v', 128);
	v128[128] = '\0';
	ab_config_init(&c);
	assert_int_equal(ab_config_set(&c, "a", "%s", v127), 0);
	assert_int_equal(ab_config_set(&c, "b", "%s", v128), -1);
	assert_int_equal(c.n, 1);

	/* full: a new key is refused, replacing an existing one still works */
	ab_config_init(&c);
	for (int i = 0; i < AB_CONFIG_MAX; i++) {
		char key[2] = { (char)('a' + i), '\0' };

		assert_int_equal(ab_config_set(&c, key, "%d", i), 0);
	}
	assert_int_equal(c.n, AB_CONFIG_MAX);
	assert_int_equal(ab_config_set(&c, "zz", "1"), -1);
	assert_int_equal(ab_config_set(&c, "a", "again"), 0);
	assert_string_equal(ab_config_get(&c, "a"), "again");
	assert_null(ab_config_get(&c, "zz"));
}

static void test_config_format_small(void **state)
{
	struct ab_config c;
	char buf[32];

	(void)state;
	ab_config_init(&c);
	ab_config_set(&c, "daemon", "single");
	ab_config_set(&c, "placement", "same");
	/* "daemon=single;placement=same" is 28 characters: 29 bytes fit, 28 do not */
	assert_int_equal(ab_config_format(&c, buf, 29), 28);
	assert_int_equal(ab_config_format(&c, buf, 28), -1);
	assert_int_equal(strlen(buf) < 28, 1);	/* still terminated */
	assert_int_equal(ab_config_format(&c, buf, 0), -1);
}

static void test_config_parse(void **state)
{
	static const struct {
		const char *in;
		int ret;
		const char *formatted;	/* sorted */
	} cases[] = {
		{ "", 0, "" },
		{ "a=1", 0, "a=1" },
		{ "daemon=single;placement=same", 0, "daemon=single;placement=same" },
		{ "placement=same;daemon=single", 0, "daemon=single;placement=same" },
		{ "io_cpus=0-1,4;rq_affinity=1", 0, "io_cpus=0-1,4;rq_affinity=1" },
		{ "x=a=b", 0, "x=a=b" },
		{ "x=", 0, "x=" },
		{ "a", -1, NULL },
		{ "=1", -1, NULL },
		{ "a=1;", -1, NULL },
		{ ";a=1", -1, NULL },
		{ "a=1;;b=2", -1, NULL },
		{ "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk=1", -1, NULL },	/* 32-character key */
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct ab_config c, again;
		char buf[512], buf2[512];

		if (ab_config_parse(&c, cases[i].in) != cases[i].ret)
			fail_msg("parse '%s': want %d", cases[i].in, cases[i].ret);
		if (cases[i].ret)
			continue;
		assert_true(ab_config_format(&c, buf, sizeof(buf)) >= 0);
		assert_text(cases[i].in, buf, cases[i].formatted);
		/* format is the inverse of parse */
		assert_int_equal(ab_config_parse(&again, buf), 0);
		assert_true(ab_config_format(&again, buf2, sizeof(buf2)) >= 0);
		assert_text(cases[i].in, buf2, buf);
		assert_int_equal(again.n, c.n);
	}
}

/* --- records in each format --- */

struct rec {
	int rep;
	const char *metric;
	double value;
	const char *unit;
};

static void write_recs(struct mem *m, enum ab_format fmt, const char *bench,
		       const struct ab_config *c, const struct rec *r, size_t n)
{
	struct ab_out o;

	mem_open(m);
	ab_out_init(&o, m->f, fmt, bench);
	for (size_t i = 0; i < n; i++)
		ab_record(&o, c, r[i].rep, r[i].metric, r[i].value, r[i].unit);
}

static void test_record_csv(void **state)
{
	static const struct rec recs[] = {
		{ 0, "stat_per_s", 123456.5, "stat/s" },
		{ 1, "stat_per_s", 1.0 / 3, "stat/s" },	/* %.10g */
		{ 2, "same_cpu_pct", NAN, "%" },	/* never written */
		{ 3, "stat_per_s", INFINITY, "stat/s" },
		{ 4, "stat_per_s", -INFINITY, "stat/s" },
		{ 5, "ns_per_op", 123456789012.0, "ns" },
		{ 6, "ns_per_op", 0.001, "ns" },
		{ 7, "ns_per_op", -2, "ns" },
	};
	struct ab_config c;
	struct mem m;
	char *got;

	(void)state;
	ab_config_init(&c);
	ab_config_set(&c, "placement", "same");
	ab_config_set(&c, "daemon", "single");
	write_recs(&m, AB_FMT_CSV, "cputestfs", &c, recs, N(recs));
	got = mem_close(&m);
	assert_text("csv", got,
		    "bench,config,rep,metric,value,unit\n"
		    "cputestfs,daemon=single;placement=same,0,stat_per_s,123456.5,stat/s\n"
		    "cputestfs,daemon=single;placement=same,1,stat_per_s,0.3333333333,stat/s\n"
		    "cputestfs,daemon=single;placement=same,5,ns_per_op,1.23456789e+11,ns\n"
		    "cputestfs,daemon=single;placement=same,6,ns_per_op,0.001,ns\n"
		    "cputestfs,daemon=single;placement=same,7,ns_per_op,-2,ns\n");
	free(got);
}

static void test_record_csv_quoting(void **state)
{
	static const struct {
		const char *name;
		const char *key, *val;
		const char *want;
	} cases[] = {
		{ "cpu list", "io_cpus", "0-1,4",
		  "bench,config,rep,metric,value,unit\n"
		  "sqrtio,\"io_cpus=0-1,4;rq_affinity=1\",0,ios_K_per_s,12.25,K/s\n" },
		{ "double quote", "label", "say \"hi\"",
		  "bench,config,rep,metric,value,unit\n"
		  "sqrtio,\"label=say \"\"hi\"\";rq_affinity=1\",0,ios_K_per_s,12.25,K/s\n" },
		{ "plain", "io_cpus", "0-1",
		  "bench,config,rep,metric,value,unit\n"
		  "sqrtio,io_cpus=0-1;rq_affinity=1,0,ios_K_per_s,12.25,K/s\n" },
	};
	static const struct rec r = { 0, "ios_K_per_s", 12.25, "K/s" };

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct ab_config c;
		struct mem m;
		char *got;

		ab_config_init(&c);
		ab_config_set(&c, "rq_affinity", "1");
		assert_int_equal(ab_config_set(&c, cases[i].key, "%s", cases[i].val), 0);
		write_recs(&m, AB_FMT_CSV, "sqrtio", &c, &r, 1);
		got = mem_close(&m);
		assert_text(cases[i].name, got, cases[i].want);
		free(got);
	}
}

static void test_record_nonfinite_only(void **state)
{
	static const struct rec recs[] = {
		{ 0, "stat_per_s", NAN, "stat/s" },
		{ 1, "stat_per_s", INFINITY, "stat/s" },
	};
	static const enum ab_format fmts[] = { AB_FMT_TABLE, AB_FMT_CSV, AB_FMT_JSON };

	(void)state;
	for (size_t i = 0; i < N(fmts); i++) {
		struct mem m;
		char *got;

		write_recs(&m, fmts[i], "cputestfs", NULL, recs, N(recs));
		got = mem_close(&m);
		assert_text("nothing but failures", got, "");
		free(got);
	}
}

static void test_record_json(void **state)
{
	static const struct rec recs[] = {
		{ 0, "stat_per_s", 123456.5, "stat/s" },
		{ 1, "stat_per_s", NAN, "stat/s" },
		{ 2, "we\"ird\\", 1e20, "a\tb\n" },
	};
	struct ab_config c;
	struct mem m;
	char *got;

	(void)state;
	ab_config_init(&c);
	ab_config_set(&c, "placement", "same");
	ab_config_set(&c, "daemon", "single");
	ab_config_set(&c, "io_cpus", "0-1,4");
	write_recs(&m, AB_FMT_JSON, "cputestfs", &c, recs, N(recs));
	got = mem_close(&m);
	assert_text("json", got,
		    "{\"bench\":\"cputestfs\",\"config\":{\"daemon\":\"single\",\"io_cpus\":\"0-1,4\","
		    "\"placement\":\"same\"},\"rep\":0,\"metric\":\"stat_per_s\",\"value\":123456.5,"
		    "\"unit\":\"stat/s\"}\n"
		    "{\"bench\":\"cputestfs\",\"config\":{\"daemon\":\"single\",\"io_cpus\":\"0-1,4\","
		    "\"placement\":\"same\"},\"rep\":2,\"metric\":\"we\\\"ird\\\\\",\"value\":1e+20,"
		    "\"unit\":\"a\\tb\\n\"}\n");
	free(got);

	/* an empty config is an empty object */
	write_recs(&m, AB_FMT_JSON, "fdget", NULL, recs, 1);
	got = mem_close(&m);
	assert_text("json no config", got,
		    "{\"bench\":\"fdget\",\"config\":{},\"rep\":0,\"metric\":\"stat_per_s\","
		    "\"value\":123456.5,\"unit\":\"stat/s\"}\n");
	free(got);
}

static void test_record_table(void **state)
{
	static const struct rec recs[] = {
		{ 0, "stat_per_s", 123456.5, "stat/s" },
		{ 1, "same_cpu_pct", NAN, "%" },
		{ 12, "same_cpu_pct", 99.25, "%" },
	};
	struct ab_config c;
	struct mem m;
	char *got;

	(void)state;
	ab_config_init(&c);
	ab_config_set(&c, "placement", "same");
	ab_config_set(&c, "daemon", "single");
	write_recs(&m, AB_FMT_TABLE, "cputestfs", &c, recs, N(recs));
	got = mem_close(&m);
	assert_text("table", got,
		    "config                                   rep  metric                          value  unit\n"
		    "daemon=single;placement=same               0  stat_per_s                   123456.5  stat/s\n"
		    "daemon=single;placement=same              12  same_cpu_pct                    99.25  %\n");
	free(got);

	/* no config: a dash keeps the columns readable */
	write_recs(&m, AB_FMT_TABLE, "fdget", NULL, recs, 1);
	got = mem_close(&m);
	assert_text("table no config", got,
		    "config                                   rep  metric                          value  unit\n"
		    "-                                          0  stat_per_s                   123456.5  stat/s\n");
	free(got);
}

/* --- field writers --- */

static void test_json_string(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "", "\"\"" },
		{ "plain", "\"plain\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "line\nbreak", "\"line\\nbreak\"" },
		{ "tab\there", "\"tab\\there\"" },
		{ "cr\r", "\"cr\\u000d\"" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },	/* UTF-8 passes through */
		{ "\xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf",	/* up to U+10FFFF */
		  "\"\xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\"" },
		/* ill-formed UTF-8: each byte of it U+FFFD, so the document stays UTF-8 */
		{ "h\xff\xfeost", "\"h\\ufffd\\ufffdost\"" },
		{ "\xc3\x28", "\"\\ufffd(\"" },			/* a lead byte, no continuation */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },		/* overlong '/' */
		{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },	/* overlong, 3 bytes */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* a UTF-16 surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },	/* past U+10FFFF */
		{ "\xf5\x80", "\"\\ufffd\\ufffd\"" },
		{ "end \xe2\x82", "\"end \\ufffd\\ufffd\"" },	/* cut short by the end */
		{ "\x80x", "\"\\ufffdx\"" },			/* a lone continuation byte */
		{ "0-1,4", "\"0-1,4\"" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct mem m;
		char *got;

		mem_open(&m);
		ab_json_string(m.f, cases[i].in);
		got = mem_close(&m);
		assert_text(cases[i].in, got, cases[i].want);
		free(got);
	}
}

static const char *const tricky[] = {
	"", "plain", "a,b", "say \"hi\"", "\"", "\"\"", ",", ",,", "io_cpus=0-1,4",
	"cr\rin", "lf\nin", " spaces ", "trailing,", "\"start", "end\"", "a\"\",\"b",
	"daemon=single;placement=same", "caf\xc3\xa9",
};

static void test_csv_field(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "", "" },
		{ "plain", "plain" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "cr\rin", "\"cr\rin\"" },
		{ "lf\nin", "\"lf\nin\"" },
		{ "a;b=c", "a;b=c" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct mem m;
		char *got;

		mem_open(&m);
		ab_csv_field(m.f, cases[i].in);
		got = mem_close(&m);
		assert_text(cases[i].in, got, cases[i].want);
		free(got);
	}
}

/* Each tricky string alone, and all of them on one line, come back from ab_csv_split. */
static void test_csv_roundtrip(void **state)
{
	char *fields[N(tricky) + 1];

	(void)state;
	for (size_t i = 0; i < N(tricky); i++) {
		struct mem m;
		char *line;

		mem_open(&m);
		ab_csv_field(m.f, "x");
		fputc(',', m.f);
		ab_csv_field(m.f, tricky[i]);
		fputc(',', m.f);
		ab_csv_field(m.f, tricky[i]);
		fputc('\n', m.f);
		line = mem_close(&m);
		assert_int_equal(ab_csv_split(line, fields, 3), 3);
		assert_string_equal(fields[0], "x");
		assert_text("field 1", fields[1], tricky[i]);
		assert_text("field 2", fields[2], tricky[i]);
		free(line);
	}

	struct mem m;
	char *line;

	mem_open(&m);
	for (size_t i = 0; i < N(tricky); i++) {
		if (i)
			fputc(',', m.f);
		ab_csv_field(m.f, tricky[i]);
	}
	fputs("\r\n", m.f);
	line = mem_close(&m);
	assert_int_equal(ab_csv_split(line, fields, (int)N(fields)), (int)N(tricky));
	for (size_t i = 0; i < N(tricky); i++)
		assert_text("all on one line", fields[i], tricky[i]);
	free(line);
}

static void test_csv_split(void **state)
{
	static const struct {
		const char *in;
		int max;
		int ret;
		const char *f[4];
	} cases[] = {
		{ "a,b,c", 4, 3, { "a", "b", "c" } },
		{ "a,b,c\n", 4, 3, { "a", "b", "c" } },
		{ "a,b,c\r\n", 4, 3, { "a", "b", "c" } },
		{ "", 4, 1, { "" } },
		{ ",", 4, 2, { "", "" } },
		{ "\"\",x", 4, 2, { "", "x" } },
		{ "\"a,b\",c", 4, 2, { "a,b", "c" } },
		{ "\"say \"\"hi\"\"\"", 4, 1, { "say \"hi\"" } },
		{ "a,b,c,d", 4, 4, { "a", "b", "c", "d" } },
		{ "a,b,c,d,e", 4, -1, { NULL } },	/* more fields than room */
		{ "\"abc", 4, -1, { NULL } },		/* unterminated quote */
		{ "\"a\"b,c", 4, -1, { NULL } },	/* text after the closing quote */
		{ "a\"b", 4, -1, { NULL } },		/* quote inside a bare field */
		{ "a,\"b", 4, -1, { NULL } },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char line[64];
		char *fields[4];
		int n;

		snprintf(line, sizeof(line), "%s", cases[i].in);
		n = ab_csv_split(line, fields, cases[i].max);
		if (n != cases[i].ret)
			fail_msg("split '%s': got %d, want %d", cases[i].in, n, cases[i].ret);
		for (int j = 0; j < n; j++)
			assert_text(cases[i].in, fields[j], cases[i].f[j]);
	}
}

/* What the CSV writer produces, the splitter reads back into the same record. */
static void test_csv_record_roundtrip(void **state)
{
	static const struct rec r = { 3, "ios_K_per_s", 12.25, "K/s" };
	struct ab_config c, back;
	char *fields[7], *text, *nl, buf[256];
	struct mem m;

	(void)state;
	ab_config_init(&c);
	ab_config_set(&c, "io_cpus", "0-1,4");
	ab_config_set(&c, "label", "say \"hi\"");
	write_recs(&m, AB_FMT_CSV, "sqrtio", &c, &r, 1);
	text = mem_close(&m);
	nl = strchr(text, '\n');
	assert_non_null(nl);
	assert_int_equal(ab_csv_split(nl + 1, fields, 7), 6);
	assert_string_equal(fields[0], "sqrtio");
	assert_int_equal(ab_config_parse(&back, fields[1]), 0);
	assert_string_equal(ab_config_get(&back, "io_cpus"), "0-1,4");
	assert_string_equal(ab_config_get(&back, "label"), "say \"hi\"");
	ab_config_format(&c, buf, sizeof(buf));
	assert_string_equal(fields[1], buf);
	assert_string_equal(fields[2], "3");
	assert_string_equal(fields[3], "ios_K_per_s");
	assert_true(strtod(fields[4], NULL) == 12.25);
	assert_string_equal(fields[5], "K/s");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_config_set),
		cmocka_unit_test(test_config_limits),
		cmocka_unit_test(test_config_format_small),
		cmocka_unit_test(test_config_parse),
		cmocka_unit_test(test_record_csv),
		cmocka_unit_test(test_record_csv_quoting),
		cmocka_unit_test(test_record_nonfinite_only),
		cmocka_unit_test(test_record_json),
		cmocka_unit_test(test_record_table),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_csv_field),
		cmocka_unit_test(test_csv_roundtrip),
		cmocka_unit_test(test_csv_split),
		cmocka_unit_test(test_csv_record_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
