/*
 * ddpar: N processes streaming blocks to or from one FUSE mount, without and
 * with cloned /dev/fuse fds (libfuse clone_fd: each daemon thread reads its
 * requests from its own fd), seed 001 (fuse-devel 2015). Per point: write or
 * read MB/s (aggregate, MB = 10^6 bytes), requests/s, latency per call as the
 * caller sees it, daemon time per request, and, with kernel statistics, time
 * each request spends in the kernel and spinlock wait per request.
 *
 * Each point gets a fresh daemon (sink filesystem, fs.c) and N fresh workers
 * started together by a gate. Workers count; the parent samples after a
 * warm-up. Workers read the clock around each call for the latency histogram:
 * two vDSO reads (~50 ns) against a 128 KiB FUSE round trip of tens of us.
 * At the end of a point, with every worker gone and the daemon unmounted, the
 * bytes the daemon counted must equal the bytes the workers moved; a mismatch
 * fails the point.
 *
 * --dd runs coreutils dd instead (as the seed did): a short calibration run
 * sizes count= so that each dd lasts about --duration; throughput is bytes
 * moved / wall time from the gate to the last dd's exit (exec included).
 *
 * Known limits: latency percentiles come from a log2 histogram (within a
 * factor of sqrt(2)); max_write is capped at 1 MiB by libfuse 3.14; the FUSE
 * connection knobs need fusectl: if it is not mounted ddpar mounts it in a
 * private mount namespace of its own, so its mounts are then invisible to
 * other processes (and gone when it exits).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "ddpar.h"
#include "knob.h"
#include "kstats.h"
#include "opts.h"
#include "record.h"

enum { MODE_WRITE, MODE_READ, MODE_BOTH };
enum { CLONE_OFF, CLONE_ON, CLONE_BOTH };
enum { DAEMON_SINGLE, DAEMON_MULTI };
enum { KS_AUTO, KS_ON, KS_OFF };

#define DDP_DEFAULT_BS (128 * 1024)
#define DDP_GATE_TIMEOUT_NS (10ull * 1000000000ull)
#define DDP_STOP_TIMEOUT_MS 5000
#define DDP_MOUNT_TIMEOUT_MS 5000
#define DDP_POLL_NS (10 * 1000000ull)
#define DDP_DD_CAL_BYTES (4u << 20)	/* per dd in the calibration run */

struct ddp_params {
	int mode;
	struct ab_intlist procs;	/* n == 0: the default sweep */
	int clone_fd;
	int daemon;
	int threads;			/* 0: libfuse's default */
	size_t bs;
	size_t max_write;		/* 0: 128 KiB, or bs if larger */
	int dd;
	int max_background;		/* 0: leave the connection's value */
	int congestion;
	int kstats;
};

static struct ddp_params P = {
	.mode = MODE_BOTH,
	.clone_fd = CLONE_BOTH,
	.daemon = DAEMON_MULTI,
	.bs = DDP_DEFAULT_BS,
	.kstats = KS_AUTO,
};

#define OPT(name, type, field, arg, help, ...) \
	{ name, type, offsetof(struct ddp_params, field), arg, help, __VA_ARGS__ }
static const struct ab_opt ddp_opts[] = {
	OPT("mode", AB_OPT_CHOICE, mode, NULL, "write, read, or both (writes first)", 0, 0, "write|read|both"),
	OPT("procs", AB_OPT_INTLIST, procs, "LIST",
	    "numbers of parallel processes (default 1,2,4,.. up to max(8, 2 x CPUs), at most 128)",
	    1, DDP_MAX_PROCS, NULL),
	OPT("clone-fd", AB_OPT_CHOICE, clone_fd, NULL, "daemon reads /dev/fuse through one fd or one per thread",
	    0, 0, "off|on|both"),
	OPT("daemon", AB_OPT_CHOICE, daemon, NULL, "daemon loop (clone_fd needs multi)", 0, 0, "single|multi"),
	OPT("threads", AB_OPT_INT, threads, "N", "most daemon threads (multi; 0: libfuse's default)", 1, 100000, NULL),
	OPT("bs", AB_OPT_SIZE, bs, "SIZE", "block per read()/write(), a multiple of 4K", 4096, DDP_MAX_WRITE_LIMIT, NULL),
	OPT("max-write", AB_OPT_SIZE, max_write, "SIZE",
	    "FUSE max_write, max_pages to match (0: 128K, or bs if larger)", 4096,
	    DDP_MAX_WRITE_LIMIT, NULL),
	OPT("dd", AB_OPT_FLAG, dd, NULL, "run coreutils dd processes instead of the built-in loop", 0, 0, NULL),
	OPT("max-background", AB_OPT_INT, max_background, "N",
	    "set the connection's max_background (sysfs, restored; 0: leave it)", 1, 65535, NULL),
	OPT("congestion-threshold", AB_OPT_INT, congestion, "N",
	    "set the connection's congestion_threshold (sysfs, restored; 0: leave it)", 1, 65535, NULL),
	OPT("kstats", AB_OPT_CHOICE, kstats, NULL, "kernel time and spinlock wait per request (BPF)", 0, 0,
	    "auto|on|off"),
	{ 0 },
};

static const struct ab_prog_info ddp_info = {
	.name = "ddpar",
	.summary = "parallel dd-style writers and readers on one FUSE mount, without and with clone_fd (seed 001)",
	.usage_extra = "MB/s means 10^6 bytes per second, summed over all processes. Environment:\n"
		       "AFFBENCH_FUSE_DEV (device checked, default /dev/fuse), AFFBENCH_DAEMON_PIDFILE\n"
		       "(the daemon's pid is written there at each point).",
	.default_duration = 1.0,
	.default_repeat = 3,
};

static struct ab_common C;
static volatile sig_atomic_t interrupted;

/* One point of the sweep and what it measured (NAN: not measured). */
struct ddp_point {
	enum ddp_dir dir;
	int n;
	int clone;		/* 0 off, 1 on */
	int rep;
};
struct ddp_result {
	int ok;
	double mbps, reqps, p50_us, p99_us, daemon_us, kernel_us, spin_us;
};

struct ddp_ctx {
	struct ddp_shared *sh;
	struct ab_kstats *ks;
	struct ab_out out;
	size_t max_write;
	uint64_t crash_after;
	int miscount;
	const char *pidfile;
};

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void sleep_until(uint64_t deadline)
{
	uint64_t now = ab_now_ns();

	if (now < deadline)
		ab_sleep_ns(deadline - now);
}

static void config_for(const struct ddp_point *pt, struct ab_config *c)
{
	ab_config_init(c);
	ab_config_set(c, "bs", "%zu", P.bs);
	ab_config_set(c, "clone_fd", "%s", pt->clone ? "on" : "off");
	ab_config_set(c, "daemon", "%s", P.daemon == DAEMON_SINGLE ? "single" : "multi");
	ab_config_set(c, "mode", "%s", pt->dir == DDP_WRITE ? "write" : "read");
	ab_config_set(c, "procs", "%d", pt->n);
	if (P.dd)
		ab_config_set(c, "client", "dd");
	if (P.max_write)
		ab_config_set(c, "max_write", "%zu", P.max_write);
	if (P.threads)
		ab_config_set(c, "threads", "%d", P.threads);
	if (P.max_background)
		ab_config_set(c, "max_background", "%d", P.max_background);
	if (P.congestion)
		ab_config_set(c, "congestion_threshold", "%d", P.congestion);
}

/* ---- workers ---- */

static void child_setup(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (size_t i = 0; i < AB_ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
	if (C.cpus_arg && ab_pin_self_set(&C.allowed) < 0) {
		ab_msg("cannot pin a worker to CPUs %s: %s", C.cpus_arg, strerror(errno));
		_exit(126);
	}
}

/* The measured loop: one block per call, counted; timed only while measuring. */
static int stream(int fd, enum ddp_dir dir, char *buf, struct ddp_worker *w, _Atomic int *phase)
{
	int ph;

	while ((ph = atomic_load_explicit(phase, memory_order_relaxed)) != DDP_STOP) {
		uint64_t t0 = ab_now_ns();
		ssize_t r = dir == DDP_WRITE ? write(fd, buf, P.bs) : read(fd, buf, P.bs);
		uint64_t t1 = ab_now_ns();
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		ab_counter_add(&w->bytes, (uint64_t)r);
		ab_counter_inc(&w->ops);
		if ((size_t)r != P.bs)
			return r == 0 ? ENODATA : EIO;	/* EOF or a short transfer: never expected */
		if (ph == DDP_MEASURE)
			ab_hist_add(&w->lat, t1 - t0);
	}
	return 0;
}

static void __attribute__((noreturn)) worker(struct ddp_ctx *x, const struct ddp_point *pt, int i,
					     const char *mnt)
{
	struct ddp_worker *w = &x->sh->w[i];
	char path[4200];
	int err = 0;

	child_setup();
	snprintf(path, sizeof(path), DDP_FILE_FMT(pt->dir), mnt, i);
	char *buf = aligned_alloc(4096, P.bs);
	int fd = open(path, pt->dir == DDP_WRITE ? O_WRONLY | O_CREAT | O_CLOEXEC : O_RDONLY | O_CLOEXEC,
		      0644);
	if (!buf || fd < 0)
		err = buf ? errno : ENOMEM;
	else
		memset(buf, 'x', P.bs);
	/* Arrive even after a failure, so the parent never waits for us in vain. */
	ab_gate_arrive_wait(&x->sh->gate);
	if (!err)
		err = stream(fd, pt->dir, buf, w, &x->sh->phase);
	atomic_store(&w->err, err);
	_exit(err ? 1 : 0);
}

static void __attribute__((noreturn)) dd_child(struct ddp_ctx *x, const struct ddp_point *pt, int i,
					       const char *mnt, uint64_t count)
{
	char path[4200], inarg[4300], outarg[4300], bsarg[64], countarg[64];

	child_setup();
	snprintf(path, sizeof(path), DDP_FILE_FMT(pt->dir), mnt, i);
	snprintf(inarg, sizeof(inarg), "if=%s", pt->dir == DDP_WRITE ? "/dev/zero" : path);
	snprintf(outarg, sizeof(outarg), "of=%s", pt->dir == DDP_WRITE ? path : "/dev/null");
	snprintf(bsarg, sizeof(bsarg), "bs=%zu", P.bs);
	snprintf(countarg, sizeof(countarg), "count=%llu", (unsigned long long)count);
	ab_gate_arrive_wait(&x->sh->gate);
	execlp("dd", "dd", inarg, outarg, bsarg, countarg, "status=none", (char *)NULL);
	ab_msg("cannot run dd: %s", strerror(errno));
	_exit(127);
}

/* Fork n workers (or dd's with count blocks each). Returns how many started. */
static int spawn(struct ddp_ctx *x, const struct ddp_point *pt, const char *mnt, uint64_t dd_count,
		 pid_t *pids)
{
	ab_gate_init(&x->sh->gate);
	fflush(NULL);
	for (int i = 0; i < pt->n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			ab_msg("fork of worker %d: %s", i, strerror(errno));
			return i;
		}
		if (pid == 0) {
			if (P.dd)
				dd_child(x, pt, i, mnt, dd_count);
			worker(x, pt, i, mnt);
		}
		pids[i] = pid;
		if (x->ks)
			ab_kstats_add_pid(x->ks, pid);
	}
	return pt->n;
}

/*
 * Reap workers until deadline_ns; then abort the connection (a worker stuck in
 * a request on a hung daemon) and SIGKILL the rest. Returns how many exited
 * with a status other than 0.
 */
static int reap(pid_t *pids, int n, int conn, uint64_t deadline_ns)
{
	int bad = 0, left = n, aborted = 0;

	while (left > 0) {
		for (int i = 0; i < n; i++) {
			int st;
			if (pids[i] <= 0 || waitpid(pids[i], &st, WNOHANG) != pids[i])
				continue;
			pids[i] = 0;
			left--;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
				bad++;
		}
		if (left == 0)
			break;
		if (ab_now_ns() >= deadline_ns && !aborted) {
			ab_msg("%d worker(s) still running %d ms after the end: aborting FUSE connection %d",
			       left, DDP_STOP_TIMEOUT_MS, conn);
			ab_mnt_abort_conn(conn);
			for (int i = 0; i < n; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGKILL);
			aborted = 1;
		}
		ab_sleep_ns(1000000);
	}
	return bad;
}

/* ---- one point ---- */

static uint64_t sum_bytes(struct ddp_shared *sh, int n)
{
	uint64_t s = 0;

	for (int i = 0; i < n; i++)
		s += ab_counter_read(&sh->w[i].bytes);
	return s;
}
static uint64_t sum_ops(struct ddp_shared *sh, int n)
{
	uint64_t s = 0;

	for (int i = 0; i < n; i++)
		s += ab_counter_read(&sh->w[i].ops);
	return s;
}

static int set_knobs(int conn)
{
	static const struct {
		const char *file;
		size_t off;
	} knobs[] = {
		{ "max_background", offsetof(struct ddp_params, max_background) },
		{ "congestion_threshold", offsetof(struct ddp_params, congestion) },
	};
	char path[128], val[32], err[512];

	for (size_t i = 0; i < AB_ARRAY_SIZE(knobs); i++) {
		int v = *(const int *)((const char *)&P + knobs[i].off);
		if (!v)
			continue;
		snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%d/%s", conn, knobs[i].file);
		snprintf(val, sizeof(val), "%d", v);
		if (ab_knob_write(path, val, NULL, 0, err, sizeof(err)) < 0) {
			ab_msg("%s", err);
			return -1;
		}
	}
	return 0;
}

/* Sleep until deadline while the daemon and the workers are healthy. 0, or -1 with a reason. */
static int watch(struct ddp_ctx *x, struct ab_daemon *d, int n, uint64_t deadline, char *why,
		 size_t len)
{
	for (;;) {
		if (interrupted)
			return ab_err(why, len, "interrupted");
		if (!ab_daemon_alive(d))
			return ab_err(why, len, "the FUSE daemon (pid %d) died during the run", (int)d->pid);
		for (int i = 0; i < n; i++) {
			int e = atomic_load(&x->sh->w[i].err);
			if (!e)
				continue;
			/* A dying daemon closes /dev/fuse (workers see ENOTCONN) before it can be reaped. */
			ab_sleep_ns(50 * 1000000ull);
			if (!ab_daemon_alive(d))
				return ab_err(why, len, "the FUSE daemon (pid %d) died during the run "
					      "(worker %d: %s)", (int)d->pid, i, strerror(e));
			return ab_err(why, len, "worker %d: %s", i, strerror(e));
		}
		uint64_t now = ab_now_ns();
		if (now >= deadline)
			return 0;
		sleep_until(now + DDP_POLL_NS < deadline ? now + DDP_POLL_NS : deadline);
	}
}

static void kstats_fill(struct ddp_ctx *x, const struct ddp_point *pt, struct ddp_result *res)
{
	struct ab_kstats_result r;
	int op = pt->dir == DDP_WRITE ? AB_FUSE_WRITE : AB_FUSE_READ;

	if (!x->ks || ab_kstats_read(x->ks, &r) < 0)
		return;
	if (r.op[op].count)
		res->kernel_us = r.op[op].sum_ns / (double)r.op[op].count / 1000.0;
	if (r.requests)
		res->spin_us = r.spin_wait_ns / (double)r.requests / 1000.0;
}

/* The built-in loop: gate, warm-up, measured interval, stop. */
static int run_loop(struct ddp_ctx *x, const struct ddp_point *pt, struct ab_daemon *d,
		    struct ddp_result *res, char *why, size_t len)
{
	struct ddp_shared *sh = x->sh;
	double warmup = C.duration / 4 < 0.25 ? C.duration / 4 : 0.25;
	struct ddp_dtotals d0, d1;

	if (ab_gate_wait_arrived(&sh->gate, (unsigned)pt->n, DDP_GATE_TIMEOUT_NS) < 0)
		return ab_err(why, len, "workers did not reach the start gate within 10 s");
	ab_gate_open(&sh->gate);
	if (watch(x, d, pt->n, ab_now_ns() + (uint64_t)(warmup * 1e9), why, len) < 0)
		return -1;

	if (x->ks)
		ab_kstats_reset(x->ks);
	atomic_store(&sh->phase, DDP_MEASURE);
	uint64_t t0 = ab_now_ns();
	uint64_t b0 = sum_bytes(sh, pt->n), o0 = sum_ops(sh, pt->n);
	ddp_daemon_totals(sh, pt->dir, &d0);

	if (watch(x, d, pt->n, t0 + (uint64_t)(C.duration * 1e9), why, len) < 0)
		return -1;

	uint64_t t1 = ab_now_ns();
	uint64_t b1 = sum_bytes(sh, pt->n), o1 = sum_ops(sh, pt->n);
	ddp_daemon_totals(sh, pt->dir, &d1);
	kstats_fill(x, pt, res);
	atomic_store(&sh->phase, DDP_STOP);

	double sec = (double)(t1 - t0) / 1e9;
	/* A rate needs a window to time and something moved in it: else no number. */
	if (t1 - t0 < AB_MIN_WINDOW_NS)
		return ab_err(why, len, "the measured window was %.6f s, too short to time", sec);
	if (b1 == b0)
		return ab_err(why, len, "no byte moved in the measured %.3f s", sec);
	res->mbps = (double)(b1 - b0) / 1e6 / sec;
	res->reqps = (double)(o1 - o0) / sec;
	if (d1.req > d0.req)
		res->daemon_us = (double)(d1.ns - d0.ns) / (double)(d1.req - d0.req) / 1000.0;
	/* Histograms are merged after the workers exit (run_point). */
	return 0;
}

/* Run n dd's of count blocks each; wall time from the gate to the last exit in *sec. */
static int run_dd_once(struct ddp_ctx *x, const struct ddp_point *pt, struct ab_daemon *d,
		       uint64_t count, double *sec, char *why, size_t len)
{
	pid_t pids[DDP_MAX_PROCS] = { 0 };
	int started = spawn(x, pt, d->mnt, count, pids);

	if (started < pt->n) {
		for (int i = 0; i < started; i++)
			kill(pids[i], SIGKILL);
		reap(pids, started, d->conn, 0);
		return ab_err(why, len, "could not start %d dd processes", pt->n);
	}
	if (ab_gate_wait_arrived(&x->sh->gate, (unsigned)pt->n, DDP_GATE_TIMEOUT_NS) < 0) {
		reap(pids, pt->n, d->conn, 0);
		return ab_err(why, len, "dd processes did not reach the start gate within 10 s");
	}
	if (x->ks)
		ab_kstats_reset(x->ks);
	uint64_t t0 = ab_now_ns();
	ab_gate_open(&x->sh->gate);
	/* Generous: ten times the planned duration, plus slack for slow exec. */
	int bad = reap(pids, pt->n, d->conn, t0 + (uint64_t)(10 * C.duration * 1e9) + 10000000000ull);
	*sec = (double)(ab_now_ns() - t0) / 1e9;
	if (bad)
		return ab_err(why, len, "%d dd process(es) failed%s", bad,
			      ab_daemon_alive(d) ? "" : " (the FUSE daemon died)");
	return 0;
}

static int run_dd(struct ddp_ctx *x, const struct ddp_point *pt, struct ab_daemon *d,
		  struct ddp_result *res, uint64_t *client_bytes, char *why, size_t len)
{
	uint64_t cal = DDP_DD_CAL_BYTES / P.bs ? DDP_DD_CAL_BYTES / P.bs : 1, cal_blocks = 0;
	struct ddp_dtotals d0, d1;
	double sec;

	/*
	 * Calibration (also the warm-up): how long does one dd take per block at
	 * this N? A short batch is mostly dd's fork and exec, so grow the batch
	 * until it runs for a quarter of --duration before extrapolating.
	 */
	for (int i = 0;; i++) {
		if (run_dd_once(x, pt, d, cal, &sec, why, len) < 0)
			return -1;
		cal_blocks += cal;
		if (sec >= C.duration / 4 || i == 5)
			break;
		double grow = ceil(C.duration / 4 / (sec > 1e-3 ? sec : 1e-3));
		cal *= grow < 2 ? 2 : grow > 64 ? 64 : (uint64_t)grow;
	}
	uint64_t count = (uint64_t)ceil(C.duration * (double)cal / sec);
	if (count < 1)
		count = 1;

	ddp_daemon_totals(x->sh, pt->dir, &d0);
	if (run_dd_once(x, pt, d, count, &sec, why, len) < 0)
		return -1;
	ddp_daemon_totals(x->sh, pt->dir, &d1);
	kstats_fill(x, pt, res);

	uint64_t bytes = (uint64_t)pt->n * count * P.bs;
	if (sec * 1e9 < AB_MIN_WINDOW_NS)
		return ab_err(why, len, "the dd run took %.6f s, too short to time", sec);
	res->mbps = (double)bytes / 1e6 / sec;
	res->reqps = (double)(d1.req - d0.req) / sec;
	if (d1.req > d0.req)
		res->daemon_us = (double)(d1.ns - d0.ns) / (double)(d1.req - d0.req) / 1000.0;
	/* Every dd run counts toward the byte check: calibration bytes included. */
	*client_bytes = bytes + (uint64_t)pt->n * cal_blocks * P.bs;
	return 0;
}

static void write_pidfile(const char *file, pid_t pid)
{
	FILE *f = fopen(file, "we");

	if (!f) {
		ab_msg("cannot write the daemon pid to %s: %s", file, strerror(errno));
		return;
	}
	fprintf(f, "%d\n", (int)pid);
	fclose(f);
}

static int run_point(struct ddp_ctx *x, const struct ddp_point *pt, struct ddp_result *res)
{
	struct ddp_daemon_args da = {
		.sh = x->sh,
		.loop = pt->clone ? AB_LOOP_CLONE_FD : P.daemon == DAEMON_SINGLE ? AB_LOOP_SINGLE : AB_LOOP_MULTI,
		.max_threads = P.threads,
		.max_write = (unsigned)x->max_write,
		.pinned = C.cpus_arg != NULL,
		.cpus = C.allowed,
		.crash_after = x->crash_after,
		.miscount = x->miscount,
	};
	struct ab_daemon d;
	pid_t pids[DDP_MAX_PROCS] = { 0 };
	char why[512] = "", err[512];
	uint64_t client_bytes = 0;
	int failed = 0;

	*res = (struct ddp_result){ 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
	memset(x->sh, 0, sizeof(*x->sh));
	if (ab_daemon_start(&d, NULL, -1, ddp_daemon_run, &da, DDP_MOUNT_TIMEOUT_MS, err, sizeof(err)) < 0) {
		ab_msg("%s", err);
		return -1;
	}
	if (x->pidfile)
		write_pidfile(x->pidfile, d.pid);
	if (x->ks) {
		ab_kstats_set_conn(x->ks, d.conn);
		ab_kstats_add_pid(x->ks, d.pid);
	}
	if ((P.max_background || P.congestion) && set_knobs(d.conn) < 0) {
		ab_err(why, sizeof(why), "could not set the FUSE connection knobs");
		failed = 1;
	} else if (P.dd) {
		failed = run_dd(x, pt, &d, res, &client_bytes, why, sizeof(why)) < 0;
	} else if (spawn(x, pt, d.mnt, 0, pids) < pt->n) {
		ab_err(why, sizeof(why), "could not start %d workers", pt->n);
		failed = 1;
	} else {
		failed = run_loop(x, pt, &d, res, why, sizeof(why)) < 0;
	}

	if (!P.dd) {
		/* Workers end at STOP, or on ENOTCONN if the daemon died. */
		atomic_store(&x->sh->phase, DDP_STOP);
		if (reap(pids, pt->n, d.conn, ab_now_ns() + DDP_STOP_TIMEOUT_MS * 1000000ull) && !failed) {
			for (int i = 0; i < pt->n; i++) {
				int e = atomic_load(&x->sh->w[i].err);
				if (e) {
					ab_err(why, sizeof(why), "worker %d: %s", i, strerror(e));
					break;
				}
			}
			if (!why[0])
				ab_err(why, sizeof(why), "a worker failed");
			failed = 1;
		}
		client_bytes = sum_bytes(x->sh, pt->n);
	}
	if (P.max_background || P.congestion)
		ab_knob_restore_all();	/* while the connection still exists */
	int st = ab_daemon_stop(&d, DDP_STOP_TIMEOUT_MS);
	int daemon_ok = st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!daemon_ok && !failed) {
		ab_err(why, sizeof(why), "the FUSE daemon ended abnormally (wait status 0x%x)", (unsigned)st);
		failed = 1;
	}

	struct ab_config cfg;
	config_for(pt, &cfg);
	/* table: only the seed's layout at the end; csv and json: every record as it comes. */
	int records = C.format != AB_FMT_TABLE;
	uint64_t daemon_bytes = 0;
	if (daemon_ok) {
		/* Everything is answered and unmounted now: the two counts must agree exactly. */
		struct ddp_dtotals t;
		ddp_daemon_totals(x->sh, pt->dir, &t);
		daemon_bytes = t.bytes;
		if (daemon_bytes != client_bytes && !failed) {
			ab_err(why, sizeof(why), "the daemon counted %llu bytes, the clients moved %llu",
			       (unsigned long long)daemon_bytes, (unsigned long long)client_bytes);
			failed = 1;
		}
		/* direct_io and bs <= max_write: one call, one request. */
		if (!P.dd && t.req != sum_ops(x->sh, pt->n) && !failed) {
			ab_err(why, sizeof(why), "the daemon answered %llu requests for %llu calls",
			       (unsigned long long)t.req, (unsigned long long)sum_ops(x->sh, pt->n));
			failed = 1;
		}
	}
	if (failed) {
		ab_msg("%s procs=%d clone_fd=%s rep %d failed: %s", pt->dir == DDP_WRITE ? "write" : "read",
		       pt->n, pt->clone ? "on" : "off", pt->rep + 1, why);
		return -1;
	}
	/* Only a point that passed its checks writes numbers, the byte counts included. */
	if (records) {
		ab_record(&x->out, &cfg, pt->rep + 1, "client_bytes", (double)client_bytes, "bytes");
		ab_record(&x->out, &cfg, pt->rep + 1, "daemon_bytes", (double)daemon_bytes, "bytes");
	}

	if (!P.dd) {
		struct ab_hist h = { { 0 } };
		for (int i = 0; i < pt->n; i++)
			ab_hist_merge(&h, &x->sh->w[i].lat);
		if (ab_hist_count(&h)) {
			res->p50_us = ab_hist_percentile(&h, 50) / 1000.0;
			res->p99_us = ab_hist_percentile(&h, 99) / 1000.0;
		}
	}
	res->ok = 1;
	static const struct {
		const char *name, *unit;
		size_t off;
	} metrics[] = {
		{ NULL, "MB/s", offsetof(struct ddp_result, mbps) },
		{ "requests_per_s", "req/s", offsetof(struct ddp_result, reqps) },
		{ "lat_p50_us", "us", offsetof(struct ddp_result, p50_us) },
		{ "lat_p99_us", "us", offsetof(struct ddp_result, p99_us) },
		{ "daemon_us_per_req", "us", offsetof(struct ddp_result, daemon_us) },
		{ "kernel_us_per_req", "us", offsetof(struct ddp_result, kernel_us) },
		{ "spin_us_per_req", "us", offsetof(struct ddp_result, spin_us) },
	};
	for (size_t i = 0; i < AB_ARRAY_SIZE(metrics); i++) {
		double v = *(const double *)((const char *)res + metrics[i].off);
		const char *name = metrics[i].name ? metrics[i].name :
				   pt->dir == DDP_WRITE ? "write_MB_per_s" : "read_MB_per_s";
		if (records && !isnan(v))
			ab_record(&x->out, &cfg, pt->rep + 1, name, v, metrics[i].unit);
	}
	return 0;
}

/* ---- output in the seed's layout ---- */

static double median_of(struct ddp_result *r, int reps, size_t off)
{
	double v[reps];
	int n = 0;

	for (int i = 0; i < reps; i++) {
		double x = *(const double *)((const char *)&r[i] + off);
		if (r[i].ok && !isnan(x))
			v[n++] = x;
	}
	return n ? ab_median(v, (size_t)n) : NAN;
}

static void cell(char *buf, size_t len, double v, const char *fmt, const char *unit)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else {
		int k = snprintf(buf, len, fmt, v);
		if (k > 0 && (size_t)k < len)
			snprintf(buf + k, len - (size_t)k, "%s", unit);
	}
}

/* res is indexed [dir][procs index][clone][rep] */
#define RES(dir, ni, cl) (&res[(((size_t)(dir) * (size_t)np + (size_t)(ni)) * 2 + (size_t)(cl)) * (size_t)C.repeat])

static void print_tables(struct ddp_result *res, const int *procs, int np, const int *dirs, int ndirs)
{
	static const char *const title[] = { "Writes to single mount", "Reading from single mount" };
	char a[64], b[64];
	int num = 1;

	for (int k = 0; k < ndirs; k++) {
		int dir = dirs[k];
		printf("%d) %s (MB/s = 10^6 bytes/s, median of %d x %g s, bs %zu)\n", num++, title[dir],
		       C.repeat, C.duration, P.bs);
		printf("%-13s %-28s %s\n", "dd processes", "throughput(without clone_fd)",
		       "throughput(with clone_fd)");
		printf("in parallel\n");
		for (int ni = 0; ni < np; ni++) {
			cell(a, sizeof(a), median_of(RES(dir, ni, 0), C.repeat, offsetof(struct ddp_result, mbps)),
			     "%.1f", " MB/s");
			cell(b, sizeof(b), median_of(RES(dir, ni, 1), C.repeat, offsetof(struct ddp_result, mbps)),
			     "%.1f", " MB/s");
			printf("%-13d %-28s %s\n", procs[ni], a, b);
		}
		printf("\n");
	}

	static const struct {
		const char *head;
		size_t off;
	} cols[] = {
		{ "kernel", offsetof(struct ddp_result, kernel_us) },
		{ "spin", offsetof(struct ddp_result, spin_us) },
		{ "daemon", offsetof(struct ddp_result, daemon_us) },
	};
	printf("%d) Time per request (us, median; kernel = FUSE request queued..answered, "
	       "spin = spinlock wait, daemon = inside the handler)\n", num);
	printf("%-6s %-6s", "mode", "procs");
	for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++)
		printf(" %-11s %-11s", cols[c].head, cols[c].head);
	printf("\n%-6s %-6s", "", "");
	for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++)
		printf(" %-11s %-11s", "(without)", "(with)");
	printf("\n");
	for (int k = 0; k < ndirs; k++) {
		for (int ni = 0; ni < np; ni++) {
			printf("%-6s %-6d", dirs[k] == DDP_WRITE ? "write" : "read", procs[ni]);
			for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++) {
				cell(a, sizeof(a), median_of(RES(dirs[k], ni, 0), C.repeat, cols[c].off), "%.4f", "");
				cell(b, sizeof(b), median_of(RES(dirs[k], ni, 1), C.repeat, cols[c].off), "%.4f", "");
				printf(" %-11s %-11s", a, b);
			}
			printf("\n");
		}
	}
}

/* ---- main ---- */

/* fusectl is needed for the connection knobs; mount it where nobody else sees it. */
static void ensure_fusectl(void)
{
	if (access("/sys/fs/fuse/connections", F_OK) < 0)
		ab_skip("no /sys/fs/fuse/connections: load the fuse module (modprobe fuse) for the connection knobs");
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[1024];
	int mounted = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " /sys/fs/fuse/connections fusectl "))
			mounted = 1;
	if (f)
		fclose(f);
	if (mounted)
		return;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("fusectl", "/sys/fs/fuse/connections", "fusectl", 0, NULL) < 0)
		ab_skip("fusectl is not mounted and cannot be mounted privately (%s): "
			"mount -t fusectl none /sys/fs/fuse/connections", strerror(errno));
}

static uint64_t env_u64(const char *name)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 10) : 0;
}

int main(int argc, char **argv)
{
	struct ddp_ctx x = { 0 };
	int procs[AB_INTLIST_MAX], np = 0, dirs[2], ndirs = 0, clones[2], nclones = 0;
	char why[512];

	int first = ab_parse_args(argc, argv, &ddp_info, ddp_opts, &P, &C);
	if (first < argc)
		ab_usage_error("unexpected argument '%s' (see --help)", argv[first]);

	/* Bad usage first: one line, exit 2. */
	if (P.bs % 4096)
		ab_usage_error("bad value '%zu' for --bs: must be a multiple of 4096", P.bs);
	if (P.max_write && P.max_write % 4096)
		ab_usage_error("bad value '%zu' for --max-write: must be a multiple of 4096", P.max_write);
	x.max_write = P.max_write ? P.max_write : P.bs > DDP_DEFAULT_BS ? P.bs : DDP_DEFAULT_BS;
	if (P.bs > x.max_write)
		ab_usage_error("bad value '%zu' for --bs: above --max-write %zu (one block must be one request)",
			       P.bs, x.max_write);
	/* clone_fd needs worker threads: --daemon single alone means without it; asking
	 * for both explicitly is a contradiction. */
	int clone_given = 0;
	for (int i = 1; i < first; i++)
		clone_given |= !strncmp(argv[i], "--clone-fd", 10);
	if (P.daemon == DAEMON_SINGLE && !clone_given)
		P.clone_fd = CLONE_OFF;
	if (P.daemon == DAEMON_SINGLE && P.clone_fd != CLONE_OFF)
		ab_usage_error("--daemon single cannot use clone_fd (it needs worker threads): "
			       "add --clone-fd off or use --daemon multi");
	if (P.procs.n) {
		for (int i = 0; i < P.procs.n; i++)
			procs[np++] = P.procs.v[i];
	} else {
		int cpus = ab_cpuset_count(&C.allowed), top = 2 * cpus > 8 ? 2 * cpus : 8;
		if (top > DDP_MAX_PROCS)
			top = DDP_MAX_PROCS;
		for (int n = 1; n <= top; n *= 2)
			procs[np++] = n;
		if (procs[np - 1] != top)	/* up to 2 x CPUs even when that is no power of two */
			procs[np++] = top;
	}
	if (P.mode != MODE_READ)
		dirs[ndirs++] = DDP_WRITE;
	if (P.mode != MODE_WRITE)
		dirs[ndirs++] = DDP_READ;
	if (P.clone_fd != CLONE_ON)
		clones[nclones++] = 0;
	if (P.clone_fd != CLONE_OFF)
		clones[nclones++] = 1;

	/* Then what the machine lacks: one line, exit 4. */
	const char *dev = getenv("AFFBENCH_FUSE_DEV");
	if (!dev || !*dev)
		dev = "/dev/fuse";
	if (access(dev, R_OK | W_OK) < 0)
		ab_skip("no usable %s (%s): load the fuse module (modprobe fuse) and run as root", dev,
			strerror(errno));
	if (P.dd && system("command -v dd >/dev/null 2>&1") != 0)
		ab_skip("no dd in PATH: install coreutils");
	/* Ours first: the knob module's handler, installed next, restores the knobs at
	 * once on a signal and then calls this one. */
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (P.max_background || P.congestion) {
		if (ab_knob_init("", ab_knob_default_journal()) < 0)
			ab_skip("cannot set up the knob journal %s: %s", ab_knob_default_journal(),
				strerror(errno));
		ensure_fusectl();
	}
	if (P.kstats != KS_OFF && ab_kstats_open(&x.ks, why, sizeof(why)) < 0) {
		if (P.kstats == KS_ON)
			ab_skip("kernel statistics %s", why);
		ab_msg("kernel_us_per_req and spin_us_per_req not measured: %s", why);
		x.ks = NULL;
	}

	ab_mnt_cleanup_stale(NULL, C.quiet ? NULL : stderr);
	x.sh = ab_shm_alloc(sizeof(*x.sh));
	if (!x.sh)
		ab_fail("cannot map %zu bytes of shared memory: %s", sizeof(*x.sh), strerror(errno));
	x.crash_after = env_u64("AFFBENCH_DDPAR_CRASH_AFTER");
	x.miscount = env_u64("AFFBENCH_DDPAR_MISCOUNT") != 0;
	x.pidfile = getenv("AFFBENCH_DAEMON_PIDFILE");
	if (x.pidfile && !*x.pidfile)
		x.pidfile = NULL;
	ab_out_init(&x.out, stdout, C.format, "ddpar");

	struct ddp_result *res = calloc((size_t)2 * (size_t)np * 2 * (size_t)C.repeat, sizeof(*res));
	if (!res)
		ab_fail("out of memory for %d x %d results", np, C.repeat);
	int failures = 0, total = ndirs * np * nclones * C.repeat, done = 0;
	int progress = !C.quiet && isatty(STDERR_FILENO);

	/* Repetitions outermost: A B A B ..., so drift does not favour one configuration.
	 * Records number repetitions from 1, as every benchmark does. */
	for (int rep = 0; rep < C.repeat && !interrupted; rep++)
		for (int k = 0; k < ndirs && !interrupted; k++)
			for (int ni = 0; ni < np && !interrupted; ni++)
				for (int c = 0; c < nclones && !interrupted; c++) {
					struct ddp_point pt = { (enum ddp_dir)dirs[k], procs[ni], clones[c], rep };
					if (progress)
						fprintf(stderr, "\rddpar: %d/%d %s procs=%d clone_fd=%s   ", ++done,
							total, pt.dir == DDP_WRITE ? "write" : "read",
							pt.n, pt.clone ? "on" : "off");
					if (run_point(&x, &pt, &RES(pt.dir, ni, pt.clone)[rep]) < 0)
						failures++;
				}
	if (progress)
		fprintf(stderr, "\r%60s\r", "");

	if (C.format == AB_FMT_TABLE && !interrupted)
		print_tables(res, procs, np, dirs, ndirs);
	free(res);
	if (x.ks)
		ab_kstats_close(x.ks);
	ab_shm_free(x.sh, sizeof(*x.sh));
	if (interrupted)
		ab_fail("interrupted; nothing is left mounted");
	if (failures)
		ab_fail("%d of %d points failed (no number written for them)", failures, total);
	return AB_EXIT_OK;
}
