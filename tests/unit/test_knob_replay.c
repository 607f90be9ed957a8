// SPDX-License-Identifier: GPL-2.0
/*
 * lib/knob/knob.c's journal replay after a SIGKILL, from hand-written journals:
 * entries of dead, done and live owners, a knob that already holds its
 * original not rewritten, zombies, one owner per knob, giving up after some
 * tries, and journals that are not to be trusted.
 */
#include "knob_fx.h"

/* ---- replay of hand-written journals ---- */

enum { NONE, D1, D2, LIVE };
#define DONE NULL

/* A knob that already holds its original is not written again, neither by the
 * owner's restore nor by a replay: a write the kernel refused (EPERM on a
 * managed IRQ) changed nothing and must not leave an unrestorable entry. */
static void set_old_mtime(const char *full)
{
	struct timespec t[2] = { { 1000, 0 }, { 1000, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, full, t, 0), 0);
}

static time_t mtime_of(const char *full)
{
	struct stat st;
	assert_int_equal(stat(full, &st), 0);
	return st.st_mtime;
}

static void test_unchanged_not_rewritten(void **state)
{
	struct fx *f = *state;
	char err[256] = "";

	/* the owner's restore */
	assert_int_equal(ab_knob_write(RQ, "0", NULL, 0, err, sizeof(err)), 0);
	put_file(in(f, RQ), "1\n");	/* back to the original behind our back */
	set_old_mtime(in(f, RQ));
	assert_int_equal(ab_knob_restore_all(), 0);
	assert_string_equal(get_file(in(f, RQ)), "1\n");
	assert_int_equal(mtime_of(in(f, RQ)), 1000);

	/* a replay of a dead process's entry */
	put_file(f->journal, jline(dead_pid[0], IRQL, "0-1"));
	set_old_mtime(in(f, IRQL));
	assert_int_equal(ab_knob_replay(f->dir, f->journal, err, sizeof(err)), 1);
	assert_string_equal(get_file(in(f, IRQL)), "0-1\n");
	assert_int_equal(mtime_of(in(f, IRQL)), 1000);
	assert_int_equal(access(f->journal, F_OK), -1);	/* nothing left to replay */
}

/* A zombie (killed, not yet reaped by a late init) is dead: replay restores its knobs. */
static void test_replay_zombie(void **state)
{
	struct fx *f = *state;
	char err[256] = "";
	pid_t z = fork();

	assert_true(z >= 0);
	if (z == 0)
		_exit(0);
	for (int i = 0; i < 2000; i++) {	/* wait until it has exited, unreaped */
		char path[64], buf[256] = "";
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)z);
		FILE *st = fopen(path, "r");
		if (st) {
			size_t n = fread(buf, 1, sizeof(buf) - 1, st);
			buf[n] = 0;
			fclose(st);
		}
		char *p = strrchr(buf, ')');
		if (p && p[2] == 'Z')
			break;
		usleep(1000);
	}
	put_file(in(f, RQ), "0\n");
	put_file(f->journal, jline(z, RQ, "1"));
	int r = ab_knob_replay(f->dir, f->journal, err, sizeof(err));
	waitpid(z, NULL, 0);
	assert_int_equal(r, 1);
	assert_string_equal(get_file(in(f, RQ)), "1\n");
}

/* One live owner per knob: while this process holds it changed, another process's
 * write fails (EBUSY, naming us) instead of journaling our value as its original;
 * once we restore, the knob is free and the other process takes it. */
static void test_one_owner(void **state)
{
	struct fx *f = *state;
	char err[256] = "";
	int pfd[2];

	assert_int_equal(ab_knob_write(RQ, "0", NULL, 0, err, sizeof(err)), 0);
	setenv("AFFBENCH_KNOB_WAIT_S", "0", 1);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(pipe(pfd), 0);
		pid_t c = fork();
		assert_true(c >= 0);
		if (c == 0) {
			char cerr[256] = "", orig[32] = "";
			int r = ab_knob_write(RQ, "2", orig, sizeof(orig), cerr, sizeof(cerr));
			char msg[320];
			int n = snprintf(msg, sizeof(msg), "%d %d %s|%s", r, r ? errno : 0, orig, cerr);
			if (write(pfd[1], msg, (size_t)n) < 0)
				_exit(3);
			ab_knob_restore_all();
			_exit(0);
		}
		close(pfd[1]);
		char got[320] = "";
		ssize_t n = read(pfd[0], got, sizeof(got) - 1);
		close(pfd[0]);
		waitpid(c, NULL, 0);
		assert_true(n > 0);
		if (round == 0) {	/* we own it: refused, our change stands */
			char want[64];
			snprintf(want, sizeof(want), "-1 %d |", EBUSY);
			if (strncmp(got, want, strlen(want)) || !strstr(got, "another affbench process"))
				fail_msg("second writer while owned: '%s'", got);
			assert_string_equal(get_file(in(f, RQ)), "0\n");
			assert_int_equal(ab_knob_restore_all(), 0);
		} else {		/* restored and released: the other process owns it now */
			if (strncmp(got, "0 0 1|", 6))
				fail_msg("second writer after restore: '%s'", got);
			assert_string_equal(get_file(in(f, RQ)), "1\n");
		}
	}
	unsetenv("AFFBENCH_KNOB_WAIT_S");
}

static pid_t who_pid(int who)
{
	return who == D1 ? dead_pid[0] : who == D2 ? dead_pid[1] : getpid();
}

static void test_replay(void **state)
{
	static const struct {
		const char *name;
		struct {
			int who;
			const char *path, *orig;	/* orig DONE: a done line */
		} lines[4];
		const char *tail;		/* raw text after the lines */
		int no_journal;
		int rc;
		struct {
			const char *path, *content;
		} want[3];			/* knobs start at "9\n" */
		unsigned keep;			/* bit i: line i stays in the journal */
	} cases[] = {
		{ "dead, not done: restored", { { D1, RQ, "1" } }, NULL, 0, 1,
		  { { RQ, "1\n" } }, 0 },
		{ "dead and done: left alone", { { D1, RQ, "1" }, { D1, NULL, DONE } }, NULL, 0, 0,
		  { { RQ, "9\n" } }, 0 },
		{ "live: kept, not restored", { { LIVE, RQ, "1" } }, NULL, 0, 0,
		  { { RQ, "9\n" } }, 0x1 },
		{ "oldest original wins", { { D1, RQ, "1" }, { D2, RQ, "0" } }, NULL, 0, 1,
		  { { RQ, "1\n" } }, 0 },
		{ "oldest is by journal order, not pid", { { D2, RQ, "0" }, { D1, RQ, "1" } }, NULL, 0, 1,
		  { { RQ, "0\n" } }, 0 },
		{ "IRQ list written back as read", { { D1, IRQL, "0-1" } }, NULL, 0, 1,
		  { { IRQL, "0-1\n" } }, 0 },
		{ "torn last line ignored", { { D1, RQ, "1" } }, "77\t" IRQL "\t0-", 0, 1,
		  { { RQ, "1\n" }, { IRQL, "9\n" } }, 0 },
		{ "torn line only", { { NONE } }, "77\t" RQ, 0, 0, { { RQ, "9\n" } }, 0 },
		{ "malformed line dropped", { { D1, RQ, "1" } }, "garbage\n", 0, 1,
		  { { RQ, "1\n" } }, 0 },
		{ "live and dead mixed",
		  { { D1, RQ, "1" }, { LIVE, IRQL, "0-1" }, { D2, BG, "12" } }, NULL, 0, 2,
		  { { RQ, "1\n" }, { IRQL, "9\n" }, { BG, "12\n" } }, 0x2 },
		{ "entries after done are pending again",
		  { { D1, RQ, "1" }, { D1, NULL, DONE }, { D1, IRQL, "0-1" } }, NULL, 0, 1,
		  { { RQ, "9\n" }, { IRQL, "0-1\n" } }, 0 },
		{ "live pid's done line closes its entries",
		  { { LIVE, RQ, "1" }, { LIVE, NULL, DONE } }, NULL, 0, 0, { { RQ, "9\n" } }, 0 },
		{ "off the allow-list: never written",
		  { { D1, PASSWD, "hacked" }, { D1, "/sys/block/vda/queue/../../../../etc/passwd", "x" } },
		  NULL, 0, 0, { { NULL } }, 0 },
		{ "knob gone: nothing to restore", { { D1, "/sys/block/sdz/queue/rq_affinity", "1" } },
		  NULL, 0, 0, { { NULL } }, 0 },
		{ "missing journal", { { NONE } }, NULL, 1, 0, { { RQ, "9\n" } }, 0 },
		{ "another boot: dropped, not restored", { { NONE } },
		  "00000000-1111-2222-3333-444444444444\t77\t0\t" RQ "\t1\n", 0, 0, { { RQ, "9\n" } }, 0 },
		{ "no boot id (an old journal): dropped", { { NONE } }, "77\t" RQ "\t1\n", 0, 0,
		  { { RQ, "9\n" } }, 0 },
		{ "pid out of range: dropped, not pid 1", { { NONE } }, "@BOOT\t4294967297\t0\t" RQ "\t1\n",
		  0, 0, { { RQ, "9\n" } }, 0 },
		{ "pid 0: dropped", { { NONE } }, "@BOOT\t0\t0\t" RQ "\t1\n", 0, 0, { { RQ, "9\n" } }, 0 },
		{ "negative pid: dropped", { { NONE } }, "@BOOT\t-5\t0\t" RQ "\t1\n", 0, 0,
		  { { RQ, "9\n" } }, 0 },
	};
	struct fx *f = *state;

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		char journal[8192] = "", kept[8192] = "", err[256] = "";
		static const char *const knobs[] = { RQ, IRQL, BG };

		for (size_t k = 0; k < AB_ARRAY_SIZE(knobs); k++)
			put_file(in(f, knobs[k]), "9\n");
		for (size_t l = 0; l < AB_ARRAY_SIZE(cases[i].lines) && cases[i].lines[l].who; l++) {
			const char *s = jline(who_pid(cases[i].lines[l].who), cases[i].lines[l].path,
					      cases[i].lines[l].orig);
			strcat(journal, s);
			if (cases[i].keep & (1u << l))
				strcat(kept, s);
		}
		if (cases[i].tail) {	/* "@BOOT" stands for this boot's id */
			const char *at = strstr(cases[i].tail, "@BOOT");
			if (at) {
				strncat(journal, cases[i].tail, (size_t)(at - cases[i].tail));
				strcat(journal, boot());
				strcat(journal, at + 5);
			} else {
				strcat(journal, cases[i].tail);
			}
		}
		unlink(f->journal);
		if (!cases[i].no_journal)
			put_file(f->journal, journal);

		int rc = ab_knob_replay(f->dir, f->journal, err, sizeof(err));
		if (rc != cases[i].rc)
			fail_msg("%s: replay returned %d, want %d (%s)", cases[i].name, rc,
				 cases[i].rc, err);
		for (size_t w = 0; w < AB_ARRAY_SIZE(cases[i].want) && cases[i].want[w].path; w++)
			if (strcmp(get_file(in(f, cases[i].want[w].path)), cases[i].want[w].content))
				fail_msg("%s: %s is '%s', want '%s'", cases[i].name,
					 cases[i].want[w].path, get_file(in(f, cases[i].want[w].path)),
					 cases[i].want[w].content);
		const char *left = get_file(f->journal);
		if (strcmp(left, kept[0] ? kept : "<missing>") != 0)
			fail_msg("%s: journal left '%s', want '%s'", cases[i].name, left,
				 kept[0] ? kept : "<missing>");
		assert_string_equal(get_file(in(f, PASSWD)), "root:x:0:0:root:/root:/bin/bash\n");
		assert_string_equal(get_file(in(f, "/sys/block/sdz/queue/rq_affinity")), "<missing>");
	}
	unlink(f->journal);
}

/* A restore the kernel keeps refusing is retried by the next replays, then given up. */
static void test_replay_gives_up(void **state)
{
	struct fx *f = *state;
	char err[256] = "";

	unlink(in(f, RQ));
	assert_int_equal(mkdir(in(f, RQ), 0755), 0);	/* EISDIR on every write */
	put_file(f->journal, jline(dead_pid[0], RQ, "1"));
	for (int t = 1; t <= 3; t++) {
		assert_int_equal(ab_knob_replay(f->dir, f->journal, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "1 knob not restored"));
		if (t < 3)
			assert_string_equal(get_file(f->journal), jline_tries(dead_pid[0], RQ, "1", t));
		else
			assert_string_equal(get_file(f->journal), "<missing>");	/* given up */
	}
	assert_int_equal(ab_knob_replay(f->dir, f->journal, err, sizeof(err)), 0);
	assert_int_equal(rmdir(in(f, RQ)), 0);
	put_file(in(f, RQ), "1\n");
}

/* ab_knob_replay with stderr in a file: its return; what it printed into said. */
static int replay_said(struct fx *f, char *err, size_t errlen, char *said, size_t len)
{
	char path[PATH_MAX];
	int saved = dup(2);

	snprintf(path, sizeof(path), "%s/stderr", f->dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	int rc = ab_knob_replay(f->dir, f->journal, err, errlen);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t n = pread(fd, said, len - 1, 0);
	said[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return rc;
}

/* A knob the kernel refuses is said once, by the replay, with the path and the value;
 * err, which every caller prints, counts it (harness restore once printed it twice). */
static void test_refused_said_once(void **state)
{
	struct fx *f = *state;
	char err[512] = "", said[4096], both[4608];

	unlink(in(f, RQ));
	assert_int_equal(mkdir(in(f, RQ), 0755), 0);	/* EISDIR on every write */
	put_file(f->journal, jline(dead_pid[0], RQ, "1"));
	assert_int_equal(replay_said(f, err, sizeof(err), said, sizeof(said)), -1);
	snprintf(both, sizeof(both), "%s\n%s", said, err);
	const char *first = strstr(both, RQ);
	if (!first || strstr(first + 1, RQ) || !strstr(said, "restore '1'"))
		fail_msg("said '%s', err '%s'", said, err);
	unlink(f->journal);
	assert_int_equal(rmdir(in(f, RQ)), 0);
	put_file(in(f, RQ), "1\n");
}

/* A journal or lock directory others may write is refused: its lines could name any value. */
static void test_replay_untrusted(void **state)
{
	struct fx *f = *state;
	char err[256], jdir[PATH_MAX], locks[PATH_MAX], target[PATH_MAX];
	enum { DIR_WRITABLE, FILE_WRITABLE, LOCKS_WRITABLE, SYMLINK, DIR_OTHER_OWNER };

	snprintf(jdir, sizeof(jdir), "%s/state", f->dir);
	snprintf(locks, sizeof(locks), "%s/run/affbench/knobs", f->dir);
	snprintf(target, sizeof(target), "%s/elsewhere.journal", f->dir);
	assert_int_equal(mkdir(jdir, 0700) == 0 || errno == EEXIST, 1);
	assert_int_equal(system("true"), 0);
	for (int k = DIR_WRITABLE; k <= DIR_OTHER_OWNER; k++) {
		put_file(in(f, RQ), "0\n");
		unlink(f->journal);
		put_file(f->journal, jline(dead_pid[0], RQ, "1"));
		chmod(f->journal, 0600);
		mkdir(in(f, "/run"), 0755);
		mkdir(in(f, "/run/affbench"), 0700);
		mkdir(locks, 0700);
		if (k == DIR_WRITABLE)
			assert_int_equal(chmod(jdir, 0777), 0);
		if (k == FILE_WRITABLE)
			assert_int_equal(chmod(f->journal, 0666), 0);
		if (k == LOCKS_WRITABLE)
			assert_int_equal(chmod(locks, 0777), 0);
		if (k == SYMLINK) {
			put_file(target, jline(dead_pid[0], RQ, "1"));
			unlink(f->journal);
			assert_int_equal(symlink(target, f->journal), 0);
		}
		if (k == DIR_OTHER_OWNER)
			assert_int_equal(chown(jdir, 65534, 0), 0);
		err[0] = '\0';
		assert_int_equal(ab_knob_replay(f->dir, f->journal, err, sizeof(err)), -1);
		if (!strstr(err, "refused"))
			fail_msg("case %d: '%s' does not say refused", k, err);
		assert_string_equal(get_file(in(f, RQ)), "0\n");	/* nothing restored from it */
		chmod(jdir, 0700);
		chown(jdir, 0, 0);
		chmod(locks, 0700);
		unlink(f->journal);
		unlink(target);
	}
	put_file(in(f, RQ), "1\n");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unchanged_not_rewritten, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_zombie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_gives_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_said_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_untrusted, setup, teardown),
	};

	ab_prog = "test_knob_replay";
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
