// SPDX-License-Identifier: GPL-2.0
/*
 * lib/knob's replay judges a writer by its knob's owner lock, not by its pid
 * (issue 32, finding 4), and reads any journal in linear time and bounded
 * memory (finding 12): a live process with a dead writer's pid does not keep
 * a knob changed; a live owner keeps its entries, whatever pid they name; a
 * 100,000-line journal replays in the memory of a short one; a journal with
 * more open entries than a replay takes is refused, left as it is.
 */
#include "knob_fx.h"

#include <sys/resource.h>

#include "knob/journal_i.h"

/* A child that lives until killed; with lock_path, it first owns that knob's lock. */
static pid_t live_child(const struct fx *f, const char *lock_path)
{
	int pfd[2];

	assert_int_equal(pipe(pfd), 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		char err[256];
		close(pfd[0]);
		if (lock_path && knob_owner_lock(f->dir, lock_path, err, sizeof(err)) < 0)
			_exit(3);
		if (write(pfd[1], "y", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	char y = 0;
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &y, 1), 1);	/* it lives, and holds what it should */
	close(pfd[0]);
	return c;
}

static void end_child(pid_t c)
{
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
}

/* The finding: a journal entry naming a running process's pid (a sleep that got the
 * dead writer's pid), the knob's lock free: restored, and the entry gone. */
static void test_pid_reused(void **state)
{
	struct fx *f = *state;
	char err[256] = "";
	pid_t c = live_child(f, NULL);

	put_file(in(f, RQ), "0\n");
	put_file(f->journal, jline(c, RQ, "1"));
	int rc = ab_knob_replay(f->dir, f->journal, err, sizeof(err));
	end_child(c);
	assert_int_equal(rc, 1);
	assert_string_equal(get_file(in(f, RQ)), "1\n");
	assert_string_equal(get_file(f->journal), "<missing>");
}

/* The converse: the writer's pid is gone, but the knob's lock is held by a live
 * owner: nothing is written under it, the entry stays until the owner is gone. */
static void test_owner_lives(void **state)
{
	struct fx *f = *state;
	char err[256] = "";
	pid_t c = live_child(f, RQ);
	const char *line = jline(dead_pid[0], RQ, "1");

	put_file(in(f, RQ), "0\n");
	put_file(f->journal, line);
	int rc = ab_knob_replay(f->dir, f->journal, err, sizeof(err));
	char knob[64], left[512];
	snprintf(knob, sizeof(knob), "%s", get_file(in(f, RQ)));
	snprintf(left, sizeof(left), "%s", get_file(f->journal));
	end_child(c);	/* before any assertion: a failed one must not leave it running */
	assert_int_equal(rc, 0);
	assert_string_equal(knob, "0\n");
	assert_string_equal(left, line);
	assert_int_equal(ab_knob_replay(f->dir, f->journal, err, sizeof(err)), 1);
	assert_string_equal(get_file(in(f, RQ)), "1\n");
}

/* A journal of n closed entries (an entry and its done line each, pids all
 * different, none of the two gone writers'), then two open ones of writers gone. */
static void write_journal(const struct fx *f, int n)
{
	put_file(f->journal, "");	/* and its directory */
	FILE *j = fopen(f->journal, "w");

	assert_non_null(j);
	fputs(jline(dead_pid[1], BG, "12"), j);
	for (pid_t p = 100; p < 100 + n; p++) {
		if (p == dead_pid[0] || p == dead_pid[1])
			continue;
		fputs(jline(p, IRQL, "0-1"), j);
		fputs(jline(p, NULL, NULL), j);
	}
	fputs(jline(dead_pid[0], RQ, "1"), j);
	assert_int_equal(fclose(j), 0);
}

/* Replay a journal of n closed entries in a child: its peak RSS in KiB. */
static long replay_rss(const struct fx *f, int n)
{
	struct rusage ru;
	int status;

	write_journal(f, n);
	put_file(in(f, RQ), "0\n");
	put_file(in(f, BG), "5\n");
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		char err[256];
		_exit(ab_knob_replay(f->dir, f->journal, err, sizeof(err)) == 2 ? 0 : 1);
	}
	assert_int_equal(wait4(c, &status, 0, &ru), c);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);	/* both restored */
	assert_string_equal(get_file(in(f, RQ)), "1\n");
	assert_string_equal(get_file(in(f, BG)), "12\n");
	assert_string_equal(get_file(f->journal), "<missing>");
	return ru.ru_maxrss;
}

/* ASan's shadow and quarantine grow with every allocation, freed or not: an RSS bound
 * means nothing there. */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

/* 100,000 lines (about 9 MB) replay in the memory of 1,000: the replay keeps what is
 * open, not the journal (reading it whole took three copies of it). */
static void test_long_journal(void **state)
{
	struct fx *f = *state;

#ifdef ASAN
	print_message("# SKIP the replay's memory bound: ASan's shadow and quarantine grow with "
		      "every allocation\n");
	skip();
#endif
	long small = replay_rss(f, 500), big = replay_rss(f, 50000);

	if (big - small > 2048)
		fail_msg("peak RSS %ld KiB for 100,000 lines, %ld KiB for 1,000", big, small);
}

/* More open entries than a replay takes: refused with the bound in its message, the
 * journal and the knobs left as they are. */
static void test_pending_bound(void **state)
{
	struct fx *f = *state;
	char err[512] = "";
	struct stat a, b;

	put_file(f->journal, "");
	FILE *j = fopen(f->journal, "w");

	assert_non_null(j);
	for (int i = 0; i <= KNOB_PENDING_MAX; i++)
		fputs(jline(100 + i, RQ, "1"), j);
	assert_int_equal(fclose(j), 0);
	put_file(in(f, RQ), "0\n");
	assert_int_equal(stat(f->journal, &a), 0);
	assert_int_equal(ab_knob_replay(f->dir, f->journal, err, sizeof(err)), -1);
	if (!strstr(err, "refused") || !strstr(err, "4096"))
		fail_msg("message '%s' names neither the refusal nor the bound", err);
	assert_string_equal(get_file(in(f, RQ)), "0\n");
	assert_int_equal(stat(f->journal, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_size == b.st_size);
	unlink(f->journal);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pid_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_lives, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_bound, setup, teardown),
	};

	ab_prog = "test_knob_owner";
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
