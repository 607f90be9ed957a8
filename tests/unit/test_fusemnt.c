// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE mount hygiene against a real libfuse daemon (fixtures: fusemnt_fx.h):
 * the work directory, mountpoints, mount detection (octal-escaped paths: every
 * work directory here has a space and a backslash in its name), a directory
 * that is not FUSE, and serving with connection numbers and the three loop
 * kinds. Failing and dying daemons: test_fusemnt_daemon.c; stale-mount
 * cleanup: test_fusemnt_cleanup.c. Needs root and /dev/fuse; skips otherwise.
 */
#include "fusemnt_fx.h"

/* ---- tests ---- */

static void test_workdir(void **state)
{
	static const struct {
		const char *env;	/* NULL: unset */
		const char *want;
	} cases[] = {
		{ NULL, "/tmp" },
		{ "", "/tmp" },
		{ "/var/tmp/x", "/var/tmp/x" },
		{ "/a b", "/a b" },
	};
	const char *orig = getenv("AFFBENCH_WORKDIR");
	char *saved = orig ? strdup(orig) : NULL;

	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		if (cases[i].env)
			setenv("AFFBENCH_WORKDIR", cases[i].env, 1);
		else
			unsetenv("AFFBENCH_WORKDIR");
		assert_string_equal(ab_workdir(), cases[i].want);
	}
	if (saved)
		setenv("AFFBENCH_WORKDIR", saved, 1);
	else
		unsetenv("AFFBENCH_WORKDIR");
	free(saved);
}

static void test_mkdir(void **state)
{
	struct fx *fx = *state;
	enum { WD_FIXTURE, WD_ENV, WD_MISSING };
	static const struct {
		int wd;
		size_t buflen;
		mode_t umask;
		int rc;
	} cases[] = {
		{ WD_FIXTURE, PATH_MAX, 022, 0 },
		{ WD_FIXTURE, PATH_MAX, 0277, 0 },	/* umask would leave 0500 */
		{ WD_ENV, PATH_MAX, 022, 0 },		/* NULL workdir = $AFFBENCH_WORKDIR */
		{ WD_MISSING, PATH_MAX, 022, -1 },
		{ WD_FIXTURE, 16, 022, -1 },		/* name does not fit */
	};
	char missing[PATH_MAX], want[PATH_MAX];
	const char *orig = getenv("AFFBENCH_WORKDIR");
	char *saved = orig ? strdup(orig) : NULL;

	assert_int_equal(pathf(missing, sizeof(missing), "%s/no-such-dir", fx->workdir), 0);
	setenv("AFFBENCH_WORKDIR", fx->workdir, 1);
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		char path[PATH_MAX], err[512] = "";
		const char *wd = cases[i].wd == WD_FIXTURE ? fx->workdir :
				 cases[i].wd == WD_MISSING ? missing : NULL;
		mode_t old = umask(cases[i].umask);
		int rc = ab_mnt_mkdir(wd, path, cases[i].buflen, err, sizeof(err));
		umask(old);
		assert_int_equal(rc, cases[i].rc);
		if (rc < 0) {
			assert_true(strlen(err) > 0);
			assert_non_null(strstr(err, wd ? wd : fx->workdir));
			continue;
		}
		int n = snprintf(want, sizeof(want), "%s/affbench-mnt-%d-", fx->workdir, (int)getpid());
		assert_memory_equal(path, want, (size_t)n);
		assert_int_equal(strlen(path + n), 6);
		struct stat st;
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
		assert_int_equal(st.st_mode & 07777, 0700);
		assert_int_equal(ab_mnt_unmount(path), 0);	/* not a mount: nothing to do */
		assert_int_equal(rmdir(path), 0);
		assert_false(path_exists(path));
	}
	if (saved)
		setenv("AFFBENCH_WORKDIR", saved, 1);
	else
		unsetenv("AFFBENCH_WORKDIR");
	free(saved);
	/* nothing left behind by the failures either */
	assert_int_equal(rmdir(fx->workdir), 0);
	assert_int_equal(mkdir(fx->workdir, 0700), 0);
}

static void test_not_fuse(void **state)
{
	struct fx *fx = *state;
	char missing[PATH_MAX];
	/* mounted but not FUSE, not mounted, missing, relative */
	const char *paths[] = { "/", "/proc", "/sys/fs/fuse/connections", fx->workdir, missing,
				"relative-no-such" };

	assert_int_equal(pathf(missing, sizeof(missing), "%s/nope", fx->workdir), 0);
	for (size_t i = 0; i < AB_ARRAY_SIZE(paths); i++) {
		assert_false(ab_mnt_is_fuse(paths[i]));
		assert_int_equal(ab_mnt_conn(paths[i]), -1);
	}
	assert_int_equal(ab_mnt_abort_conn(0), -1);
	assert_int_equal(ab_mnt_abort_conn(-1), -1);
	assert_int_equal(ab_mnt_unmount(missing), 0);	/* nothing there: fine */
}

static void test_serve(void **state)
{
	struct fx *fx = *state;
	enum { CPU_NONE = -1, CPU_LAST = -2 };
	static const struct {
		enum ab_fuse_loop loop;
		const char *name;
		int max_threads;
		int cpu;
	} cases[] = {
		{ AB_LOOP_SINGLE, NULL, 0, CPU_NONE },
		{ AB_LOOP_SINGLE, "hello", 0, CPU_LAST },	/* "fuse.hello" */
		{ AB_LOOP_MULTI, NULL, 0, CPU_LAST },
		{ AB_LOOP_MULTI, NULL, 2, CPU_NONE },
		{ AB_LOOP_CLONE_FD, "hello", 4, CPU_LAST },
	};
	cpu_set_t mine;

	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		struct ab_daemon *d = &fx->d[0], *d2 = &fx->d[1];
		char mnt[PATH_MAX], slash[PATH_MAX + 1], err[512] = "", buf[256];
		int cpu = cases[i].cpu == CPU_LAST ? last_allowed_cpu() : cases[i].cpu;
		struct serve_cfg cfg = { cases[i].loop, cases[i].name, cases[i].max_threads,
					 &fx->shm[0], &fx->shm[1] };

		fx->shm[0] = fx->shm[1] = -100;
		assert_int_equal(ab_mnt_mkdir(fx->workdir, mnt, sizeof(mnt), err, sizeof(err)), 0);
		if (ab_daemon_start(d, mnt, cpu, run_hello, &cfg, bound_ms(STEP_MS), err, sizeof(err)) < 0)
			fail_msg("case %zu: %s", i, err);

		/* mounted, found by path in any spelling, with a live connection */
		assert_true(ab_mnt_is_fuse(mnt));
		snprintf(slash, sizeof(slash), "%s/", mnt);
		assert_true(ab_mnt_is_fuse(slash));
		assert_true(d->conn > 0);
		assert_int_equal(ab_mnt_conn(mnt), d->conn);
		struct stat st;
		assert_int_equal(stat(mnt, &st), 0);	/* daemon is healthy: stat is safe */
		assert_int_equal((int)minor(st.st_dev), d->conn);
		assert_int_equal(fusectl_has_conn(d->conn), 1);
		assert_true(ab_daemon_alive(d));

		read_hello(mnt, buf, sizeof(buf));
		assert_string_equal(buf, hello_text);

		/* the child ran where it was told */
		if (cpu >= 0) {
			assert_int_equal(fx->shm[0], 1);
			assert_int_equal(fx->shm[1], cpu);
		} else {
			assert_int_equal(fx->shm[0], CPU_COUNT(&mine));
		}

		/* a second daemon on the same mountpoint is refused */
		assert_int_equal(ab_daemon_start(d2, mnt, -1, run_hello, &cfg, 1000, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "already"));
		assert_int_equal(d2->pid, 0);

		int status = ab_daemon_stop(d, bound_ms(STEP_MS));
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_gone(mnt);
		assert_int_equal(d->pid, 0);
		assert_int_equal(ab_daemon_stop(d, 2000), -1);	/* second stop: nothing to do */
		assert_false(ab_daemon_alive(d));
		assert_no_children();
	}
}

int main(void)
{
	if (fuse_unusable()) {
		const struct CMUnitTest none[] = { cmocka_unit_test(test_skip) };
		return cmocka_run_group_tests(none, NULL, NULL);
	}
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workdir),
		T(test_mkdir),
		T(test_not_fuse),
		T(test_serve),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
