// SPDX-License-Identifier: GPL-2.0
/*
 * lib/fuse/fsrv when things go wrong. Without io_uring: the forced "no io_uring"
 * and "no passthrough" paths make the check report the facility missing,
 * and a daemon that asks for io_uring while enable_uring is N gets its
 * REGISTER refused and exits 4 with one line, leaving no mount. With
 * io_uring on (through the knob journal, restored and checked at the end):
 * a daemon SIGKILLed, SIGSTOPped and aborted through fusectl, or unmounted
 * while stat()s are in flight, never leaves a client blocked for more than a
 * few seconds nor a mount behind. Needs root and /dev/fuse.
 *
 * A stopped daemon is aborted and then continued or killed: the abort alone
 * does not release a request the kernel already handed to an io_uring entry
 * of the stopped thread (its delivery is task work that thread must run;
 * Linux 6.18 tears down only idle entries and entries in userspace), and the
 * caller waits for it uninterruptibly. ab_daemon_stop aborts, then kills.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <sys/mount.h>

#include "fsrv_testfs.h"
#include "knob/knob.h"
#include "sys/pin.h"

/* "bounded time" for a client to see the end, on a busy machine too */
#define CLIENT_MS tfs_ms(15000)

static char uring_orig[16];
static int uring_on;

static int have_fuse(void)
{
	return geteuid() == 0 && access("/dev/fuse", R_OK | W_OK) == 0;
}

static int mnt_gone(const char *mnt)
{
	return !ab_mnt_is_fuse(mnt);
}

/* ---- without io_uring ---- */

static void test_forced(void **state)
{
	static const struct {
		const char *force;
		enum ab_fsrv_transport t;
		int pt;
		const char *why;	/* NULL: not this hook's business */
	} cases[] = {
		{ "nouring", AB_FSRV_URING, 0, "AFFBENCH_FSRV_FORCE=nouring" },
		{ "nouring", AB_FSRV_URING, 1, "AFFBENCH_FSRV_FORCE=nouring" },
		{ "nouring", AB_FSRV_DEV, 0, NULL },
		{ "nopassthrough", AB_FSRV_DEV, 1, "AFFBENCH_FSRV_FORCE=nopassthrough" },
		{ "nopassthrough", AB_FSRV_URING, 1, "AFFBENCH_FSRV_FORCE=nopassthrough" },
	};
	char why[512];

	(void)state;
	if (!have_fuse())
		skip();
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++) {
		/* Only what the hook changes is checked: the rest depends on the machine. */
		unsetenv("AFFBENCH_FSRV_FORCE");
		int base = ab_fsrv_check(cases[i].t, cases[i].pt, why, sizeof(why));
		setenv("AFFBENCH_FSRV_FORCE", cases[i].force, 1);
		why[0] = '\0';
		int rc = ab_fsrv_check(cases[i].t, cases[i].pt, why, sizeof(why));
		unsetenv("AFFBENCH_FSRV_FORCE");
		print_message("# %s, transport %d, passthrough %d: %d (%s)\n", cases[i].force,
			      cases[i].t, cases[i].pt, rc, why);
		if (!cases[i].why) {
			assert_int_equal(rc, base);
		} else if (base == 0 || strstr(why, "AFFBENCH_FSRV_FORCE")) {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(why, cases[i].why));
		}
	}
}

/* The real reasons, where this machine lacks something. */
static void test_check_reasons(void **state)
{
	char why[512] = "";

	(void)state;
	if (geteuid() != 0) {
		assert_int_equal(ab_fsrv_check(AB_FSRV_DEV, 0, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "root"));
		return;
	}
	if (!have_fuse())
		skip();
	assert_int_equal(ab_fsrv_check(AB_FSRV_DEV, 0, why, sizeof(why)), 0);
	if (access(AB_FSRV_URING_PARAM, F_OK) < 0) {
		assert_int_equal(ab_fsrv_check(AB_FSRV_URING, 0, why, sizeof(why)), -1);
		assert_non_null(strstr(why, AB_FSRV_URING_PARAM));
	}
}

struct refused {
	struct tfs_args a;
	int errfd;		/* the daemon's stderr goes here */
};

static int run_refused(void *arg, const char *mnt)
{
	struct refused *r = arg;

	if (dup2(r->errfd, STDERR_FILENO) < 0)
		return AB_EXIT_CHILD_SETUP;
	return tfs_run(&r->a, mnt);
}

/* A REGISTER the kernel refuses: exit 4, one line naming the reason, no mount. */
static void test_register_refused(void **state)
{
	struct refused *r;
	char mnt[PATH_MAX], err[512], cur[16] = "", line[1024] = "";
	int pfd[2], st;

	(void)state;
	if (!have_fuse() || access(AB_FSRV_URING_PARAM, F_OK) < 0)
		skip();
	if (ab_knob_read(AB_FSRV_URING_PARAM, cur, sizeof(cur)) < 0 || strcmp(cur, "N") != 0) {
		print_message("# skipped: enable_uring is '%s' (another process uses it)\n", cur);
		skip();
	}
	r = calloc(1, sizeof(*r));
	assert_non_null(r);
	r->a.sh = ab_shm_alloc(sizeof(*r->a.sh));
	assert_non_null(r->a.sh);
	r->a.cfg = (struct ab_fsrv_cfg){ .transport = AB_FSRV_URING, .fsname = "affbench-fsrvtest",
					  .subtype = "fsrvtest" };
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	r->errfd = pfd[1];
	assert_int_equal(ab_mnt_mkdir(NULL, mnt, sizeof(mnt), err, sizeof(err)), 0);

	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(run_refused(r, mnt));
	close(pfd[1]);
	uint64_t deadline = ab_now_ns() + CLIENT_MS * 1000000ull;
	pid_t w;
	while ((w = waitpid(pid, &st, WNOHANG)) == 0 && ab_now_ns() < deadline)
		ab_sleep_ns(1000000);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	ssize_t n = read(pfd[0], line, sizeof(line) - 1);
	close(pfd[0]);
	line[n > 0 ? n : 0] = '\0';
	int gone = mnt_gone(mnt);
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
	ab_shm_free(r->a.sh, sizeof(*r->a.sh));
	free(r);

	print_message("# daemon said: %s", line);
	assert_true(w == pid);	/* no hang */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), AB_EXIT_SKIP);
	assert_non_null(strstr(line, "REGISTER"));
	assert_non_null(strstr(line, "enable_uring"));
	assert_non_null(strchr(line, '\n'));
	assert_int_equal(strchr(line, '\n')[1], '\0');	/* one line */
	assert_true(gone);
}

/* ---- with io_uring ---- */

static int uring_setup(void **state)
{
	char why[512];

	(void)state;
	if (!have_fuse() || ab_fsrv_check(AB_FSRV_URING, 0, why, sizeof(why)) < 0)
		return 0;
	if (ab_knob_read(AB_FSRV_URING_PARAM, uring_orig, sizeof(uring_orig)) < 0 ||
	    ab_knob_init("", ab_knob_default_journal()) < 0 ||
	    ab_fsrv_uring_enable(why, sizeof(why)) < 0) {
		print_error("cannot enable FUSE io_uring: %s\n", why);
		return 0;
	}
	uring_on = 1;
	return 0;
}

static int uring_teardown(void **state)
{
	char now[16] = "";

	(void)state;
	if (!uring_on)
		return 0;
	if (ab_knob_restore_all() != 0 || ab_knob_read(AB_FSRV_URING_PARAM, now, sizeof(now)) < 0 ||
	    strcmp(now, uring_orig) != 0) {
		print_error("enable_uring is '%s', was '%s'\n", now, uring_orig);
		return -1;
	}
	return 0;
}

/* stat() until it fails; how it failed goes to sh->client_errno. */
static int stat_loop(const char *mnt, struct tfs_shared *sh, const void *arg)
{
	char p[PATH_MAX];
	struct stat st;
	int cpu = arg ? *(const int *)arg : -1;

	if (ab_pin_self(cpu) < 0)
		return tfs_fail(sh, "pin to CPU %d: %s", cpu, strerror(errno));
	tfs_path(p, sizeof(p), mnt, TFS_STAT);
	while (stat(p, &st) == 0)
		atomic_fetch_add(&sh->client_ok, 1);
	atomic_store(&sh->client_errno, errno);
	return 0;
}

/*
 * One stat(), answered. The kernel holds requests until the daemon has answered
 * INIT and, under io_uring, until every queue has a registered entry: after it
 * the daemon is serving. Stopped before that, it reads INIT only after the
 * abort, gets ENODEV and fails with exit 1, which is no stop of a serving daemon.
 */
static int stat_once(const char *mnt, struct tfs_shared *sh, const void *arg)
{
	char p[PATH_MAX];
	struct stat st;

	(void)arg;
	tfs_path(p, sizeof(p), mnt, TFS_STAT);
	if (stat(p, &st) < 0)
		return tfs_fail(sh, "stat %s: %s", p, strerror(errno));
	return 0;
}

enum fault { F_KILL, F_STOP_KILL, F_STOP_CONT, F_UNMOUNT };

static const struct fcase {
	const char *name;
	enum fault f;
	int min_ok;		/* stat()s to see before the fault */
	int clean_end;		/* the daemon ends by itself with exit 0 (else SIGKILL) */
} fcases[] = {
	{ "daemon SIGKILLed under load", F_KILL, 200, 0 },
	{ "daemon SIGSTOPped: abort, then SIGKILL", F_STOP_KILL, 0, 0 },
	{ "daemon SIGSTOPped: abort, then SIGCONT", F_STOP_CONT, 0, 1 },
	{ "unmounted with stat()s in flight", F_UNMOUNT, 200, 1 },
};

/* Wait until the clients made n stat()s (0 when they stop first). */
static int wait_ok(struct tfs_shared *sh, uint64_t n)
{
	uint64_t deadline = ab_now_ns() + CLIENT_MS * 1000000ull;

	while (atomic_load(&sh->client_ok) < n) {
		if (ab_now_ns() > deadline)
			return -1;
		ab_sleep_ns(100000);	/* leave the CPUs to the clients and the daemon */
	}
	return 0;
}

/* Inflict the fault; for F_UNMOUNT the daemon's end as ab_daemon_stop gives it. */
static int inflict(const struct fcase *c, struct ab_daemon *d, struct tfs_shared *sh,
		   pid_t *clients, int nc)
{
	int st;

	switch (c->f) {
	case F_KILL:
		assert_int_equal(kill(d->pid, SIGKILL), 0);
		break;
	case F_STOP_KILL:
	case F_STOP_CONT:
		/* the clients are blocked on the stopped daemon, not ended */
		ab_sleep_ns(200000000);
		for (int i = 0; i < nc; i++)
			assert_int_equal(waitpid(clients[i], &st, WNOHANG), 0);
		assert_int_equal(atomic_load(&sh->client_ok), 0);
		assert_int_equal(ab_mnt_abort_conn(d->conn), 0);
		assert_int_equal(kill(d->pid, c->f == F_STOP_KILL ? SIGKILL : SIGCONT), 0);
		break;
	case F_UNMOUNT:
		return ab_daemon_stop(d, CLIENT_MS);
	}
	return -1;
}

static void test_fault(void **state)
{
	const struct fcase *c = *state;
	struct tfs_args *a;
	struct tfs_shared *sh;
	struct ab_cpuset cpus;
	struct ab_daemon d;
	pid_t clients[8];
	int cpu_of[8], nc = 0, cpu;
	char err[512], mnt[sizeof(d.mnt)];
	siginfo_t si;

	if (!uring_on)
		skip();
	a = calloc(1, sizeof(*a));
	sh = ab_shm_alloc(sizeof(*sh));
	assert_non_null(a);
	assert_non_null(sh);
	assert_int_equal(ab_cpuset_allowed(&cpus), 0);
	a->sh = sh;
	a->cfg = (struct ab_fsrv_cfg){ .transport = AB_FSRV_URING, .fsname = "affbench-fsrvtest",
				       .subtype = "fsrvtest", .queue_depth = 2 };
	if (ab_daemon_start(&d, NULL, -1, tfs_run, a, tfs_ms(10000), err, sizeof(err)) < 0)
		fail_msg("%s", err);
	snprintf(mnt, sizeof(mnt), "%s", d.mnt);
	if (c->f == F_STOP_KILL || c->f == F_STOP_CONT) {
		/* serving first (past INIT and REGISTER), then stopped for good before any
		 * client asks: waitid returns once all threads are */
		if (tfs_client(mnt, d.conn, sh, stat_once, NULL, CLIENT_MS) < 0) {
			ab_daemon_stop(&d, 500);
			fail_msg("%s: the daemon never served a stat(): %s", c->name, sh->msg);
		}
		assert_int_equal(kill(d.pid, SIGSTOP), 0);
		assert_int_equal(waitid(P_PID, (id_t)d.pid, &si, WSTOPPED | WNOWAIT), 0);
	}
	/* one client per CPU, so every queue has a request in flight */
	ab_cpuset_for_each(cpu, &cpus) {
		if (nc == (int)AB_ARRAY_SIZE(clients))
			break;
		cpu_of[nc] = cpu;
		clients[nc] = tfs_client_start(mnt, sh, stat_loop, &cpu_of[nc]);
		assert_true(clients[nc] > 0);
		nc++;
	}
	assert_int_equal(wait_ok(sh, (uint64_t)c->min_ok), 0);
	int st = inflict(c, &d, sh, clients, nc), failed = 0;
	for (int i = 0; i < nc; i++)
		failed |= tfs_client_wait(clients[i], d.conn, sh, CLIENT_MS) < 0;
	if (c->f != F_UNMOUNT)
		st = ab_daemon_stop(&d, c->clean_end ? CLIENT_MS : 500);
	if (failed)
		fail_msg("%s: %s", c->name, sh->msg);	/* after the cleanup above */
	print_message("# %s: %llu stat()s, then %s; daemon status 0x%x\n", c->name,
		      (unsigned long long)atomic_load(&sh->client_ok),
		      strerror(atomic_load(&sh->client_errno)), (unsigned)st);
	assert_true(mnt_gone(mnt));
	assert_int_not_equal(atomic_load(&sh->client_errno), 0);
	if (c->clean_end)
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	else
		assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	ab_shm_free(sh, sizeof(*sh));
	free(a);
}

int main(void)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(test_forced),
		cmocka_unit_test(test_check_reasons),
		cmocka_unit_test(test_register_refused),
	};
	struct CMUnitTest faults[AB_ARRAY_SIZE(fcases)];

	for (size_t i = 0; i < AB_ARRAY_SIZE(fcases); i++)
		faults[i] = (struct CMUnitTest){ .name = fcases[i].name, .test_func = test_fault,
						 .initial_state = (void *)&fcases[i] };
	int rc = cmocka_run_group_tests_name("fsrv without io_uring", plain, NULL, NULL);
	return rc | cmocka_run_group_tests_name("fsrv faults under io_uring", faults, uring_setup,
						uring_teardown);
}
