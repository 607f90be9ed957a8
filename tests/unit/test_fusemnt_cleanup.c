// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE mount hygiene against a real libfuse daemon (fixtures: fusemnt_fx.h):
 * stale-mount cleanup, and leaving alone the mounts that are not ours. Needs
 * root and /dev/fuse; skips otherwise.
 */
#include "fusemnt_fx.h"

static void test_cleanup_stale(void **state)
{
	struct fx *fx = *state;
	enum { OWNER_DEAD, OWNER_SELF, OWNER_BADNAME };
	/* MOUNT_HUNG: daemon stopped with a client blocked in it; only an abort frees it */
	enum { EMPTY, NONEMPTY, MOUNT_LIVE, MOUNT_KILLED, MOUNT_HUNG };
	static const struct {
		int owner, kind, removed;
	} cases[] = {
		{ OWNER_DEAD, MOUNT_KILLED, 1 },
		{ OWNER_DEAD, MOUNT_LIVE, 1 },
		{ OWNER_DEAD, MOUNT_HUNG, 1 },
		{ OWNER_DEAD, EMPTY, 1 },
		{ OWNER_DEAD, NONEMPTY, 0 },
		{ OWNER_SELF, MOUNT_LIVE, 0 },
		{ OWNER_SELF, EMPTY, 0 },
		{ OWNER_BADNAME, EMPTY, 0 },
	};
	static struct serve_cfg cfg = { AB_LOOP_SINGLE, NULL, 0, NULL, NULL };
	char mnt[AB_ARRAY_SIZE(cases)][PATH_MAX];
	pid_t dead = dead_pid();
	int want = 0, pfd[2] = { -1, -1 };

	assert_true(AB_ARRAY_SIZE(cases) <= MAX_DAEMONS);
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		char err[512] = "";
		if (cases[i].owner == OWNER_BADNAME)
			assert_int_equal(pathf(mnt[i], PATH_MAX, "%s/affbench-mnt-x%d-XXXXXX",
						fx->workdir, (int)dead), 0);
		else
			assert_int_equal(pathf(mnt[i], PATH_MAX, "%s/affbench-mnt-%d-XXXXXX", fx->workdir,
					       cases[i].owner == OWNER_DEAD ? (int)dead : (int)getpid()),
					 0);
		assert_non_null(mkdtemp(mnt[i]));
		if (cases[i].kind == NONEMPTY) {
			char f[PATH_MAX + 8];
			snprintf(f, sizeof(f), "%s/keep", mnt[i]);
			int fd = open(f, O_CREAT | O_WRONLY, 0600);
			assert_true(fd >= 0);
			close(fd);
		}
		if (cases[i].kind >= MOUNT_LIVE) {
			if (ab_daemon_start(&fx->d[i], mnt[i], -1, run_hello, &cfg, bound_ms(STEP_MS), err,
					    sizeof(err)) < 0)
				fail_msg("case %zu: %s", i, err);
		}
		if (cases[i].kind == MOUNT_KILLED)
			assert_int_equal(kill(fx->d[i].pid, SIGKILL), 0);
		if (cases[i].kind == MOUNT_HUNG) {
			char buf[256];
			read_hello(mnt[i], buf, sizeof(buf));	/* past INIT */
			assert_int_equal(kill(fx->d[i].pid, SIGSTOP), 0);
			assert_true(pfd[0] < 0);	/* one hung client per test */
			assert_int_equal(pipe(pfd), 0);
			fx->client = fork();
			assert_true(fx->client >= 0);
			if (fx->client == 0) {
				struct stat sb;
				_exit(stat(mnt[i], &sb) == 0 ? 0 : 1);
			}
			close(pfd[1]);	/* the client's copy closes when it exits */
			assert_false(readable_within(pfd[0], 300));
		}
		want += cases[i].removed;
	}

	assert_int_equal(ab_mnt_cleanup_stale(fx->workdir, stderr), want);
	if (pfd[0] >= 0) {
		int st;
		assert_true(readable_within(pfd[0], bound_ms(STEP_MS)));	/* EOF: the client got out */
		close(pfd[0]);
		assert_int_equal(waitpid(fx->client, &st, 0), fx->client);
		fx->client = 0;
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 1);	/* its stat failed: connection aborted */
	}

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		int mounted = cases[i].kind >= MOUNT_LIVE;
		if (cases[i].removed) {
			assert_gone(mnt[i]);
		} else {
			assert_true(path_exists(mnt[i]));
			assert_int_equal(ab_mnt_is_fuse(mnt[i]), mounted);
		}
		if (!mounted)
			continue;
		/* an aborted daemon exits by itself; stop reaps it and removes what is left */
		if (cases[i].kind == MOUNT_LIVE && cases[i].removed) {
			wait_exited(&fx->d[i]);
			assert_false(ab_daemon_alive(&fx->d[i]));
		}
		/* a hung daemon is killed when the stop times out; the others exit by themselves */
		int stop_ms = cases[i].kind == MOUNT_HUNG ? 2000 : bound_ms(STEP_MS);
		int status = ab_daemon_stop(&fx->d[i], stop_ms);
		assert_true(WIFEXITED(status) || WIFSIGNALED(status));
		if (cases[i].kind == MOUNT_HUNG)
			assert_int_equal(WTERMSIG(status), SIGKILL);
		if (cases[i].owner == OWNER_SELF) {
			assert_true(WIFEXITED(status));
			assert_int_equal(WEXITSTATUS(status), 0);
		}
		assert_gone(mnt[i]);
	}
	assert_no_children();
	/* a second pass finds nothing */
	assert_int_equal(ab_mnt_cleanup_stale(fx->workdir, stderr), 0);
	assert_int_equal(mounts_under(fx->workdir), 0);
}

/*
 * Stale by name (maker dead) but not affbench's: left alone, with one line each,
 * once per process; and a symlink is never followed, by cleanup or by unmount.
 */
static void test_cleanup_not_ours(void **state)
{
	struct fx *fx = *state;
	enum { DIR_ONLY, MOUNTED, SYMLINK };
	static const struct {
		int kind;
		mode_t mode;
		uid_t uid;
		ab_daemon_fn run;
		const char *why;
	} cases[] = {
		{ MOUNTED, 0755, 0, run_hello, "mode 0755" },
		{ MOUNTED, 0700, 65534, run_hello, "owned by uid 65534" },
		{ MOUNTED, 0700, 0, run_foreign, "'foreign-fs' is not affbench's" },
		{ DIR_ONLY, 0755, 0, NULL, "mode 0755" },
		{ DIR_ONLY, 0700, 65534, NULL, "owned by uid 65534" },
		{ SYMLINK, 0700, 0, run_hello, "symlink" },
	};
	static struct serve_cfg cfg = { AB_LOOP_SINGLE, NULL, 0, NULL, NULL };
	char path[AB_ARRAY_SIZE(cases)][PATH_MAX], err[512], *text = NULL;
	size_t textlen = 0;
	pid_t dead = dead_pid();

	assert_true(AB_ARRAY_SIZE(cases) <= MAX_DAEMONS);
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		char dir[PATH_MAX];
		assert_int_equal(pathf(path[i], PATH_MAX, "%s/affbench-mnt-%d-XXXXXX", fx->workdir,
				       (int)dead), 0);
		assert_non_null(mkdtemp(path[i]));
		if (cases[i].kind == SYMLINK) {	/* the link points at a live mount of ours */
			assert_int_equal(rmdir(path[i]), 0);
			assert_int_equal(ab_mnt_mkdir(fx->workdir, dir, sizeof(dir), err, sizeof(err)), 0);
			assert_int_equal(symlink(dir, path[i]), 0);
		} else {
			snprintf(dir, sizeof(dir), "%s", path[i]);
			assert_int_equal(chmod(dir, cases[i].mode), 0);
			assert_int_equal(chown(dir, cases[i].uid, 0), 0);
		}
		if (cases[i].run && ab_daemon_start(&fx->d[i], dir, -1, cases[i].run, &cfg,
						    bound_ms(STEP_MS), err, sizeof(err)) < 0)
			fail_msg("case %zu: %s", i, err);
	}

	FILE *report = open_memstream(&text, &textlen);
	assert_non_null(report);
	assert_int_equal(ab_mnt_cleanup_stale(fx->workdir, report), 0);
	assert_int_equal(ab_mnt_cleanup_stale(fx->workdir, report), 0);	/* says nothing new */
	fclose(report);
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		const char *at = strstr(text, path[i]);
		if (!at || !strstr(at, cases[i].why) || strstr(at + 1, path[i]))
			fail_msg("case %zu: want one line for %s saying '%s', got:\n%s", i, path[i],
				 cases[i].why, text);
		if (cases[i].run)
			assert_true(ab_mnt_is_fuse(fx->d[i].mnt));
		assert_true(path_exists(path[i]));
	}
	free(text);
	/* unmount through the symlink: no mount point, the mount behind it stays */
	size_t k = AB_ARRAY_SIZE(cases) - 1;
	assert_int_equal(ab_mnt_unmount(path[k]), 0);
	assert_true(ab_mnt_is_fuse(fx->d[k].mnt));
	assert_int_equal(unlink(path[k]), 0);
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++)
		if (cases[i].run)
			ab_daemon_stop(&fx->d[i], 2000);
	assert_int_equal(mounts_under(fx->workdir), 0);
}
int main(void)
{
	if (fuse_unusable()) {
		const struct CMUnitTest none[] = { cmocka_unit_test(test_skip) };
		return cmocka_run_group_tests(none, NULL, NULL);
	}
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_cleanup_stale),
		T(test_cleanup_not_ours),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
