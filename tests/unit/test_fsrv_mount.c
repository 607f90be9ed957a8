// SPDX-License-Identifier: GPL-2.0
/*
 * lib/fuse/fsrv on real mounts, one table row per transport setup: stat() is one
 * GETATTR and names a CPU the daemon may serve on, writes and reads move
 * the expected bytes (requests split at max_write), passthrough reads and
 * writes reach the backing file and never the daemon, and under io_uring a
 * caller pinned to each CPU in turn is served on that CPU (or, for a CPU the
 * daemon may not use, on one it may). Every daemon ends with exit 0 on
 * unmount and leaves no mount. Needs root and /dev/fuse; rows whose facility
 * is missing skip with the reason (enable_uring is set through the knob
 * journal for the run and restored after it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "fsrv_testfs.h"
#include "knob/knob.h"
#include "sys/pin.h"

#define BACKING_SIZE 20000

struct mcase {
	const char *name;
	enum ab_fsrv_transport t;
	int threads, clone_fd, pin, depth, passthrough;
	uint32_t max_write;
	int cpus_first_only;	/* cfg.cpus = the first allowed CPU only */
};

static const struct mcase cases[] = {
	{ "dev, 1 thread", AB_FSRV_DEV, 1, 0, 0, 0, 0, 0, 0 },
	{ "dev, 2 threads, cloned fds, pinned", AB_FSRV_DEV, 2, 1, 1, 0, 0, 64 * 1024, 0 },
	{ "dev, pinned to one CPU", AB_FSRV_DEV, 1, 0, 1, 0, 0, 0, 1 },
	{ "dev, passthrough", AB_FSRV_DEV, 1, 0, 0, 0, 1, 0, 0 },
	{ "uring, depth 1, 64 KiB writes", AB_FSRV_URING, 0, 0, 0, 1, 0, 64 * 1024, 0 },
	{ "uring, depth 4, passthrough", AB_FSRV_URING, 0, 0, 0, 4, 1, 0, 0 },
	{ "uring, one allowed CPU serves every queue", AB_FSRV_URING, 0, 0, 0, 2, 0, 0, 1 },
};

static char work[PATH_MAX / 2];	/* under $AFFBENCH_WORKDIR; short enough for the names below */
static struct ab_cpuset online;
static int uring_on;		/* enable_uring=Y through the knob journal */
static char uring_orig[16];

/* What the client child needs to know. */
struct cinfo {
	const struct mcase *c;
	struct ab_cpuset served;	/* CPUs the daemon may serve on */
	uint32_t max_write;
};

static int group_setup(void **state)
{
	char err[512];

	(void)state;
	snprintf(work, sizeof(work), "%s/fsrv-mount-XXXXXX", ab_workdir());
	if (!mkdtemp(work) || ab_cpuset_allowed(&online) < 0)
		return -1;
	if (geteuid() != 0 || ab_fsrv_check(AB_FSRV_URING, 0, err, sizeof(err)) < 0)
		return 0;
	if (ab_knob_read(AB_FSRV_URING_PARAM, uring_orig, sizeof(uring_orig)) < 0 ||
	    ab_knob_init("", ab_knob_default_journal()) < 0 ||
	    ab_fsrv_uring_enable(err, sizeof(err)) < 0) {
		print_error("cannot enable FUSE io_uring: %s\n", err);
		return 0;
	}
	uring_on = 1;
	return 0;
}

static int group_teardown(void **state)
{
	char now[16] = "";
	int bad = 0;

	(void)state;
	if (uring_on) {
		bad = ab_knob_restore_all() != 0 ||
		      ab_knob_read(AB_FSRV_URING_PARAM, now, sizeof(now)) < 0 ||
		      strcmp(now, uring_orig) != 0;
		if (bad)
			print_error("enable_uring is '%s', was '%s'\n", now, uring_orig);
	}
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
	if (system(cmd) != 0)
		bad = 1;
	return bad ? -1 : 0;
}

/* ---- client checks (in the child) ---- */

static int served_cpu(const char *path, struct tfs_shared *sh, int *cpu)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return tfs_fail(sh, "stat %s: %s", path, strerror(errno));
	*cpu = (int)st.st_blocks - 1;
	return 0;
}

/* Ten stat()s: ten GETATTRs, each served on an allowed CPU. */
static int check_stat(const char *mnt, struct tfs_shared *sh, const struct cinfo *ci)
{
	char p[PATH_MAX];
	int cpu;

	tfs_path(p, sizeof(p), mnt, TFS_STAT);
	if (served_cpu(p, sh, &cpu) < 0)	/* LOOKUP, then cached */
		return -1;
	uint64_t before = atomic_load(&sh->getattrs);
	for (int i = 0; i < 10; i++) {
		if (served_cpu(p, sh, &cpu) < 0)
			return -1;
		if (cpu < 0 || !ab_cpuset_isset(&ci->served, cpu))
			return tfs_fail(sh, "stat served on CPU %d, not an allowed one", cpu);
	}
	uint64_t n = atomic_load(&sh->getattrs) - before;
	return n == 10 ? 0 : tfs_fail(sh, "10 stat() made %llu GETATTRs", (unsigned long long)n);
}

/* 300 KiB in three writes: every byte counted, requests no bigger than max_write. */
static int check_write(const char *mnt, struct tfs_shared *sh, const struct cinfo *ci)
{
	static char buf[100 * 1024];
	char p[PATH_MAX];

	tfs_path(p, sizeof(p), mnt, TFS_SINK);
	int fd = open(p, O_WRONLY);
	if (fd < 0)
		return tfs_fail(sh, "open %s: %s", p, strerror(errno));
	for (int i = 0; i < 3; i++) {
		ssize_t n = write(fd, buf, sizeof(buf));
		if (n != (ssize_t)sizeof(buf)) {
			close(fd);
			return tfs_fail(sh, "write %s: %zd: %s", p, n, strerror(errno));
		}
	}
	close(fd);
	uint64_t bytes = atomic_load(&sh->sink_bytes), reqs = atomic_load(&sh->sink_writes);
	uint64_t min_reqs = 3 * ((sizeof(buf) + ci->max_write - 1) / ci->max_write);
	if (bytes != 3 * sizeof(buf) || reqs < min_reqs)
		return tfs_fail(sh, "sink got %llu bytes in %llu writes; want %zu in >= %llu",
				(unsigned long long)bytes, (unsigned long long)reqs, 3 * sizeof(buf),
				(unsigned long long)min_reqs);
	return 0;
}

/* The whole pattern file, in 256 KiB reads: content and byte count. */
static int check_read(const char *mnt, struct tfs_shared *sh, const struct cinfo *ci)
{
	static unsigned char buf[256 * 1024];
	char p[PATH_MAX];
	uint64_t off = 0;
	ssize_t n;

	(void)ci;
	tfs_path(p, sizeof(p), mnt, TFS_PATTERN);
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		return tfs_fail(sh, "open %s: %s", p, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != tfs_pattern_byte(off + (uint64_t)i)) {
				close(fd);
				return tfs_fail(sh, "pattern byte %llu is 0x%02x",
						(unsigned long long)(off + (uint64_t)i), buf[i]);
			}
		off += (uint64_t)n;
	}
	close(fd);
	if (n < 0 || off != TFS_PATTERN_SIZE || atomic_load(&sh->pattern_bytes) != off)
		return tfs_fail(sh, "read %llu of %d pattern bytes (daemon sent %llu): %s",
				(unsigned long long)off, TFS_PATTERN_SIZE,
				(unsigned long long)atomic_load(&sh->pattern_bytes),
				n < 0 ? strerror(errno) : "short");
	return 0;
}

/* 50 nodes that the kernel drops at once: forgets reach the daemon. */
static int check_forget(const char *mnt, struct tfs_shared *sh, const struct cinfo *ci)
{
	char p[PATH_MAX];
	struct stat st;

	(void)ci;
	tfs_path(p, sizeof(p), mnt, TFS_GEN);
	for (int i = 0; i < 50; i++)
		if (stat(p, &st) < 0)
			return tfs_fail(sh, "stat %s: %s", p, strerror(errno));
	uint64_t deadline = ab_now_ns() + (uint64_t)tfs_ms(10000) * 1000000ull;
	while (atomic_load(&sh->forgets) < 40 && ab_now_ns() < deadline)
		ab_sleep_ns(1000000);
	uint64_t n = atomic_load(&sh->forgets), l = atomic_load(&sh->gen_lookups);
	return n >= 40 ? 0 : tfs_fail(sh, "%llu lookups of gen, %llu forgotten",
				     (unsigned long long)l, (unsigned long long)n);
}

static int check_pt(const char *mnt, struct tfs_shared *sh, const struct cinfo *ci);
static int check_cpus(const char *mnt, struct tfs_shared *sh, const struct cinfo *ci);

static int client_all(const char *mnt, struct tfs_shared *sh, const void *arg)
{
	const struct cinfo *ci = arg;

	if (check_stat(mnt, sh, ci) < 0 || check_write(mnt, sh, ci) < 0 ||
	    check_read(mnt, sh, ci) < 0 || check_forget(mnt, sh, ci) < 0)
		return -1;
	if (ci->c->passthrough && check_pt(mnt, sh, ci) < 0)
		return -1;
	if (ci->c->t == AB_FSRV_URING && check_cpus(mnt, sh, ci) < 0)
		return -1;
	return 0;
}

/* Read back the backing file through the mount, then overwrite its tail past the end. */
static int check_pt(const char *mnt, struct tfs_shared *sh, const struct cinfo *ci)
{
	static unsigned char buf[2 * BACKING_SIZE], want[2 * BACKING_SIZE];
	char p[PATH_MAX], bp[PATH_MAX];
	struct stat st;

	(void)ci;
	tfs_path(p, sizeof(p), mnt, TFS_PT);
	snprintf(bp, sizeof(bp), "%.*s/backing", (int)sizeof(work), work);
	int fd = open(p, O_RDWR), bfd = open(bp, O_RDONLY);
	if (fd < 0 || bfd < 0)
		return tfs_fail(sh, "open %s or %s: %s", p, bp, strerror(errno));
	ssize_t n = pread(fd, buf, sizeof(buf), 0), m = pread(bfd, want, sizeof(want), 0);
	if (n != BACKING_SIZE || m != n || memcmp(buf, want, (size_t)n) != 0)
		return tfs_fail(sh, "passthrough read %zd bytes, backing file has %zd", n, m);
	memset(buf, 'Z', BACKING_SIZE);
	if (pwrite(fd, buf, BACKING_SIZE, BACKING_SIZE / 2) != BACKING_SIZE)
		return tfs_fail(sh, "passthrough write: %s", strerror(errno));
	close(fd);
	m = pread(bfd, want, sizeof(want), 0);
	close(bfd);
	if (m != BACKING_SIZE * 3 / 2 || want[BACKING_SIZE / 2 - 1] == 'Z' ||
	    want[BACKING_SIZE / 2] != 'Z' || want[m - 1] != 'Z')
		return tfs_fail(sh, "backing file after a passthrough write: %zd bytes", m);
	if (stat(p, &st) < 0 || st.st_size != m)
		return tfs_fail(sh, "stat %s: size %lld, backing %zd", p, (long long)st.st_size, m);
	uint64_t io = atomic_load(&sh->pt_io);
	return io ? tfs_fail(sh, "%llu passthrough reads/writes reached the daemon",
			     (unsigned long long)io) : 0;
}

/* Pinned to each CPU in turn: every stat() served there (or on an allowed CPU). */
static int check_cpus(const char *mnt, struct tfs_shared *sh, const struct cinfo *ci)
{
	char p[PATH_MAX];
	int c, cpu;

	tfs_path(p, sizeof(p), mnt, TFS_STAT);
	ab_cpuset_for_each(c, &online) {
		if (ab_pin_self(c) < 0)
			return tfs_fail(sh, "pin to CPU %d: %s", c, strerror(errno));
		for (int i = 0; i < 200; i++) {
			if (served_cpu(p, sh, &cpu) < 0)
				return -1;
			int ok = ab_cpuset_isset(&ci->served, c) ? cpu == c
								 : ab_cpuset_isset(&ci->served, cpu);
			if (!ok)
				return tfs_fail(sh, "caller on CPU %d served on CPU %d (stat %d)", c,
						cpu, i);
		}
	}
	return 0;
}

/* ---- the test ---- */

static int make_backing(char *path, size_t len)
{
	unsigned char b[BACKING_SIZE];

	snprintf(path, len, "%.*s/backing", (int)sizeof(work), work);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(i * 7 + 1);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, b, sizeof(b));
	close(fd);
	return n == (ssize_t)sizeof(b) ? 0 : -1;
}

static void run_case(const struct mcase *c)
{
	struct tfs_args *a = calloc(1, sizeof(*a));
	struct tfs_shared *sh = ab_shm_alloc(sizeof(*sh));
	struct cinfo ci = { .c = c };
	struct ab_daemon d;
	char err[512];

	assert_non_null(a);
	assert_non_null(sh);
	a->sh = sh;
	a->cfg = (struct ab_fsrv_cfg){ .transport = c->t, .fsname = "affbench-fsrvtest",
				       .subtype = "fsrvtest", .threads = c->threads, .clone_fd = c->clone_fd, .pin = c->pin,
				       .queue_depth = c->depth, .max_write = c->max_write,
				       .passthrough = c->passthrough };
	ci.served = online;
	if (c->cpus_first_only) {
		ab_cpuset_zero(&a->cfg.cpus);
		ab_cpuset_set(&a->cfg.cpus, ab_cpuset_next(&online, 0));
		ci.served = a->cfg.cpus;
	}
	ci.max_write = c->max_write ? c->max_write : 128 * 1024;
	if (c->passthrough)
		assert_int_equal(make_backing(a->backing, sizeof(a->backing)), 0);

	int rc = ab_daemon_start(&d, NULL, -1, tfs_run, a, tfs_ms(10000), err, sizeof(err));
	if (rc < 0)
		fail_msg("%s: %s", c->name, err);
	int crc = tfs_client(d.mnt, d.conn, sh, client_all, &ci, tfs_ms(30000));
	char mnt[sizeof(d.mnt)];
	snprintf(mnt, sizeof(mnt), "%s", d.mnt);
	int st = ab_daemon_stop(&d, tfs_ms(10000));
	if (crc < 0)
		fail_msg("%s: %s", c->name, sh->msg);
	assert_false(ab_mnt_is_fuse(mnt));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("%s: daemon ended with status 0x%x", c->name, (unsigned)st);
	assert_int_equal(atomic_load(&sh->opens), atomic_load(&sh->releases));
	ab_shm_free(sh, sizeof(*sh));
	free(a);
}

static void test_mount(void **state)
{
	const struct mcase *c = *state;
	char why[512];

	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) < 0)
		skip();
	if (ab_fsrv_check(c->t, c->passthrough, why, sizeof(why)) < 0) {
		print_message("# %s: skipped: %s\n", c->name, why);
		skip();
	}
	if (c->t == AB_FSRV_URING && !uring_on) {
		print_message("# %s: skipped: enable_uring could not be set\n", c->name);
		skip();
	}
	run_case(c);
}

int main(void)
{
	struct CMUnitTest tests[AB_ARRAY_SIZE(cases)];

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++)
		tests[i] = (struct CMUnitTest){ .name = cases[i].name, .test_func = test_mount,
						.initial_state = (void *)&cases[i] };
	return cmocka_run_group_tests_name("fsrv mounts", tests, group_setup, group_teardown);
}
