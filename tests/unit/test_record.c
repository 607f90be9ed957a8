// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/record.c: format names, config keys kept sorted (replace, limits,
 * parsing) and the exact text of CSV, JSON and table records (written into an
 * open_memstream), with RFC 4180 quoting and that a non-finite value is never
 * written. The field writers alone: test_record_field.c.
 */
#include "record_fx.h"

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
			assert_non_null(config_get(&c, cases[i].kv[j][0]));
			assert_string_equal(config_get(&c, cases[i].kv[j][0]), want);
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
	assert_string_equal(config_get(&c, "a"), "again");
	assert_null(config_get(&c, "zz"));
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
		    "daemon=single;placement=same               0  "
		    "stat_per_s                   123456.5  stat/s\n"
		    "daemon=single;placement=same              12  same_cpu_pct                    99.25  %\n");
	free(got);

	/* no config: a dash keeps the columns readable */
	write_recs(&m, AB_FMT_TABLE, "fdget", NULL, recs, 1);
	got = mem_close(&m);
	assert_text("table no config", got,
		    "config                                   rep  metric                          value  unit\n"
		    "-                                          0  "
		    "stat_per_s                   123456.5  stat/s\n");
	free(got);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
