// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/record.c's field writers: that a JSON string is valid UTF-8
 * whatever bytes it is given, RFC 4180 quoting of a CSV field and its
 * inverse (splitting a line, whole records round-tripped).
 */
#include "record_fx.h"

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
	assert_string_equal(config_get(&back, "io_cpus"), "0-1,4");
	assert_string_equal(config_get(&back, "label"), "say \"hi\"");
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
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_csv_field),
		cmocka_unit_test(test_csv_roundtrip),
		cmocka_unit_test(test_csv_split),
		cmocka_unit_test(test_csv_record_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
