// SPDX-License-Identifier: GPL-2.0
/* The idle policy (sys/idle_policy.h): parsing, its key in records (the record
 * writer adds it, record/record.h), the haltpoll check and the PM QoS hold on a
 * fake tree (the AFFBENCH_SYSROOT hook). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/idle_policy.h"
#include "sys/opts.h"
#include "record/histio.h"
#include "record/stats.h"
#include "record/record.h"

static const struct {
	const char *in;
	int ok;
	enum ab_idle_kind kind;
	long value;
	const char *name;	/* canonical text */
} cases[] = {
	{ "as-found", 1, AB_IDLE_AS_FOUND, 0, "as-found" },
	{ "poll", 1, AB_IDLE_POLL, 0, "poll" },
	{ "max-latency:0", 1, AB_IDLE_MAX_LATENCY, 0, "max-latency:0" },
	{ "max-latency:20", 1, AB_IDLE_MAX_LATENCY, 20, "max-latency:20" },
	{ "max-latency:007", 1, AB_IDLE_MAX_LATENCY, 7, "max-latency:7" },
	{ "max-latency:1000000", 1, AB_IDLE_MAX_LATENCY, 1000000, "max-latency:1000000" },
	{ "haltpoll:0", 1, AB_IDLE_HALTPOLL, 0, "haltpoll:0" },
	{ "haltpoll:200000", 1, AB_IDLE_HALTPOLL, 200000, "haltpoll:200000" },
	{ "haltpoll:1000000000", 1, AB_IDLE_HALTPOLL, 1000000000, "haltpoll:1000000000" },
	{ "", 0, 0, 0, NULL },
	{ "asfound", 0, 0, 0, NULL },
	{ "Poll", 0, 0, 0, NULL },
	{ "poll:0", 0, 0, 0, NULL },
	{ "poll ", 0, 0, 0, NULL },
	{ "max-latency", 0, 0, 0, NULL },
	{ "max-latency:", 0, 0, 0, NULL },
	{ "max-latency:1000001", 0, 0, 0, NULL },
	{ "max-latency:-1", 0, 0, 0, NULL },
	{ "max-latency:+1", 0, 0, 0, NULL },
	{ "max-latency:0x10", 0, 0, 0, NULL },
	{ "max-latency:1e3", 0, 0, 0, NULL },
	{ "max-latency: 5", 0, 0, 0, NULL },
	{ "max-latency:5 ", 0, 0, 0, NULL },
	{ "max-latency:99999999999999999999", 0, 0, 0, NULL },
	{ "max-latency=5", 0, 0, 0, NULL },
	{ "haltpoll", 0, 0, 0, NULL },
	{ "haltpoll:", 0, 0, 0, NULL },
	{ "haltpoll:1000000001", 0, 0, 0, NULL },
	{ "haltpoll:2e5", 0, 0, 0, NULL },
	{ "haltpolling:5", 0, 0, 0, NULL },
	{ "haltpoll:5:6", 0, 0, 0, NULL },
};

static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ab_idle p = { AB_IDLE_HALTPOLL, 99 };
		char err[256] = "", name[64];
		int rc = ab_idle_parse(cases[i].in, &p, err, sizeof(err));
		if (rc != (cases[i].ok ? 0 : -1))
			fail_msg("'%s': rc %d (%s)", cases[i].in, rc, err);
		if (!cases[i].ok) {
			if (!err[0] || strchr(err, '\n'))
				fail_msg("'%s': refused without a one-line reason", cases[i].in);
			continue;
		}
		assert_int_equal(p.kind, cases[i].kind);
		assert_int_equal(p.value, cases[i].value);
		ab_idle_format(&p, name, sizeof(name));
		assert_string_equal(name, cases[i].name);
		/* the canonical name parses back to the same policy */
		struct ab_idle q;
		assert_int_equal(ab_idle_parse(name, &q, err, sizeof(err)), 0);
		assert_int_equal(q.kind, p.kind);
		assert_int_equal(q.value, p.value);
	}
	assert_int_equal(ab_idle_parse(NULL, &(struct ab_idle){ 0 }, NULL, 0), -1);
}

/* The config of the one record of cfg (NULL: none) that an output opened with --idle
 * policy writes in format fmt (hist.csv rows on: those too); the text in buf. */
static const char *written(const char *policy, enum ab_format fmt, const struct ab_config *cfg,
			   char *buf, size_t len)
{
	struct ab_common c = { .format = fmt };
	struct ab_hist h = { 0 };
	struct ab_out o;
	char err[256], *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	assert_non_null(f);
	assert_int_equal(ab_idle_parse(policy, &c.idle, err, sizeof(err)), 0);
	ab_out_init(&o, f, &c, "t");
	ab_record(&o, cfg, 1, "m", 1.5, "ns");
	ab_hist_add(&h, 100);
	setenv(AB_HIST_ENV, "1", 1);
	ab_hist_rows(&o, cfg, 1, "lat", "ns", &h);
	unsetenv(AB_HIST_ENV);
	fclose(f);
	snprintf(buf, len, "%s", text);
	free(text);
	return buf;
}

/* Records carry idle=<policy> only off the default, in its sorted place among the
 * benchmark's keys, without the benchmark adding it: as-found adds no key. */
static void test_config_key(void **state)
{
	(void)state;
	struct ab_config cfg;
	char buf[1024];

	ab_config_init(&cfg);
	ab_config_set(&cfg, "placement", "other");
	ab_config_set(&cfg, "daemon", "single");
	assert_null(strstr(written("as-found", AB_FMT_CSV, &cfg, buf, sizeof(buf)), "idle"));
	assert_non_null(strstr(buf, "\nt,daemon=single;placement=other,1,m,1.5,ns\n"));
	written("poll", AB_FMT_CSV, &cfg, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\nt,daemon=single;idle=poll;placement=other,1,m,1.5,ns\n"));
	written("haltpoll:200000", AB_FMT_CSV, &cfg, buf, sizeof(buf));
	assert_non_null(strstr(buf, ",daemon=single;idle=haltpoll:200000;placement=other,1,m,"));
	assert_int_equal(cfg.n, 2);	/* the benchmark's config is left as it built it */
	assert_string_equal(cfg.kv[0].key, "daemon");
	assert_string_equal(cfg.kv[1].key, "placement");
}

/* The hist.csv rows and JSON carry it too, and a record written with no config. */
static void test_config_key_everywhere(void **state)
{
	(void)state;
	struct ab_config cfg;
	char buf[1024];

	ab_config_init(&cfg);
	ab_config_set(&cfg, "placement", "other");
	written("max-latency:20", AB_FMT_CSV, &cfg, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\nhist,t,idle=max-latency:20;placement=other,1,lat,ns,"));
	written("poll", AB_FMT_JSON, &cfg, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"config\":{\"idle\":\"poll\",\"placement\":\"other\"}"));
	written("busy", AB_FMT_CSV, NULL, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\nt,idle=busy,1,m,1.5,ns\n"));
}

/* A config with no room left for the key: the writer exits 1 rather than write a
 * record that says as-found for a run that was not. */
static void test_config_key_full(void **state)
{
	(void)state;
	struct ab_config cfg;
	char key[8], buf[64];
	int st;

	ab_config_init(&cfg);
	for (int i = 0; i < AB_CONFIG_MAX; i++) {
		snprintf(key, sizeof(key), "k%02d", i);
		ab_config_set(&cfg, key, "v");
	}
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))	/* ab_fail's line is not the test's */
			_exit(2);
		written("poll", AB_FMT_CSV, &cfg, buf, sizeof(buf));
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
}

/* ---- a fake tree under AFFBENCH_SYSROOT ---- */

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], cmd[600];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup_tree(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_idle.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	setenv("AFFBENCH_SYSROOT", root, 1);
	return 0;
}

static int teardown_tree(void **state)
{
	char cmd[128];

	(void)state;
	unsetenv("AFFBENCH_SYSROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static void test_haltpoll_usable(void **state)
{
	(void)state;
	static const struct {
		const char *driver, *governor;
		int param, ok;
		const char *says;	/* in the reason */
	} t[] = {
		{ NULL, NULL, 0, 0, "no cpuidle driver" },
		{ "intel_idle\n", "menu\n", 1, 0, "driver is intel_idle, not haltpoll" },
		{ "acpi_idle\n", "haltpoll\n", 1, 0, "driver is acpi_idle" },
		{ "haltpoll\n", "menu\n", 1, 0, "governor is menu, not haltpoll" },
		{ "haltpoll\n", NULL, 1, 0, "no cpuidle governor" },
		{ "haltpoll\n", "haltpoll\n", 0, 0, "guest_halt_poll_ns" },
		{ "haltpoll\n", "haltpoll\n", 1, 1, NULL },
	};
	char why[512], cmd[128];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys'", root);
		assert_int_equal(system(cmd), 0);
		if (t[i].driver)
			put(AB_IDLE_CPUIDLE "/current_driver", t[i].driver);
		if (t[i].governor)
			put(AB_IDLE_CPUIDLE "/current_governor", t[i].governor);
		if (t[i].param)
			put(AB_IDLE_HALTPOLL_NS, "0\n");
		why[0] = 0;
		int rc = ab_idle_haltpoll_usable(why, sizeof(why));
		if (rc != (t[i].ok ? 0 : -1) || (t[i].says && !strstr(why, t[i].says)))
			fail_msg("case %zu: rc %d, why '%s' (want '%s')", i, rc, why,
				 t[i].says ? t[i].says : "");
	}
}

/* The hold writes the 32-bit value; a missing device is a reason, not a crash. */
static void test_qos_hold(void **state)
{
	(void)state;
	char why[512], path[512];
	int32_t v = -1;

	assert_int_equal(ab_idle_qos_hold(0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, AB_IDLE_QOS_DEV));
	put(AB_IDLE_QOS_DEV, "");
	assert_int_equal(ab_idle_qos_hold(25, why, sizeof(why)), 0);
	snprintf(path, sizeof(path), "%s" AB_IDLE_QOS_DEV, root);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(&v, sizeof(v), 1, f), 1);
	fclose(f);
	assert_int_equal(v, 25);
	ab_idle_qos_child();	/* closes the held fd; a second call does nothing */
	ab_idle_qos_child();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_config_key),
		cmocka_unit_test(test_config_key_everywhere),
		cmocka_unit_test(test_config_key_full),
		cmocka_unit_test_setup_teardown(test_haltpoll_usable, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_qos_hold, setup_tree, teardown_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
