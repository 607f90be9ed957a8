/*
 * lib/knob/knob.c against a fake sysfs/procfs tree in a mkdtemp directory (under
 * $AFFBENCH_WORKDIR, else /tmp): allow-list, journal before write, restore by
 * the owner only (at exit, restore_all, signal handler), and journal replay
 * after a SIGKILL. Forked children report through their exit status only; the
 * parent does every check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "knob/knob.h"

#define RQ "/sys/block/vda/queue/rq_affinity"
#define IRQL "/proc/irq/24/smp_affinity_list"
#define IRQM "/proc/irq/24/smp_affinity"
#define BG "/sys/fs/fuse/connections/40/max_background"
#define CONG "/sys/fs/fuse/connections/40/congestion_threshold"
#define URING "/sys/module/fuse/parameters/enable_uring"
#define PASSWD "/etc/passwd"
#define SCHED "/sys/block/vda/queue/scheduler"

/* The fake tree every test starts from. */
static const struct {
	const char *path, *init;
} tree[] = {
	{ RQ, "1\n" },
	{ IRQL, "0-1\n" },
	{ IRQM, "3\n" },
	{ BG, "12\n" },
	{ CONG, "9\n" },
	{ URING, "N\n" },
	{ PASSWD, "root:x:0:0:root:/root:/bin/bash\n" },
	{ SCHED, "none\n" },
};

struct fx {
	char dir[1024];		/* short enough that dir + any knob path fits PATH_MAX */
	char journal[PATH_MAX];
};

static pid_t dead_pid[2];	/* reaped children: kill(pid, 0) says ESRCH */

static const char *in(const struct fx *f, const char *path)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s%s", f->dir, path);
	return buf[k];
}

static void put_file(const char *full, const char *content)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", full);
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", dir, strerror(errno));
		*s = '/';
	}
	FILE *fp = fopen(full, "w");
	if (!fp)
		fail_msg("create %s: %s", full, strerror(errno));
	fputs(content, fp);
	if (fclose(fp) != 0)
		fail_msg("write %s: %s", full, strerror(errno));
}

/* Whole file, exactly; "<missing>" when it does not exist. */
static const char *get_file(const char *full)
{
	static char buf[4][8192];
	static int k;
	FILE *fp = fopen(full, "r");

	k = (k + 1) % 4;
	if (!fp)
		return "<missing>";
	size_t n = fread(buf[k], 1, sizeof(buf[k]) - 1, fp);
	buf[k][n] = '\0';
	fclose(fp);
	return buf[k];
}

/* How many lines of the journal are exactly line (which ends in '\n'). */
static int count_line(const char *journal, const char *line)
{
	const char *text = get_file(journal);
	size_t len = strlen(line);
	int n = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (l == len && memcmp(p, line, len) == 0)
			n++;
		p += l;
	}
	return n;
}

/* This boot's id, as the journal lines carry it. */
static const char *boot(void)
{
	static char id[64];

	if (!id[0]) {
		snprintf(id, sizeof(id), "%s", get_file("/proc/sys/kernel/random/boot_id"));
		id[strcspn(id, "\n")] = '\0';
	}
	return id;
}

/* How many journal lines start with "<boot>\t<pid>\t". */
static int count_pid(const char *journal, pid_t pid)
{
	char pre[96];
	const char *text = get_file(journal);
	int n = 0;

	snprintf(pre, sizeof(pre), "%s\t%ld\t", boot(), (long)pid);
	for (const char *p = text; *p;) {
		if (strncmp(p, pre, strlen(pre)) == 0)
			n++;
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

/* A journal line of this boot: an entry (tries 0) or, with orig NULL, a done line. */
static const char *jline_tries(pid_t pid, const char *path, const char *orig, int tries)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	if (orig)
		snprintf(buf[k], sizeof(buf[k]), "%s\t%ld\t%d\t%s\t%s\n", boot(), (long)pid, tries,
			 path, orig);
	else
		snprintf(buf[k], sizeof(buf[k]), "%s\t%ld\tdone\n", boot(), (long)pid);
	return buf[k];
}

static const char *jline(pid_t pid, const char *path, const char *orig)
{
	return jline_tries(pid, path, orig, 0);
}

static void assert_tree_pristine(const struct fx *f)
{
	for (size_t i = 0; i < AB_ARRAY_SIZE(tree); i++)
		if (strcmp(get_file(in(f, tree[i].path)), tree[i].init) != 0)
			fail_msg("%s is '%s', want '%s'", tree[i].path, get_file(in(f, tree[i].path)),
				 tree[i].init);
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(p);
}

static int group_setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(dead_pid); i++) {
		pid_t p = fork();
		if (p < 0)
			return -1;
		if (p == 0)
			_exit(0);
		if (waitpid(p, NULL, 0) != p)
			return -1;
		dead_pid[i] = p;
	}
	return 0;
}

static int setup(void **state)
{
	static struct fx f;
	const char *base = getenv("AFFBENCH_WORKDIR");

	snprintf(f.dir, sizeof(f.dir), "%s/knobtest.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(f.dir)) {
		fprintf(stderr, "mkdtemp %s: %s\n", f.dir, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < AB_ARRAY_SIZE(tree); i++)
		put_file(in(&f, tree[i].path), tree[i].init);
	/* The journal's directory does not exist yet: the module creates it 0700. */
	snprintf(f.journal, sizeof(f.journal), "%s/state/knobs.journal", f.dir);
	if (ab_knob_init(f.dir, f.journal) != 0)
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ab_knob_restore_all();
	return nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

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
			assert_non_null(strstr(err, RQ));
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
		assert_non_null(strstr(err, RQ));
		if (t < 3)
			assert_string_equal(get_file(f->journal), jline_tries(dead_pid[0], RQ, "1", t));
		else
			assert_string_equal(get_file(f->journal), "<missing>");	/* given up */
	}
	assert_non_null(strstr(err, "given up"));
	assert_int_equal(ab_knob_replay(f->dir, f->journal, err, sizeof(err)), 0);
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
		cmocka_unit_test(test_allow_list),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_journal_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_write_keeps_first_original, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_busy_while_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_child_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_child_leaves_parent_knob, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unchanged_not_rewritten, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_zombie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_gives_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_untrusted, setup, teardown),
	};

	ab_prog = "test_knob";
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
