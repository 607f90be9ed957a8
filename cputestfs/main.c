/*
 * cputestfs: stat() calls per second on a FUSE filesystem, and how often the
 * daemon serves a call on the caller's CPU (seed 000, fuse-devel 2012:
 * "stat performance on multicore systems").
 *
 * N client processes (--clients), each pinned per --placement, stat() one file
 * in a loop and compare the CPU the getattr reply names with their own
 * (sched_getcpu right after the call). The daemon is a separate process
 * pinned to the placement's daemon CPUs (all of them for --daemon multi and
 * clone_fd: libfuse's threads inherit the process mask). Baselines at the
 * same placements: --baseline kernel (stat() on a kernel filesystem) and
 * --baseline pipe (one-byte ping-pong with a server placed like the daemon).
 *
 * Timing: clients only count; the parent opens the start gate, waits out a
 * warm-up, then samples the counters with CLOCK_MONOTONIC at both ends of the
 * measured interval. Latency: a client times one call in CFS_LAT_EVERY, only
 * in the measured interval (two clock reads per 64 calls, not one per call).
 * A watchdog fails the measurement when the daemon or a client dies, when a
 * client makes no progress for CFS_STALL_NS (the daemon hangs: its connection
 * is aborted through fusectl), or at duration + 2 s.
 *
 * Test hooks (environment): AFFBENCH_DAEMON_PIDFILE=FILE receives the daemon's
 * (or first pipe server's) pid once it serves; AFFBENCH_FUSE_DEV=PATH replaces
 * /dev/fuse in the "is FUSE there" check only.
 *
 * Limits: --daemon single with several clients has one daemon thread that
 * floats over the daemon CPUs; the pipe baseline always has one server per
 * client. The kernel baseline has no daemon, so it reports no CPU match and
 * no requests per stat.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "cputestfs.h"
#include "kstats.h"
#include "opts.h"
#include "record.h"
#include "stats.h"
#include "topo.h"

#define NS 1000000000ull
#define CFS_STALL_NS (2 * NS)		/* a client without progress this long: the daemon hangs
					 * (not less: a loaded machine can stall a good client 1 s) */
#define CFS_GRACE_NS (2 * NS)		/* measurement deadline: duration + this */
#define CFS_POLL_NS (10 * 1000000ull)	/* watchdog period */
#define CFS_MOUNT_TIMEOUT_MS 5000

struct cfs_params {
	const char *placement;	/* comma-separated placement names */
	int daemon;		/* enum ab_fuse_loop, in the order of the choices */
	int clients;
	int baseline;		/* enum cfs_baseline, in the order of the choices */
	const char *mountpoint;
	int kstats;		/* KS_AUTO, KS_ON, KS_OFF */
};
enum { KS_AUTO, KS_ON, KS_OFF };

static struct cfs_params params = {
	.placement = "none,same",
	.daemon = AB_LOOP_SINGLE,
	.clients = 1,
	.baseline = CFS_BASE_FUSE,
	.mountpoint = NULL,
	.kstats = KS_AUTO,
};

static const struct ab_opt cfs_opts[] = {
	{ "placement", AB_OPT_STR, offsetof(struct cfs_params, placement), "P[,P...]",
	  "where clients and daemon run, measured interleaved", 0, 0, NULL },
	{ "daemon", AB_OPT_CHOICE, offsetof(struct cfs_params, daemon), "MODE",
	  "single|multi|clone_fd: one thread, libfuse's pool, the pool with cloned fds",
	  0, 0, "single|multi|clone_fd" },
	{ "clients", AB_OPT_INT, offsetof(struct cfs_params, clients), "N",
	  "client processes, one per CPU", 1, AB_MAX_CPUS, NULL },
	{ "baseline", AB_OPT_CHOICE, offsetof(struct cfs_params, baseline), "KIND",
	  "fuse|kernel|pipe: the benchmark, stat() on a kernel fs, pipe ping-pong", 0, 0,
	  "fuse|kernel|pipe" },
	{ "mountpoint", AB_OPT_STR, offsetof(struct cfs_params, mountpoint), "DIR",
	  "mount on this empty directory instead of a private one", 0, 0, NULL },
	{ "kstats", AB_OPT_CHOICE, offsetof(struct cfs_params, kstats), "WHEN",
	  "auto|on|off: kernel request time and CPUs from BPF (lib/kstats)", 0, 0, "auto|on|off" },
	{ NULL, 0, 0, NULL, NULL, 0, 0, NULL },
};

static const struct ab_prog_info cfs_info = {
	.name = "cputestfs",
	.summary = "stat() calls/s on a FUSE filesystem, and % served on the caller's CPU (seed 000)",
	.usage_extra =
		"Placements: none same smt llc cross-llc cross-node other (see DESIGN.md).\n"
		"Metrics: stat_per_s same_cpu_pct other_cpu_pct requests_per_stat latency_p50_ns\n"
		"latency_p99_ns; with --kstats: kernel_ns_per_req, kernel_same_cpu_pct,\n"
		"kernel_requests and daemon_requests (whole run, to cross-check). Default: placement none then same, daemon single, the seed's table.\n"
		"Needs root and /dev/fuse for --baseline fuse.",
	.default_duration = 2.0,
	.default_repeat = 3,
};

static const char *const loop_names[] = { "single", "multi", "clone_fd" };
static const char *const baseline_names[] = { "fuse", "kernel", "pipe" };

enum { M_STAT, M_SAME, M_OTHER, M_REQ, M_P50, M_P99, M_KNS, M_KSAME, M_KREQ, M_DREQ, M_COUNT };
static const struct {
	const char *name, *unit;
} metrics[M_COUNT] = {
	[M_STAT] = { "stat_per_s", "1/s" },
	[M_SAME] = { "same_cpu_pct", "%" },
	[M_OTHER] = { "other_cpu_pct", "%" },
	[M_REQ] = { "requests_per_stat", "ratio" },
	[M_P50] = { "latency_p50_ns", "ns" },
	[M_P99] = { "latency_p99_ns", "ns" },
	[M_KNS] = { "kernel_ns_per_req", "ns" },
	[M_KSAME] = { "kernel_same_cpu_pct", "%" },
	[M_KREQ] = { "kernel_requests", "count" },
	[M_DREQ] = { "daemon_requests", "count" },
};

/* Kernel statistics for the whole process, or NULL with the reason they are skipped. */
static struct ab_kstats *kst;

/* The request kinds our daemon counts: what stat() and the first lookup cause. */
static const int kst_ops[] = { 1 /* LOOKUP */, AB_FUSE_GETATTR, 28 /* READDIR */, 44 /* READDIRPLUS */ };

struct cfs_result {
	double v[M_COUNT];
	int has[M_COUNT];
};

/* One placement to measure: its CPUs, its record config, its values over reps. */
struct cfs_pl {
	enum ab_placement p;
	int *a, *b;			/* client i on a[i]; its daemon (thread/server) on b[i] */
	int daemon_pinned;
	struct ab_cpuset daemon_cpus;
	char client_list[256], daemon_list[256];
	struct ab_config cfg;
	double *vals[M_COUNT];
	int nvals[M_COUNT];
};

/* Everything one measurement starts, so every exit path can stop it. */
struct cfs_run {
	const struct cfs_pl *pl;
	int n;
	struct cfs_shared *sh;
	size_t shsize;
	char path[4200];		/* what clients stat() */
	struct ab_daemon d;
	int have_daemon, have_kfile, aborted;
	struct cfs_pipe *pipes;
	pid_t *client;			/* 0 once reaped */
	int *client_status;
};

/* Daemon requests so far (all threads; pipe servers count per client). */
static uint64_t daemon_requests(const struct cfs_run *r)
{
	uint64_t n = ab_counter_read(&r->sh->requests);

	for (int i = 0; i < r->n; i++)
		n += ab_counter_read(&r->sh->client[i].served);
	return n;
}

static struct ab_common common;
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/* ---- the client ---- */

/* One measured operation: 0 with the serving CPU in *served (-1: unknown), or -1 with errno. */
static inline int client_op(const struct cfs_run *r, int i, int *served)
{
	struct stat st;

	if (params.baseline == CFS_BASE_PIPE)
		return cfs_pipe_ping(&r->pipes[i], served);
	if (stat(r->path, &st) < 0)
		return -1;
	*served = params.baseline == CFS_BASE_FUSE ? cfs_served_cpu(&st) : -1;
	return 0;
}

static void lat_add(struct cfs_client_shm *c, uint64_t ns)
{
	c->lat[c->nlat++ % CFS_LAT_MAX] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static void __attribute__((noreturn)) client_main(struct cfs_run *r, int i)
{
	struct cfs_client_shm *c = &r->sh->client[i];
	int served;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);	/* a dead pipe server is EPIPE, reported like any error */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(125);
	if (params.baseline == CFS_BASE_PIPE)
		cfs_pipes_keep_only(r->pipes, r->n, i);
	if (ab_pin_self(r->pl->a[i]) < 0) {
		atomic_store(&c->err, errno);
		_exit(126);
	}
	/* The first call does the FUSE LOOKUP and proves the path works; it is not counted. */
	if (client_op(r, i, &served) < 0) {
		atomic_store(&c->err, errno);
		_exit(1);
	}
	ab_gate_arrive_wait(&r->sh->gate);

	/* The measured loop. */
	for (uint64_t n = 0;; n++) {
		int phase = atomic_load_explicit(&r->sh->phase, memory_order_relaxed);
		if (phase == CFS_STOP)
			break;
		int timed = phase == CFS_MEASURE && n % CFS_LAT_EVERY == 0;
		uint64_t t0 = timed ? ab_now_ns() : 0;
		if (client_op(r, i, &served) < 0) {
			atomic_store(&c->err, errno);
			_exit(1);
		}
		int cpu = sched_getcpu();
		if (timed)
			lat_add(c, ab_now_ns() - t0);
		if (served == cpu)
			ab_counter_inc(&c->same);
		ab_counter_inc(&c->calls);
	}
	_exit(0);
}

/* ---- the parent: start, watch, stop ---- */

static const char *op_name(void)
{
	return params.baseline == CFS_BASE_PIPE ? "pipe round trip" : "stat";
}

/* The daemon side is gone (or, with why == NULL, just: is it?). */
static int server_gone(struct cfs_run *r, char *why, size_t len)
{
	int i;

	if (params.baseline == CFS_BASE_FUSE && r->have_daemon && !ab_daemon_alive(&r->d)) {
		siginfo_t si;

		/* WNOWAIT: the status stays for ab_daemon_stop. */
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)r->d.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid && si.si_code != CLD_EXITED)
			return ab_err(why, len, "the FUSE daemon (pid %d) was killed by signal %d",
				      (int)r->d.pid, si.si_status);
		return ab_err(why, len, "the FUSE daemon (pid %d) exited (status %d)", (int)r->d.pid,
			      si.si_status);
	}
	if (params.baseline == CFS_BASE_PIPE && (i = cfs_pipes_dead(r->pipes, r->n)) >= 0)
		return ab_err(why, len, "pipe server %d (pid %d) died", i, (int)r->pipes[i].pid);
	return 0;
}

/* A client that ended early (failed): -1 with why. */
static int client_gone(struct cfs_run *r, char *why, size_t len)
{
	for (int i = 0; i < r->n; i++) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (r->client[i] <= 0 ||
		    waitid(P_PID, (id_t)r->client[i], &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
		    !si.si_pid)
			continue;
		int e = atomic_load(&r->sh->client[i].err);
		if (e)
			return ab_err(why, len, "client %d: %s %s: %s", i, op_name(),
				      params.baseline == CFS_BASE_PIPE ? "to its server" : r->path,
				      strerror(e));
		return ab_err(why, len, "client %d (pid %d) ended early (%s %d)", i, (int)r->client[i],
			      si.si_code == CLD_EXITED ? "exit" : "signal", si.si_status);
	}
	return 0;
}

/* Unblock clients stuck on a hung daemon: abort the FUSE connection, or kill the pipe servers. */
static void abort_servers(struct cfs_run *r)
{
	if (r->aborted)
		return;
	r->aborted = 1;
	if (params.baseline == CFS_BASE_FUSE && r->have_daemon && r->d.conn >= 0)
		ab_mnt_abort_conn(r->d.conn);
	if (params.baseline == CFS_BASE_PIPE)
		cfs_pipes_stop(r->pipes, r->n);
}

/*
 * Poll until 'until' (ns): 0, or -1 with why when something died, a client made
 * no progress for CFS_STALL_NS, the deadline passed or we were interrupted.
 */
static int watch(struct cfs_run *r, uint64_t until, uint64_t deadline, uint64_t *last,
		 uint64_t *last_t, char *why, size_t len)
{
	for (;;) {
		uint64_t now = ab_now_ns();

		if (interrupted)
			return ab_err(why, len, "interrupted by signal %d", (int)interrupted);
		if (server_gone(r, why, len) < 0 || client_gone(r, why, len) < 0)
			return -1;
		for (int i = 0; i < r->n; i++) {
			uint64_t c = ab_counter_read(&r->sh->client[i].calls);
			if (c != last[i]) {
				last[i] = c;
				last_t[i] = now;
			} else if (now - last_t[i] > CFS_STALL_NS) {
				abort_servers(r);
				return ab_err(why, len,
					      "client %d made no progress for %.1f s: the %s hangs; %s",
					      i, (double)(now - last_t[i]) / NS,
					      params.baseline == CFS_BASE_PIPE ? "pipe server" : "daemon",
					      params.baseline == CFS_BASE_FUSE ? "aborted its FUSE connection"
									   : "killed it");
			}
		}
		if (now >= deadline) {
			abort_servers(r);
			return ab_err(why, len, "the measurement passed its deadline (duration + %.0f s)",
				      (double)CFS_GRACE_NS / NS);
		}
		if (now >= until)
			return 0;
		uint64_t step = until - now < CFS_POLL_NS ? until - now : CFS_POLL_NS;
		ab_sleep_ns(step);
	}
}

/* Wait for clients; if they do not end, unblock them, then kill them. Statuses kept. */
static void reap_clients(struct cfs_run *r)
{
	uint64_t deadline = ab_now_ns() + NS;
	int killed = 0;

	for (;;) {
		int left = 0;
		for (int i = 0; i < r->n; i++) {
			if (r->client[i] <= 0)
				continue;
			pid_t w = waitpid(r->client[i], &r->client_status[i], WNOHANG);
			if (w == r->client[i] || (w < 0 && errno == ECHILD))
				r->client[i] = 0;
			else
				left++;
		}
		if (!left)
			return;
		if (ab_now_ns() > deadline) {
			if (!r->aborted) {
				abort_servers(r);
			} else if (!killed) {
				for (int i = 0; i < r->n; i++)
					if (r->client[i] > 0)
						kill(r->client[i], SIGKILL);
				killed = 1;
			}
			deadline = ab_now_ns() + NS;
		}
		ab_sleep_ns(CFS_POLL_NS / 10);
	}
}

static void write_pidfile(pid_t pid)
{
	const char *f = getenv("AFFBENCH_DAEMON_PIDFILE");
	char tmp[4200];

	if (!f || !*f)
		return;
	/* Write then rename: a test that polls for the file never reads half of it. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", f);
	FILE *fp = fopen(tmp, "w");
	if (!fp || fprintf(fp, "%d\n", (int)pid) < 0 || fclose(fp) != 0 || rename(tmp, f) < 0)
		ab_msg("cannot write the daemon pid to %s: %s", f, strerror(errno));
}

static int start_servers(struct cfs_run *r, char *why, size_t len)
{
	static struct cfs_daemon_args da;

	switch (params.baseline) {
	case CFS_BASE_FUSE:
		da = (struct cfs_daemon_args){ .sh = r->sh, .loop = (enum ab_fuse_loop)params.daemon,
					       .pinned = r->pl->daemon_pinned,
					       .cpus = r->pl->daemon_cpus };
		if (ab_daemon_start(&r->d, params.mountpoint, -1, cfs_daemon_run, &da,
				    CFS_MOUNT_TIMEOUT_MS, why, len) < 0)
			return -1;
		r->have_daemon = 1;
		r->d.keep_dir = params.mountpoint != NULL;	/* the user's directory stays */
		snprintf(r->path, sizeof(r->path), "%s/%s", r->d.mnt, CFS_FILE_NAME);
		if (!common.quiet)
			ab_msg("daemon pid %d on %s (connection %d)", (int)r->d.pid, r->d.mnt, r->d.conn);
		write_pidfile(r->d.pid);
		return 0;
	case CFS_BASE_KERNEL:
		if (cfs_kernel_file(r->path, sizeof(r->path), why, len) < 0)
			return -1;
		r->have_kfile = 1;
		return 0;
	case CFS_BASE_PIPE:
		if (cfs_pipes_start(r->pipes, r->n, r->pl->b, r->sh, why, len) < 0)
			return -1;
		write_pidfile(r->pipes[0].pid);
		return 0;
	}
	return ab_err(why, len, "unknown baseline %d", params.baseline);
}

/* Stop the daemon side; -1 with why if it did not end cleanly (it died or hung). */
static int stop_servers(struct cfs_run *r, int hung, char *why, size_t len)
{
	int rc = 0;

	if (r->have_daemon) {
		pid_t pid = r->d.pid;
		/* A hung daemon cannot exit by itself: do not wait long before killing it. */
		int s = ab_daemon_stop(&r->d, hung ? 200 : 3000);
		if (s == -1 || !WIFEXITED(s) || WEXITSTATUS(s) != 0) {
			if (s != -1 && WIFSIGNALED(s))
				rc = ab_err(why, len, "the FUSE daemon (pid %d) was killed by signal %d",
					    (int)pid, WTERMSIG(s));
			else
				rc = ab_err(why, len, "the FUSE daemon (pid %d) exited with status %d",
					    (int)pid, s == -1 ? -1 : WEXITSTATUS(s));
		}
		r->have_daemon = 0;
	}
	if (r->have_kfile) {
		unlink(r->path);
		r->have_kfile = 0;
	}
	if (params.baseline == CFS_BASE_PIPE && r->pipes)
		cfs_pipes_stop(r->pipes, r->n);
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void latency(const struct cfs_run *r, struct cfs_result *res)
{
	size_t total = 0;

	for (int i = 0; i < r->n; i++) {
		uint32_t k = r->sh->client[i].nlat;
		total += k < CFS_LAT_MAX ? k : CFS_LAT_MAX;
	}
	if (!total)
		return;
	uint32_t *all = malloc(total * sizeof(*all));
	double *x = malloc(total * sizeof(*x));
	if (all && x) {
		size_t k = 0;
		for (int i = 0; i < r->n; i++) {
			uint32_t m = r->sh->client[i].nlat;
			m = m < CFS_LAT_MAX ? m : CFS_LAT_MAX;
			memcpy(all + k, r->sh->client[i].lat, m * sizeof(*all));
			k += m;
		}
		/* Sorted once here so ab_percentile's own sort starts from order. */
		qsort(all, total, sizeof(*all), cmp_u32);
		for (size_t j = 0; j < total; j++)
			x[j] = all[j];
		res->v[M_P50] = ab_percentile(x, total, 50);
		res->v[M_P99] = ab_percentile(x, total, 99);
		res->has[M_P50] = res->has[M_P99] = 1;
	}
	free(all);
	free(x);
}

/* One repetition of one placement. 0 with res filled, or -1 with why. */
static int measure(const struct cfs_pl *pl, struct cfs_result *res, char *why, size_t len)
{
	struct cfs_run r = { .pl = pl, .n = params.clients };
	uint64_t *c0 = NULL, *s0 = NULL, *last = NULL, *last_t = NULL;
	int rc = -1, hung = 0;
	char why2[512];

	memset(res, 0, sizeof(*res));
	r.shsize = sizeof(struct cfs_shared) + (size_t)r.n * sizeof(struct cfs_client_shm);
	r.sh = ab_shm_alloc(r.shsize);
	r.client = calloc(r.n, sizeof(*r.client));
	r.client_status = calloc(r.n, sizeof(*r.client_status));
	r.pipes = calloc(r.n, sizeof(*r.pipes));
	c0 = calloc(r.n, sizeof(*c0));
	s0 = calloc(r.n, sizeof(*s0));
	last = calloc(r.n, sizeof(*last));
	last_t = calloc(r.n, sizeof(*last_t));
	if (!r.sh || !r.client || !r.client_status || !r.pipes || !c0 || !s0 || !last || !last_t) {
		ab_err(why, len, "out of memory for %d clients", r.n);
		goto out_free;
	}
	ab_gate_init(&r.sh->gate);
	atomic_store(&r.sh->phase, CFS_WARMUP);

	if (start_servers(&r, why, len) < 0)
		goto out_stop;
	/* Kernel statistics cover the whole run of this connection, from here (mounted,
	 * no client yet) until the clients are reaped, so both counts see the same requests. */
	uint64_t dreq0 = daemon_requests(&r);
	if (kst && r.have_daemon) {
		ab_kstats_set_conn(kst, r.d.conn);
		ab_kstats_add_pid(kst, r.d.pid);
		ab_kstats_reset(kst);
	}

	for (int i = 0; i < r.n; i++) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			ab_err(why, len, "fork of client %d: %s", i, strerror(errno));
			goto out_clients;
		}
		if (pid == 0)
			client_main(&r, i);
		r.client[i] = pid;
	}

	/* All clients have done their first call and wait at the gate. */
	uint64_t start = ab_now_ns();
	for (int i = 0; i < r.n; i++)
		last_t[i] = start;
	while (atomic_load(&r.sh->gate.arrived) < (uint32_t)r.n) {
		if (interrupted || server_gone(&r, why, len) < 0 || client_gone(&r, why, len) < 0) {
			if (interrupted)
				ab_err(why, len, "interrupted by signal %d", (int)interrupted);
			goto out_clients;
		}
		if (ab_now_ns() - start > CFS_GRACE_NS + NS) {
			abort_servers(&r);
			hung = 1;
			ab_err(why, len, "clients did not start within %.0f s: the daemon hangs",
			       (double)(CFS_GRACE_NS + NS) / NS);
			goto out_clients;
		}
		ab_sleep_ns(CFS_POLL_NS / 10);
	}

	double warm = common.duration * 0.2;
	warm = warm < 0.05 ? 0.05 : warm > 0.5 ? 0.5 : warm;
	uint64_t go = ab_now_ns();
	for (int i = 0; i < r.n; i++)
		last_t[i] = go;
	uint64_t deadline = go + (uint64_t)((warm + common.duration) * NS) + CFS_GRACE_NS;
	ab_gate_open(&r.sh->gate);
	if (watch(&r, go + (uint64_t)(warm * NS), deadline, last, last_t, why, len) < 0)
		goto out_watch;

	/* Kernel time and CPUs per request over the measured window (snapshots at both
	 * ends); the request counts below cover the whole run, to cross-check the daemon. */
	struct ab_kstats_result kw0, kw1;
	int kwin = kst && r.have_daemon && ab_kstats_read(kst, &kw0) == 0;
	atomic_store(&r.sh->phase, CFS_MEASURE);
	uint64_t t0 = ab_now_ns();
	uint64_t req0 = ab_counter_read(&r.sh->requests);
	for (int i = 0; i < r.n; i++) {
		c0[i] = ab_counter_read(&r.sh->client[i].calls);
		s0[i] = ab_counter_read(&r.sh->client[i].same);
		req0 += ab_counter_read(&r.sh->client[i].served);
	}
	if (watch(&r, t0 + (uint64_t)(common.duration * NS), deadline, last, last_t, why, len) < 0)
		goto out_watch;
	uint64_t t1 = ab_now_ns();
	uint64_t req1 = ab_counter_read(&r.sh->requests), calls = 0, same = 0;
	for (int i = 0; i < r.n; i++) {
		calls += ab_counter_read(&r.sh->client[i].calls) - c0[i];
		same += ab_counter_read(&r.sh->client[i].same) - s0[i];
		req1 += ab_counter_read(&r.sh->client[i].served);
	}
	kwin = kwin && ab_kstats_read(kst, &kw1) == 0;
	atomic_store(&r.sh->phase, CFS_STOP);
	if (calls == 0 || t1 - t0 < AB_MIN_WINDOW_NS) {
		ab_err(why, len, calls ? "the measured window was too short to time" :
			"no %s completed in the measured interval", op_name());
		goto out_clients;
	}

	res->v[M_STAT] = (double)calls / ((double)(t1 - t0) / NS);
	res->has[M_STAT] = 1;
	if (params.baseline != CFS_BASE_KERNEL) {
		res->v[M_SAME] = 100.0 * (double)same / (double)calls;
		res->v[M_OTHER] = 100.0 - res->v[M_SAME];
		res->v[M_REQ] = (double)(req1 - req0) / (double)calls;
		res->has[M_SAME] = res->has[M_OTHER] = res->has[M_REQ] = 1;
	}
	rc = 0;
	goto out_clients;

out_watch:
	hung = r.aborted;
out_clients:
	atomic_store(&r.sh->phase, CFS_STOP);
	ab_gate_open(&r.sh->gate);	/* clients still at the gate see STOP and leave */
	reap_clients(&r);
	hung |= r.aborted;	/* clients stuck at the end: the daemon hangs, do not wait for it */
	if (rc == 0 && r.aborted) {
		rc = ab_err(why, len, "the %s hangs: clients were stuck in their call at the end of "
			    "the window; %s", params.baseline == CFS_BASE_PIPE ? "pipe server" : "daemon",
			    params.baseline == CFS_BASE_FUSE ? "aborted its FUSE connection" : "killed it");
	}
	if (rc == 0) {
		/* A client that failed after the interval still fails the measurement. */
		for (int i = 0; i < r.n; i++) {
			int s = r.client_status[i];
			if (!WIFEXITED(s) || WEXITSTATUS(s) != 0) {
				int e = atomic_load(&r.sh->client[i].err);
				rc = ab_err(why, len, "client %d failed: %s", i,
					    e ? strerror(e) : "killed");
				break;
			}
		}
	}
	if (rc == 0)
		latency(&r, res);
	if (rc == 0 && kst && r.have_daemon) {
		struct ab_kstats_result k;
		uint64_t n = 0, wn = 0, wsame = 0;
		double wns = 0;

		if (ab_kstats_read(kst, &k) == 0) {
			for (size_t i = 0; i < AB_ARRAY_SIZE(kst_ops); i++)
				n += k.op[kst_ops[i]].count;
			res->v[M_KREQ] = (double)n;
			res->v[M_DREQ] = (double)(daemon_requests(&r) - dreq0);
			res->has[M_KREQ] = res->has[M_DREQ] = 1;
		}
		for (size_t i = 0; kwin && i < AB_ARRAY_SIZE(kst_ops); i++) {
			const struct ab_kstats_op *a = &kw0.op[kst_ops[i]], *b = &kw1.op[kst_ops[i]];
			wn += b->count - a->count;
			wsame += b->same_cpu - a->same_cpu;
			wns += b->sum_ns - a->sum_ns;
		}
		if (wn) {
			res->v[M_KNS] = wns / (double)wn;
			res->v[M_KSAME] = 100.0 * (double)wsame / (double)wn;
			res->has[M_KNS] = res->has[M_KSAME] = 1;
		}
	}
out_stop:
	if (stop_servers(&r, hung, why2, sizeof(why2)) < 0 && rc == 0)
		rc = ab_err(why, len, "%s", why2);
out_free:
	if (rc < 0)
		memset(res, 0, sizeof(*res));
	ab_shm_free(r.sh, r.shsize);
	free(r.client);
	free(r.client_status);
	free(r.pipes);
	free(c0);
	free(s0);
	free(last);
	free(last_t);
	return rc;
}

/* ---- placements, records, tables ---- */

static void cpus_list(const int *cpu, int n, char *buf, size_t len)
{
	struct ab_cpuset s;

	ab_cpuset_zero(&s);
	for (int i = 0; i < n; i++) {
		if (cpu[i] < 0) {	/* unpinned: any CPU --cpus allows */
			if (common.cpus_arg)
				ab_cpuset_format(&common.allowed, buf, len);
			else
				snprintf(buf, len, "any");
			return;
		}
		ab_cpuset_set(&s, cpu[i]);
	}
	ab_cpuset_format(&s, buf, len);
}

/* Parse the --placement list; bad names are a usage error. */
static int parse_placements(const char *arg, enum ab_placement *out, int max)
{
	char buf[512];
	int n = 0;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		ab_usage_error("bad value '%s' for --placement: too long", arg);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			ab_usage_error("bad value '%s' for --placement: more than %d placements", arg, max);
		if (ab_placement_parse(tok, &out[n]) < 0)
			ab_usage_error("bad value '%s' for --placement: expected %s", tok,
				       ab_placement_names());
		n++;
	}
	if (!n)
		ab_usage_error("bad value '%s' for --placement: expected %s", arg, ab_placement_names());
	return n;
}

/* 0, or -1 with the reason the machine cannot offer it. */
static int resolve(struct cfs_pl *pl, const struct ab_topo *topo, char *why, size_t len)
{
	int n = params.clients;

	pl->a = calloc(n, sizeof(int));
	pl->b = calloc(n, sizeof(int));
	if (!pl->a || !pl->b)
		ab_fail("out of memory");
	if (ab_placement_resolve(topo, pl->p, n, pl->a, pl->b, why, len) < 0)
		return -1;
	for (int m = 0; m < M_COUNT; m++) {
		pl->vals[m] = calloc(common.repeat, sizeof(double));
		if (!pl->vals[m])
			ab_fail("out of memory");
	}
	pl->daemon_pinned = pl->p != AB_PL_NONE;
	ab_cpuset_zero(&pl->daemon_cpus);
	for (int i = 0; i < n && pl->daemon_pinned; i++)
		ab_cpuset_set(&pl->daemon_cpus, pl->b[i]);
	cpus_list(pl->a, n, pl->client_list, sizeof(pl->client_list));
	if (params.baseline == CFS_BASE_KERNEL)
		snprintf(pl->daemon_list, sizeof(pl->daemon_list), "none");
	else
		cpus_list(pl->b, n, pl->daemon_list, sizeof(pl->daemon_list));

	ab_config_init(&pl->cfg);
	ab_config_set(&pl->cfg, "placement", "%s", ab_placement_name(pl->p));
	ab_config_set(&pl->cfg, "daemon", "%s",
		      params.baseline == CFS_BASE_FUSE ? loop_names[params.daemon] :
		      params.baseline == CFS_BASE_PIPE ? "single" : "none");
	ab_config_set(&pl->cfg, "clients", "%d", n);
	ab_config_set(&pl->cfg, "baseline", "%s", baseline_names[params.baseline]);
	ab_config_set(&pl->cfg, "client_cpu", "%s", pl->client_list);
	ab_config_set(&pl->cfg, "daemon_cpu", "%s", pl->daemon_list);
	return 0;
}

static void print_value(const char *label, const struct cfs_pl *pl, int m)
{
	int w = 22 - (int)strlen(label);

	if (pl->nvals[m])
		printf("%s%*.2f\n", label, w, ab_median(pl->vals[m], pl->nvals[m]));
	else
		printf("%s%*s\n", label, w, "-");
}

/* The seed's layout, medians over repetitions, then one line of context. */
static void print_table(const struct cfs_pl *pl)
{
	char title[256];
	const char *what = pl->p == AB_PL_NONE ? "without cpu affinity" :
			   pl->p == AB_PL_SAME ? "with cpu affinity" : NULL;
	int off = what ? snprintf(title, sizeof(title), "%s", what) :
			 snprintf(title, sizeof(title), "placement %s", ab_placement_name(pl->p));
	if (params.baseline != CFS_BASE_FUSE)
		off += snprintf(title + off, sizeof(title) - off, ", %s baseline",
				baseline_names[params.baseline]);
	else if (params.daemon != AB_LOOP_SINGLE)
		off += snprintf(title + off, sizeof(title) - off, ", daemon %s", loop_names[params.daemon]);
	if (params.clients > 1)
		snprintf(title + off, sizeof(title) - off, ", %d clients", params.clients);

	printf("#### %s ####\n\n", title);
	print_value("same  cpu (%)", pl, M_SAME);
	print_value("other cpu (%)", pl, M_OTHER);
	printf("----------------------\n");
	print_value(params.baseline == CFS_BASE_PIPE ? "round trips/s" : "stat calls/s", pl, M_STAT);
	if (pl->nvals[M_STAT]) {
		printf("(median of %d; client cpu %s, daemon cpu %s", pl->nvals[M_STAT], pl->client_list,
		       pl->daemon_list);
		if (pl->nvals[M_REQ])
			printf("; requests/stat %.2f", ab_median(pl->vals[M_REQ], pl->nvals[M_REQ]));
		if (pl->nvals[M_P50])
			printf("; latency p50 %.1f us, p99 %.1f us",
			       ab_median(pl->vals[M_P50], pl->nvals[M_P50]) / 1e3,
			       ab_median(pl->vals[M_P99], pl->nvals[M_P99]) / 1e3);
		printf(")\n");
	}
	printf("\n");
}

static void print_ratio(const struct cfs_pl *with, const struct cfs_pl *without)
{
	struct ab_ci ci;
	int nw = with->nvals[M_STAT], nwo = without->nvals[M_STAT];

	if (!nw || !nwo)
		return;
	double ratio = ab_median(with->vals[M_STAT], nw) / ab_median(without->vals[M_STAT], nwo);
	printf("with/without cpu affinity, stat calls/s: %.2f", ratio);
	if (nw > 1 && nwo > 1 &&
	    ab_ratio_ci(with->vals[M_STAT], nw, without->vals[M_STAT], nwo, 0.95, &ci) == 0)
		printf(" (95%% CI %.2f-%.2f, %d and %d reps)\n", ci.lo, ci.hi, nw, nwo);
	else
		printf(" (no CI: needs 2 or more reps each)\n");
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

static void check_fuse(void)
{
	const char *dev = getenv("AFFBENCH_FUSE_DEV");	/* tests point it at a missing device */

	if (!dev || !*dev)
		dev = "/dev/fuse";
	if (geteuid() != 0)
		ab_skip("needs root to mount FUSE and abort hung connections through fusectl: run it as root");
	if (access(dev, R_OK | W_OK) < 0)
		ab_skip("no usable %s (%s): load the fuse module (modprobe fuse), or pass the device "
			"into the container", dev, strerror(errno));
}

int main(int argc, char **argv)
{
	enum ab_placement want[32];
	struct cfs_pl pls[32];
	struct ab_topo topo;
	struct ab_out out;
	char err[512];
	int npl = 0, failed = 0, measured = 0;

	int first = ab_parse_args(argc, argv, &cfs_info, cfs_opts, &params, &common);
	if (first < argc)
		ab_usage_error("unexpected argument '%s' (see --help)", argv[first]);
	int nwant = parse_placements(params.placement, want, (int)AB_ARRAY_SIZE(want));
	int ncpus = ab_cpuset_count(&common.allowed);
	if (params.clients > ncpus) {
		char list[256];
		ab_cpuset_format(&common.allowed, list, sizeof(list));
		ab_usage_error("bad value '%d' for --clients: more than the %d allowed CPUs (%s)",
			       params.clients, ncpus, list);
	}
	if (params.mountpoint && params.baseline == CFS_BASE_FUSE)
		check_mountpoint(params.mountpoint);
	if (params.baseline == CFS_BASE_FUSE) {
		check_fuse();
		ab_mnt_cleanup_stale(NULL, common.quiet ? NULL : stderr);
		if (params.kstats != KS_OFF && ab_kstats_open(&kst, err, sizeof(err)) < 0) {
			if (params.kstats == KS_ON)
				ab_skip("--kstats on: kernel statistics %s", err);
			if (!common.quiet)
				ab_msg("kernel statistics %s: kernel_* metrics not written", err);
		}
	}

	if (ab_topo_load(&topo, NULL, &common.allowed, err, sizeof(err)) < 0)
		ab_fail("cannot read the CPU topology: %s", err);
	for (int i = 0; i < nwant; i++) {
		struct cfs_pl *pl = &pls[npl];
		memset(pl, 0, sizeof(*pl));
		pl->p = want[i];
		if (resolve(pl, &topo, err, sizeof(err)) < 0) {
			ab_msg("skipped: %s", err);
			free(pl->a);
			free(pl->b);
			continue;
		}
		npl++;
	}
	ab_topo_free(&topo);
	if (!npl)
		return AB_EXIT_SKIP;

	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	ab_out_init(&out, stdout, common.format, "cputestfs");
	/* Interleaved: rep 1 of every placement, then rep 2, ... so drift hits all alike. */
	for (int rep = 1; rep <= common.repeat && !interrupted; rep++) {
		for (int k = 0; k < npl && !interrupted; k++) {
			struct cfs_pl *pl = &pls[k];
			struct cfs_result res;

			if (!common.quiet)
				ab_msg("rep %d/%d placement=%s client_cpu=%s daemon_cpu=%s", rep,
				       common.repeat, ab_placement_name(pl->p), pl->client_list,
				       pl->daemon_list);
			if (measure(pl, &res, err, sizeof(err)) < 0) {
				ab_msg("rep %d placement=%s: measurement failed: %s", rep,
				       ab_placement_name(pl->p), err);
				failed = 1;
				continue;
			}
			measured++;
			for (int m = 0; m < M_COUNT; m++) {
				if (!res.has[m])
					continue;
				pl->vals[m][pl->nvals[m]++] = res.v[m];
				if (common.format != AB_FMT_TABLE)
					ab_record(&out, &pl->cfg, rep, metrics[m].name, res.v[m],
						  metrics[m].unit);
			}
			if (!common.quiet) {
				char extra[128] = "";
				if (res.has[M_SAME])
					snprintf(extra, sizeof(extra), ", same cpu %.1f%%, %.3f requests/%s",
						 res.v[M_SAME], res.v[M_REQ], op_name());
				ab_msg("rep %d placement=%s: %.0f %s/s%s", rep, ab_placement_name(pl->p),
				       res.v[M_STAT], op_name(), extra);
			}
		}
	}

	if (common.format == AB_FMT_TABLE && measured) {
		const struct cfs_pl *with = NULL, *without = NULL;
		for (int k = 0; k < npl; k++) {
			print_table(&pls[k]);
			if (pls[k].p == AB_PL_SAME && !with)
				with = &pls[k];
			if (pls[k].p == AB_PL_NONE && !without)
				without = &pls[k];
		}
		if (with && without)
			print_ratio(with, without);
	}
	fflush(stdout);
	ab_kstats_close(kst);
	for (int k = 0; k < npl; k++) {
		free(pls[k].a);
		free(pls[k].b);
		for (int m = 0; m < M_COUNT; m++)
			free(pls[k].vals[m]);
	}
	if (interrupted)
		return AB_EXIT_FAIL;
	return failed ? AB_EXIT_FAIL : AB_EXIT_OK;
}
