// SPDX-License-Identifier: GPL-2.0
/*
 * One repetition of one ddpar point: a fresh server on a private mount, the
 * connection knobs, the client (built-in loop or dd), then the server stopped
 * and the checks. Every request is answered and unmounted by then, so the
 * bytes the daemon counted must equal the bytes the clients moved, and (the
 * built-in loop) its requests the clients' calls; the window must be long
 * enough to time and have moved something. Only a repetition that passes
 * writes numbers.
 *
 * Headline numbers are never instrumented: a timed repetition runs with the
 * kernel statistics' probes detached; its instrumented sibling (the same
 * point, a fresh server and fresh clients) attaches them for itself alone and
 * writes kernel_us_per_req, spin_us_per_req and the brk_* request breakdown,
 * nothing else. A timed repetition also writes what the CPUs did in its window
 * (mon_*, lib/kstats/cpumon: counters read at the window's edges, no probe),
 * per requests_per_s's operation.
 *
 * Known limits: spinlock wait counts the daemon's and the clients' processes
 * only (the pid map); if that map is full the spinlock figure is not written.
 */
#include <errno.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ddpar.h"
#include "fuse/fsrv.h"
#include "fuse/fuseenv.h"
#include "knob/knob.h"
#include "record/histio.h"
#include "record/record.h"

static const char *dir_name(enum ddp_dir dir)
{
	return dir == DDP_WRITE ? "write" : "read";
}

static void ddp_point_config(const struct ddp_settings *s, const struct ddp_point *pt,
			     struct ab_config *c)
{
	ab_config_init(c);
	ab_config_set(c, "bs", "%zu", s->bs);
	ab_config_set(c, "clone_fd", "%s", pt->clone ? "on" : "off");
	ab_config_set(c, "daemon", "%s", s->daemon == DDP_DAEMON_SINGLE ? "single" : "multi");
	ab_config_set(c, "mode", "%s", dir_name(pt->dir));
	ab_config_set(c, "procs", "%d", pt->procs);
	ab_config_set(c, "transport", "%s", s->server->name);
	if (s->transport == DDP_TR_URING)	/* only here: other records keep matching */
		ab_config_set(c, "uring_cpu", "%s", ab_fsrv_uring_cpu_name(s->uring_cpu));
	char w[32];
	if (s->wait.mode != AB_FSRV_WAIT_BLOCK)	/* block, the default, goes unwritten */
		ab_config_set(c, "daemon_wait", "%s", ab_fsrv_wait_name(&s->wait, w, sizeof(w)));
	if (s->dd)
		ab_config_set(c, "client", "dd");
	if (s->max_write)
		ab_config_set(c, "max_write", "%zu", s->max_write);
	if (s->threads)
		ab_config_set(c, "threads", "%d", s->threads);
	if (s->max_background)
		ab_config_set(c, "max_background", "%d", s->max_background);
	if (s->congestion)
		ab_config_set(c, "congestion_threshold", "%d", s->congestion);
}

/* Connection knobs through the knob module (journalled, restored after the client). */
static int set_knobs(const struct ddp_settings *s, int conn, char *why, size_t len)
{
	const struct {
		const char *file;
		int value;
	} knobs[] = {
		{ "max_background", s->max_background },
		{ "congestion_threshold", s->congestion },
	};
	char path[128], val[32];

	for (size_t i = 0; i < AB_ARRAY_SIZE(knobs); i++) {
		if (!knobs[i].value)
			continue;
		snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%d/%s", conn, knobs[i].file);
		snprintf(val, sizeof(val), "%d", knobs[i].value);
		if (ab_knob_write(path, val, NULL, 0, why, len) < 0)
			return -1;
	}
	return 0;
}

/* ---- kernel statistics of an instrumented repetition ---- */

/* The breakdown's buffer, when it is loaded; a reason once when it is not. */
static void brk_prepare(struct ddp_probe *p)
{
	static int told;
	const char *why = ab_kstats_brk_why(p->ks);

	if (why) {
		if (!told++)
			ab_msg("%s: brk_* metrics not written", why);
		return;
	}
	p->brk = malloc(sizeof(*p->brk));
	if (!p->brk)
		ab_msg("out of memory for the request breakdown: brk_* metrics not written");
}

/* This point's processes only, this connection only; then attach. */
static int probe_attach(struct ddp_probe *p, const struct ab_daemon *d, char *why, size_t len)
{
	if (ab_kstats_clear_pids(p->ks) < 0)
		return ab_err(why, len, "cannot clear the kernel statistics' pid map: %s", strerror(errno));
	ab_kstats_set_conn(p->ks, d->conn);
	ddp_probe_add(p, d->pid);
	brk_prepare(p);
	if (ab_kstats_attach(p->ks) < 0)
		return ab_err(why, len, "cannot attach the kernel statistics' probes: %s", strerror(errno));
	return 0;
}

/* ---- records ---- */

struct brk_ctx {
	struct ab_out *out;
	const struct ab_config *cfg;
	const struct ddp_point *pt;
};

static void brk_record(void *ctx, const char *metric, double v, const char *unit)
{
	const struct brk_ctx *c = ctx;

	ab_record(c->out, c->cfg, c->pt->rep + 1, metric, v, unit);
}

/* The breakdown of the calls the window started, against the built-in clients' own clock
 * on them (o->lat) and the window's time per call; dd times and counts no call, so its
 * records go without either. */
static void write_brk(const struct ddp_point *pt, const struct ab_config *cfg,
		      const struct ddp_outcome *o, const struct ddp_probe *p, struct ab_out *out)
{
	struct ab_breakdown_metrics m;
	struct brk_ctx c = { out, cfg, pt };

	if (!p->have_brk || ab_breakdown_metrics(p->brk, &m) < 0)
		return;
	if (o->calls && o->window_ns) {
		m.loop_ns = (double)o->window_ns * pt->procs / (double)o->calls;
		m.calls_per_s = (double)o->calls / ((double)o->window_ns / 1e9);
	}
	m.client_ns = ab_breakdown_hist_mean(&o->lat);	/* NAN for dd: it times no call */
	ab_breakdown_emit(&m, brk_record, &c);
	ab_breakdown_hist_rows(&m, out, cfg, pt->rep + 1);
}

/* Metric k of ddp_metrics, under its name and unit, unless v is not known. */
static void record(struct ab_out *out, const struct ab_config *cfg, const struct ddp_point *pt,
		   enum ddp_metric k, double v)
{
	if (!isnan(v))
		ab_record(out, cfg, pt->rep + 1, ddp_metrics[k].name, v, ddp_metrics[k].unit);
}

static void write_records(const struct ddp_settings *s, const struct ddp_point *pt,
			  const struct ab_config *cfg, const struct ddp_outcome *o,
			  const struct ddp_probe *p, struct ab_out *out)
{
	if (pt->instrumented) {
		if (!p->have) {
			ab_msg("%s procs=%d clone_fd=%s rep %d: kernel statistics could not be read",
			       dir_name(pt->dir), pt->procs, pt->clone ? "on" : "off", pt->rep + 1);
			return;
		}
		int op = pt->dir == DDP_WRITE ? FUSE_WRITE : FUSE_READ;
		record(out, cfg, pt, DDP_KERNEL_US, ddp_kernel_us(&p->res, op));
		if (p->pid_err)
			ab_msg("%s procs=%d clone_fd=%s rep %d: spin_us_per_req not written: a process could "
			       "not be added to the kernel statistics' pid map (%s)", dir_name(pt->dir),
			       pt->procs, pt->clone ? "on" : "off", pt->rep + 1, strerror(p->pid_err));
		else if (!p->res.spin_count)
			/* Zero events is not zero wait: lock:contention_begin does not fire where the
			 * kernel takes the hypervisor's test-and-set spinlock (virt_spin_lock, in
			 * guests without paravirt spinlocks), so a 0 would read as no contention. */
			ab_msg("%s procs=%d clone_fd=%s rep %d: spin_us_per_req not counted: "
			       "lock:contention_begin saw no spinlock wait at all in the window (it never "
			       "fires where the kernel spins in virt_spin_lock, as in a VM without "
			       "paravirt spinlocks)", dir_name(pt->dir), pt->procs,
			       pt->clone ? "on" : "off", pt->rep + 1);
		else
			record(out, cfg, pt, DDP_SPIN_US, ddp_spin_us(&p->res));
		write_brk(pt, cfg, o, p, out);
		return;
	}
	struct ddp_numbers n;
	ddp_numbers(o, &n);
	record(out, cfg, pt, DDP_CLIENT_BYTES, (double)o->client_bytes);
	record(out, cfg, pt, DDP_DAEMON_BYTES, (double)o->total.bytes);
	record(out, cfg, pt, pt->dir == DDP_WRITE ? DDP_WRITE_MBPS : DDP_READ_MBPS, n.mb_per_s);
	record(out, cfg, pt, DDP_REQS, n.req_per_s);
	record(out, cfg, pt, DDP_P50, n.p50_us);
	record(out, cfg, pt, DDP_P99, n.p99_us);
	ab_hist_emit(out, cfg, pt->rep + 1, "lat", "us", &o->lat);	/* p90, p99.9, max, hist.csv */
	record(out, cfg, pt, DDP_DAEMON_US, n.daemon_us);
	/* lib/fuse/fsrv counts its serving threads' CPU; passthrough answers no request here */
	if (s->transport == DDP_TR_DEV || s->transport == DDP_TR_URING)
		record(out, cfg, pt, DDP_SERVER_CPU, n.server_cpu_us);
}

/* ---- one repetition ---- */

/* Server up, client run, server down: 0, or -1 with why. o->total is filled on success. */
static int repetition(const struct ddp_settings *s, const struct ddp_point *pt,
		      struct ddp_shared *sh, struct ddp_probe *probe, struct ab_cpumon *mon,
		      struct ddp_outcome *o, char *why, size_t len)
{
	int knobs = s->max_background || s->congestion, failed;
	int stop_ms = (int)(ab_scaled_ns(DDP_STOP_NS) / 1000000);
	struct ab_daemon d;
	struct ddp_client c = { s, pt, sh, &d, probe, mon };

	if (s->server->start(&d, s, pt, sh, why, len) < 0)
		return -1;
	ab_pidfile_hook(d.pid);
	failed = knobs && set_knobs(s, d.conn, why, len) < 0;
	if (!failed && probe)
		failed = probe_attach(probe, &d, why, len) < 0;
	if (!failed)
		failed = (s->dd ? ddp_dd_run : ddp_loop_run)(&c, o, why, len) < 0;
	if (probe)
		ab_kstats_detach(probe->ks);
	if (knobs)
		ab_knob_restore_all();	/* while the connection still exists */
	int st = ab_daemon_stop(&d, stop_ms);
	if (!failed && !(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0))
		failed = ab_err(why, len, "the FUSE daemon ended abnormally (wait status 0x%x)", (unsigned)st);
	if (failed)
		return -1;
	ddp_daemon_totals(sh, pt->dir, &o->total);
	return 0;
}

/*
 * May the numbers be written? Passthrough bypasses the daemon: it must have
 * answered no READ or WRITE at all, and the bytes are checked in the backing
 * files (writes) and by the readers themselves (loop.c); then the daemon's
 * count stands for the clients' as with every other transport.
 */
static int judge(const struct ddp_settings *s, const struct ddp_point *pt,
		 const struct ddp_shared *sh, struct ddp_outcome *o, char *why, size_t len)
{
	if (s->transport == DDP_TR_PASSTHROUGH) {
		if (o->total.req)
			return ab_err(why, len, "passthrough: the daemon still answered %llu %s requests",
				      (unsigned long long)o->total.req, dir_name(pt->dir));
		if (pt->dir == DDP_WRITE && ddp_backing_check(s, sh, pt->procs, why, len) < 0)
			return -1;
		o->total.bytes = o->client_bytes;	/* checked above, not counted by the daemon */
		o->total.req = o->client_calls;
	}
	return ddp_judge(o, why, len);
}

int ddp_measure(const struct ddp_settings *s, const struct ddp_point *pt, struct ddp_shared *sh,
		  struct ab_kstats *ks, struct ab_out *out)
{
	struct ddp_outcome o;
	struct ddp_probe probe = { .ks = ks };
	struct ab_config cfg;
	char why[512] = "";
	/* the CPUs' counters in timed repetitions: read at the window's edges, no probe */
	struct ab_cpumon *mon = pt->instrumented ? NULL : ab_cpumon_new(&s->common.allowed);

	memset(sh, 0, sizeof(*sh));
	memset(&o, 0, sizeof(o));
	if (repetition(s, pt, sh, pt->instrumented && ks ? &probe : NULL, mon, &o, why, sizeof(why)) < 0 ||
	    judge(s, pt, sh, &o, why, sizeof(why)) < 0) {
		ab_msg("%s procs=%d clone_fd=%s rep %d%s failed: %s", dir_name(pt->dir), pt->procs,
		       pt->clone ? "on" : "off", pt->rep + 1, pt->instrumented ? " (instrumented)" : "", why);
		free(probe.brk);
		ab_cpumon_free(mon);
		return -1;
	}
	ddp_point_config(s, pt, &cfg);
	write_records(s, pt, &cfg, &o, &probe, out);
	if (mon) {
		struct ddp_numbers n;
		ddp_numbers(&o, &n);
		/* per requests_per_s's operation: one read() or write() of bs bytes */
		ab_cpumon_record(mon, out, &cfg, pt->rep + 1, n.req_per_s);
	}
	ab_cpumon_free(mon);
	free(probe.brk);
	return 0;
}
