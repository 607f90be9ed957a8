/*
 * fdget: what an fd syscall costs once the fd table is shared (seed 003,
 * fstests 2016, "xfs_io -M").
 *
 * While a process is single-threaded its fd table has one user and the
 * kernel's fdget() skips the file reference count (and fdget_pos() the f_pos
 * lock); a second thread, even one that only sleeps, puts every fd syscall on
 * the slow path. This program times 1-byte pread, read, fstat and lseek on a
 * small page-cached file in five modes that run the same loop (loops.c):
 *   single       one thread
 *   idle-thread  one thread plus a pthread that only sleeps (xfs_io -M)
 *   shared-fd    N threads on one fd (reference-count cache-line traffic)
 *   private-fd   N threads, each its own fd (its own struct file)
 *   procs        N single-threaded processes, each its own fd
 * Calls go through the libc wrappers by default, as programs make them;
 * --syscall raw leaves libc out to isolate the kernel's part. Each repetition
 * runs in a fresh process forked from a parent that never creates a thread,
 * so none inherits another's libc or fd-table state.
 * Repetitions of the modes are interleaved (single, idle, single, idle ...)
 * so drift does not bias the ratio; each timing runs an iteration count
 * calibrated to take --duration seconds. --spawn N repeats the seed's second
 * experiment: process start-up with and without creating one thread.
 *
 * Known limits: ns_per_op of the N-worker modes is wall time per worker
 * operation (gate open to the last worker's loop end); a CPU shared by two workers
 * (--oversubscribe) doubles it by design. cycles/instructions need a
 * hardware PMU, which many VMs lack.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "cpuset.h"
#include "fdget.h"
#include "fusemnt.h"
#include "opts.h"
#include "pin.h"
#include "record.h"
#include "stats.h"

#define FILE_SIZE (1u << 20)	/* read advances 1 MiB before it seeks back */
#define MAX_REPEAT 1000
#define SETTLE_TIMEOUT_NS 2000000000ull	/* a stopped thread must be gone within 2 s */

struct params {
	int op;			/* enum fdget_op, OP_COUNT = all */
	const char *mode;	/* --mode list, parsed by fdget_parse_modes */
	int threads;		/* workers of the N-worker modes; 0 = one per allowed CPU */
	int spawn;		/* spawn runs each way; 0 = none */
	int oversubscribe;
	int verify_overhead;
	int watch_threads;
	int call;		/* enum fdget_call */
};

static struct params P = {
	.op = OP_COUNT,
	.mode = "single,idle-thread",
	.threads = 0,
	.spawn = 200,
	.call = CALL_LIBC,
};

static const struct ab_opt options[] = {
	{ "op", AB_OPT_CHOICE, offsetof(struct params, op), NULL, "operation to time", 0, 0,
	  "pread|read|fstat|lseek|all" },
	{ "mode", AB_OPT_STR, offsetof(struct params, mode), "MODES",
	  "comma list of " FDGET_MODE_CHOICES, 0, 0, NULL },
	{ "threads", AB_OPT_INT, offsetof(struct params, threads), "N",
	  "workers of shared-fd, private-fd, procs (0 = one per allowed CPU)", 0, 4096, NULL },
	{ "oversubscribe", AB_OPT_FLAG, offsetof(struct params, oversubscribe), NULL,
	  "allow --threads beyond the allowed CPUs", 0, 0, NULL },
	{ "spawn", AB_OPT_INT, offsetof(struct params, spawn), "N",
	  "start the helper N times without and with one thread (0 = skip)", 0, 1000000, NULL },
	{ "verify-overhead", AB_OPT_FLAG, offsetof(struct params, verify_overhead), NULL,
	  "time single mode against the same loop timed bare (no gate, counters, perf), side by side", 0, 0, NULL },
	{ "syscall", AB_OPT_CHOICE, offsetof(struct params, call), NULL,
	  "libc wrappers (what programs pay) or raw syscall(2) (the kernel's part alone)", 0, 0,
	  "libc|raw" },
	{ "watch-threads", AB_OPT_FLAG, offsetof(struct params, watch_threads), NULL,
	  "debug: a watcher process samples Threads: of /proc/PID/status during each "
	  "single/idle-thread loop (metrics threads_seen = min, threads_seen_max)", 0, 0, NULL },
	{ NULL, 0, 0, NULL, NULL, 0, 0, NULL },
};

static const struct ab_prog_info info = {
	.name = "fdget",
	.summary = "fd syscall cost in a single- vs multi-threaded process (seed 003, xfs_io -M)",
	.usage_extra =
		"Default: every op in single and idle-thread mode, interleaved, then the spawn line.\n"
		"Records: ns_per_op per rep; rep 0 holds per-config summaries (ratio_to_single and\n"
		"its 95% CI, iterations, overhead_ns_per_op, timer_ns).",
	.default_duration = 0.05,
	.default_repeat = 15,
};

/* One worker's slot, in shared memory so forked workers can fill it too. */
struct worker {
	struct ab_counter done;	/* operations completed, added after the loop */
	enum fdget_op op;
	uint64_t iters;
	int fd, cpu;
	int rc, err;		/* loop result and its errno */
	int perf_ok;
	struct fdget_perf_val pv;
	uint64_t t_end;		/* when its loop returned: the window ends at the last one */
} __attribute__((aligned(AB_CACHELINE)));

/* The latest loop end of n workers: thread exit and process teardown stay out. */
static uint64_t last_end(const struct worker *w, int n)
{
	uint64_t t = 0;

	for (int i = 0; i < n; i++)
		if (w[i].t_end > t)
			t = w[i].t_end;
	return t;
}

/* The --watch-threads sampler, in shared memory. */
enum { W_STARTING, W_IDLE, W_ACTIVE, W_EXIT };
struct watch {
	_Atomic int want, state;	/* parent sets want, watcher acks in state */
	_Atomic int min, max, samples;
	_Atomic int pid;		/* the process whose Threads: are sampled */
};

static struct {
	struct ab_common c;
	struct ab_out out;
	int want[MODE_COUNT];
	int nworkers;		/* workers of the N-worker modes */
	int cpu_main, cpu_idle;
	int *cpus;		/* worker i runs on cpus[i] */
	int fd;			/* the fd of single, idle-thread and shared-fd */
	int *pfd;		/* private-fd: one fd (one struct file) per worker */
	struct worker *w;	/* nworkers slots in shared memory */
	struct ab_gate *gate;
	struct fdget_perf perf;	/* the main thread's counters */
	int perf_ok;
	struct watch *watch;
	pid_t watcher;
} B;

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (B.c.quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ab_msg("%s", line);
}

static int threads_now(pid_t pid)
{
	char path[64], line[256];
	int n = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* ---- the --watch-threads sampler ---------------------------------------- */

static void watcher_main(pid_t parent)
{
	struct watch *w = B.watch;

	/* Our copies of the bench fds would raise their file counts: drop them. */
	close_range(3, ~0u, 0);
	atomic_store(&w->state, W_IDLE);
	for (;;) {
		int want = atomic_load(&w->want);
		if (want == W_EXIT || getppid() != parent)
			_exit(0);
		if (want == W_ACTIVE) {
			int n = threads_now(atomic_load(&w->pid));
			if (n > 0) {
				if (n < atomic_load(&w->min))
					atomic_store(&w->min, n);
				if (n > atomic_load(&w->max))
					atomic_store(&w->max, n);
				atomic_fetch_add(&w->samples, 1);
			}
		}
		atomic_store(&w->state, want);
		ab_sleep_ns(200000);
	}
}

static void watch_wait_state(int s)
{
	uint64_t deadline = ab_now_ns() + SETTLE_TIMEOUT_NS;

	while (atomic_load(&B.watch->state) != s) {
		if (ab_now_ns() > deadline)
			ab_fail("thread watcher (pid %d) does not answer", (int)B.watcher);
		ab_sleep_ns(50000);
	}
}

static void watch_start(void)
{
	B.watch = ab_shm_alloc(sizeof(*B.watch));
	if (!B.watch)
		ab_fail("mmap shared memory: %s", strerror(errno));
	atomic_store(&B.watch->want, W_IDLE);
	atomic_store(&B.watch->state, W_STARTING);
	pid_t parent = getpid();
	B.watcher = fork();
	if (B.watcher < 0)
		ab_fail("fork thread watcher: %s", strerror(errno));
	if (B.watcher == 0) {
		ab_pin_self(B.cpu_idle);
		watcher_main(parent);
	}
	watch_wait_state(W_IDLE);
}

static void watch_begin(void)
{
	if (!B.watch)
		return;
	atomic_store(&B.watch->min, 1 << 30);
	atomic_store(&B.watch->max, 0);
	atomic_store(&B.watch->samples, 0);
	atomic_store(&B.watch->pid, getpid());
	atomic_store(&B.watch->want, W_ACTIVE);
	watch_wait_state(W_ACTIVE);
}

/* After the loop, before any thread stops: a sample in flight still sees them. */
static void watch_end(void)
{
	if (!B.watch)
		return;
	atomic_store(&B.watch->want, W_IDLE);
	watch_wait_state(W_IDLE);
}

static void watch_stop(void)
{
	if (!B.watch)
		return;
	atomic_store(&B.watch->want, W_EXIT);
	waitpid(B.watcher, NULL, 0);
}

/* ---- one repetition ------------------------------------------------------ */

/* The measured part, the same in every mode: counters, the loop, counters. */
static void measured(struct worker *w, struct fdget_perf *pc)
{
	fdget_perf_start(pc);
	w->rc = fdget_ops[w->op].loop[P.call](w->fd, w->iters);
	w->err = errno;
	w->t_end = ab_now_ns();
	w->perf_ok = fdget_perf_stop(pc, &w->pv) == 0;
	ab_counter_add(&w->done, w->iters);
}

/* A worker of the N-worker modes: counters of its own, the gate, the loop. */
static void worker_body(struct worker *w)
{
	struct fdget_perf pc = { -1, -1 };

	if (B.perf_ok)
		fdget_perf_open(&pc, NULL, 0);
	ab_gate_arrive_wait(B.gate);
	measured(w, &pc);
	fdget_perf_close(&pc);
}

static void *worker_thread(void *arg)
{
	worker_body(arg);
	return NULL;
}

/* The idle thread of idle-thread mode: announces itself, then sleeps on a futex. */
static _Atomic uint32_t idle_stop, idle_ready;

static void *idle_thread(void *arg)
{
	(void)arg;
	atomic_store(&idle_ready, 1);
	while (!atomic_load(&idle_stop))
		syscall(SYS_futex, &idle_stop, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	return NULL;
}

static void start_thread(pthread_t *t, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int e;

	pthread_attr_init(&attr);
	if (ab_thread_attr_pin(&attr, cpu))
		ab_fail("pin thread to CPU %d: %s", cpu, strerror(errno));
	e = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (e)
		ab_fail("pthread_create: %s", strerror(e));
}

/* A forked worker: its own fd (a struct file no other process holds), pinned first. */
static void proc_worker(struct worker *w)
{
	char path[64];

	if (ab_pin_self(w->cpu))
		_exit(10);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", B.fd);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(11);
	if (fd > 3)
		close_range(3, (unsigned)fd - 1, 0);
	close_range((unsigned)fd + 1, ~0u, 0);
	w->fd = fd;
	worker_body(w);
	_exit(0);
}

struct rep_result {
	double ns_per_op;
	double cycles_per_op, instr_per_op;	/* NAN when not counted */
	int threads_min, threads_max;		/* -1 when not watched */
};

static int mode_workers(enum fdget_mode m)
{
	return m == MODE_SINGLE || m == MODE_IDLE ? 1 : B.nworkers;
}

static void run_rep_here(enum fdget_op op, enum fdget_mode mode, uint64_t iters, struct rep_result *r)
{
	int n = mode_workers(mode);
	pthread_t idle, *tids = NULL;
	pid_t *pids = NULL;
	uint64_t t0, t1;

	memset(B.w, 0, sizeof(*B.w) * (size_t)B.nworkers);
	for (int i = 0; i < n; i++) {
		B.w[i].op = op;
		B.w[i].iters = iters;
		B.w[i].cpu = mode == MODE_SINGLE || mode == MODE_IDLE ? B.cpu_main : B.cpus[i];
		B.w[i].fd = mode == MODE_PRIVATE ? B.pfd[i] : B.fd;
	}
	ab_gate_init(B.gate);

	switch (mode) {
	case MODE_SINGLE:
	case MODE_IDLE:
		if (mode == MODE_IDLE) {
			atomic_store(&idle_stop, 0);
			atomic_store(&idle_ready, 0);
			start_thread(&idle, B.cpu_idle, idle_thread, NULL);
			while (!atomic_load(&idle_ready))
				ab_sleep_ns(10000);
			ab_sleep_ns(200000);	/* let it reach its futex wait */
		}
		watch_begin();
		t0 = ab_now_ns();
		measured(&B.w[0], &B.perf);
		t1 = ab_now_ns();
		watch_end();
		if (mode == MODE_IDLE) {
			atomic_store(&idle_stop, 1);
			syscall(SYS_futex, &idle_stop, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
			pthread_join(idle, NULL);
		}
		break;
	case MODE_SHARED:
	case MODE_PRIVATE:
		tids = calloc((size_t)n, sizeof(*tids));
		if (!tids)
			ab_fail("out of memory");
		for (int i = 0; i < n; i++)
			start_thread(&tids[i], B.w[i].cpu, worker_thread, &B.w[i]);
		if (ab_gate_wait_arrived(B.gate, (unsigned)n, SETTLE_TIMEOUT_NS))
			ab_fail("%s: workers did not start within 2 s", fdget_mode_names[mode]);
		watch_begin();
		t0 = ab_now_ns();
		ab_gate_open(B.gate);
		for (int i = 0; i < n; i++)
			pthread_join(tids[i], NULL);
		t1 = last_end(B.w, n);
		watch_end();
		free(tids);
		break;
	case MODE_PROCS:
	default:
		pids = calloc((size_t)n, sizeof(*pids));
		if (!pids)
			ab_fail("out of memory");
		fflush(NULL);
		for (int i = 0; i < n; i++) {
			pids[i] = fork();
			if (pids[i] < 0)
				ab_fail("fork: %s", strerror(errno));
			if (pids[i] == 0)
				proc_worker(&B.w[i]);
		}
		if (ab_gate_wait_arrived(B.gate, (unsigned)n, SETTLE_TIMEOUT_NS))
			ab_fail("procs: workers did not start within 2 s");
		watch_begin();
		t0 = ab_now_ns();
		ab_gate_open(B.gate);
		int bad = 0;
		for (int i = 0; i < n; i++) {
			int st;
			if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				bad = 1;
		}
		t1 = last_end(B.w, n);
		watch_end();
		free(pids);
		if (bad)
			ab_fail("procs: a worker process failed (pin, reopen of the file, or crash)");
		break;
	}

	uint64_t ops = 0, cyc = 0, ins = 0;
	int perf_all = 1;
	for (int i = 0; i < n; i++) {
		if (B.w[i].rc) {
			errno = B.w[i].err;
			ab_fail("%s on the test file (fd %d, %s mode): %s", fdget_ops[op].name, B.w[i].fd,
				fdget_mode_names[mode], strerror(B.w[i].err));
		}
		cyc += B.w[i].pv.cycles;
		ins += B.w[i].pv.instr;
		perf_all &= B.w[i].perf_ok;
	}
	for (int i = 0; i < n; i++)
		ops += ab_counter_read(&B.w[i].done);
	if (ops != iters * (uint64_t)n)
		ab_fail("%s: %llu operations counted, %llu expected", fdget_mode_names[mode],
			(unsigned long long)ops, (unsigned long long)(iters * (uint64_t)n));

	r->ns_per_op = (double)(t1 - t0) / (double)iters;
	r->cycles_per_op = perf_all ? (double)cyc / (double)ops : NAN;
	r->instr_per_op = perf_all ? (double)ins / (double)ops : NAN;
	r->threads_min = r->threads_max = -1;
	if (B.watch && atomic_load(&B.watch->samples) > 0) {
		r->threads_min = atomic_load(&B.watch->min);
		r->threads_max = atomic_load(&B.watch->max);
	}
}

/* Give this process its own struct file for fd (read and lseek would otherwise
 * take f_pos_lock because the parent holds the same file). */
static void own_file(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int nfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nfd < 0 || dup3(nfd, fd, O_CLOEXEC) < 0)
		ab_fail("reopen %s: %s", path, strerror(errno));
	close(nfd);
}

/*
 * Every repetition runs in a fresh process forked from this one, which never
 * creates a thread: glibc stays on its single-threaded path in a child until
 * the child itself creates one, and no repetition inherits the fd-table or
 * libc state of another. The child gets its own struct files, then runs fn
 * exactly as a standalone program would. 0 when the child succeeded.
 */
static int in_fresh_child(void (*fn)(void *), void *arg)
{
	int st;

	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		ab_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		own_file(B.fd);
		for (int i = 0; i < B.nworkers; i++)
			if (B.pfd[i] != B.fd)
				own_file(B.pfd[i]);
		if (B.perf_ok) {	/* counters follow the thread that opened them */
			fdget_perf_close(&B.perf);
			B.perf_ok = fdget_perf_open(&B.perf, NULL, 0) == 0;
		}
		fn(arg);
		fflush(NULL);
		_exit(0);
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* What one child measures, in shared memory so the parent reads it back. */
struct child_job {
	enum fdget_op op;
	enum fdget_mode mode;
	uint64_t iters;
	struct rep_result r;	/* a repetition's result */
	uint64_t bare_ns;	/* or the bare loop's time */
};

static struct child_job *job(void)
{
	static struct child_job *j;

	if (!j && !(j = ab_shm_alloc(sizeof(*j))))
		ab_fail("shared memory: %s", strerror(errno));
	return j;
}

static void rep_in_child(void *arg)
{
	struct child_job *j = arg;
	run_rep_here(j->op, j->mode, j->iters, &j->r);
}

static void run_rep(enum fdget_op op, enum fdget_mode mode, uint64_t iters, struct rep_result *r)
{
	struct child_job *j = job();

	*j = (struct child_job){ .op = op, .mode = mode, .iters = iters };
	if (in_fresh_child(rep_in_child, j) < 0)
		exit(AB_EXIT_FAIL);	/* the child said why */
	*r = j->r;
}

/* ---- calibration and overhead ------------------------------------------- */

static uint64_t time_loop(enum fdget_op op, uint64_t iters)
{
	uint64_t t0 = ab_now_ns();
	if (fdget_ops[op].loop[P.call](B.fd, iters))
		ab_fail("%s on the test file: %s", fdget_ops[op].name, strerror(errno));
	uint64_t t1 = ab_now_ns();
	return t1 - t0;
}

/* lmbench's idea: grow the count until one timing takes the target time. */
static uint64_t calibrate(enum fdget_op op, uint64_t target_ns)
{
	uint64_t n = 1000, t, next;

	for (;;) {
		t = time_loop(op, n);
		next = fdget_calib_next(n, t, target_ns, 1ull << 40);
		if (!next || next == n)
			break;
		n = next;
	}
	progress("%s: %llu iterations per timing (%.1f ms)", fdget_ops[op].name,
		 (unsigned long long)n, (double)t / 1e6);
	return n;
}

/* The cost of one clock read: the median of many back-to-back pairs. */
static double timer_ns(void)
{
	double x[101];

	for (size_t i = 0; i < AB_ARRAY_SIZE(x); i++) {
		uint64_t t0 = ab_now_ns();
		for (int k = 0; k < 100; k++)
			ab_now_ns();
		uint64_t t1 = ab_now_ns();
		x[i] = (double)(t1 - t0) / 101.0;
	}
	return ab_median(x, AB_ARRAY_SIZE(x));
}

/* ---- output -------------------------------------------------------------- */

static void set_config(struct ab_config *c, const char *op, enum fdget_mode m, int threads)
{
	ab_config_init(c);
	ab_config_set(c, "op", "%s", op);
	ab_config_set(c, "mode", "%s", fdget_mode_names[m]);
	ab_config_set(c, "threads", "%d", threads);
	if (P.call == CALL_RAW)		/* only off the default, so default keys stay op, mode, threads */
		ab_config_set(c, "syscall", "raw");
}

static void record(const char *op, enum fdget_mode m, int rep, const char *metric, double v,
		   const char *unit)
{
	struct ab_config c;

	if (B.c.format == AB_FMT_TABLE)
		return;		/* the table is printed at the end */
	set_config(&c, op, m, mode_workers(m));
	ab_record(&B.out, &c, rep, metric, v, unit);
}

/* Warn, with a hint, when the repetitions scatter too much to trust a small effect. */
static void check_noise(const char *what, const double *x, int n)
{
	double cv = ab_cv(x, (size_t)n);

	if (n >= 3 && cv > 0.05)
		ab_msg("warning: %s varies by %.1f%% (CV) across repetitions; "
		       "try more --repeat or a quieter machine", what, cv * 100);
}

struct ratio {
	double r;
	struct ab_ci ci;
	int ok;
};

/*
 * Paired, as the repetitions were run: rep i of a mode ran right after rep i of
 * single, so the ratio of each pair cancels the drift both saw; the result is
 * the median of the n pair ratios with its distribution-free CI (order
 * statistics: 95% from 6 pairs on, [min, max] and its real coverage below).
 */
static struct ratio ratio_of(const double *a, const double *b, int n)
{
	struct ratio q = { NAN, { NAN, NAN, 0 }, 0 };
	double r[MAX_REPEAT];

	for (int i = 0; i < n; i++) {
		if (!(b[i] > 0))
			return q;
		r[i] = a[i] / b[i];
	}
	if (n > 0 && ab_median_ci(r, (size_t)n, 0.95, &q.ci) == 0) {
		q.r = ab_median(r, (size_t)n);
		q.ok = 1;
	}
	return q;
}

static void record_ratio(const char *op, enum fdget_mode m, const char *metric, struct ratio q)
{
	char lo[64], hi[64];

	if (!q.ok)
		return;
	snprintf(lo, sizeof(lo), "%s_ci95_lo", metric);
	snprintf(hi, sizeof(hi), "%s_ci95_hi", metric);
	record(op, m, 0, metric, q.r, "ratio");
	record(op, m, 0, lo, q.ci.lo, "ratio");
	record(op, m, 0, hi, q.ci.hi, "ratio");
}

static void pct_cols(char *buf, size_t len, struct ratio q)
{
	if (!q.ok)
		snprintf(buf, len, "%8s  %s", "-", "-");
	else
		snprintf(buf, len, "%+7.1f%%  [%+.1f%%, %+.1f%%]%s", (q.r - 1) * 100,
			 (q.ci.lo - 1) * 100, (q.ci.hi - 1) * 100,
			 q.ci.lo > 1 || q.ci.hi < 1 ? "" : "  (not significant)");
}

/* ---- the experiments ------------------------------------------------------ */

static double (*results)[MODE_COUNT][MAX_REPEAT];	/* ns_per_op[op][mode][rep] */

static void run_ops(void)
{
	int R = B.c.repeat;
	uint64_t target = (uint64_t)(B.c.duration * 1e9);
	double tns = timer_ns();
	char why[256];

	B.perf_ok = fdget_perf_open(&B.perf, why, sizeof(why)) == 0;
	if (!B.perf_ok)
		ab_msg("cycles_per_op, instructions_per_op skipped: %s", why);

	for (int op = 0; op < OP_COUNT; op++) {
		if (P.op != OP_COUNT && P.op != op)
			continue;
		const char *name = fdget_ops[op].name;
		uint64_t iters = calibrate(op, target);
		double ovh = (double)time_loop(OP_NOP, iters) / (double)iters;

		record(name, MODE_SINGLE, 0, "iterations", (double)iters, "count");
		record(name, MODE_SINGLE, 0, "overhead_ns_per_op", ovh, "ns");
		record(name, MODE_SINGLE, 0, "timer_ns", tns, "ns");
		progress("%s: loop+timer overhead %.3f ns/op, one clock read %.1f ns", name, ovh, tns);

		/* Interleaved, and the order flips every repetition (single, idle, idle,
		 * single, ...): whatever favours the first or second run of a pair then
		 * falls on both modes alike. */
		for (int rep = 1; rep <= R; rep++) {
			for (int k = 0; k < MODE_COUNT; k++) {
				int m = rep % 2 ? k : MODE_COUNT - 1 - k;
				struct rep_result r;

				if (!B.want[m])
					continue;
				run_rep(op, m, iters, &r);
				results[op][m][rep - 1] = r.ns_per_op;
				record(name, m, rep, "ns_per_op", r.ns_per_op, "ns");
				record(name, m, rep, "cycles_per_op", r.cycles_per_op, "cycles");
				record(name, m, rep, "instructions_per_op", r.instr_per_op, "instructions");
				/* Only where the loop fills the window: N-worker modes end with their workers. */
				if (r.threads_min >= 0 && (m == MODE_SINGLE || m == MODE_IDLE)) {
					record(name, m, rep, "threads_seen", r.threads_min, "threads");
					record(name, m, rep, "threads_seen_max", r.threads_max, "threads");
				}
			}
		}
		for (int m = 1; m < MODE_COUNT; m++)
			if (B.want[m])
				record_ratio(name, m, "ratio_to_single",
					     ratio_of(results[op][m], results[op][MODE_SINGLE], R));
		for (int m = 0; m < MODE_COUNT; m++) {
			char what[64];
			if (!B.want[m])
				continue;
			snprintf(what, sizeof(what), "%s %s ns/op", name, fdget_mode_names[m]);
			check_noise(what, results[op][m], R);
		}
	}
	fdget_perf_close(&B.perf);
}

static void print_table(void)
{
	int R = B.c.repeat;
	int seed_layout = 1;
	char cols[128];

	for (int m = MODE_SHARED; m < MODE_COUNT; m++)
		if (B.want[m])
			seed_layout = 0;
	if (seed_layout && B.want[MODE_IDLE]) {
		printf("%-6s %13s %18s %8s  %s\n", "op", "single ns/op", "idle-thread ns/op", "+%",
		       "95% CI");
		for (int op = 0; op < OP_COUNT; op++) {
			if (P.op != OP_COUNT && P.op != op)
				continue;
			pct_cols(cols, sizeof(cols), ratio_of(results[op][MODE_IDLE],
							      results[op][MODE_SINGLE], R));
			printf("%-6s %13.1f %18.1f %s\n", fdget_ops[op].name,
			       ab_median(results[op][MODE_SINGLE], (size_t)R),
			       ab_median(results[op][MODE_IDLE], (size_t)R), cols);
		}
		return;
	}
	printf("%-6s %-12s %7s %10s %9s  %s\n", "op", "mode", "threads", "ns/op", "vs single",
	       "95% CI");
	for (int op = 0; op < OP_COUNT; op++) {
		if (P.op != OP_COUNT && P.op != op)
			continue;
		for (int m = 0; m < MODE_COUNT; m++) {
			if (!B.want[m])
				continue;
			if (m == MODE_SINGLE)
				snprintf(cols, sizeof(cols), "%8s", "");
			else
				pct_cols(cols, sizeof(cols), ratio_of(results[op][m],
								      results[op][MODE_SINGLE], R));
			printf("%-6s %-12s %7d %10.1f %s\n", fdget_ops[op].name, fdget_mode_names[m],
			       mode_workers(m), ab_median(results[op][m], (size_t)R), cols);
		}
	}
}

static void bare_in_child_fn(void *arg)
{
	struct child_job *j = arg;
	uint64_t t0 = ab_now_ns();
	int rc = fdget_ops[j->op].loop[P.call](B.fd, j->iters);
	uint64_t t1 = ab_now_ns();
	j->bare_ns = rc ? 0 : t1 - t0;
}

/* The same loop timed once around the whole loop, in a fresh child like every
 * repetition: the two differ only in the machinery around the loop (gate,
 * counters, perf, watcher), not in the code measured or the process it runs in.
 * (A second, hand-written loop was compared first; on this VM its code layout
 * alone moved it by up to +-6%, in either direction from build to build.) */
static uint64_t bare_in_child(enum fdget_op op, uint64_t iters)
{
	struct child_job *j = job();

	*j = (struct child_job){ .op = op, .iters = iters };
	return in_fresh_child(bare_in_child_fn, j) < 0 ? 0 : j->bare_ns;
}

/* --verify-overhead: the harness path against the same loop timed bare, interleaved. */
static void verify_overhead(void)
{
	int R = B.c.repeat;
	uint64_t target = (uint64_t)(B.c.duration * 1e9);
	double *h = calloc((size_t)R, sizeof(double)), *bare = calloc((size_t)R, sizeof(double));

	if (!h || !bare)
		ab_fail("out of memory");
	B.perf.fd_cycles = B.perf.fd_instr = -1;	/* no counters: exactly the loop */
	if (B.c.format == AB_FMT_TABLE)
		printf("%-6s %15s %12s %9s  %s\n", "op", "harness ns/op", "bare ns/op", "diff",
		       "95% CI");
	for (int op = 0; op < OP_COUNT; op++) {
		if (P.op != OP_COUNT && P.op != op)
			continue;
		const char *name = fdget_ops[op].name;
		uint64_t iters = calibrate(op, target);
		for (int rep = 1; rep <= R; rep++) {
			struct rep_result r;
			uint64_t t = 0;
			/* the order flips every repetition, as in run_ops */
			if (rep % 2 == 0)
				t = bare_in_child(op, iters);
			run_rep(op, MODE_SINGLE, iters, &r);
			if (rep % 2)
				t = bare_in_child(op, iters);
			if (!t)
				ab_fail("%s on the test file: %s", name, strerror(errno));
			h[rep - 1] = r.ns_per_op;
			bare[rep - 1] = (double)t / (double)iters;
			record(name, MODE_SINGLE, rep, "ns_per_op", h[rep - 1], "ns");
			record(name, MODE_SINGLE, rep, "bare_ns_per_op", bare[rep - 1], "ns");
		}
		struct ratio q = ratio_of(h, bare, R);
		record_ratio(name, MODE_SINGLE, "harness_to_bare", q);
		if (B.c.format == AB_FMT_TABLE) {
			char cols[128];
			pct_cols(cols, sizeof(cols), q);
			printf("%-6s %15.2f %12.2f %s\n", name, ab_median(h, (size_t)R),
			       ab_median(bare, (size_t)R), cols);
		}
	}
	free(h);
	free(bare);
}

/* ---- --spawn: process start-up with and without one thread --------------- */

static void *spawn_idle(void *arg)
{
	static _Atomic uint32_t never;

	(void)arg;
	for (;;)
		syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	return NULL;
}

/* The helper that --spawn runs: start one thread (like xfs_io -M) or not, then exit. */
static int spawn_child(const char *arg)
{
	pthread_t t;
	int e;

	if (strcmp(arg, "0") && strcmp(arg, "1")) {
		fprintf(stderr, "fdget: bad value '%s' for --spawn-child: expected 0 or 1\n", arg);
		return AB_EXIT_USAGE;
	}
	if (arg[0] == '1' && (e = pthread_create(&t, NULL, spawn_idle, NULL))) {
		fprintf(stderr, "fdget: pthread_create: %s\n", strerror(e));
		return AB_EXIT_FAIL;
	}
	return 0;
}

static double spawn_batch(int with_thread, int n)
{
	char *argv[] = { (char *)"fdget", (char *)"--spawn-child", with_thread ? "1" : "0", NULL };
	uint64_t t0 = ab_now_ns();

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		int st;
		if (pid < 0)
			ab_fail("fork: %s", strerror(errno));
		if (pid == 0) {
			execv("/proc/self/exe", argv);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			ab_fail("spawn helper '/proc/self/exe --spawn-child %d' failed (status %d)",
				with_thread, st);
	}
	return (double)(ab_now_ns() - t0) / 1e3 / n;
}

static void run_spawn(void)
{
	int R = B.c.repeat < P.spawn ? B.c.repeat : P.spawn;
	double us[2][MAX_REPEAT];
	const enum fdget_mode m[2] = { MODE_SINGLE, MODE_IDLE };

	fflush(NULL);
	progress("spawn: %d runs each way in %d interleaved batches", P.spawn, R);
	for (int rep = 1; rep <= R; rep++) {
		/* Batches differ by at most one run so that they add up to --spawn exactly. */
		int per = P.spawn / R + (rep <= P.spawn % R);
		for (int k = 0; k < 2; k++) {
			us[k][rep - 1] = spawn_batch(k, per);
			record("spawn", m[k], rep, "us_per_spawn", us[k][rep - 1], "us");
		}
	}
	struct ratio q = ratio_of(us[1], us[0], R);
	record_ratio("spawn", MODE_IDLE, "ratio_to_single", q);
	if (B.c.format == AB_FMT_TABLE) {
		char cols[128];
		pct_cols(cols, sizeof(cols), q);
		printf("\nspawn (%d runs each way): no thread %.1f us, one thread %.1f us, %s\n",
		       P.spawn, ab_median(us[0], (size_t)R), ab_median(us[1], (size_t)R), cols);
	}
}

/* ---- set-up -------------------------------------------------------------- */

static int reopen(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int nfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nfd < 0)
		ab_fail("open %s: %s", path, strerror(errno));
	return nfd;
}

/* A page-cached file of FILE_SIZE bytes, unlinked at once; every fd to it is
 * opened before that through /proc/self/fd (its own struct file each). */
static void make_file(void)
{
	char path[4096];
	static char buf[FILE_SIZE];

	snprintf(path, sizeof(path), "%s/affbench-fdget-XXXXXX", ab_workdir());
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		ab_fail("mkstemp %s: %s", path, strerror(errno));
	memset(buf, 'x', sizeof(buf));
	ssize_t w = write(fd, buf, sizeof(buf));
	if (w != (ssize_t)sizeof(buf))
		ab_fail("write %s: %s", path, w < 0 ? strerror(errno) : "short write");
	unlink(path);
	B.fd = fd;
	if (lseek(fd, 0, SEEK_SET) != 0)
		ab_fail("lseek %s: %s", path, strerror(errno));
	B.pfd = calloc((size_t)B.nworkers, sizeof(int));
	if (!B.pfd)
		ab_fail("out of memory");
	for (int i = 0; i < B.nworkers; i++)
		B.pfd[i] = B.want[MODE_PRIVATE] ? reopen(fd) : fd;
}

static void setup_cpus(void)
{
	int ncpu = ab_cpuset_count(&B.c.allowed);

	if (ncpu < 1)
		ab_fail("no CPU allowed");
	if (P.threads > ncpu && !P.oversubscribe)
		ab_usage_error("bad value '%d' for --threads: only %d CPUs allowed (add --oversubscribe)",
			       P.threads, ncpu);
	B.nworkers = P.threads ? P.threads : ncpu;
	/* High CPU numbers first: CPU 0 takes most housekeeping interrupts. */
	B.cpu_main = ab_cpuset_nth(&B.c.allowed, ncpu - 1);
	B.cpu_idle = ab_cpuset_nth(&B.c.allowed, ncpu > 1 ? ncpu - 2 : 0);
	B.cpus = calloc((size_t)B.nworkers, sizeof(int));
	if (!B.cpus)
		ab_fail("out of memory");
	for (int i = 0; i < B.nworkers; i++)
		B.cpus[i] = ab_cpuset_nth(&B.c.allowed, ncpu - 1 - i % ncpu);
	if (ab_pin_self(B.cpu_main))
		ab_fail("pin to CPU %d: %s", B.cpu_main, strerror(errno));
}

int main(int argc, char **argv)
{
	char err[256];

	/* The --spawn helper: as little as possible between exec and exit. */
	if (argc == 3 && !strcmp(argv[1], "--spawn-child"))
		return spawn_child(argv[2]);

	int first = ab_parse_args(argc, argv, &info, options, &P, &B.c);
	if (first < argc)
		ab_usage_error("unexpected argument '%s' (see --help)", argv[first]);
	if (fdget_parse_modes(P.mode, B.want, err, sizeof(err)))
		ab_usage_error("%s", err);
	if (B.c.repeat > MAX_REPEAT)
		ab_usage_error("bad value '%d' for --repeat: at most %d here", B.c.repeat, MAX_REPEAT);
	setup_cpus();

	ab_out_init(&B.out, stdout, B.c.format, "fdget");
	make_file();
	B.w = ab_shm_alloc(sizeof(*B.w) * (size_t)B.nworkers);
	B.gate = ab_shm_alloc(sizeof(*B.gate));
	results = calloc(OP_COUNT, sizeof(*results));
	if (!B.w || !B.gate || !results)
		ab_fail("shared memory: %s", strerror(errno));
	if (P.watch_threads)
		watch_start();

	if (P.verify_overhead) {
		verify_overhead();
	} else {
		run_ops();
		if (B.c.format == AB_FMT_TABLE)
			print_table();
		if (P.spawn)
			run_spawn();
	}
	watch_stop();
	return 0;
}
