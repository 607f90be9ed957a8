// SPDX-License-Identifier: GPL-2.0
/*
 * lib/knob/knob.c, who restores: the owner only, at exit, by restore_all or from
 * its signal handler; a child killed by a signal (SIGKILL leaves the change for
 * replay), a child that leaves its parent's knob alone, and a restore that
 * fails. Forked children report through their exit status only; the parent
 * does every check.
 */
#include "knob_fx.h"

/* ---- processes: who restores ---- */

/* Wait for a child with a deadline, so a broken handler fails the test instead of hanging it. */
static int wait_child(pid_t pid, int *status)
{
	for (int i = 0; i < 1000; i++) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0)
			return -1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return -1;
}

static int signal_ignored(int sig)
{
	struct sigaction sa;

	return sigaction(sig, NULL, &sa) == 0 && !(sa.sa_flags & SA_SIGINFO) &&
	       sa.sa_handler == SIG_IGN;
}

/*
 * A child changes RQ, says so through a pipe, waits, and is killed by sig.
 * SIGKILL leaves the change for replay; the others run the handler.
 */
static void test_child_killed(void **state)
{
	static const struct {
		int sig;
		int handler_restores;
	} cases[] = {
		{ SIGKILL, 0 },
		{ SIGTERM, 1 },
		{ SIGINT, 1 },
		{ SIGHUP, 1 },
	};
	struct fx *f = *state;

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		int sig = cases[i].sig, p[2], status;
		char c;

		/* An ignored signal (background job of a non-interactive shell) cannot kill. */
		if (sig != SIGKILL && signal_ignored(sig)) {
			print_message("signal %d ignored by our parent, case skipped\n", sig);
			continue;
		}
		assert_int_equal(pipe(p), 0);
		fflush(NULL);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			char err[256];

			alarm(10);	/* never outlive a broken test */
			close(p[0]);
			if (ab_knob_write(RQ, "0", NULL, 0, err, sizeof(err)) != 0) {
				fprintf(stderr, "child: %s\n", err);
				_exit(3);
			}
			if (write(p[1], "k", 1) != 1)
				_exit(4);
			for (;;)
				pause();
		}
		close(p[1]);
		assert_int_equal(read(p[0], &c, 1), 1);
		close(p[0]);
		assert_string_equal(get_file(in(f, RQ)), "0\n");
		assert_int_equal(count_line(f->journal, jline(pid, RQ, "1")), 1);

		assert_int_equal(kill(pid, sig), 0);
		assert_int_equal(wait_child(pid, &status), 0);
		/* The handler re-raises: the child still dies of the signal. */
		if (!WIFSIGNALED(status) || WTERMSIG(status) != sig)
			fail_msg("signal %d: child status 0x%x", sig, status);

		int done = count_line(f->journal, jline(pid, NULL, NULL));
		if (cases[i].handler_restores) {
			assert_string_equal(get_file(in(f, RQ)), "1\n");
			assert_int_equal(done, 1);
		} else {
			assert_string_equal(get_file(in(f, RQ)), "0\n");
			assert_int_equal(done, 0);
		}
		/* Replay restores only what the handler could not. */
		char err[256] = "";
		int n = ab_knob_replay(f->dir, f->journal, err, sizeof(err));
		if (n != !cases[i].handler_restores)
			fail_msg("signal %d: replay returned %d (%s)", sig, n, err);
		assert_string_equal(get_file(in(f, RQ)), "1\n");
		assert_string_equal(get_file(f->journal), "<missing>");
	}
	assert_tree_pristine(f);
}

/* A child forked after the parent's change must leave it alone, whichever way it ends. */
static void test_child_leaves_parent_knob(void **state)
{
	enum { EXIT, RESTORE_THEN_EXIT, SIGTERM_IT };
	static const int cases[] = { EXIT, RESTORE_THEN_EXIT, SIGTERM_IT };
	struct fx *f = *state;
	pid_t me = getpid();
	char err[256];

	if (ab_knob_write(RQ, "0", NULL, 0, err, sizeof(err)) != 0)
		fail_msg("write: %s", err);
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		int p[2], status;
		char c;

		if (cases[i] == SIGTERM_IT && signal_ignored(SIGTERM))
			continue;
		assert_int_equal(pipe(p), 0);
		fflush(NULL);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			alarm(10);
			close(p[0]);
			if (cases[i] == RESTORE_THEN_EXIT && ab_knob_restore_all() != 0)
				_exit(3);
			if (write(p[1], "k", 1) != 1)
				_exit(4);
			if (cases[i] == SIGTERM_IT)
				for (;;)
					pause();
			exit(0);	/* runs the inherited atexit handler */
		}
		close(p[1]);
		assert_int_equal(read(p[0], &c, 1), 1);
		close(p[0]);
		if (cases[i] == SIGTERM_IT)
			assert_int_equal(kill(pid, SIGTERM), 0);
		assert_int_equal(wait_child(pid, &status), 0);
		if (cases[i] == SIGTERM_IT ? !WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM
					   : !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("case %zu: child status 0x%x", i, status);
		assert_string_equal(get_file(in(f, RQ)), "0\n");
		assert_int_equal(count_pid(f->journal, pid), 0);
	}
	assert_int_equal(ab_knob_restore_all(), 0);
	assert_string_equal(get_file(in(f, RQ)), "1\n");
	assert_int_equal(count_line(f->journal, jline(me, NULL, NULL)), 1);
}

/*
 * A restore that fails leaves the journal without a done line, even after the
 * exit handler runs again, so replay retries it; a knob whose object is gone
 * counts as restored. Runs in a child: a failed restore marks the whole pid.
 */
static void test_restore_failure(void **state)
{
	enum { REMOVE, MAKE_DIR };
	static const struct {
		int sabotage;
		int failed, done, replay;
		const char *left;	/* RQ after replay */
	} cases[] = {
		{ REMOVE, 0, 1, 0, "<missing>" },
		{ MAKE_DIR, 1, 0, -1, NULL },	/* still a directory: replay fails too */
	};
	struct fx *f = *state;

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		int status;
		char err[256] = "";

		unlink(f->journal);
		fflush(NULL);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			alarm(10);
			if (ab_knob_write(RQ, "0", NULL, 0, err, sizeof(err)) != 0)
				_exit(100);
			if (unlink(in(f, RQ)) != 0)
				_exit(101);
			if (cases[i].sabotage == MAKE_DIR && mkdir(in(f, RQ), 0755) != 0)
				_exit(102);
			exit(ab_knob_restore_all());	/* and atexit restores once more */
		}
		assert_int_equal(wait_child(pid, &status), 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != cases[i].failed)
			fail_msg("case %zu: child status 0x%x, want exit %d", i, status,
				 cases[i].failed);
		assert_int_equal(count_line(f->journal, jline(pid, RQ, "1")), 1);
		assert_int_equal(count_line(f->journal, jline(pid, NULL, NULL)), cases[i].done);

		int rc = ab_knob_replay(f->dir, f->journal, err, sizeof(err));
		if (rc != cases[i].replay)
			fail_msg("case %zu: replay %d (%s), want %d", i, rc, err, cases[i].replay);
		if (cases[i].replay < 0) {
			assert_non_null(strstr(err, "1 knob not restored"));	/* said on stderr */
			/* kept for the next replay, one try counted */
			assert_string_equal(get_file(f->journal), jline_tries(pid, RQ, "1", 1));
			assert_int_equal(rmdir(in(f, RQ)), 0);
		} else {
			assert_string_equal(get_file(in(f, RQ)), cases[i].left);
			assert_string_equal(get_file(f->journal), "<missing>");
		}
		put_file(in(f, RQ), "1\n");
	}
	unlink(f->journal);
	assert_tree_pristine(f);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_child_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_child_leaves_parent_knob, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_failure, setup, teardown),
	};

	ab_prog = "test_knob_proc";
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
