/*
 * FUSE mount hygiene against a real libfuse daemon: a tiny hello filesystem
 * (root + one file) served by ab_fuse_serve in an ab_daemon_start child.
 * Covers mountpoints, mount detection (octal-escaped paths: every work
 * directory here has a space and a backslash in its name), connection numbers,
 * the three loop kinds, start failures, hung and killed daemons, busy unmounts
 * and stale-mount cleanup. Needs root and /dev/fuse; skips otherwise.
 * Every test's teardown removes what it mounted, and the group teardown fails
 * if anything is still mounted under our base directory.
 */
#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <dirent.h>
#include <ftw.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuse/fusedaemon.h"
#include "fuse/fusemnt.h"
#include "sys/barrier.h"
#include "sys/proc.h"

/* ---- the hello filesystem ---- */

enum { HELLO_ROOT_INO = FUSE_ROOT_ID, HELLO_FILE_INO = 2 };
static const char hello_name[] = "hello";

struct hello_fs {
	const char *text;
	size_t len;
};

static int hello_stat(struct hello_fs *fs, fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == HELLO_ROOT_INO) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (ino == HELLO_FILE_INO) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = (off_t)fs->len;
	} else {
		return -1;
	}
	return 0;
}

/* Timeouts 0: every lookup and stat reaches the daemon, so a hung daemon is felt. */
static void hello_ll_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	if (parent != HELLO_ROOT_INO || strcmp(name, hello_name) != 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	e.ino = HELLO_FILE_INO;
	hello_stat(fuse_req_userdata(req), e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void hello_ll_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (hello_stat(fuse_req_userdata(req), ino, &st) < 0)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, 0.0);
}

static void hello_ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != HELLO_FILE_INO)
		fuse_reply_err(req, EISDIR);
	else if ((fi->flags & O_ACCMODE) != O_RDONLY)
		fuse_reply_err(req, EACCES);
	else
		fuse_reply_open(req, fi);
}

static void hello_ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			  struct fuse_file_info *fi)
{
	struct hello_fs *fs = fuse_req_userdata(req);

	(void)ino;
	(void)fi;
	if ((size_t)off >= fs->len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, fs->text + off, size < fs->len - off ? size : fs->len - off);
}

static const struct fuse_lowlevel_ops hello_ops = {
	.lookup = hello_ll_lookup,
	.getattr = hello_ll_getattr,
	.open = hello_ll_open,
	.read = hello_ll_read,
};

static const char hello_text[] = "Hello from the affbench test filesystem\n";

/* ---- daemon bodies (run in the ab_daemon_start child) ---- */

struct serve_cfg {
	enum ab_fuse_loop loop;
	const char *name;	/* NULL: "test" */
	int max_threads;
	/* written by the child into shared memory: where it was allowed to run */
	int *seen_ncpus, *seen_cpu;
};

static int run_hello(void *arg, const char *mnt)
{
	struct serve_cfg *c = arg;
	struct hello_fs fs = { hello_text, sizeof(hello_text) - 1 };
	cpu_set_t set;

	if (c->seen_ncpus && sched_getaffinity(0, sizeof(set), &set) == 0) {
		*c->seen_ncpus = CPU_COUNT(&set);
		*c->seen_cpu = CPU_COUNT(&set) == 1 ? sched_getcpu() : -1;
	}
	return ab_fuse_serve(&hello_ops, sizeof(hello_ops), &fs, mnt, c->name ? c->name : "test",
			     NULL, c->loop, c->max_threads);
}

/* A mount whose source is not affbench's, as a stranger's filesystem would be. */
static int run_foreign(void *arg, const char *mnt)
{
	char *argv[] = { "foreign", "-o", "fsname=foreign-fs,subtype=hello", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct hello_fs fs = { hello_text, sizeof(hello_text) - 1 };
	int rc = 1;

	(void)arg;
	struct fuse_session *se = fuse_session_new(&args, &hello_ops, sizeof(hello_ops), &fs);
	if (se && fuse_session_mount(se, mnt) == 0) {
		rc = fuse_session_loop(se) == 0 ? 0 : 1;
		fuse_session_unmount(se);
	}
	if (se)
		fuse_session_destroy(se);
	return rc;
}

static int run_exit1(void *arg, const char *mnt)
{
	(void)arg;
	(void)mnt;
	return 1;
}

static int run_killself(void *arg, const char *mnt)
{
	(void)arg;
	(void)mnt;
	kill(getpid(), SIGKILL);
	return 0;
}

static int run_never_mount(void *arg, const char *mnt)
{
	(void)arg;
	(void)mnt;
	for (;;)
		pause();
	return 0;
}

/* ---- fixtures ---- */

/* snprintf that fails the test (or setup) instead of truncating a path. */
static int pathf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pathf(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len ? 0 : -1;
}


static char base_dir[PATH_MAX];	/* group-wide, under ab_workdir() */

enum { MAX_DAEMONS = 8 };
struct fx {
	char workdir[PATH_MAX];	/* per test, has a space and a backslash in its name */
	struct ab_daemon d[MAX_DAEMONS];
	pid_t client;
	int *shm;		/* two ints shared with daemon children */
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void escape_path(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 5 < len; in++) {
		if (*in == ' ' || *in == '\t' || *in == '\n' || *in == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\%03o", (unsigned char)*in);
		else
			out[o++] = *in;
	}
	out[o] = '\0';
}

/* Mount points listed in /proc/self/mountinfo under dir: an independent check of the library. */
static int mounts_under(const char *dir)
{
	char esc[PATH_MAX * 4], needle[PATH_MAX * 4 + 4], line[PATH_MAX * 8];
	int n = 0;

	escape_path(dir, esc, sizeof(esc));
	snprintf(needle, sizeof(needle), " %s/", esc);
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

/* Our mounts sit at depth (1 or 2) under dir: detach whatever is still there. */
static void detach_under(const char *dir, int depth)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (umount2(p, MNT_DETACH) < 0 && depth > 1)
			detach_under(p, depth - 1);
	}
	closedir(d);
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* FTW_MOUNT: never descend into a mount that is somehow still there. */
static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(base_dir, sizeof(base_dir), "%s/affbench-test-fusemnt-XXXXXX", ab_workdir());
	if (!mkdtemp(base_dir)) {
		print_error("mkdtemp %s: %s\n", base_dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	int left = mounts_under(base_dir);
	if (left) {
		print_error("%d mount(s) left under %s\n", left, base_dir);
		detach_under(base_dir, 2);
	}
	rm_tree(base_dir);
	return left ? -1 : 0;
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	if (pathf(fx->workdir, sizeof(fx->workdir), "%s/ab wd\\-XXXXXX", base_dir) < 0 ||
	    !mkdtemp(fx->workdir)) {
		free(fx);
		return -1;
	}
	fx->shm = ab_shm_alloc(2 * sizeof(int));
	if (!fx->shm) {
		rmdir(fx->workdir);
		free(fx);
		return -1;
	}
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	int st;

	if (fx->client > 0) {
		kill(fx->client, SIGKILL);
		waitpid(fx->client, &st, 0);
	}
	for (int i = 0; i < MAX_DAEMONS; i++)
		if (fx->d[i].pid > 0 || fx->d[i].mnt[0])
			ab_daemon_stop(&fx->d[i], 200);
	/* Mounts a failed test left without a daemon struct. */
	if (mounts_under(fx->workdir))
		detach_under(fx->workdir, 1);
	while (waitpid(-1, &st, WNOHANG) > 0)
		;
	rm_tree(fx->workdir);
	ab_shm_free(fx->shm, 2 * sizeof(int));
	free(fx);
	return 0;
}

/* ---- helpers ---- */

static int path_exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

static void read_hello(const char *mnt, char *buf, size_t len)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", mnt, hello_name);
	int fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		fail_msg("read %s: %s", p, strerror(e));
	buf[n] = '\0';
}

/* Does /sys/fs/fuse/connections/<conn> exist? Looked up in a private mount namespace. */
static int fusectl_has_conn(int conn)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/sys/fs/fuse/connections/%d", conn);
	pid_t pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(2);
		if (access(dir, F_OK) != 0 &&
		    mount("fusectl", "/sys/fs/fuse/connections", "fusectl", 0, NULL) < 0)
			_exit(2);
		_exit(access(dir, F_OK) == 0 ? 0 : 1);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st) == 0;
}

/* No unreaped children left behind by the library. */
static void assert_no_children(void)
{
	int st;

	assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static int last_allowed_cpu(void)
{
	cpu_set_t set;
	int last = -1;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	return last;
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return pid;
}

/*
 * Bounds on steps that take a moment (a daemon mounting or exiting, a client
 * getting out): generous, because a busy machine stretches every step, and
 * scaled like the library's own timeouts. Waits end as soon as the step is
 * done, so only a step that hangs waits the bound out, and it still fails.
 */
#define STEP_MS 10000
static int bound_ms(int ms)
{
	return (int)(ab_scaled_ns((uint64_t)ms * 1000000ull) / 1000000);
}

/* Until the daemon has exited (not reaped), for at most a step's bound. */
static void wait_exited(struct ab_daemon *d)
{
	uint64_t deadline = ab_now_ns() + ab_scaled_ns(STEP_MS * 1000000ull);

	while (ab_daemon_alive(d) && ab_now_ns() < deadline)
		ab_sleep_ns(1000000);
}

/* Waits up to ms for fd to become readable: 1 ready, 0 not. */
static int readable_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static void assert_gone(const char *mnt)
{
	assert_false(ab_mnt_is_fuse(mnt));
	assert_int_equal(ab_mnt_conn(mnt), -1);
	assert_false(path_exists(mnt));
}

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
		assert_int_equal(ab_mnt_unmount(path), 0);	/* not a mount: just rmdir */
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
		if (cases[i].run && ab_daemon_start(&fx->d[i], dir, -1, cases[i].run, &cfg, bound_ms(STEP_MS), err,
						    sizeof(err)) < 0)
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
	/* unmount through the symlink: refused, the mount behind it stays */
	size_t k = AB_ARRAY_SIZE(cases) - 1;
	assert_int_equal(ab_mnt_unmount(path[k]), -1);
	assert_true(ab_mnt_is_fuse(fx->d[k].mnt));
	assert_int_equal(unlink(path[k]), 0);
	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++)
		if (cases[i].run)
			ab_daemon_stop(&fx->d[i], 2000);
	assert_int_equal(mounts_under(fx->workdir), 0);
}

static void test_skip(void **state)
{
	(void)state;
	print_message("SKIP: test_fusemnt needs root and /dev/fuse (modprobe fuse)\n");
	skip();
}

int main(void)
{
	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) != 0) {
		const struct CMUnitTest none[] = { cmocka_unit_test(test_skip) };
		return cmocka_run_group_tests(none, NULL, NULL);
	}
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workdir),
		T(test_mkdir),
		T(test_not_fuse),
		T(test_serve),
		T(test_start_fails),
		T(test_hung_daemon),
		T(test_killed_daemon),
		T(test_unmount_busy),
		T(test_cleanup_stale),
		T(test_cleanup_not_ours),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
