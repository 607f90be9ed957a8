// SPDX-License-Identifier: GPL-2.0
/*
 * fdget: what an fd syscall costs once the fd table is shared (fstests 2016,
 * Amir Goldstein, on running xfs_io multi-threaded with -M).
 *
 * While a process is single-threaded its fd table has one user and the
 * kernel's fdget() skips the file reference count (and fdget_pos() the f_pos
 * lock); a second thread, even one that only sleeps, puts every fd syscall on
 * the slow path. This program times 1-byte pread, read, fstat and lseek on a
 * small page-cached file in five modes that run the same loop (loop.c,
 * modes.c): single, idle-thread, shared-fd, private-fd and procs. Calls go
 * through the libc wrappers by default, as programs make them; --syscall raw
 * leaves libc out to isolate the kernel's part.
 *
 * This file holds the options, the set-up and the sweep. Each repetition runs
 * in a fresh child of this process, which never creates a thread (measure.c).
 * Every mode is paired with single: repetition i of each mode runs right
 * beside repetition i of single, and the order flips every repetition
 * (single, idle, idle, single, ...), so drift and whatever favours the first
 * or second run of a pair fall on both alike; the renderer (report.c) reads the
 * ratio of each pair. Each timing runs an iteration count calibrated to take
 * --duration (calib.c). --spawn N repeats the post's second experiment:
 * process start-up with and without one thread (spawn.c).
 *
 * Known limits: cycles and instructions need a hardware PMU, which many VMs
 * lack (they are then skipped with the reason); the N-worker modes report
 * wall time per worker operation.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/cpuset.h"
#include "fdget.h"
#include "fuse/fusemnt.h"
#include "knob/idle.h"
#include "sys/opts.h"
#include "sys/pin.h"
#include "sys/proc.h"
#include "record/record.h"
#include "record/results.h"
#include "record/stats.h"
#include "render/render.h"

static const struct ab_opt options[] = {
	AB_OPT(struct fdget_settings, op, "op", AB_OPT_CHOICE, NULL,
	       "operation to time (none: only --spawn)", .choices = "pread|read|fstat|lseek|all|none"),
	AB_OPT(struct fdget_settings, mode, "mode", AB_OPT_STR, "MODES",
	       "comma list of " FDGET_MODE_CHOICES),
	AB_OPT(struct fdget_settings, threads, "threads", AB_OPT_INT, "N",
	       "workers of shared-fd, private-fd, procs (0 = one per allowed CPU)", .min = 0, .max = 4096),
	AB_OPT(struct fdget_settings, oversubscribe, "oversubscribe", AB_OPT_FLAG, NULL,
	       "allow --threads beyond the allowed CPUs"),
	AB_OPT(struct fdget_settings, spawn, "spawn", AB_OPT_INT, "N",
	       "start the helper N times without and with one thread (0 = skip)",
	       .min = 0, .max = 1000000),
	AB_OPT(struct fdget_settings, verify_overhead, "verify-overhead", AB_OPT_FLAG, NULL,
	       "time single mode against the same loop timed bare (no barrier, counters, perf), "
	       "side by side"),
	AB_OPT(struct fdget_settings, call, "syscall", AB_OPT_CHOICE, NULL,
	       "libc wrappers (what programs pay) or raw syscall(2) (the kernel's part alone)",
	       .choices = "libc|raw"),
	AB_OPT(struct fdget_settings, watch_threads, "watch-threads", AB_OPT_FLAG, NULL,
	       "debug: a sampler process reads Threads: of /proc/PID/status during each "
	       "single/idle-thread loop (metrics threads_seen = min, threads_seen_max)"),
	AB_OPT_END,
};

static const struct ab_prog_info info = {
	.name = "fdget",
	.summary = "fd syscall cost in a single- vs multi-threaded process (fstests 2016, xfs_io -M)",
	.usage_extra =
		"Default: every op in single and idle-thread mode, paired, then the spawn line;\n"
		"--op none --spawn N times the start-ups alone (after one each way, not counted).\n"
		"Records: ns_per_op per repetition and mode (the tables pair each mode with single\n"
		"repetition by repetition), us_per_spawn per batch; rep 0 holds per-op metadata\n"
		"(iterations, overhead_ns_per_op, timer_ns).",
	.default_duration = 0.05,
	.default_repeat = 15,
	.duration_per = "one timing per op and mode in each repetition, its loop's count "
			"calibrated in single mode to last that long",
};

/* ---- records ---- */

static void record(const struct fdget_settings *s, struct ab_out *out, const char *op, int mode,
		   int rep, const char *metric, double v, const char *unit)
{
	struct ab_config c;

	ab_config_init(&c);
	ab_config_set(&c, "op", "%s", op);
	ab_config_set(&c, "mode", "%s", fdget_mode_name(mode));
	ab_config_set(&c, "threads", "%d", fdget_mode_workers(s, mode));
	if (s->call == CALL_RAW)	/* only off the default, so default keys stay op, mode, threads */
		ab_config_set(&c, "syscall", "raw");
	ab_record(out, &c, rep, metric, v, unit);
}

static void put(const struct fdget_settings *s, struct ab_out *out, const char *op, int mode,
		int rep, enum fdget_metric k, double v)
{
	record(s, out, op, mode, rep, fdget_metrics[k].name, v, fdget_metrics[k].unit);
}

static void record_rep(const struct fdget_settings *s, struct ab_out *out, const char *op, int m,
		       int rep, const struct fdget_rep *r)
{
	put(s, out, op, m, rep, FDGET_NS, r->ns_per_op);
	put(s, out, op, m, rep, FDGET_CYCLES, r->cycles_per_op);
	put(s, out, op, m, rep, FDGET_INSTR, r->instr_per_op);
	if (r->threads_min >= 0) {
		put(s, out, op, m, rep, FDGET_THREADS, r->threads_min);
		put(s, out, op, m, rep, FDGET_THREADS_MAX, r->threads_max);
	}
	for (int i = 0; i < r->nmon; i++)	/* the CPU monitor's, per syscall */
		record(s, out, op, m, rep, r->mon[i].metric, r->mon[i].v, r->mon[i].unit);
	ab_cpumon_tell(r->mon_missing);	/* each reason once, --quiet or not */
}

/* Why the shared-table path of fdget() is not counted: a line beside the monitor's. */
#define FDGET_NO_PATH_COUNT \
	"how often fdget() took the shared-table path: counting it needs a probe on every " \
	"syscall of the measured loop (its two paths are inlined into fdget, fdget_raw and " \
	"fdget_pos), and timed repetitions carry none. The kernel takes it exactly when the fd " \
	"table has another user (files->count > 1): never in single and procs, on every call in " \
	"idle-thread, shared-fd and private-fd (threads_seen, recorded with --watch-threads, shows " \
	"the thread count)"

/* Warn, with a hint, when the repetitions scatter too much to trust a small effect. */
static void check_noise(const char *op, int mode, const double *x, int n)
{
	double cv = ab_cv(x, (size_t)n);

	if (n >= 3 && cv > 0.05)
		ab_msg("warning: %s %s ns/op varies by %.1f%% (CV) across repetitions; "
		       "try more --repeat or a quieter machine", op, fdget_mode_name(mode), cv * 100);
}

/* ---- the sweep ---- */

/* Repetition rep's order of the modes: forwards on odd repetitions, backwards on even. */
static int mode_at(int rep, int k)
{
	return rep % 2 ? k : MODE_COUNT - 1 - k;
}

static void sweep_op(const struct fdget_settings *s, struct ab_out *out, enum fdget_op op,
		     double tns)
{
	const char *name = fdget_ops[op].name;
	uint64_t iters = fdget_calibrate(s, op);
	double ovh = (double)fdget_time_loop(s, OP_NOP, iters) / (double)iters;
	static double ns[MODE_COUNT][FDGET_MAX_REPEAT];

	put(s, out, name, MODE_SINGLE, 0, FDGET_ITERS, (double)iters);
	put(s, out, name, MODE_SINGLE, 0, FDGET_OVERHEAD, ovh);
	put(s, out, name, MODE_SINGLE, 0, FDGET_TIMER, tns);
	if (!s->quiet)
		ab_msg("%s: loop+timer overhead %.3f ns/op, one clock read %.1f ns", name, ovh, tns);
	for (int rep = 1; rep <= s->repeat; rep++)
		for (int k = 0; k < MODE_COUNT; k++) {
			int m = mode_at(rep, k);
			struct fdget_rep r;
			if (!s->want[m])
				continue;
			fdget_measure(s, op, m, iters, &r);
			ns[m][rep - 1] = r.ns_per_op;
			record_rep(s, out, name, m, rep, &r);
		}
	for (int m = 0; m < MODE_COUNT; m++)
		if (s->want[m])
			check_noise(name, m, ns[m], s->repeat);
}

/* --verify-overhead: single mode's path against the same loop timed bare, paired, order flipped. */
static void verify_overhead(const struct fdget_settings *s, struct ab_out *out, enum fdget_op op)
{
	const char *name = fdget_ops[op].name;
	uint64_t iters = fdget_calibrate(s, op);

	for (int rep = 1; rep <= s->repeat; rep++) {
		struct fdget_rep r;
		double bare = 0;
		if (rep % 2 == 0)
			bare = fdget_measure_bare(s, op, iters);
		fdget_measure(s, op, MODE_SINGLE, iters, &r);
		if (rep % 2)
			bare = fdget_measure_bare(s, op, iters);
		put(s, out, name, MODE_SINGLE, rep, FDGET_NS, r.ns_per_op);
		put(s, out, name, MODE_SINGLE, rep, FDGET_BARE, bare);
	}
}

/* Every op --op names, each in every --mode, with the perf counters where they open. */
static void sweep_ops(struct fdget_settings *s, struct ab_out *out)
{
	struct fdget_perf probe;
	char why[256];

	s->perf = fdget_perf_open(&probe, why, sizeof(why)) == 0;
	if (s->perf)
		fdget_perf_close(&probe);
	else
		ab_msg("cycles_per_op, instructions_per_op skipped: %s", why);
	s->monitor = 1;
	double tns = fdget_timer_ns();
	for (int op = 0; op < OP_COUNT; op++)
		if (s->op == OP_COUNT || s->op == op)
			sweep_op(s, out, op, tns);
	/* Said once the loops ran: a refused run (exit 1) prints its one line alone. */
	ab_msg("CPU monitor: not counted: %s", FDGET_NO_PATH_COUNT);
}

/* --spawn: batches that add up to --spawn start-ups each way, paired, order flipped. */
static void sweep_spawn(const struct fdget_settings *s, struct ab_out *out)
{
	int batches = s->repeat < s->spawn ? s->repeat : s->spawn;

	/* A process's first start-ups run slower (its first took 1.34 times its batch's
	 * mean, docs/plans.md), and single goes first in every batch of --repeat 1, as
	 * harness run calls it: one of each kind first, timed apart, said, not counted. */
	double first[2] = { fdget_spawn_batch(0, 1), fdget_spawn_batch(1, 1) };

	if (!s->quiet)
		ab_msg("spawn: %d start-ups each way in %d paired batches, after one each way "
		       "not counted (%.0f us without a thread, %.0f with)", s->spawn, batches,
		       first[0], first[1]);
	for (int rep = 1; rep <= batches; rep++) {
		int per = s->spawn / batches + (rep <= s->spawn % batches);
		for (int k = 0; k < 2; k++) {
			int with_thread = rep % 2 ? k : 1 - k;
			double us = fdget_spawn_batch(with_thread, per);
			put(s, out, "spawn", with_thread ? MODE_IDLE : MODE_SINGLE, rep, FDGET_SPAWN,
			    us);
		}
	}
}

/* ---- set-up ---- */

static int reopen(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int nfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nfd < 0)
		ab_fail("open %s: %s", path, strerror(errno));
	return nfd;
}

/* The test hook AFFBENCH_FDGET_FILE_BYTES shrinks the file, so read wraps at EOF often. */
static uint64_t file_bytes(void)
{
	const char *v = ab_test_hook("AFFBENCH_FDGET_FILE_BYTES");
	char *end;

	if (!v)
		return FDGET_FILE_BYTES;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || end == v || *end || n == 0 || n > FDGET_FILE_BYTES)
		ab_fail("bad AFFBENCH_FDGET_FILE_BYTES '%s': expected 1..%u", v, FDGET_FILE_BYTES);
	return n;
}

/* A page-cached file, unlinked at once; every other fd to it is opened through
 * /proc/self/fd (a struct file of its own each). */
static void make_file(struct fdget_settings *s)
{
	static char buf[FDGET_FILE_BYTES];
	char path[4096];

	s->file_bytes = file_bytes();
	snprintf(path, sizeof(path), "%s/affbench-fdget-XXXXXX", ab_workdir());
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		ab_fail("mkstemp %s: %s", path, strerror(errno));
	memset(buf, 'x', s->file_bytes);
	ssize_t w = write(fd, buf, s->file_bytes);
	if (w != (ssize_t)s->file_bytes)
		ab_fail("write %s: %s", path, w < 0 ? strerror(errno) : "short write");
	if (unlink(path) < 0)
		ab_fail("unlink %s: %s", path, strerror(errno));
	if (lseek(fd, 0, SEEK_SET) != 0)
		ab_fail("lseek %s: %s", path, strerror(errno));
	s->fd = fd;
	s->private_fd = calloc((size_t)s->nworkers, sizeof(int));
	if (!s->private_fd)
		ab_fail("out of memory");
	for (int i = 0; i < s->nworkers; i++)
		s->private_fd[i] = s->want[MODE_PRIVATE] ? reopen(fd) : fd;
}

static void setup_cpus(struct fdget_settings *s, const struct ab_cpuset *allowed)
{
	int ncpu = ab_cpuset_count(allowed);

	if (ncpu < 1)
		ab_fail("no CPU allowed");
	if (s->threads > ncpu && !s->oversubscribe)
		ab_usage_error("bad value '%d' for --threads: only %d CPUs allowed (add --oversubscribe)",
			       s->threads, ncpu);
	s->ncpu = ncpu;
	s->allowed = *allowed;
	s->nworkers = s->threads ? s->threads : ncpu;
	/* High CPU numbers first: CPU 0 takes most housekeeping interrupts. */
	s->cpu_main = ab_cpuset_nth(allowed, ncpu - 1);
	s->cpu_idle = ab_cpuset_nth(allowed, ncpu > 1 ? ncpu - 2 : 0);
	s->worker_cpu = calloc((size_t)s->nworkers, sizeof(int));
	if (!s->worker_cpu)
		ab_fail("out of memory");
	for (int i = 0; i < s->nworkers; i++)
		s->worker_cpu[i] = ab_cpuset_nth(allowed, ncpu - 1 - i % ncpu);
	if (ab_pin_self(s->cpu_main))
		ab_fail("pin to CPU %d: %s", s->cpu_main, strerror(errno));
}

/* --op none times start-ups alone: an option about the op loops means nothing beside it. */
static void check_op_none(const struct fdget_settings *s, const struct ab_common *common)
{
	static const char *const loop_only[] = { "mode", "syscall", "verify-overhead",
						 "watch-threads" };

	if (!s->spawn)
		ab_usage_error("--op none with --spawn 0 measures nothing: give --spawn N or an op");
	for (size_t i = 0; i < AB_ARRAY_SIZE(loop_only); i++)
		if (ab_opt_given(options, common, loop_only[i]))
			ab_usage_error("--%s means nothing with --op none (no op's loop runs)",
				       loop_only[i]);
}

/* Options and what follows from them; bad input exits 2 with one line. */
static void settings_from_args(struct fdget_settings *s, struct ab_common *common, int argc,
			       char **argv)
{
	char err[256];

	*s = (struct fdget_settings){ .op = OP_COUNT, .mode = "single,idle-thread", .spawn = 200,
				      .call = CALL_LIBC, .fd = -1 };
	ab_parse_args(argc, argv, &info, options, s, common);
	if (fdget_parse_modes(s->mode, s->want, err, sizeof(err)))
		ab_usage_error("%s", err);
	if (common->repeat > FDGET_MAX_REPEAT)
		ab_usage_error("bad value '%d' for --repeat: at most %d here", common->repeat,
			       FDGET_MAX_REPEAT);
	s->duration = common->duration;
	s->repeat = common->repeat;
	s->quiet = common->quiet;
	s->common = common;
	/* combinations that mean nothing: one line, exit 2; before the CPU count, whose
	 * advice (add --oversubscribe) must be advice that then works */
	if (ab_opt_given(options, common, "threads") && !s->want[MODE_SHARED] && !s->want[MODE_PRIVATE] &&
	    !s->want[MODE_PROCS])
		ab_usage_error("--threads means nothing without a shared-fd, private-fd or procs "
			       "--mode (single and idle-thread have one worker)");
	if (s->op == FDGET_OP_NONE)
		check_op_none(s, common);
	if (s->oversubscribe && !ab_opt_given(options, common, "threads"))
		ab_usage_error("--oversubscribe means nothing without --threads (the default is one "
			       "worker per allowed CPU)");
	setup_cpus(s, &common->allowed);
}

int main(int argc, char **argv)
{
	static struct fdget_settings set;
	struct ab_common common;
	struct ab_results kept;
	struct ab_out out;

	/* The --spawn helper: as little as possible between exec and exit. */
	if (argc == 3 && !strcmp(argv[1], FDGET_SPAWN_CHILD))
		return fdget_spawn_child(argv[2]);
	settings_from_args(&set, &common, argc, argv);
	ab_opts_checked(&common);
	ab_idle_apply(&common.idle);
	make_file(&set);
	ab_slowness();	/* known now (a few forks, or the harness's), not beside a measured loop */
	ab_catch_signals();
	ab_results_init(&kept);
	ab_out_init(&out, stdout, &common, "fdget");
	out.keep = &kept;
	if (set.watch_threads)
		set.watch = fdget_watch_start(set.cpu_idle);

	if (set.verify_overhead) {	/* no counters around the loop: exactly the loop */
		for (int op = 0; op < OP_COUNT; op++)
			if (set.op == OP_COUNT || set.op == op)
				verify_overhead(&set, &out, op);
	} else {
		if (set.op != FDGET_OP_NONE)
			sweep_ops(&set, &out);
		if (set.spawn)
			sweep_spawn(&set, &out);
	}
	fdget_watch_stop(set.watch);
	int rc = ab_out_tables(&out, &ab_desc_fdget);
	if (rc < 0)
		ab_msg("cannot write the tables to stdout: %s", strerror(errno));
	ab_results_free(&kept);
	return rc < 0 ? AB_EXIT_FAIL : AB_EXIT_OK;
}
