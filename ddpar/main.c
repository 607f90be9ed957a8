// SPDX-License-Identifier: GPL-2.0
/*
 * ddpar: N processes streaming blocks to or from one FUSE mount, without and
 * with cloned /dev/fuse fds (libfuse clone_fd: each daemon thread reads its
 * requests from its own fd), as in fuse-devel 2015 (Ashish, Oracle: results
 * for Miklos Szeredi's clone_fd patches, parallel dd on one mount). Per point:
 * write or read MB/s (aggregate, MB = 10^6 bytes), requests/s, latency per
 * call as the caller sees it, daemon time per request, and, with kernel
 * statistics, time each request spends in the kernel and spinlock wait per
 * request, from a separate instrumented repetition.
 *
 * This file: options and settings, the server table, the sweep (repetitions
 * outermost, so drift favours no configuration) and the output, rendered at
 * the end by report.c's tables in table format.
 *
 * Known limits: the FUSE connection knobs need fusectl: if it is not mounted
 * ddpar mounts it in a private mount namespace of its own, so its mounts are
 * then invisible to other processes (and gone when it exits).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddpar.h"
#include "fuse/fsrv.h"
#include "fuse/fuseenv.h"
#include "knob/idle.h"
#include "knob/knob.h"
#include "render/render.h"
#include "render/desc.h"

extern const struct ab_bench_desc ab_desc_ddpar;	/* report.c */

/* The servers a point can run against, by --transport: the choice is this table's entry. */
static const struct ddp_server ddp_servers[DDP_TR_COUNT] = {
	[DDP_TR_LIBFUSE] = { "libfuse", ddp_libfuse_start },
	[DDP_TR_DEV] = { "dev", ddp_raw_start },
	[DDP_TR_URING] = { "uring", ddp_raw_start },
	[DDP_TR_PASSTHROUGH] = { "passthrough", ddp_raw_start },
};

static const struct ab_opt ddp_opts[] = {
	AB_OPT(struct ddp_settings, mode, "mode", AB_OPT_CHOICE, NULL,
	       "write, read, or both (writes first)",
	       .choices = "write|read|both"),
	AB_OPT(struct ddp_settings, transport, "transport", AB_OPT_CHOICE, NULL,
	       "the FUSE server: libfuse 3.14's loop (the post's), affbench's own on /dev/fuse, FUSE "
	       "over io_uring (Linux 6.14+), or passthrough to a backing file (Linux 6.9+)",
	       .choices = "libfuse|dev|uring|passthrough"),
	AB_OPT(struct ddp_settings, uring_cpu, "uring-cpu", AB_OPT_CHOICE, NULL,
	       "--transport uring: where the thread serving a CPU's queue runs: on that CPU, on the "
	       "next allowed one, or unpinned (next and none: exit 4 with one allowed CPU, where they "
	       "place it as queue does)", .choices = AB_FSRV_URING_CPU_NAMES),
	AB_OPT(struct ddp_settings, daemon_wait, "daemon-wait", AB_OPT_STR, "HOW",
	       AB_FSRV_WAIT_FORMS ": --transport dev or uring: the server sleeps for each request, "
	       "looks for the next one US microseconds after each reply first, or never sleeps "
	       "(default block)"),
	AB_OPT(struct ddp_settings, procs, "procs", AB_OPT_INTLIST, "LIST",
	       "numbers of parallel processes (default 1,2,4,.. up to max(8, 2 x CPUs), at most 128)",
	       .min = 1, .max = DDP_MAX_PROCS),
	AB_OPT(struct ddp_settings, clone_fd, "clone-fd", AB_OPT_CHOICE, NULL,
	       "daemon reads /dev/fuse through one fd or one per thread", .choices = "off|on|both"),
	AB_OPT(struct ddp_settings, daemon, "daemon", AB_OPT_CHOICE, NULL,
	       "daemon loop (clone_fd needs multi)",
	       .choices = "single|multi"),
	AB_OPT(struct ddp_settings, threads, "threads", AB_OPT_INT, "N",
	       "most daemon threads, with --daemon multi (default: libfuse's own limit; dev, uring "
	       "and passthrough: one per allowed CPU)", .min = 1, .max = 100000),
	AB_OPT(struct ddp_settings, bs, "bs", AB_OPT_SIZE, "SIZE",
	       "block per read()/write(), a multiple of 4K",
	       .min = 4096, .max = DDP_MAX_WRITE_LIMIT),
	AB_OPT(struct ddp_settings, max_write, "max-write", AB_OPT_SIZE, "SIZE",
	       "FUSE max_write, max_pages to match (default: 128K, or bs if larger)", .min = 4096,
	       .max = DDP_MAX_WRITE_LIMIT),
	AB_OPT(struct ddp_settings, dd, "dd", AB_OPT_FLAG, NULL,
	       "run coreutils dd processes instead of the built-in loop"),
	AB_OPT(struct ddp_settings, max_background, "max-background", AB_OPT_INT, "N",
	       "set the connection's max_background (sysfs, restored; default: leave it)", .min = 1,
	       .max = 65535),
	AB_OPT(struct ddp_settings, congestion, "congestion-threshold", AB_OPT_INT, "N",
	       "set the connection's congestion_threshold (sysfs, restored; default: leave it)", .min = 1,
	       .max = 65535),
	AB_OPT(struct ddp_settings, kstats, "kstats", AB_OPT_CHOICE, NULL,
	       "kernel time and spinlock wait per request (BPF), from extra instrumented repetitions",
	       .choices = AB_KSTATS_CHOICES),
	AB_OPT_END,
};

static const struct ab_prog_info ddp_info = {
	.name = "ddpar",
	.summary = "parallel dd-style writers and readers on one FUSE mount, without and with clone_fd "
		   "(fuse-devel 2015, Ashish)",
	.usage_extra = "MB/s means 10^6 bytes per second, summed over all processes. With kernel\n"
		       "statistics each timed repetition is followed by an instrumented one of the same\n"
		       "point, which writes kernel_us_per_req, spin_us_per_req and the request breakdown's\n"
		       "brk_* (docs/breakdown.md) alone: no other number is measured with probes attached.\n"
		       "--transport dev and uring also write server_cpu_us_per_req: the serving threads'\n"
		       "CPU time (their own thread clocks) per request in the window.",
	.default_duration = 1.0,
	.default_repeat = 3,
};

/* The points of the sweep, each axis in order. */
struct ddp_sweep {
	int procs[AB_INTLIST_MAX], nprocs;
	enum ddp_dir dirs[2];
	int ndirs;
	int clones[2], nclones;
};

/* Settings from argv; bad usage exits 2 with one line. */
static void parse_settings(int argc, char **argv, struct ddp_settings *s, struct ddp_sweep *sw)
{
	ab_parse_args(argc, argv, &ddp_info, ddp_opts, s, &s->common);
	if (s->bs % 4096)
		ab_usage_error("bad value '%zu' for --bs: must be a multiple of 4096", s->bs);
	if (s->max_write && s->max_write % 4096)
		ab_usage_error("bad value '%zu' for --max-write: must be a multiple of 4096", s->max_write);
	s->conn_max_write = s->max_write ? s->max_write : s->bs > DDP_DEFAULT_BS ? s->bs : DDP_DEFAULT_BS;
	if (s->bs > s->conn_max_write)
		ab_usage_error("bad value '%zu' for --bs: above --max-write %zu (one block must be one request)",
			       s->bs, s->conn_max_write);
	/* clone_fd needs worker threads: --daemon single alone means without it; asking
	 * for both explicitly is a contradiction. */
	int clone_given = ab_opt_given(ddp_opts, &s->common, "clone-fd");
	if (ab_opt_given(ddp_opts, &s->common, "uring-cpu") && s->transport != DDP_TR_URING)
		ab_usage_error("--uring-cpu places io_uring's server threads: it needs --transport "
			       "uring, not %s", ddp_servers[s->transport].name);
	char err[256];
	if (s->daemon_wait && ab_fsrv_wait_parse(s->daemon_wait, &s->wait, err, sizeof(err)) < 0)
		ab_usage_error("bad value '%s' for --daemon-wait: %s", s->daemon_wait, err);
	if (s->wait.mode != AB_FSRV_WAIT_BLOCK && s->transport != DDP_TR_DEV &&
	    s->transport != DDP_TR_URING)
		ab_usage_error("--daemon-wait %s needs affbench's own server: --transport dev or uring, "
			       "not %s", s->daemon_wait, ddp_servers[s->transport].name);
	if ((s->daemon == DDP_DAEMON_SINGLE || s->transport >= DDP_TR_URING) && !clone_given)
		s->clone_fd = DDP_CLONE_OFF;	/* io_uring and passthrough have no cloned fds */
	if (s->transport >= DDP_TR_URING && s->clone_fd != DDP_CLONE_OFF)
		ab_usage_error("--transport %s has no cloned /dev/fuse fds: drop --clone-fd",
			       ddp_servers[s->transport].name);
	if (s->transport == DDP_TR_PASSTHROUGH && s->dd)
		ab_usage_error("--transport passthrough with --dd: dd cannot go back to the start of "
			       "the backing files; use the built-in loop");
	if (s->daemon == DDP_DAEMON_SINGLE && s->clone_fd != DDP_CLONE_OFF)
		ab_usage_error("--daemon single cannot use clone_fd (it needs worker threads): "
			       "add --clone-fd off or use --daemon multi");
	if (s->daemon == DDP_DAEMON_SINGLE && s->threads)
		ab_usage_error("--threads means nothing with --daemon single (one thread): "
			       "use --daemon multi");

	memset(sw, 0, sizeof(*sw));
	if (s->procs.n) {
		memcpy(sw->procs, s->procs.v, sizeof(int) * (size_t)s->procs.n);
		sw->nprocs = s->procs.n;
	} else {
		sw->nprocs = ddp_default_procs(ab_cpuset_count(&s->common.allowed), sw->procs);
	}
	if (s->mode != DDP_MODE_READ)
		sw->dirs[sw->ndirs++] = DDP_WRITE;
	if (s->mode != DDP_MODE_WRITE)
		sw->dirs[sw->ndirs++] = DDP_READ;
	if (s->clone_fd != DDP_CLONE_ON)
		sw->clones[sw->nclones++] = 0;
	if (s->clone_fd != DDP_CLONE_OFF)
		sw->clones[sw->nclones++] = 1;
	s->server = &ddp_servers[s->transport];
	const char *crash = ab_test_hook("AFFBENCH_DDPAR_CRASH_AFTER");
	const char *miscount = ab_test_hook("AFFBENCH_DDPAR_MISCOUNT");
	s->crash_after = crash && *crash ? strtoull(crash, NULL, 10) : 0;
	s->miscount = miscount && strtoull(miscount, NULL, 10) != 0;
}

/* What the machine lacks: one line, exit 4. Then the signal and knob handlers. */
static void check_machine(const struct ddp_settings *s)
{
	char why[512];

	/* A lever a server on one CPU cannot move (fsrv.h says why), before anything changes */
	if (s->transport == DDP_TR_URING &&
	    ab_fsrv_uring_cpu_usable(s->uring_cpu, &s->common.allowed, why, sizeof(why)) < 0)
		ab_skip("--uring-cpu %s: %s", ab_fsrv_uring_cpu_name(s->uring_cpu), why);
	ab_need_fuse();
	if (s->dd) {
		char *const argv[] = { "dd", "--version", NULL };
		if (ab_run(NULL, argv, NULL, ab_scaled_ns(10 * AB_NS)) != 0)
			ab_skip("no working dd in PATH: install coreutils");
	}
	if (s->transport != DDP_TR_LIBFUSE &&
	    ab_fsrv_check(s->transport == DDP_TR_URING ? AB_FSRV_URING : AB_FSRV_DEV,
			  s->transport == DDP_TR_PASSTHROUGH, why, sizeof(why)) < 0)
		ab_skip("--transport %s: %s", s->server->name, why);
	/* Ours first: the knob module's handler, installed next, restores the knobs at
	 * once on a signal and then calls this one. */
	ab_catch_signals();
	if (s->max_background || s->congestion || s->transport == DDP_TR_URING) {
		if (ab_knob_init("", ab_knob_default_journal()) < 0)
			ab_skip("cannot set up the knob journal %s: %s", ab_knob_default_journal(),
				strerror(errno));
	}
	/* io_uring: fuse.enable_uring through the knob journal, put back at exit */
	if (s->transport == DDP_TR_URING && ab_fsrv_uring_enable(why, sizeof(why)) < 0)
		ab_skip("--transport uring: %s", why);
	if (s->max_background || s->congestion) {
		if (ab_fusectl_for_knobs(why, sizeof(why)) < 0)
			ab_skip("%s", why);
	}
}

/* Every point, repetitions outermost (A B A B ...); each timed repetition is followed by
 * its instrumented one when there are kernel statistics. Returns the repetitions that failed. */
static int run_sweep(const struct ddp_settings *s, const struct ddp_sweep *sw,
		     struct ddp_shared *sh, struct ab_kstats *ks, struct ab_out *out, int *runs)
{
	int per_rep = sw->ndirs * sw->nprocs * sw->nclones, total = s->common.repeat * per_rep;
	int progress = !s->common.quiet && isatty(STDERR_FILENO), failures = 0;

	*runs = 0;
	for (int k = 0; k < total && !ab_interrupted; k++) {
		int in_rep = k % per_rep;
		struct ddp_point pt = {
			.dir = sw->dirs[in_rep / (sw->nprocs * sw->nclones)],
			.procs = sw->procs[in_rep / sw->nclones % sw->nprocs],
			.clone = sw->clones[in_rep % sw->nclones],
			.rep = k / per_rep,
		};
		if (progress)
			fprintf(stderr, "\rddpar: %d/%d %s procs=%d clone_fd=%s   ", k + 1, total,
				pt.dir == DDP_WRITE ? "write" : "read", pt.procs, pt.clone ? "on" : "off");
		++*runs;
		if (ddp_measure(s, &pt, sh, NULL, out) < 0) {
			failures++;
			continue;
		}
		if (!ks || ab_interrupted)
			continue;
		pt.instrumented = 1;
		++*runs;
		failures += ddp_measure(s, &pt, sh, ks, out) < 0;
	}
	if (progress)
		fprintf(stderr, "\r%60s\r", "");
	return failures;
}

int main(int argc, char **argv)
{
	struct ddp_settings s = {
		.mode = DDP_MODE_BOTH,
		.clone_fd = DDP_CLONE_BOTH,
		.daemon = DDP_DAEMON_MULTI,
		.bs = DDP_DEFAULT_BS,
		.kstats = AB_KSTATS_AUTO,
	};
	struct ddp_sweep sw;
	struct ab_results kept;
	struct ab_out out;
	int runs;

	parse_settings(argc, argv, &s, &sw);
	ab_opts_checked(&s.common);
	ab_lat_stride();	/* whether to time every call: decided once, before any fork */
	check_machine(&s);
	ab_idle_apply(&s.common.idle);	/* after check_machine's signal handler, like the knobs */
	char why[512];
	if (s.transport == DDP_TR_PASSTHROUGH && ddp_backing_make(&s, why, sizeof(why)) < 0)
		ab_fail("%s", why);
	struct ab_kstats *ks = ab_kstats_for_mode(s.kstats, s.common.quiet);
	ab_mnt_cleanup_stale(NULL, s.common.quiet ? NULL : stderr);
	struct ddp_shared *sh = ab_shm_alloc(sizeof(*sh));
	if (!sh)
		ab_fail("cannot map %zu bytes of shared memory: %s", sizeof(*sh), strerror(errno));
	ab_results_init(&kept);
	ab_out_init(&out, stdout, &s.common, "ddpar");
	out.keep = &kept;

	int failures = run_sweep(&s, &sw, sh, ks, &out, &runs);
	int tables_ok = ab_interrupted || ab_out_tables(&out, &ab_desc_ddpar) == 0;

	ab_results_free(&kept);
	ab_kstats_close(ks);
	ab_shm_free(sh, sizeof(*sh));
	ddp_backing_remove(&s);
	if (ab_interrupted)
		ab_fail("interrupted; nothing is left mounted");
	if (!tables_ok)
		ab_fail("cannot write the tables on stdout: %s", strerror(errno));
	if (failures)
		ab_fail("%d of %d repetitions failed (no number written for them)", failures, runs);
	return AB_EXIT_OK;
}
