// SPDX-License-Identifier: GPL-2.0
/*
 * lib/fuse/fsrv's waits on real mounts, one table row per transport and wait:
 * every wait serves stat() and adds the serving threads' CPU time to
 * cfg.cpu; once the requests stop, block and spin sleep (their CPU time
 * stops growing) while poll keeps looking (it grows by a good share of the
 * idle time); and a poll server still sees its unmount and exits 0. Needs
 * root and /dev/fuse; uring rows skip where the kernel lacks it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <time.h>

#include "fsrv_testfs.h"
#include "knob/knob.h"

#define IDLE_MS 300		/* how long the mount stays without a request */
#define SLEEPER_MAX_NS (10 * 1000000ull)	/* a sleeping server adds about nothing */
#define POLLER_MIN_NS (30 * 1000000ull)		/* one that polls, 10% of IDLE_MS at least */

struct wcase {
	const char *name;
	enum ab_fsrv_transport t;
	const char *wait;
};

static const struct wcase cases[] = {
	{ "dev, block", AB_FSRV_DEV, "block" },
	{ "dev, spin:50", AB_FSRV_DEV, "spin:50" },
	{ "dev, poll", AB_FSRV_DEV, "poll" },
	{ "uring, block", AB_FSRV_URING, "block" },
	{ "uring, spin:50", AB_FSRV_URING, "spin:50" },
	{ "uring, poll", AB_FSRV_URING, "poll" },
};

#define NSLOTS 8
static int uring_on;
static char uring_orig[16];

static int group_setup(void **state)
{
	char err[512];

	(void)state;
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

	(void)state;
	if (uring_on && (ab_knob_restore_all() != 0 ||
			 ab_knob_read(AB_FSRV_URING_PARAM, now, sizeof(now)) < 0 ||
			 strcmp(now, uring_orig) != 0)) {
		print_error("enable_uring is '%s', was '%s'\n", now, uring_orig);
		return -1;
	}
	return 0;
}

/* In the child: a hundred stat()s, each one GETATTR. */
static int client_stats(const char *mnt, struct tfs_shared *sh, const void *arg)
{
	char p[PATH_MAX];
	struct stat st;

	(void)arg;
	tfs_path(p, sizeof(p), mnt, TFS_STAT);
	for (int i = 0; i < 100; i++)
		if (stat(p, &st) < 0)
			return tfs_fail(sh, "stat %s: %s", p, strerror(errno));
	return 0;
}

static void run_case(const struct wcase *c)
{
	struct tfs_args *a = calloc(1, sizeof(*a));
	struct tfs_shared *sh = ab_shm_alloc(sizeof(*sh));
	struct ab_fsrv_cpu *cpu = ab_shm_alloc(NSLOTS * sizeof(*cpu));
	struct timespec idle = { IDLE_MS / 1000, (IDLE_MS % 1000) * 1000000L }, settle = { 0, 50000000L };
	struct ab_daemon d;
	char err[512], mnt[sizeof(d.mnt)];

	assert_true(a && sh && cpu);
	a->sh = sh;
	a->cfg = (struct ab_fsrv_cfg){ .transport = c->t, .fsname = "affbench-fsrvtest",
				       .subtype = "fsrvtest", .threads = 1, .cpu = cpu,
				       .ncpu = NSLOTS };
	assert_int_equal(ab_fsrv_wait_parse(c->wait, &a->cfg.wait, err, sizeof(err)), 0);
	if (ab_daemon_start(&d, NULL, -1, tfs_run, a, tfs_ms(10000), err, sizeof(err)) < 0)
		fail_msg("%s: %s", c->name, err);
	int crc = tfs_client(d.mnt, d.conn, sh, client_stats, NULL, tfs_ms(30000));
	nanosleep(&settle, NULL);	/* spin's last look ends; poll adds every millisecond */
	uint64_t served = ab_fsrv_cpu_sum(cpu, NSLOTS);
	nanosleep(&idle, NULL);
	uint64_t idled = ab_fsrv_cpu_sum(cpu, NSLOTS) - served;
	snprintf(mnt, sizeof(mnt), "%s", d.mnt);
	int st = ab_daemon_stop(&d, tfs_ms(10000));
	if (crc < 0)
		fail_msg("%s: %s", c->name, sh->msg);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("%s: daemon ended with status 0x%x", c->name, (unsigned)st);
	assert_false(ab_mnt_is_fuse(mnt));
	if (served == 0)
		fail_msg("%s: the serving threads added no CPU time for 100 requests", c->name);
	if (strcmp(c->wait, "poll") && idled > SLEEPER_MAX_NS)
		fail_msg("%s: the server used %.1f ms of CPU in %d ms without a request: it does not "
			 "sleep", c->name, idled / 1e6, IDLE_MS);
	if (!strcmp(c->wait, "poll") && idled < POLLER_MIN_NS)
		fail_msg("%s: the server used %.1f ms of CPU in %d ms without a request: it does not "
			 "poll", c->name, idled / 1e6, IDLE_MS);
	ab_shm_free(cpu, NSLOTS * sizeof(*cpu));
	ab_shm_free(sh, sizeof(*sh));
	free(a);
}

static void test_wait(void **state)
{
	const struct wcase *c = *state;
	char why[512];

	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) < 0)
		skip();
	if (ab_fsrv_check(c->t, 0, why, sizeof(why)) < 0 || (c->t == AB_FSRV_URING && !uring_on)) {
		print_message("# %s: skipped: %s\n", c->name, uring_on ? why : "no io_uring");
		skip();
	}
	run_case(c);
}

int main(void)
{
	struct CMUnitTest tests[AB_ARRAY_SIZE(cases)];

	for (size_t i = 0; i < AB_ARRAY_SIZE(cases); i++)
		tests[i] = (struct CMUnitTest){ .name = cases[i].name, .test_func = test_wait,
						.initial_state = (void *)&cases[i] };
	return cmocka_run_group_tests_name("fsrv waits", tests, group_setup, group_teardown);
}
