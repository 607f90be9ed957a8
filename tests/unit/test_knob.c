// SPDX-License-Identifier: GPL-2.0
/*
 * lib/knob/knob.c against a fake sysfs/procfs tree (knob_fx.h): the allow-list,
 * reads, and a write journalled before it is made and restored by the owner;
 * refused writes, a second write keeping the first original, init refused
 * while a knob is changed. Who restores across processes: test_knob_proc.c;
 * journal replay: test_knob_replay.c.
 */
#include "knob_fx.h"

/* ---- allow-list ---- */

static void test_allow_list(void **state)
{
	static const struct {
		const char *path;
		int allowed;
	} cases[] = {
		{ RQ, 1 },
		{ "/sys/block/nvme0n1/queue/rq_affinity", 1 },
		{ IRQL, 1 },
		{ IRQM, 1 },
		{ "/proc/irq/123/smp_affinity_list", 1 },
		{ BG, 1 },
		{ CONG, 1 },
		{ URING, 1 },
		{ PASSWD, 0 },
		{ "/sys/block/vda/queue/../../../../etc/passwd", 0 },
		{ "/sys/block/../queue/rq_affinity", 0 },
		{ "/sys/block/./queue/rq_affinity", 0 },
		{ "/sys/block//queue/rq_affinity", 0 },
		{ "/sys/block/.x/queue/rq_affinity", 0 },
		{ "/sys/block/a/b/queue/rq_affinity", 0 },	/* '*' is one component */
		{ "/sys/block/v\nda/queue/rq_affinity", 0 },	/* would break a journal line */
		{ "/sys/block/v\tda/queue/rq_affinity", 0 },
		{ SCHED, 0 },
		{ "/sys/block/vda/queue/rq_affinity/", 0 },
		{ "/sys/block/vda/queue/rq_affinity2", 0 },
		{ "sys/block/vda/queue/rq_affinity", 0 },
		{ "/proc/irq/default_smp_affinity", 0 },
		{ "/proc/irq/24/smp_affinity_list/../smp_affinity", 0 },
		{ "/sys/fs/fuse/connections/40/abort", 0 },
		{ "/sys/module/fuse/parameters/max_user_bgreq", 0 },
		{ "/proc/sys/kernel/core_pattern", 0 },
		{ "", 0 },
		{ NULL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++)
		if (ab_knob_allowed(cases[i].path) != cases[i].allowed)
			fail_msg("ab_knob_allowed(\"%s\") = %d, want %d",
				 cases[i].path ? cases[i].path : "(null)",
				 ab_knob_allowed(cases[i].path), cases[i].allowed);
}

/* ---- read ---- */

static void test_read(void **state)
{
	static const struct {
		const char *content;	/* NULL: file absent */
		size_t buflen;
		int rc, err;
		const char *want;
	} cases[] = {
		{ "1\n", 64, 0, 0, "1" },
		{ "0-1\n", 64, 0, 0, "0-1" },	/* IRQ list comes back as written */
		{ "N", 64, 0, 0, "N" },
		{ "\n", 64, 0, 0, "" },
		{ "12345\n", 7, 0, 0, "12345" },	/* exactly fits */
		{ "123456\n", 7, -1, ERANGE, NULL },	/* one byte too long: refused, not cut */
		{ NULL, 64, -1, ENOENT, NULL },
	};
	struct fx *f = *state;

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		char buf[64];

		unlink(in(f, RQ));
		if (cases[i].content)
			put_file(in(f, RQ), cases[i].content);
		errno = 0;
		int rc = ab_knob_read(RQ, buf, cases[i].buflen);
		if (rc != cases[i].rc || (rc < 0 && errno != cases[i].err))
			fail_msg("case %zu: rc %d errno %d, want %d errno %d", i, rc, errno,
				 cases[i].rc, cases[i].err);
		if (cases[i].want)
			assert_string_equal(buf, cases[i].want);
	}
}

/* ---- write, journal, restore ---- */

static void test_write_journal_restore(void **state)
{
	static const struct {
		const char *path, *value, *orig, *after;
	} cases[] = {
		{ RQ, "2", "1", "2\n" },
		{ IRQL, "1", "0-1", "1\n" },
		{ IRQM, "1", "3", "1\n" },
		{ BG, "64\n", "12", "64\n" },	/* a trailing newline is not doubled */
		{ CONG, "48", "9", "48\n" },
		{ URING, "Y", "N", "Y\n" },
	};
	struct fx *f = *state;
	pid_t me = getpid();
	struct stat st;

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		char orig[64] = "", err[256] = "";

		if (ab_knob_write(cases[i].path, cases[i].value, orig, sizeof(orig), err,
				  sizeof(err)) != 0)
			fail_msg("write %s: %s", cases[i].path, err);
		assert_string_equal(orig, cases[i].orig);
		assert_string_equal(get_file(in(f, cases[i].path)), cases[i].after);
		/* The original is on disk, once, before restore. */
		assert_int_equal(count_line(f->journal, jline(me, cases[i].path, cases[i].orig)), 1);
	}
	assert_int_equal(count_pid(f->journal, me), AB_ARRAY_SIZE(cases));
	assert_int_equal(count_line(f->journal, jline(me, NULL, NULL)), 0);
	assert_int_equal(stat(in(f, "/state"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(f->journal, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);

	assert_int_equal(ab_knob_restore_all(), 0);
	assert_tree_pristine(f);
	assert_int_equal(count_line(f->journal, jline(me, NULL, NULL)), 1);
	/* done is the last line */
	const char *text = get_file(f->journal), *done = jline(me, NULL, NULL);
	assert_string_equal(text + strlen(text) - strlen(done), done);

	/* Nothing left to restore: a second call writes no second done line. */
	assert_int_equal(ab_knob_restore_all(), 0);
	assert_int_equal(count_line(f->journal, jline(me, NULL, NULL)), 1);
}

static void test_write_refused(void **state)
{
	static char long_value[400];
	static const struct {
		const char *path, *value;
		int err;
	} cases[] = {
		{ PASSWD, "x", EPERM },
		{ "/sys/block/vda/queue/../../../../etc/passwd", "x", EPERM },
		{ SCHED, "mq-deadline", EPERM },
		{ NULL, "1", EPERM },
		{ "/sys/block/sdz/queue/rq_affinity", "1", ENOENT },	/* allowed, absent */
		{ RQ, "1\n2", EINVAL },
		{ RQ, long_value, EINVAL },
		{ RQ, NULL, EINVAL },
	};
	struct fx *f = *state;

	(void)f;
	memset(long_value, '7', sizeof(long_value) - 1);
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		char err[256] = "";

		errno = 0;
		int rc = ab_knob_write(cases[i].path, cases[i].value, NULL, 0, err, sizeof(err));
		if (rc != -1 || errno != cases[i].err)
			fail_msg("case %zu (%s): rc %d errno %d, want -1 errno %d", i,
				 cases[i].path ? cases[i].path : "(null)", rc, errno, cases[i].err);
		if (!err[0])
			fail_msg("case %zu: no message", i);
	}
	assert_tree_pristine(f);
	/* Nothing changed, so nothing journaled. */
	assert_string_equal(get_file(f->journal), "<missing>");
}

static void test_second_write_keeps_first_original(void **state)
{
	static const char *const values[] = { "0", "2", "1", "0" };
	struct fx *f = *state;
	pid_t me = getpid();

	for (size_t i = 0; i < AB_ARRAY_SIZE(values); i++) {
		char orig[16] = "", err[256] = "", want[16];

		if (ab_knob_write(RQ, values[i], orig, sizeof(orig), err, sizeof(err)) != 0)
			fail_msg("write %s: %s", values[i], err);
		assert_string_equal(orig, "1");
		snprintf(want, sizeof(want), "%s\n", values[i]);
		assert_string_equal(get_file(in(f, RQ)), want);
	}
	assert_int_equal(count_pid(f->journal, me), 1);
	assert_int_equal(count_line(f->journal, jline(me, RQ, "1")), 1);
	assert_int_equal(ab_knob_restore_all(), 0);
	assert_string_equal(get_file(in(f, RQ)), "1\n");
}

static void test_init_busy_while_changed(void **state)
{
	struct fx *f = *state;
	char err[256];

	assert_int_equal(ab_knob_write(RQ, "0", NULL, 0, err, sizeof(err)), 0);
	/* Switching tree or journal now would strand the change. */
	errno = 0;
	assert_int_equal(ab_knob_init("/nonexistent", f->journal), -1);
	assert_int_equal(errno, EBUSY);
	assert_int_equal(ab_knob_init(f->dir, f->journal), 0);	/* same: fine */
	assert_int_equal(ab_knob_restore_all(), 0);
	assert_string_equal(get_file(in(f, RQ)), "1\n");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_list),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_journal_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_write_keeps_first_original, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_busy_while_changed, setup, teardown),
	};

	ab_prog = "test_knob";
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
