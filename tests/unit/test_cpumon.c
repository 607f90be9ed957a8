// SPDX-License-Identifier: GPL-2.0
/*
 * lib/kstats/cpumon.c on this machine's own counters: a window in which this
 * process sleeps and wakes a known number of times shows at least that many
 * context switches per operation, idle shares stay within 0-100%, every record
 * is a finite "mon_" metric, and what the machine lacks is named, not written.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kstats/cpumon.h"
#include "record/record.h"
#include "sys/opts.h"

#define SLEEPS 50

/* The value of metric in CSV text, or NAN. */
static double value_of(const char *csv, const char *metric)
{
	char key[96];
	const char *p;

	snprintf(key, sizeof(key), ",%s,", metric);
	if (!(p = strstr(csv, key)))
		return NAN;
	return strtod(p + strlen(key), NULL);
}

/* A window of SLEEPS 1 ms sleeps: each is a switch away and back. */
static char *window(struct ab_cpumon *m)
{
	struct ab_config c;
	struct ab_out o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	struct timespec a, b;
	assert_int_equal(ab_cpumon_begin(m), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < SLEEPS; i++)
		usleep(1000);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	assert_int_equal(ab_cpumon_end(m, s), 0);
	ab_config_init(&c);
	ab_config_set(&c, "t", "1");
	ab_out_init(&o, f, &(struct ab_common){ .format = AB_FMT_CSV }, "t");
	ab_cpumon_record(m, &o, &c, 1, SLEEPS / s);	/* SLEEPS ops in the window */
	fclose(f);
	return buf;
}

static void test_switches_counted(void **state)
{
	(void)state;
	struct ab_cpumon *m = ab_cpumon_new(NULL);
	assert_non_null(m);
	assert_int_equal(ab_cpumon_add_task(m, getpid()), 0);
	char *csv = window(m);
	/* every sleep switches this task out and back: at least one of ours per op */
	assert_true(value_of(csv, "mon_task_ctxsw_per_op") >= 0.99);
	assert_true(value_of(csv, "mon_ctxsw_per_op") >= 0.99);
	assert_true(value_of(csv, "mon_task_migrations_per_op") >= 0);
	free(csv);
	ab_cpumon_free(m);
}

static void test_records_well_formed(void **state)
{
	(void)state;
	struct ab_cpumon *m = ab_cpumon_new(NULL);
	char *csv = window(m), *save = NULL;
	int n = 0;

	for (char *l = strtok_r(csv, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "bench,", 6))
			continue;
		char metric[64], unit[32];
		double v;
		assert_int_equal(sscanf(l, "t,t=1,1,%63[^,],%lf,%31s", metric, &v, unit), 3);
		assert_memory_equal(metric, "mon_", 4);
		assert_true(isfinite(v) && v >= 0);
		if (!strcmp(unit, "%"))
			assert_true(v <= 100.0 + 1e-9);
		n++;
	}
	assert_true(n > 3);
	free(csv);
	ab_cpumon_free(m);
}

/* What this kernel does not count (local vs remote wake-ups without schedstats) is
 * named, and no record pretends it: no mon_wakeups metric exists. */
static void test_missing_named(void **state)
{
	(void)state;
	struct ab_cpumon *m = ab_cpumon_new(NULL);
	char *csv = window(m);

	assert_non_null(strstr(ab_cpumon_missing(m), "wake-ups local vs remote"));
	assert_null(strstr(csv, "mon_wakeup"));
	if (access("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", R_OK) != 0) {
		assert_non_null(strstr(ab_cpumon_missing(m), "frequency: no cpufreq"));
		assert_null(strstr(csv, "mon_cpu_mhz"));
	}
	free(csv);
	ab_cpumon_free(m);
}

/* No window, or no operations: nothing is written. */
static void test_nothing_without_window(void **state)
{
	(void)state;
	struct ab_cpumon *m = ab_cpumon_new(NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ab_config c;
	struct ab_out o;

	ab_config_init(&c);
	ab_out_init(&o, f, &(struct ab_common){ .format = AB_FMT_CSV }, "t");
	ab_cpumon_record(m, &o, &c, 1, 1000);	/* never sampled */
	assert_int_equal(ab_cpumon_begin(m), 0);
	assert_int_equal(ab_cpumon_end(m, 0.01), 0);
	ab_cpumon_record(m, &o, &c, 1, 0);	/* no operation */
	fclose(f);
	assert_true(len == 0);
	free(buf);
	ab_cpumon_free(m);
}

/* A facility the machine lacks (forced by the test hook) is named and nothing of it
 * is written; the rest still is. */
static void test_hidden_facility(void **state)
{
	(void)state;
	setenv("AFFBENCH_CPUMON_HIDE", "cpuidle,softirqs", 1);
	struct ab_cpumon *m = ab_cpumon_new(NULL);
	char *csv = window(m);

	unsetenv("AFFBENCH_CPUMON_HIDE");
	assert_non_null(strstr(ab_cpumon_missing(m), "idle entries and time: no cpuidle states"));
	assert_non_null(strstr(ab_cpumon_missing(m), "softirqs: /proc/softirqs unreadable"));
	assert_null(strstr(csv, "mon_idle"));
	assert_null(strstr(csv, "mon_softirq"));
	assert_non_null(strstr(csv, "mon_ctxsw_per_op"));
	free(csv);
	ab_cpumon_free(m);
}

static void *nap(void *arg)
{
	(void)arg;
	usleep(1000);
	return NULL;
}

/* A thread that begins inside the window would bring its counts from before it: the
 * task counters are then not written, and the reason is named. */
static void test_thread_change_named(void **state)
{
	(void)state;
	struct ab_cpumon *m = ab_cpumon_new(NULL);
	struct ab_cpumon_val v[AB_CPUMON_VALS];
	pthread_t t;

	assert_int_equal(ab_cpumon_add_task(m, getpid()), 0);
	assert_int_equal(ab_cpumon_begin(m), 0);
	assert_int_equal(pthread_create(&t, NULL, nap, NULL), 0);
	assert_int_equal(ab_cpumon_end(m, 0.01), 0);
	pthread_join(t, NULL);
	int n = ab_cpumon_values(m, 1000, v, AB_CPUMON_VALS);
	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		assert_null(strstr(v[i].metric, "mon_task_"));
	assert_non_null(strstr(ab_cpumon_missing(m), "a thread began or ended inside the window"));
	ab_cpumon_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switches_counted),
		cmocka_unit_test(test_records_well_formed),
		cmocka_unit_test(test_missing_named),
		cmocka_unit_test(test_nothing_without_window),
		cmocka_unit_test(test_hidden_facility),
		cmocka_unit_test(test_thread_change_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
