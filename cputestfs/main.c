// SPDX-License-Identifier: GPL-2.0
/*
 * cputestfs: stat() calls per second on a FUSE filesystem, and how often the
 * daemon serves a call on the caller's CPU (fuse-devel 2012, Westerfeld,
 * "stat performance on multicore systems").
 *
 * N client processes (--clients), each pinned per --placement, stat() one
 * file in a loop (loop.c). The daemon is a separate process pinned to the
 * placement's daemon CPUs (all of them for --daemon multi and clone_fd:
 * libfuse's threads inherit the process mask). Baselines at the same
 * placements: --baseline kernel (stat() on a kernel filesystem) and --baseline
 * pipe (a one-byte ping-pong with a server placed like the daemon).
 *
 * This file: options, placements, the sweep and the output. Placements are
 * measured interleaved (rep 1 of each, then rep 2, ...) so drift hits all
 * alike. With kernel statistics (--kstats auto or on, FUSE only), every timed
 * repetition is followed by an instrumented one of the same point whose only
 * records are the kernel_* and brk_* metrics and daemon_requests: headline numbers never
 * come from a run with probes attached. Records go through lib/record; in
 * table format the report's tables (report.c) print at the end.
 *
 * Limits: --daemon single with several clients has one daemon thread that
 * floats over the daemon CPUs; the pipe baseline always has one server per
 * client. The kernel baseline has no daemon, so it reports no CPU share and no
 * requests per stat. Kernel statistics double the running time.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/common.h"
#include "cputestfs.h"
#include "fuse/fsrv.h"
#include "fuse/fuseenv.h"
#include "fuse/fusemnt.h"
#include "knob/idle.h"
#include "knob/knob.h"
#include "kstats/cpumon.h"
#include "kstats/kstats.h"
#include "sys/opts.h"
#include "record/histio.h"
#include "render/render.h"
#include "record/results.h"

#define MAX_POINTS 32

static const struct ab_opt ctf_opts[] = {
	AB_OPT(struct ctf_settings, placement, "placement", AB_OPT_STR, "P[,P...]",
		"none|same|smt|llc|cross-llc|cross-node|other, a comma list: where clients and "
		"daemon run, measured interleaved"),
	AB_OPT(struct ctf_settings, transport, "transport", AB_OPT_CHOICE, "KIND",
		"libfuse|dev|uring: libfuse 3.14's loop (the post's), affbench's own server on "
		"/dev/fuse, FUSE over io_uring (Linux 6.14+)", .choices = "libfuse|dev|uring"),
	AB_OPT(struct ctf_settings, uring_cpu, "uring-cpu", AB_OPT_CHOICE, "WHERE",
		AB_FSRV_URING_CPU_NAMES ": --transport uring: where the thread serving a CPU's "
		"queue runs: on that CPU, on the next daemon CPU, or unpinned (next and none: exit 4 "
		"with one allowed CPU, where they place it as queue does)",
		.choices = AB_FSRV_URING_CPU_NAMES),
	AB_OPT(struct ctf_settings, daemon_wait, "daemon-wait", AB_OPT_STR, "HOW",
		AB_FSRV_WAIT_FORMS ": --transport dev or uring: the server sleeps for each request, "
		"looks for the next one US microseconds after each reply first, or never sleeps "
		"(default block)"),
	AB_OPT(struct ctf_settings, daemon, "daemon", AB_OPT_CHOICE, "MODE",
		"single|multi|clone_fd: one thread, a pool, the pool with cloned fds (not with "
		"--transport uring: one ring thread per CPU)", .choices = "single|multi|clone_fd"),
	AB_OPT(struct ctf_settings, clients, "clients", AB_OPT_INT, "N", "client processes, one per CPU",
		.min = 1, .max = AB_MAX_CPUS),
	AB_OPT(struct ctf_settings, baseline, "baseline", AB_OPT_CHOICE, "KIND",
		"fuse|kernel|pipe: the benchmark, stat() on a kernel fs, pipe ping-pong "
		"(kernel and pipe run no FUSE server: no --transport, --daemon, --mountpoint)",
		.choices = "fuse|kernel|pipe"),
	AB_OPT(struct ctf_settings, mountpoint, "mountpoint", AB_OPT_STR, "DIR",
		"mount on this empty directory instead of a private one (left as found; default: a "
		"new 0700 directory under $AFFBENCH_WORKDIR, else /tmp, removed after)"),
	AB_OPT(struct ctf_settings, kstats, "kstats", AB_OPT_CHOICE, "WHEN",
		AB_KSTATS_CHOICES ": kernel time and CPUs per request from BPF, in extra "
		"instrumented repetitions", .choices = AB_KSTATS_CHOICES),
	AB_OPT_END,
};

static const struct ab_prog_info ctf_info = {
	.name = "cputestfs",
	.summary = "stat() calls/s on a FUSE filesystem, and % served on the caller's CPU "
		   "(fuse-devel 2012, Westerfeld)",
	.usage_extra =
		"Metrics: stat_per_s same_cpu_pct other_cpu_pct requests_per_stat latency_p50_ns\n"
		"latency_p99_ns, server_cpu_us_per_req (--transport dev, uring: the serving\n"
		"threads' CPU time per request); with kernel statistics, from a separate instrumented "
		"repetition\n"
		"after each timed one: kernel_ns_per_req kernel_same_cpu_pct, and kernel_requests\n"
		"and daemon_requests (whole run, to cross-check), and the request breakdown's\n"
		"brk_* (docs/breakdown.md); with --baseline pipe: brk_* of the pipe's\n"
		"round trip alone. Default: placement none then\n"
		"same, daemon single, the post's two tables.\n"
		"Needs root and /dev/fuse for --baseline fuse.",
	.default_duration = 2.0,
	.default_repeat = 3,
};

static const char *const loop_names[] = { "single", "multi", "clone_fd" };
static const char *const transport_names[] = { "libfuse", "dev", "uring" };

/*
 * Combinations that mean nothing are refused with one line (--help says so):
 * the kernel and pipe baselines run no FUSE server, and io_uring's server is
 * always one ring thread per daemon CPU whatever --daemon says.
 */
static void check_combinations(const struct ctf_settings *set, const struct ab_common *common)
{
	static const char *const fuse_only[] = { "transport", "daemon", "mountpoint", "uring-cpu",
						 "daemon-wait" };

	for (size_t i = 0; i < AB_ARRAY_SIZE(fuse_only) && set->baseline != CTF_BASE_FUSE; i++)
		if (ab_opt_given(ctf_opts, common, fuse_only[i]))
			ab_usage_error("--%s means nothing with --baseline %s: it runs no FUSE server",
				       fuse_only[i], ctf_server_for(set)->name);
	if (set->baseline == CTF_BASE_KERNEL && set->kstats == AB_KSTATS_ON)
		ab_usage_error("--kstats on means nothing with --baseline %s: the probes count FUSE "
			       "requests and pipe round trips", ctf_server_for(set)->name);
	if (set->transport != CTF_TR_URING && ab_opt_given(ctf_opts, common, "uring-cpu"))
		ab_usage_error("--uring-cpu places io_uring's server threads: it needs --transport "
			       "uring, not %s", transport_names[set->transport]);
	if (set->transport == CTF_TR_LIBFUSE && set->wait.mode != AB_FSRV_WAIT_BLOCK)
		ab_usage_error("--daemon-wait %s needs affbench's own server: --transport dev or uring, "
			       "not libfuse", set->daemon_wait);
	if (set->transport == CTF_TR_URING && ab_opt_given(ctf_opts, common, "daemon"))
		ab_usage_error("--daemon means nothing with --transport uring: its server is always one "
			       "ring thread per daemon CPU (recorded as daemon=percpu)");
}

/* ---- placements ---- */

/* "same" promises each client the daemon on its CPU; one daemon thread cannot keep
 * that promise to several clients at once, and the share it reaches says so only in
 * numbers. */
static void warn_threads(const struct ctf_settings *set, const enum ab_placement *want, int n)
{
	int same = 0;

	for (int i = 0; i < n; i++)
		same |= want[i] == AB_PL_SAME;
	if (!same || set->clients < 2 || set->baseline != CTF_BASE_FUSE ||
	    set->daemon != AB_LOOP_SINGLE || set->transport == CTF_TR_URING)
		return;
	ab_msg("warning: --placement same with %d clients and --daemon single: one daemon thread "
	       "serves all of them and shares a CPU with one client at a time, so fewer calls are "
	       "served on the caller's CPU; --daemon multi or --transport uring gives each client "
	       "its own", set->clients);
}

static int parse_placements(const char *arg, enum ab_placement *out, int max)
{
	char buf[512], cut[AB_CUT_LEN + 4];
	int n = 0;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		ab_usage_error("bad value '%s' for --placement: too long", ab_cut(arg, cut));
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			ab_usage_error("bad value '%s' for --placement: more than %d placements",
				       ab_cut(arg, cut), max);
		if (ab_placement_parse(tok, &out[n]) < 0)
			ab_usage_error("bad value '%s' for --placement: expected %s", ab_cut(tok, cut),
				       ab_placement_names());
		for (int i = 0; i < n; i++)	/* the same point twice measures nothing new */
			if (out[i] == out[n])
				ab_usage_error("bad value '%s' for --placement: '%s' is given twice",
					       ab_cut(arg, cut), tok);
		n++;
	}
	if (!n)
		ab_usage_error("bad value '%s' for --placement: expected %s", arg, ab_placement_names());
	return n;
}

/* The CPUs of cpu[0..n-1] as a list; unpinned: "any", or the --cpus set. */
static void cpus_list(const int *cpu, int n, const struct ab_common *common, char *buf, size_t len)
{
	struct ab_cpuset s;

	ab_cpuset_zero(&s);
	for (int i = 0; i < n; i++) {
		if (cpu[i] < 0) {
			if (common->cpus_arg)
				ab_cpuset_format(&common->allowed, buf, len);
			else
				snprintf(buf, len, "any");
			return;
		}
		ab_cpuset_set(&s, cpu[i]);
	}
	ab_cpuset_format(&s, buf, len);
}

/* A placement that pins the server to one CPU leaves --uring-cpu nothing to move
 * (fsrv.h): -1 with why, or 0. */
static int pinned_uring_inert(const struct ctf_point *pt, const struct ctf_settings *set,
			      char *why, size_t len)
{
	char w[256];

	if (set->baseline != CTF_BASE_FUSE || set->transport != CTF_TR_URING || !pt->server_pinned ||
	    ab_fsrv_uring_cpu_usable(set->uring_cpu, &pt->server_set, w, sizeof(w)) == 0)
		return 0;
	return ab_err(why, len, "--uring-cpu %s at placement %s: the server is pinned to CPU %d, "
		      "where next and none place the ring threads as queue does; --placement none "
		      "lets it act", ab_fsrv_uring_cpu_name(set->uring_cpu),
		      ab_placement_name(pt->placement), ab_cpuset_next(&pt->server_set, 0));
}

/* 0, or -1 with the reason the machine cannot offer the placement. */
static int resolve(struct ctf_point *pt, const struct ctf_settings *set,
		   const struct ab_common *common, const struct ab_topo *topo, char *why, size_t len)
{
	const struct ctf_server *server = ctf_server_for(set);
	int n = set->clients;

	pt->client_cpu = calloc((size_t)n, sizeof(int));
	pt->server_cpu = calloc((size_t)n, sizeof(int));
	if (!pt->client_cpu || !pt->server_cpu)
		ab_fail("out of memory for %d clients", n);
	if (ab_placement_resolve(topo, pt->placement, n, pt->client_cpu, pt->server_cpu, why, len) < 0)
		return -1;
	pt->server_pinned = pt->placement != AB_PL_NONE;
	ab_cpuset_zero(&pt->server_set);
	for (int i = 0; i < n && pt->server_pinned; i++)
		ab_cpuset_set(&pt->server_set, pt->server_cpu[i]);
	if (pinned_uring_inert(pt, set, why, len) < 0)
		return -1;
	cpus_list(pt->client_cpu, n, common, pt->client_list, sizeof(pt->client_list));
	if (set->baseline == CTF_BASE_KERNEL)
		snprintf(pt->server_list, sizeof(pt->server_list), "none");
	else
		cpus_list(pt->server_cpu, n, common, pt->server_list, sizeof(pt->server_list));

	struct ab_config *c = &pt->cfg;
	char w[32];
	/* uring only: records of other transports (and older ones) keep their keys */
	int uring = set->baseline == CTF_BASE_FUSE && set->transport == CTF_TR_URING;
	ab_config_init(c);
	if (ab_config_set(c, "placement", "%s", ab_placement_name(pt->placement)) < 0 ||
	    ab_config_set(c, "daemon", "%s",
			  server->daemon ? server->daemon : loop_names[set->daemon]) < 0 ||
	    ab_config_set(c, "clients", "%d", n) < 0 ||
	    ab_config_set(c, "baseline", "%s", server->name) < 0 ||
	    ab_config_set(c, "transport", "%s", set->baseline == CTF_BASE_FUSE ?
			  transport_names[set->transport] : "none") < 0 ||
	    (uring && ab_config_set(c, "uring_cpu", "%s", ab_fsrv_uring_cpu_name(set->uring_cpu)) < 0) ||
	    (set->wait.mode != AB_FSRV_WAIT_BLOCK &&	/* block, the default, goes unwritten */
	     ab_config_set(c, "daemon_wait", "%s", ab_fsrv_wait_name(&set->wait, w, sizeof(w))) < 0) ||
	    ab_config_set(c, "client_cpu", "%s", pt->client_list) < 0 ||
	    ab_config_set(c, "daemon_cpu", "%s", pt->server_list) < 0)
		ab_fail("record config of placement %s too long", ab_placement_name(pt->placement));
	return 0;
}

static void free_point(struct ctf_point *pt)
{
	free(pt->client_cpu);
	free(pt->server_cpu);
}

/* Resolve every wanted placement; those the machine lacks are skipped with a line. */
static int resolve_all(const enum ab_placement *want, int nwant, struct ctf_point *pts,
		       const struct ctf_settings *set, const struct ab_common *common)
{
	struct ab_topo topo;
	char err[512];
	int n = 0;

	if (ab_topo_load(&topo, NULL, &common->allowed, err, sizeof(err)) < 0)
		ab_fail("cannot read the CPU topology: %s", err);
	for (int i = 0; i < nwant; i++) {
		memset(&pts[n], 0, sizeof(pts[n]));
		pts[n].placement = want[i];
		if (resolve(&pts[n], set, common, &topo, err, sizeof(err)) < 0) {
			ab_msg("skipped: %s", err);
			free_point(&pts[n]);
			continue;
		}
		n++;
	}
	ab_topo_free(&topo);
	return n;
}

static void check_mountpoint(const char *dir)
{
	struct stat st;
	struct dirent *de;

	if (stat(dir, &st) < 0)
		ab_usage_error("bad value '%s' for --mountpoint: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		ab_usage_error("bad value '%s' for --mountpoint: not a directory", dir);
	if (ab_mnt_is_fuse(dir))
		ab_usage_error("bad value '%s' for --mountpoint: already a FUSE mount", dir);
	DIR *d = opendir(dir);
	if (!d)
		ab_usage_error("bad value '%s' for --mountpoint: %s", dir, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			closedir(d);
			ab_usage_error("bad value '%s' for --mountpoint: not an empty directory", dir);
		}
	closedir(d);
}

/*
 * The FUSE server the transport needs, or a skip (exit 4) naming what is
 * missing. io_uring: fuse.enable_uring is set through the knob journal (the
 * knob module puts it back at exit, on a signal, or by replay after a kill).
 */
static void need_transport(const struct ctf_settings *set)
{
	char why[512];

	if (set->transport == CTF_TR_LIBFUSE)
		return;
	int uring = set->transport == CTF_TR_URING;
	if (ab_fsrv_check(uring ? AB_FSRV_URING : AB_FSRV_DEV, 0, why, sizeof(why)) < 0)
		ab_skip("--transport %s: %s", transport_names[set->transport], why);
	if (uring && ab_knob_init("", ab_knob_default_journal()) < 0)
		ab_fail("cannot set up the knob journal %s", ab_knob_default_journal());
	if (uring && ab_fsrv_uring_enable(why, sizeof(why)) < 0)
		ab_skip("--transport uring: %s", why);
}

/* ---- the sweep ---- */

static void progress(const struct ctf_settings *set, const struct ctf_point *pt, int rep,
		     int instrumented, const struct ctf_result *res)
{
	const char *pl = ab_placement_name(pt->placement), *call = ctf_server_for(set)->call;

	if (instrumented && res->has[CTF_KNS])
		ab_msg("rep %d placement=%s: kernel %.0f ns/request, %.0f requests (daemon %.0f)", rep,
		       pl, res->v[CTF_KNS], res->v[CTF_KREQ], res->v[CTF_DREQ]);
	else if (!instrumented && res->has[CTF_SAME])
		ab_msg("rep %d placement=%s: %.0f %s/s, same cpu %.1f%%, %.3f requests/%s", rep, pl,
		       res->v[CTF_STAT], call, res->v[CTF_SAME], res->v[CTF_REQ], call);
	else if (!instrumented)
		ab_msg("rep %d placement=%s: %.0f %s/s", rep, pl, res->v[CTF_STAT], call);
	if (instrumented && res->has_brk) {
		char line[512];
		ab_breakdown_describe(&res->brk, line, sizeof(line));
		ab_msg("rep %d placement=%s: %s", rep, pl, line);
	}
}

struct brk_ctx {
	struct ab_out *out;
	const struct ab_config *cfg;
	int rep;
};

static void brk_record(void *ctx, const char *metric, double v, const char *unit)
{
	const struct brk_ctx *c = ctx;

	ab_record(c->out, c->cfg, c->rep, metric, v, unit);
}

/* One repetition of pt, timed (ks NULL) or instrumented, and its records. 0 or -1. */
static int one_rep(const struct ctf_settings *set, const struct ctf_point *pt, struct ab_kstats *ks,
		   int rep, struct ab_out *out)
{
	const char *pl = ab_placement_name(pt->placement), *kind = ks ? ", instrumented" : "";
	/* the CPUs' counters in timed repetitions: read at the window's edges, no probe */
	struct ab_cpumon *mon = ks ? NULL : ab_cpumon_new(NULL);
	struct ctf_result res;
	char err[512];

	if (!set->quiet)
		ab_msg("rep %d/%d placement=%s%s client_cpu=%s daemon_cpu=%s", rep, set->repeat, pl,
		       kind, pt->client_list, pt->server_list);
	if (ctf_measure(set, pt, ks, mon, &res, err, sizeof(err)) < 0) {
		ab_msg("rep %d placement=%s%s: measurement failed: %s", rep, pl, kind, err);
		ab_cpumon_free(mon);
		return -1;
	}
	ab_cpumon_record(mon, out, &pt->cfg, rep, res.v[CTF_STAT]);	/* a missing number says why */
	ab_cpumon_free(mon);
	for (int m = ks ? CTF_FIRST_KERNEL : 0; m < (ks ? CTF_NM : CTF_FIRST_KERNEL); m++)
		if (res.has[m])
			ab_record(out, &pt->cfg, rep, ctf_metrics[m].name, res.v[m],
				  ctf_metrics[m].unit);
	if (!ks && res.has[CTF_P50])	/* p90, p99.9, max and hist.csv (record/histio.h) */
		ab_hist_emit(out, &pt->cfg, rep, "latency", "ns", &res.lat);
	if (ks && res.has_brk) {
		struct brk_ctx c = { out, &pt->cfg, rep };
		ab_breakdown_emit(&res.brk, brk_record, &c);
		ab_breakdown_hist_rows(&res.brk, out, &pt->cfg, rep);
	}
	if (!set->quiet)
		progress(set, pt, rep, ks != NULL, &res);
	return 0;
}

/* Every repetition of every point; 1 when any failed. */
static int sweep(const struct ctf_settings *set, const struct ctf_point *pts, int npts,
		 struct ab_kstats *ks, struct ab_out *out)
{
	int failed = 0;

	for (int rep = 1; rep <= set->repeat && !ab_interrupted; rep++)
		for (int k = 0; k < npts && !ab_interrupted; k++) {
			if (one_rep(set, &pts[k], NULL, rep, out) < 0)
				failed = 1;
			else if (ks && !ab_interrupted && one_rep(set, &pts[k], ks, rep, out) < 0)
				failed = 1;
		}
	return failed;
}

int main(int argc, char **argv)
{
	struct ctf_settings set = {
		.placement = "none,same",
		.daemon = AB_LOOP_SINGLE,
		.clients = 1,
		.baseline = CTF_BASE_FUSE,
		.kstats = AB_KSTATS_AUTO,
	};
	enum ab_placement want[MAX_POINTS];
	struct ctf_point pts[MAX_POINTS];
	struct ab_common common;
	struct ab_kstats *ks = NULL;
	struct ab_results kept;
	struct ab_out out;

	ab_parse_args(argc, argv, &ctf_info, ctf_opts, &set, &common);
	char err[256];
	if (set.daemon_wait && ab_fsrv_wait_parse(set.daemon_wait, &set.wait, err, sizeof(err)) < 0)
		ab_usage_error("bad value '%s' for --daemon-wait: %s", set.daemon_wait, err);
	check_combinations(&set, &common);
	set.duration = common.duration;
	set.repeat = common.repeat;
	set.quiet = common.quiet;
	int nwant = parse_placements(set.placement, want, MAX_POINTS);
	int ncpus = ab_cpuset_count(&common.allowed);
	if (set.clients > ncpus) {
		char list[256];
		ab_cpuset_format(&common.allowed, list, sizeof(list));
		ab_usage_error("bad value '%d' for --clients: more than the %d allowed CPUs (%s)",
			       set.clients, ncpus, list);
	}
	set.ncpus = ncpus;
	/* reads the machine only: --check-options refuses what the run would */
	if (set.baseline == CTF_BASE_FUSE && set.mountpoint)
		check_mountpoint(set.mountpoint);
	warn_threads(&set, want, nwant);	/* after the bad-input checks: their one line alone */
	ab_opts_checked(&common);
	/* a server on one CPU leaves --uring-cpu nothing to move (fsrv.h): before anything changes */
	if (set.baseline == CTF_BASE_FUSE && set.transport == CTF_TR_URING &&
	    ab_fsrv_uring_cpu_usable(set.uring_cpu, &common.allowed, err, sizeof(err)) < 0)
		ab_skip("--uring-cpu %s: %s", ab_fsrv_uring_cpu_name(set.uring_cpu), err);
	ab_idle_apply(&common.idle);
	if (set.baseline == CTF_BASE_FUSE) {
		ab_need_fuse();
		ab_mnt_cleanup_stale(NULL, set.quiet ? NULL : stderr);
		need_transport(&set);
	}
	int npts = resolve_all(want, nwant, pts, &set, &common);
	if (!npts)
		return AB_EXIT_SKIP;
	/* The probes follow FUSE requests, and the pipe's round trips in the same steps
	 * (the breakdown beside FUSE's); the kernel baseline has nothing to follow. */
	if (set.baseline != CTF_BASE_KERNEL)
		ks = ab_kstats_for_mode(set.kstats, set.quiet);

	/* Known now (a few forks, or the harness's), not while the first repetition's clients run. */
	ab_slowness();
	ab_catch_signals();
	ab_results_init(&kept);
	ab_out_init(&out, stdout, &common, "cputestfs");
	out.keep = &kept;
	int failed = sweep(&set, pts, npts, ks, &out);
	if (ab_out_tables(&out, &ab_desc_cputestfs) < 0) {
		ab_msg("cannot write the tables to stdout: %s", strerror(errno));
		failed = 1;
	}
	ab_results_free(&kept);
	ab_kstats_close(ks);
	for (int k = 0; k < npts; k++)
		free_point(&pts[k]);
	return ab_interrupted || failed ? AB_EXIT_FAIL : AB_EXIT_OK;
}
