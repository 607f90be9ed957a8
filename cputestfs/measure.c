// SPDX-License-Identifier: GPL-2.0
/*
 * One repetition of one placement: start the server side (server.c), start
 * the client processes pinned behind the start barrier (lib/sys/proc workers running
 * loop.c), wait out a warm-up, then sample the clients' counters with
 * CLOCK_MONOTONIC at both ends of the measured window.
 *
 * A watchdog (lib/sys/proc ab_watch) fails the repetition when the server or a
 * client dies, when a client makes no progress for STALL_NS (the server
 * hangs: its connection is aborted through fusectl, or the pipe servers are
 * killed), or at warm-up + duration + GRACE_NS. Every one of these waits
 * scales with the machine's slowness (ab_scaled_ns).
 *
 * An instrumented repetition (ks set) runs the same way with the kstats
 * probes attached from the mount until the clients are reaped; only its
 * kernel figures are kept (main.c), so no timed number ever comes from a run
 * with probes attached.
 *
 * Limits: the watchdog polls every AB_POLL_NS, so a stall is seen up to that
 * late; the kernel window is a little wider than the timed one (the maps are
 * read outside it), which shifts no per-request figure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sys/common.h"
#include "cputestfs.h"
#include "kstats/cpumon.h"
#include "kstats/kstats.h"

#define START_NS (3 * AB_NS)	/* clients make their first call and reach the barrier within this */
#define STALL_NS (2 * AB_NS)	/* a client without progress this long: the server hangs (not
				 * less: a loaded machine can stall a good client 1 s) */
#define GRACE_NS (2 * AB_NS)	/* the window's deadline: warm-up + duration + this */
#define REAP_NS AB_NS		/* clients see STOP and exit within this */

struct run {
	const struct ctf_settings *set;
	const struct ctf_server *server;
	struct ctf_serving srv;
	size_t shsize;
	int n;
	struct ab_workers clients;
	int have_clients;
	int early;		/* a client that ended before the end of the window, or -1 */
	pid_t early_pid;
	/* stall detection, once the barrier is open */
	int counting;
	uint64_t *last_calls, *last_t, deadline;
	/* instrumented repetitions */
	struct ab_kstats *ks;
	int ks_attached, ks_window;
	struct ab_kstats_result kw0, kw1;
	uint64_t dreq0;
	struct ab_breakdown_result *brk;	/* the breakdown of the calls the window started */
	int brk_window;
	double loop_ns, calls_per_s;		/* this window's time per call and rate */
	struct ab_cpumon *mon;		/* what the CPUs did in the window (timed repetitions) */
};

static int client_worker(void *arg, int i)
{
	struct run *r = arg;

	return ctf_client(r->srv.sh, &r->srv.target, i);
}

/* Unstick clients blocked on a hung server; once (lib/sys/proc's reap calls it too). */
static void unblock(void *arg)
{
	struct run *r = arg;

	if (r->srv.unblocked)
		return;
	r->srv.unblocked = 1;
	if (r->server->unblock)
		r->server->unblock(&r->srv);
}

static int client_ended(struct run *r, int i, char *why, size_t len)
{
	int e = atomic_load(&r->srv.sh->client[i].err);

	r->early = i;
	r->early_pid = r->clients.pid[i];
	if (e)
		return ab_err(why, len, "client %d: %s %s: %s", i, r->server->call,
			      r->srv.target.pipes ? "to its server" : r->srv.target.path, strerror(e));
	return ab_err(why, len, "client %d (pid %d) ended early", i, (int)r->clients.pid[i]);
}

/* The watchdog's check (ab_check_fn): 0, or -1 with why. */
static int check(void *arg, char *why, size_t len)
{
	struct run *r = arg;
	uint64_t now = ab_now_ns();

	if (r->server->gone && r->server->gone(&r->srv, why, len) < 0)
		return -1;
	int i = r->have_clients ? ab_workers_ended(&r->clients) : -1;
	if (i >= 0)
		return client_ended(r, i, why, len);
	for (i = 0; r->counting && i < r->n; i++) {
		uint64_t c = ab_counter_read(&r->srv.sh->client[i].calls);
		if (c != r->last_calls[i]) {
			r->last_calls[i] = c;
			r->last_t[i] = now;
		} else if (now - r->last_t[i] > ab_scaled_ns(STALL_NS)) {
			unblock(r);
			return ab_err(why, len, "client %d made no progress for %.1f s: the %s hangs; %s",
				      i, (double)(now - r->last_t[i]) / AB_NS, r->server->what,
				      r->server->unblock_how);
		}
	}
	if (r->deadline && now >= r->deadline) {
		unblock(r);
		return ab_err(why, len, "the measurement passed its deadline (duration + %.1f s)",
			      (double)ab_scaled_ns(GRACE_NS) / AB_NS);
	}
	return 0;
}

/* Every client made its first call and waits at the barrier. */
static int wait_barrier(struct run *r, char *why, size_t len)
{
	uint64_t deadline = ab_now_ns() + ab_scaled_ns(START_NS);

	while (atomic_load(&r->srv.sh->barrier.arrived) < (uint32_t)r->n) {
		if (ab_now_ns() > deadline) {
			unblock(r);
			return ab_err(why, len, "clients did not start within %.1f s: the %s hangs; %s",
				      (double)ab_scaled_ns(START_NS) / AB_NS, r->server->what,
				      r->server->unblock_how);
		}
		if (ab_watch(ab_now_ns() + AB_POLL_NS / 10, UINT64_MAX, check, r, why, len) < 0)
			return -1;
	}
	return 0;
}

static void sample(const struct run *r, uint64_t *calls, uint64_t *same)
{
	*calls = *same = 0;
	for (int i = 0; i < r->n; i++) {
		uint64_t c, s;
		ctf_read_calls(&r->srv.sh->client[i], &c, &s);
		*calls += c;
		*same += s;
	}
}

/* Open the barrier, warm up, time the window. 0 with the timed metrics in res, or -1 with why. */
static int window(struct run *r, struct ctf_result *res, char *why, size_t len)
{
	struct ctf_shared *sh = r->srv.sh;
	uint64_t warm = (uint64_t)(ctf_warmup_s(r->set->duration) * AB_NS);
	uint64_t dur = (uint64_t)(r->set->duration * AB_NS);
	uint64_t calls0, same0, calls1, same1, go = ab_now_ns();

	for (int i = 0; i < r->n; i++)
		r->last_t[i] = go;
	r->counting = 1;
	r->deadline = go + warm + dur + ab_scaled_ns(GRACE_NS);
	ab_barrier_open(&sh->barrier);
	if (ab_watch(go + warm, UINT64_MAX, check, r, why, len) < 0)
		return -1;

	r->ks_window = r->ks_attached && ab_kstats_read(r->ks, &r->kw0) == 0;
	/* The calls the clients start in the window, as they time them (time_every). */
	r->brk_window = r->ks_window && r->brk && ab_kstats_brk_window(r->ks, 1) == 0;
	ab_cpumon_begin(r->mon);	/* its reads fall outside the clock reads below */
	atomic_store(&sh->phase, CTF_MEASURE);
	uint64_t t0 = ab_now_ns();
	uint64_t req0 = ctf_requests(sh, r->n);
	uint64_t cpu0 = ab_fsrv_cpu_sum(sh->srv_cpu, CTF_CPU_SLOTS);
	sample(r, &calls0, &same0);
	if (ab_watch(t0 + dur, UINT64_MAX, check, r, why, len) < 0)
		return -1;
	uint64_t t1 = ab_now_ns();
	uint64_t req1 = ctf_requests(sh, r->n);
	uint64_t cpu1 = ab_fsrv_cpu_sum(sh->srv_cpu, CTF_CPU_SLOTS);
	sample(r, &calls1, &same1);
	if (r->mon)
		ab_cpumon_end(r->mon, (double)(t1 - t0) / 1e9);
	atomic_store(&sh->phase, CTF_STOP);
	r->ks_window = r->ks_window && ab_kstats_read(r->ks, &r->kw1) == 0;
	if (r->brk_window)
		ab_kstats_brk_window(r->ks, 0);	/* after STOP: no client starts another call */

	if (calls1 == calls0)
		return ab_err(why, len, "no %s completed in the measured window", r->server->call);
	if (t1 - t0 < AB_MIN_WINDOW_NS)
		return ab_err(why, len, "the measured window (%.3f ms) was too short to time",
			      (double)(t1 - t0) / 1e6);
	/* A kernel file names no serving CPU and has no server to count requests. */
	ctf_window_metrics(calls1 - calls0, same1 - same0, req1 - req0, t1 - t0,
			   r->set->baseline != CTF_BASE_KERNEL, res);
	if (r->set->baseline == CTF_BASE_FUSE && r->set->transport != CTF_TR_LIBFUSE)
		ctf_server_cpu(cpu1 - cpu0, req1 - req0, res);	/* lib/fuse/fsrv's threads' CPU */
	/* Each client makes one call at a time: its time per call is the window over its calls. */
	r->loop_ns = (double)(t1 - t0) * r->n / (double)(calls1 - calls0);
	r->calls_per_s = res->v[CTF_STAT];
	return 0;
}

static void describe_status(int st, char *buf, size_t len)
{
	if (st == -1)
		snprintf(buf, len, "could not be killed (stuck in the kernel)");
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
}

/* Stop and reap the clients; rc is the window's. The repetition's rc, why set on failure. */
static int end_clients(struct run *r, int rc, char *why, size_t len)
{
	struct ctf_shared *sh = r->srv.sh;
	char how[64];

	atomic_store(&sh->phase, CTF_STOP);
	ab_barrier_open(&sh->barrier);	/* clients still at the barrier see STOP and leave */
	int bad = ab_workers_reap(&r->clients, ab_now_ns() + ab_scaled_ns(REAP_NS), unblock, r);
	r->have_clients = 0;
	if (rc < 0 && r->early >= 0 && !atomic_load(&sh->client[r->early].err)) {
		describe_status(r->clients.status[r->early], how, sizeof(how));
		ab_err(why, len, "client %d (pid %d) ended early (%s)", r->early, (int)r->early_pid,
		       how);
	}
	if (rc < 0)
		return rc;
	if (r->srv.unblocked)	/* clients were stuck in their call at the end */
		return ab_err(why, len, "the %s hangs: clients were stuck in their call at the end of "
			      "the window; %s", r->server->what, r->server->unblock_how);
	for (int i = 0; bad && i < r->n; i++) {
		int st = r->clients.status[i], e = atomic_load(&sh->client[i].err);
		if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			continue;
		describe_status(st, how, sizeof(how));
		return ab_err(why, len, "client %d failed: %s", i, e ? strerror(e) : how);
	}
	return 0;
}

static void latency(const struct run *r, struct ctf_result *res)
{
	struct ab_hist *all = &res->lat;

	memset(all, 0, sizeof(*all));
	for (int i = 0; i < r->n; i++)
		ab_hist_merge(all, &r->srv.sh->client[i].lat);
	if (!ab_hist_count(all))
		return;
	res->v[CTF_P50] = ab_hist_percentile(all, 50);
	res->v[CTF_P99] = ab_hist_percentile(all, 99);
	res->has[CTF_P50] = res->has[CTF_P99] = 1;
}

/* ---- kernel statistics, instrumented repetitions only ---- */

static void brk_free(struct run *r)
{
	free(r->brk);
	r->brk = NULL;
}

/* The request breakdown rides on kstats: its buffers now, its callers once they exist. */
static void brk_begin(struct run *r)
{
	const char *why = ab_kstats_brk_why(r->ks);

	if (why) {
		if (!r->set->quiet)
			ab_msg("%s: brk_* metrics not written", why);
		return;
	}
	/* over pipes the breakdown follows each round trip: a write, then a read */
	if (ab_kstats_brk_pipe(r->ks, r->set->baseline == CTF_BASE_PIPE) < 0) {
		ab_msg("cannot set the request breakdown's mode: brk_* metrics not written");
		return;
	}
	r->srv.sh->time_every = 1;	/* before the clients start */
	r->brk = malloc(sizeof(*r->brk));
	if (!r->brk) {
		ab_msg("out of memory for the request breakdown: brk_* metrics not written");
		brk_free(r);
	}
}

/* The FUSE daemon, or the pipe servers (the pipe baseline with --kstats on): the
 * breakdown's servers. 0, or -1 with errno. */
static int add_servers(struct run *r)
{
	if (r->srv.have_daemon)
		return ab_kstats_add_pid(r->ks, r->srv.daemon.pid);
	for (int i = 0; i < r->srv.pipe_servers.n; i++)
		if (ab_kstats_add_pid(r->ks, r->srv.pipe_servers.pid[i]) < 0)
			return -1;
	return 0;
}

/* Probes on from here (mounted, no client yet) until the clients are reaped. */
static void kstats_begin(struct run *r)
{
	const char *skip = NULL;

	if (!r->ks || !(r->srv.have_daemon || r->srv.have_pipe_servers))
		return;
	if (ab_kstats_clear_pids(r->ks) < 0)
		skip = "cannot clear the kstats pid map";
	else if (add_servers(r) < 0)
		skip = errno == E2BIG ? "the kstats pid map is full (" AB_STR(AB_KSTATS_MAX_PIDS) " pids)"
				      : "cannot add the daemon to the kstats pid map";
	else if (ab_kstats_set_conn(r->ks, r->srv.have_daemon ? r->srv.daemon.conn : 0) < 0 ||
		 ab_kstats_reset(r->ks) < 0)
		skip = "cannot reset the kstats maps";
	else if (ab_kstats_attach(r->ks) < 0)
		skip = "attaching the kstats probes failed";
	if (skip) {
		ab_msg("%s: kernel_* metrics of this repetition not written", skip);
		return;
	}
	r->ks_attached = 1;
	r->dreq0 = ctf_requests(r->srv.sh, r->n);
	brk_begin(r);
}

static void brk_callers(struct run *r)
{
	for (int i = 0; r->ks_attached && r->brk && i < r->n; i++)
		if (ab_kstats_add_caller(r->ks, r->clients.pid[i]) < 0) {
			ab_msg("cannot name client %d to the request breakdown: brk_* metrics not written", i);
			brk_free(r);
		}
}

/* The steps of the calls the window started, against the clients' own clock on the same
 * calls and the window's time per call. */
static void brk_end(struct run *r, struct ctf_result *res)
{
	/* Read once the clients are gone: every call the window started has ended. */
	if (r->brk_window && ab_kstats_read_brk(r->ks, r->brk) == 0) {
		res->has_brk = ab_breakdown_metrics(r->brk, &res->brk) == 0;
		res->brk.loop_ns = r->loop_ns;
		/* the mean call as the clients timed it: every call of the window (time_every),
		 * merged by latency() */
		res->brk.client_ns = ab_breakdown_hist_mean(&res->lat);
		res->brk.calls_per_s = r->calls_per_s;
	}
	brk_free(r);
}

/* Requests over the whole run (to cross-check the daemon's count); time and CPUs per
 * request over the measured window. */
static void kstats_end(struct run *r, int rc, struct ctf_result *res)
{
	struct ab_kstats_result whole;
	uint64_t n, same;
	double ns;

	if (!r->ks_attached)
		return;
	/* FUSE requests: none over pipes, where only the breakdown is written */
	int fuse = r->set->baseline == CTF_BASE_FUSE;
	if (fuse && rc == 0 && ab_kstats_read(r->ks, &whole) == 0) {
		ctf_kernel_delta(NULL, &whole, &n, &same, &ns);
		res->v[CTF_KREQ] = (double)n;
		res->v[CTF_DREQ] = (double)(ctf_requests(r->srv.sh, r->n) - r->dreq0);
		res->has[CTF_KREQ] = res->has[CTF_DREQ] = 1;
	}
	if (fuse && rc == 0 && r->ks_window) {
		ctf_kernel_delta(&r->kw0, &r->kw1, &n, &same, &ns);
		if (n) {
			res->v[CTF_KNS] = ns / (double)n;
			res->v[CTF_KSAME] = 100.0 * (double)same / (double)n;
			res->has[CTF_KNS] = res->has[CTF_KSAME] = 1;
		}
	}
	if (rc == 0)
		brk_end(r, res);
	brk_free(r);
	ab_kstats_detach(r->ks);
	r->ks_attached = 0;
}

/* ---- one repetition ---- */

static int run_alloc(struct run *r, char *why, size_t len)
{
	r->shsize = sizeof(struct ctf_shared) + (size_t)r->n * sizeof(struct ctf_client_shm);
	r->srv.sh = ab_shm_alloc(r->shsize);
	r->last_calls = calloc((size_t)r->n, sizeof(*r->last_calls));
	r->last_t = calloc((size_t)r->n, sizeof(*r->last_t));
	if (!r->srv.sh || !r->last_calls || !r->last_t)
		return ab_err(why, len, "out of memory for %d clients", r->n);
	ab_barrier_init(&r->srv.sh->barrier);
	atomic_store(&r->srv.sh->phase, CTF_WARMUP);
	return 0;
}

int ctf_measure(const struct ctf_settings *set, const struct ctf_point *pt, struct ab_kstats *ks,
		struct ab_cpumon *mon, struct ctf_result *res, char *why, size_t len)
{
	struct run r = { .set = set, .server = ctf_server_for(set), .n = set->clients, .early = -1,
			 .ks = ks, .mon = mon, .srv = { .set = set, .pt = pt } };
	char why2[512];
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (run_alloc(&r, why, len) < 0)
		goto out;
	if (r.server->start(&r.srv, why, len) < 0)
		goto stop;
	kstats_begin(&r);
	if (ab_workers_start(&r.clients, r.n, 0, pt->client_cpu, NULL, client_worker, &r, why,
			     len) < 0)
		goto stop;
	r.have_clients = 1;
	brk_callers(&r);
	for (int i = 0; mon && i < r.n; i++)
		ab_cpumon_add_task(mon, r.clients.pid[i]);
	if (mon && r.srv.have_daemon && r.srv.daemon.pid > 0)
		ab_cpumon_add_task(mon, r.srv.daemon.pid);
	rc = wait_barrier(&r, why, len) == 0 && window(&r, res, why, len) == 0 ? 0 : -1;
	rc = end_clients(&r, rc, why, len);
	if (rc == 0)
		latency(&r, res);
stop:
	ab_workers_free(&r.clients);
	kstats_end(&r, rc, res);
	/*
	 * A server that ended badly without our unblock() explains the failure best
	 * (its clients saw only a broken pipe or a lost connection); one we killed
	 * because it hung does not, nor one a Ctrl-C reached with us.
	 */
	if (r.server->stop(&r.srv, r.srv.unblocked, why2, sizeof(why2)) < 0 &&
	    (rc == 0 || (!r.srv.unblocked && !ab_interrupted))) {
		snprintf(why, len, "%s", why2);
		rc = -1;
	}
out:
	if (r.srv.sh)
		ab_shm_free(r.srv.sh, r.shsize);
	free(r.last_calls);
	free(r.last_t);
	if (rc < 0)
		memset(res, 0, sizeof(*res));
	return rc;
}
