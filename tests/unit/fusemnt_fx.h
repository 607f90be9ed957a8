/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the test_fusemnt*.c tests: the includes, the hello filesystem and
 * daemon bodies (fusemnt_hello.h), the group and per-test fixtures (a work
 * directory with a space and a backslash in its name, up to MAX_DAEMONS
 * daemons; every test's teardown removes what it mounted, and the group
 * teardown fails if anything is still mounted under our base directory),
 * helpers, and the skip when not root or without /dev/fuse.
 */
#ifndef FUSEMNT_FX_H
#define FUSEMNT_FX_H

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

#include "fusemnt_hello.h"

/* ---- fixtures ---- */

/* snprintf that fails the test (or setup) instead of truncating a path. */
static __attribute__((unused)) int pathf(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static __attribute__((unused)) int pathf(char *out, size_t len, const char *fmt, ...)
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
static __attribute__((unused)) void escape_path(const char *in, char *out, size_t len)
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
static __attribute__((unused)) int mounts_under(const char *dir)
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
static __attribute__((unused)) void detach_under(const char *dir, int depth)
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

static __attribute__((unused)) int rm_one(const char *p, const struct stat *sb, int flag,
					  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* FTW_MOUNT: never descend into a mount that is somehow still there. */
static __attribute__((unused)) void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static __attribute__((unused)) int group_setup(void **state)
{
	(void)state;
	snprintf(base_dir, sizeof(base_dir), "%s/affbench-test-fusemnt-XXXXXX", ab_workdir());
	if (!mkdtemp(base_dir)) {
		print_error("mkdtemp %s: %s\n", base_dir, strerror(errno));
		return -1;
	}
	return 0;
}

static __attribute__((unused)) int group_teardown(void **state)
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

static __attribute__((unused)) int setup(void **state)
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

static __attribute__((unused)) int teardown(void **state)
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

static __attribute__((unused)) int path_exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

static __attribute__((unused)) void read_hello(const char *mnt, char *buf, size_t len)
{
	char p[PATH_MAX];

	assert_int_equal(pathf(p, sizeof(p), "%s/%s", mnt, hello_name), 0);
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
static __attribute__((unused)) int fusectl_has_conn(int conn)
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
static __attribute__((unused)) void assert_no_children(void)
{
	int st;

	assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static __attribute__((unused)) int last_allowed_cpu(void)
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

static __attribute__((unused)) pid_t dead_pid(void)
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
static __attribute__((unused)) int bound_ms(int ms)
{
	return (int)(ab_scaled_ns((uint64_t)ms * 1000000ull) / 1000000);
}

/* Until the daemon has exited (not reaped), for at most a step's bound. */
static __attribute__((unused)) void wait_exited(struct ab_daemon *d)
{
	uint64_t deadline = ab_now_ns() + ab_scaled_ns(STEP_MS * 1000000ull);

	while (ab_daemon_alive(d) && ab_now_ns() < deadline)
		ab_sleep_ns(1000000);
}

/* Waits up to ms for fd to become readable: 1 ready, 0 not. */
static __attribute__((unused)) int readable_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static __attribute__((unused)) void assert_gone(const char *mnt)
{
	assert_false(ab_mnt_is_fuse(mnt));
	assert_int_equal(ab_mnt_conn(mnt), -1);
	assert_false(path_exists(mnt));
}

static __attribute__((unused)) void test_skip(void **state)
{
	(void)state;
	print_message("SKIP: test_fusemnt needs root and /dev/fuse (modprobe fuse)\n");
	skip();
}

/* Not root or no /dev/fuse: the tests cannot run (test_skip says so). */
static __attribute__((unused)) int fuse_unusable(void)
{
	return geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) != 0;
}

#endif
