// SPDX-License-Identifier: GPL-2.0
/*
 * Inside a repetition's child: the workers of each mode around the one
 * measured loop (loop.c).
 *   single       the loop in this process's only thread
 *   idle-thread  the same while a second thread sleeps on a futex: what
 *                xfs_io -M does, and all a process needs to lose the kernel's
 *                single-threaded fd fast path
 *   shared-fd    N threads on one fd: every call takes and drops a reference
 *                on one struct file, a cache line all of them write
 *   private-fd   N threads, each its own fd (its own struct file), one fd table
 *   procs        N single-threaded processes, each its own struct file
 * The N-worker modes are lib/sys/proc workers, threads or processes from the same
 * source (one switch), pinned before they start and released together by the
 * start barrier; each adds its operations to its own cache line after its loop.
 * Their window runs from the barrier's opening to the last worker's loop end, so
 * thread exit and process teardown stay out of it.
 *
 * The CPU monitor (lib/kstats/cpumon) samples just outside each window's clock
 * reads; an N-worker mode's workers then wait until its end sample, so none
 * exits inside the window it watches.
 *
 * Known limits: ns_per_op of an N-worker mode is wall time per worker
 * operation, so a CPU shared by two workers (--oversubscribe) doubles it by
 * design; the thread count is sampled (--watch-threads) in the single-thread
 * modes only, where the loop fills the window.
 */
#include "fdget.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/barrier.h"
#include "sys/proc.h"

#define START_NS (2 * AB_NS)	/* scaled: workers reach the barrier, a thread starts or stops */
#define SETTLE_NS 200000ull	/* lets the sleeper reach its futex wait before the loop */
#define FORK_SLACK_NS (30 * AB_NS)	/* fork, set-up and exit of a repetition, at hardware speed */
#define HANG_FACTOR 100			/* a loop 100x slower than calibrated counts as hung */

uint64_t fdget_deadline(const struct fdget_settings *s, int n)
{
	/* n workers on ncpu CPUs take n/ncpu times the calibrated duration, and
	 * contention on one struct file slows each call a few times more. */
	double rounds = ceil((double)n / (s->ncpu > 0 ? s->ncpu : 1));
	double loop_ns = s->duration * 1e9 * HANG_FACTOR * rounds;

	return ab_now_ns() + (uint64_t)loop_ns + ab_scaled_ns(FORK_SLACK_NS);
}

/* A worker's slot, on cache lines of its own, in shared memory so a process worker fills it too. */
struct slot {
	struct ab_counter done;	/* operations completed, added after the loop */
	uint64_t t_end;		/* when its loop returned: the window ends at the last one */
	int fd, rc, err;	/* the fd it used, the loop's result and errno */
	int perf_ok;
	struct fdget_perf_val pv;
} __attribute__((aligned(AB_CACHELINE)));

/* One repetition's shared state. */
struct rep_shm {
	struct ab_barrier barrier;
	_Atomic uint32_t finished;	/* workers past their loop: the waiter sleeps on it */
	_Atomic uint32_t sleeper_up, sleeper_stop;	/* idle-thread's second thread */
	_Atomic uint32_t release;	/* workers past their loop wait for it: the monitor's
					 * end still finds every one of them */
	struct slot slot[];
};

struct rep_run {
	const struct fdget_settings *set;
	enum fdget_op op;
	enum fdget_mode mode;
	fdget_loop_fn loop;	/* taken once: no indirection per operation */
	uint64_t iters;		/* per worker */
	int n;			/* workers */
	struct rep_shm *shm;
	struct ab_cpumon *mon;	/* what the CPUs did in the window, or NULL */
};

/* The measured part, the same in every mode: counters, the loop, counters. */
static void measured(struct slot *w, struct fdget_perf *pc, fdget_loop_fn loop, uint64_t iters)
{
	fdget_perf_start(pc);
	w->rc = loop(w->fd, iters);
	w->err = errno;
	w->t_end = ab_now_ns();
	w->perf_ok = fdget_perf_stop(pc, &w->pv) == 0;
	if (!w->rc)
		ab_counter_add(&w->done, iters);
}

/* ---- single and idle-thread: the loop in this thread ---- */

static int sleeper(void *arg, int i)
{
	struct rep_shm *shm = ((struct rep_run *)arg)->shm;

	(void)i;
	atomic_store(&shm->sleeper_up, 1);
	while (!atomic_load(&shm->sleeper_stop))
		syscall(SYS_futex, &shm->sleeper_stop, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	return 0;
}

static int start_sleeper(struct rep_run *run, struct ab_workers *t, char *err, size_t len)
{
	uint64_t limit = ab_scaled_ns(START_NS), deadline = ab_now_ns() + limit;

	if (ab_workers_start(t, 1, 1, &run->set->cpu_idle, NULL, sleeper, run, err, len) < 0)
		return -1;
	while (!atomic_load(&run->shm->sleeper_up)) {
		if (ab_now_ns() > deadline) {
			ab_workers_reap(t, 0, NULL, NULL);
			ab_workers_free(t);
			return ab_err(err, len, "idle-thread: the second thread did not start within %.1f s",
				      (double)limit / 1e9);
		}
		ab_sleep_ns(10000);
	}
	ab_sleep_ns(SETTLE_NS);
	return 0;
}

static int stop_sleeper(struct rep_run *run, struct ab_workers *t, char *err, size_t len)
{
	atomic_store(&run->shm->sleeper_stop, 1);
	syscall(SYS_futex, &run->shm->sleeper_stop, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	int bad = ab_workers_reap(t, ab_now_ns() + ab_scaled_ns(START_NS), NULL, NULL);
	ab_workers_free(t);
	return bad ? ab_err(err, len, "idle-thread: the second thread did not stop") : 0;
}

static int run_single(struct rep_run *run, struct fdget_rep *r, uint64_t *window, char *err,
		      size_t len)
{
	const struct fdget_settings *s = run->set;
	struct fdget_perf pc = { -1, -1 };
	struct ab_workers idle;
	int with_idle = run->mode == MODE_IDLE;

	if (s->perf)
		fdget_perf_open(&pc, NULL, 0);
	if (with_idle && start_sleeper(run, &idle, err, len) < 0) {
		fdget_perf_close(&pc);
		return -1;
	}
	fdget_watch_begin(s->watch);
	ab_cpumon_begin(run->mon);	/* its reads fall outside the clock reads */
	uint64_t t0 = ab_now_ns();
	measured(&run->shm->slot[0], &pc, run->loop, run->iters);
	uint64_t t1 = ab_now_ns();
	ab_cpumon_end(run->mon, (double)(t1 - t0) / 1e9);
	fdget_watch_end(s->watch, &r->threads_min, &r->threads_max);
	fdget_perf_close(&pc);
	*window = t1 - t0;
	return with_idle ? stop_sleeper(run, &idle, err, len) : 0;
}

/* ---- shared-fd, private-fd, procs: N workers behind the start barrier ---- */

/* A process worker: a struct file of its own and no other fd, or the parent's
 * copies would raise the file's count and put read and lseek on f_pos_lock. */
static int own_fd_only(struct slot *w)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", w->fd);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ab_msg("procs: reopen %s: %s", path, strerror(errno));
		return -1;
	}
	if (fd > 3)
		close_range(3, (unsigned)fd - 1, 0);
	close_range((unsigned)fd + 1, ~0u, 0);
	w->fd = fd;
	return 0;
}

static int worker(void *arg, int i)
{
	struct rep_run *run = arg;
	struct slot *w = &run->shm->slot[i];
	struct fdget_perf pc = { -1, -1 };

	if (run->mode == MODE_PROCS && own_fd_only(w) < 0)
		return AB_EXIT_FAIL;
	if (run->set->perf)
		fdget_perf_open(&pc, NULL, 0);
	ab_barrier_arrive_wait(&run->shm->barrier);
	measured(w, &pc, run->loop, run->iters);
	ab_count_up(&run->shm->finished);
	fdget_perf_close(&pc);
	if (run->mon)	/* sleeps until the monitor's end: no exit inside its window */
		ab_wait_count(&run->shm->release, 1, ab_now_ns() + ab_scaled_ns(START_NS));
	return w->rc ? AB_EXIT_FAIL : 0;
}

/* Until every worker waits at the barrier; a worker that ended on the way fails at once. */
static int wait_barrier(struct rep_run *run, const struct ab_workers *ws, char *err, size_t len)
{
	uint64_t limit = ab_scaled_ns(START_NS), deadline = ab_now_ns() + limit;

	while (ab_barrier_wait_arrived(&run->shm->barrier, (unsigned)run->n, AB_POLL_NS) < 0) {
		int i = ab_workers_ended(ws);
		if (i >= 0)
			return ab_err(err, len, "%s: worker %d ended before the start", fdget_mode_name(run->mode), i);
		if (ab_now_ns() > deadline)
			return ab_err(err, len, "%s: %d workers did not reach the start barrier within %.1f s",
				      fdget_mode_name(run->mode), run->n, (double)limit / 1e9);
	}
	return 0;
}

/* The latest loop end of the workers: thread exit and process teardown stay out. */
static uint64_t last_end(const struct rep_run *run)
{
	uint64_t t = 0;

	for (int i = 0; i < run->n; i++)
		if (run->shm->slot[i].t_end > t)
			t = run->shm->slot[i].t_end;
	return t;
}

static int run_workers(struct rep_run *run, uint64_t *window, int *bad, char *err, size_t len)
{
	struct ab_workers ws;
	int threads = run->mode != MODE_PROCS;
	uint64_t t0 = 0;

	if (ab_workers_start(&ws, run->n, threads, run->set->worker_cpu, NULL, worker, run, err, len) < 0)
		return -1;
	ab_cpumon_add_task(run->mon, getpid());	/* with its threads */
	for (int i = 0; run->mon && !threads && i < ws.started; i++)
		ab_cpumon_add_task(run->mon, ws.pid[i]);
	int rc = wait_barrier(run, &ws, err, len);
	if (!rc) {
		uint64_t deadline = fdget_deadline(run->set, run->n);
		ab_cpumon_begin(run->mon);
		t0 = ab_now_ns();
		ab_barrier_open(&run->shm->barrier);
		rc = ab_wait_count(&run->shm->finished, (uint32_t)run->n, deadline);
		if (rc)
			ab_err(err, len, "%s: the workers were not done after %.0f s", fdget_mode_name(run->mode),
			       (double)(deadline - t0) / 1e9);
		else if (run->mon)
			ab_cpumon_end(run->mon, (double)(last_end(run) - t0) / 1e9);
	}
	ab_count_up(&run->shm->release);
	/* On failure the workers are not waited for: stuck threads die with this process. */
	*bad = ab_workers_reap(&ws, rc ? 0 : ab_now_ns() + ab_scaled_ns(START_NS), NULL, NULL);
	ab_workers_free(&ws);
	*window = last_end(run) - t0;
	return rc;
}

/* ---- the result ---- */

static int collect(const struct rep_run *run, uint64_t window, int bad, struct fdget_rep *r,
		   char *err, size_t len)
{
	const char *op = fdget_ops[run->op].name, *mode = fdget_mode_name(run->mode);
	uint64_t ops = 0, cycles = 0, instr = 0, want = run->iters * (uint64_t)run->n;
	int perf_all = 1;

	for (int i = 0; i < run->n; i++) {
		const struct slot *w = &run->shm->slot[i];
		if (w->rc)
			return ab_err(err, len, "%s on the test file (fd %d, %s mode): %s", op, w->fd, mode,
				      strerror(w->err));
		ops += ab_counter_read(&w->done);
		cycles += w->pv.cycles;
		instr += w->pv.instr;
		perf_all &= w->perf_ok;
	}
	if (bad)
		return ab_err(err, len, "%s mode: %d of %d workers failed", mode, bad, run->n);
	if (ops != want)
		return ab_err(err, len, "%s mode: %llu operations counted, %llu expected", mode,
			      (unsigned long long)ops, (unsigned long long)want);
	if (window < AB_MIN_WINDOW_NS)
		return ab_err(err, len, "%s in %s mode: %llu iterations took %.3f ms, shorter than the "
			      "%.0f ms a timing needs; raise --duration", op, mode,
			      (unsigned long long)run->iters, (double)window / 1e6, AB_MIN_WINDOW_NS / 1e6);
	r->ns_per_op = (double)window / (double)run->iters;
	r->cycles_per_op = perf_all ? (double)cycles / (double)ops : NAN;
	r->instr_per_op = perf_all ? (double)instr / (double)ops : NAN;
	return 0;
}

/* read must move the file position a byte per call and wrap at EOF; a loop that
 * moved nothing (read wired to pread, say) would time the wrong syscall. */
static int check_read_moved(const struct rep_run *run, char *err, size_t len)
{
	const struct slot *w = &run->shm->slot[0];

	if (run->op != OP_READ || !fdget_mode_is_single(run->mode))
		return 0;
	off_t want = (off_t)(run->iters % (run->set->file_bytes + 1));
	off_t pos = lseek(w->fd, 0, SEEK_CUR);
	if (pos != want)
		return ab_err(err, len, "read: the file position is %lld after %llu calls on a %llu-byte "
			      "file, not %lld: the loop did not read", (long long)pos,
			      (unsigned long long)run->iters, (unsigned long long)run->set->file_bytes,
			      (long long)want);
	return 0;
}

int fdget_mode_run(const struct fdget_settings *s, enum fdget_op op, enum fdget_mode mode,
		   uint64_t iters, struct fdget_rep *r, char *err, size_t errlen)
{
	int n = fdget_mode_workers(s, mode), bad = 0, rc;
	struct rep_run run = { s, op, mode, fdget_ops[op].loop[s->call], iters, n, NULL, NULL };
	size_t size = sizeof(*run.shm) + (size_t)n * sizeof(run.shm->slot[0]);
	uint64_t window = 0;

	run.shm = ab_shm_alloc(size);
	if (!run.shm)
		return ab_err(err, errlen, "shared memory for %d workers: %s", n, strerror(errno));
	ab_barrier_init(&run.shm->barrier);
	for (int i = 0; i < n; i++)
		run.shm->slot[i].fd = mode == MODE_PRIVATE ? s->private_fd[i] : s->fd;
	r->threads_min = r->threads_max = -1;
	/* the benchmark's CPUs, not this child's (it is pinned to one) */
	run.mon = s->monitor ? ab_cpumon_new(&s->allowed) : NULL;
	if (run.mon && fdget_mode_is_single(mode))
		ab_cpumon_add_task(run.mon, getpid());	/* with idle-thread's sleeper */
	if (fdget_mode_is_single(mode))
		rc = run_single(&run, r, &window, err, errlen);
	else
		rc = run_workers(&run, &window, &bad, err, errlen);
	if (!rc)
		rc = collect(&run, window, bad, r, err, errlen);
	if (!rc)
		rc = check_read_moved(&run, err, errlen);
	/* per syscall: every worker's, over the same window the monitor was given */
	r->nmon = rc || !run.mon ? 0 : ab_cpumon_values(run.mon, (double)(iters * (uint64_t)n) /
							((double)window / 1e9), r->mon, AB_CPUMON_VALS);
	snprintf(r->mon_missing, sizeof(r->mon_missing), "%s", ab_cpumon_missing(run.mon));
	ab_cpumon_free(run.mon);
	ab_shm_free(run.shm, size);
	return rc;
}
