// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE mount hygiene against a real libfuse daemon (fixtures: fusemnt_fx.h):
 * daemons that fail to start, hang or are killed, and unmounts of a busy
 * mount. Needs root and /dev/fuse; skips otherwise.
 */
#include "fusemnt_fx.h"

static void test_start_fails(void **state)
{
	struct fx *fx = *state;
	static struct serve_cfg hello_cfg = { AB_LOOP_SINGLE, NULL, 0, NULL, NULL };
	static const struct {
		ab_daemon_fn run;
		int missing_dir;	/* mount at a path that does not exist */
		int timeout_ms;
		const char *want;
	} cases[] = {
		{ run_exit1, 0, 5000, "exited with status 1 before mounting" },
		{ run_killself, 0, 5000, "killed by signal 9" },
		{ run_hello, 1, 5000, "exited with status 1 before mounting" },
		{ run_never_mount, 0, 200, "did not mount" },
	};

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		struct ab_daemon *d = &fx->d[0];
		char mnt[PATH_MAX], err[512] = "";

		if (cases[i].missing_dir)
			assert_int_equal(pathf(mnt, sizeof(mnt), "%s/missing", fx->workdir), 0);
		else
			assert_int_equal(ab_mnt_mkdir(fx->workdir, mnt, sizeof(mnt), err, sizeof(err)), 0);
		uint64_t t0 = ab_now_ns();
		int rc = ab_daemon_start(d, mnt, -1, cases[i].run, &hello_cfg, cases[i].timeout_ms,
					 err, sizeof(err));
		uint64_t ms = (ab_now_ns() - t0) / 1000000;
		assert_int_equal(rc, -1);
		if (!strstr(err, cases[i].want) || !strstr(err, mnt))
			fail_msg("case %zu: message '%s' lacks '%s' or the path", i, err, cases[i].want);
		assert_true(ms < (uint64_t)(cases[i].timeout_ms + bound_ms(STEP_MS)));
		if (cases[i].run == run_never_mount)
			assert_true(ms >= (uint64_t)cases[i].timeout_ms);
		assert_int_equal(d->pid, 0);
		assert_false(ab_mnt_is_fuse(mnt));
		assert_no_children();
		/* the caller's directory stays the caller's */
		assert_int_equal(path_exists(mnt), !cases[i].missing_dir);
		assert_int_equal(ab_mnt_unmount(mnt), 0);
		assert_true(rmdir(mnt) == 0 || errno == ENOENT);
		assert_false(path_exists(mnt));
	}
}

/*
 * A stopped daemon: a client's stat() blocks until the connection is aborted,
 * either by us directly or by ab_daemon_stop once its timeout passes.
 */
static void test_hung_daemon(void **state)
{
	struct fx *fx = *state;
	static const struct {
		int abort_first;
		int timeout_ms;
	} cases[] = {
		{ 1, 300 },
		{ 0, 300 },
	};
	static struct serve_cfg cfg = { AB_LOOP_SINGLE, NULL, 0, NULL, NULL };

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		struct ab_daemon *d = &fx->d[0];
		char mnt[PATH_MAX], file[PATH_MAX + 8], err[512] = "", buf[256];
		int pfd[2], client_errno = -1, st;

		assert_int_equal(ab_mnt_mkdir(fx->workdir, mnt, sizeof(mnt), err, sizeof(err)), 0);
		if (ab_daemon_start(d, mnt, -1, run_hello, &cfg, bound_ms(STEP_MS), err, sizeof(err)) < 0)
			fail_msg("%s", err);
		read_hello(mnt, buf, sizeof(buf));	/* INIT is done: the daemon did serve */
		int conn = d->conn;
		assert_int_equal(kill(d->pid, SIGSTOP), 0);

		assert_int_equal(pipe(pfd), 0);
		snprintf(file, sizeof(file), "%s/%s", mnt, hello_name);
		fx->client = fork();
		assert_true(fx->client >= 0);
		if (fx->client == 0) {
			struct stat sb;
			int e = stat(file, &sb) == 0 ? 0 : errno;
			_exit(write(pfd[1], &e, sizeof(e)) == sizeof(e) ? 0 : 1);
		}
		close(pfd[1]);
		assert_false(readable_within(pfd[0], 300));	/* blocked in the daemon */

		uint64_t t0 = ab_now_ns();
		if (cases[i].abort_first) {
			assert_int_equal(ab_mnt_abort_conn(conn), 0);
			assert_true(readable_within(pfd[0], bound_ms(STEP_MS)));
		}
		int status = ab_daemon_stop(d, cases[i].timeout_ms);
		uint64_t ms = (ab_now_ns() - t0) / 1000000;
		assert_true(readable_within(pfd[0], bound_ms(STEP_MS)));
		assert_int_equal(read(pfd[0], &client_errno, sizeof(client_errno)),
				 sizeof(client_errno));
		close(pfd[0]);
		assert_int_equal(waitpid(fx->client, &st, 0), fx->client);
		fx->client = 0;
		if (client_errno != ENOTCONN && client_errno != ECONNABORTED)
			fail_msg("case %zu: client stat ended with %s", i, strerror(client_errno));

		/* a stopped daemon cannot exit: stop waited its timeout, then killed */
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), SIGKILL);
		assert_true(ms >= (uint64_t)cases[i].timeout_ms);
		assert_true(ms < (uint64_t)(cases[i].timeout_ms + bound_ms(STEP_MS)));
		assert_gone(mnt);
		assert_no_children();
	}
}

static void test_killed_daemon(void **state)
{
	struct fx *fx = *state;
	static struct serve_cfg cfg = { AB_LOOP_MULTI, NULL, 0, NULL, NULL };
	struct ab_daemon *d = &fx->d[0];
	char mnt[PATH_MAX], err[512] = "";
	struct stat sb;

	assert_int_equal(ab_mnt_mkdir(fx->workdir, mnt, sizeof(mnt), err, sizeof(err)), 0);
	if (ab_daemon_start(d, mnt, -1, run_hello, &cfg, bound_ms(STEP_MS), err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(kill(d->pid, SIGKILL), 0);
	wait_exited(d);
	assert_false(ab_daemon_alive(d));
	/* dead connection: still listed, and no longer blocking */
	assert_true(ab_mnt_is_fuse(mnt));
	assert_int_equal(stat(mnt, &sb), -1);
	assert_int_equal(errno, ENOTCONN);

	int status = ab_daemon_stop(d, 1000);	/* alive() left the status to collect */
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_gone(mnt);
	assert_no_children();
}

/* An open file keeps the mount busy: unmount detaches it, and it goes when the file closes. */
static void test_unmount_busy(void **state)
{
	struct fx *fx = *state;
	static struct serve_cfg cfg = { AB_LOOP_SINGLE, NULL, 0, NULL, NULL };
	struct ab_daemon *d = &fx->d[0];
	char mnt[PATH_MAX], file[PATH_MAX + 8], err[512] = "", buf[256];

	assert_int_equal(ab_mnt_mkdir(fx->workdir, mnt, sizeof(mnt), err, sizeof(err)), 0);
	if (ab_daemon_start(d, mnt, -1, run_hello, &cfg, bound_ms(STEP_MS), err, sizeof(err)) < 0)
		fail_msg("%s", err);
	snprintf(file, sizeof(file), "%s/%s", mnt, hello_name);
	int fd = open(file, O_RDONLY);
	assert_true(fd >= 0);

	assert_int_equal(ab_mnt_unmount(mnt), 0);
	assert_int_equal(rmdir(mnt), 0);
	assert_gone(mnt);
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);	/* detached, still served */
	assert_int_equal(n, (ssize_t)strlen(hello_text));
	assert_true(ab_daemon_alive(d));
	close(fd);

	int status = ab_daemon_stop(d, bound_ms(STEP_MS));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_no_children();
}

int main(void)
{
	if (fuse_unusable()) {
		const struct CMUnitTest none[] = { cmocka_unit_test(test_skip) };
		return cmocka_run_group_tests(none, NULL, NULL);
	}
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_start_fails),
		T(test_hung_daemon),
		T(test_killed_daemon),
		T(test_unmount_busy),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
