// SPDX-License-Identifier: GPL-2.0
/* The process runner (see proc.h). */
#include "sys/proc.h"
#include "sys/idle_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/barrier.h"
#include "sys/parse.h"
#include "sys/pin.h"

#define GIVE_UP_NS (5 * AB_NS)	/* after SIGKILL: a process still here is stuck in the kernel */

void ab_child_setup(pid_t parent, int cpu, const struct ab_cpuset *set)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(AB_EXIT_ORPHAN);
	ab_idle_qos_child();	/* the parent's --idle limit ends with the parent alone */
	for (size_t i = 0; i < AB_ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if ((cpu >= 0 && ab_pin_self(cpu) < 0) || (cpu < 0 && set && ab_pin_self_set(set) < 0)) {
		ab_msg("cannot pin a worker to CPU %d: %s", cpu, strerror(errno));
		_exit(AB_EXIT_CHILD_SETUP);
	}
}

/* ---- workers ---- */

/*
 * A thread worker's start record, one allocation per thread. The set and the
 * thread each hold a reference and the last to let go frees it: a thread the
 * set gave up on (detached, still stuck) may finish after the set is freed,
 * and then writes only into its own record, never into the set.
 */
struct ab_thread_start {
	ab_worker_fn fn;
	void *arg;
	int i;
	int status;		/* fn's return, once done */
	_Atomic int done;
	_Atomic int refs;
};

static void start_put(struct ab_thread_start *t)
{
	if (t && atomic_fetch_sub(&t->refs, 1) == 1)
		free(t);
}

static void *thread_main(void *p)
{
	struct ab_thread_start *t = p;

	t->status = t->fn(t->arg, t->i);
	atomic_store(&t->done, 1);
	start_put(t);
	return NULL;
}

/* Thread worker i: 0, or -1 with a message in err naming the CPU it could not be pinned to. */
static int start_thread(struct ab_workers *w, int i, int cpu, const struct ab_cpuset *set,
			ab_worker_fn fn, void *arg, char *err, size_t errlen)
{
	struct ab_thread_start *t = malloc(sizeof(*t));

	if (!t)
		return ab_err(err, errlen, "out of memory for worker %d", i);
	*t = (struct ab_thread_start){ .fn = fn, .arg = arg, .i = i, .refs = 2 };
	int e = ab_thread_start_pinned(&w->tid[i], cpu, cpu >= 0 ? NULL : set, thread_main, t);
	if (e) {
		free(t);
		errno = e;
		if (cpu >= 0)
			return ab_err(err, errlen, "cannot start worker %d pinned to CPU %d: %s", i, cpu,
				      strerror(e));
		return ab_err(err, errlen, "cannot start worker %d: %s", i, strerror(e));
	}
	w->start[i] = t;
	return 0;
}

/* Process worker i: pinned in the child, which says so and fails (126) when it cannot be. */
static int start_process(struct ab_workers *w, int i, int cpu, const struct ab_cpuset *set,
			 ab_worker_fn fn, void *arg, pid_t parent, char *err, size_t errlen)
{
	pid_t pid = fork();

	if (pid < 0)
		return ab_err(err, errlen, "cannot start worker %d: fork: %s", i, strerror(errno));
	if (pid == 0) {
		ab_child_setup(parent, cpu, set);
		_exit(fn(arg, i));
	}
	w->pid[i] = pid;
	return 0;
}

int ab_workers_start(struct ab_workers *w, int n, int threads, const int *cpu,
		     const struct ab_cpuset *set, ab_worker_fn fn, void *arg, char *err, size_t errlen)
{
	pid_t parent = getpid();

	memset(w, 0, sizeof(*w));
	w->n = n;
	w->threads = threads;
	w->pid = calloc((size_t)n, sizeof(*w->pid));
	w->tid = calloc((size_t)n, sizeof(*w->tid));
	w->status = calloc((size_t)n, sizeof(*w->status));
	w->start = threads ? calloc((size_t)n, sizeof(*w->start)) : NULL;
	if (!w->pid || !w->tid || !w->status || (threads && !w->start)) {
		ab_workers_free(w);
		return ab_err(err, errlen, "out of memory for %d workers", n);
	}
	fflush(NULL);	/* or each child's exit path could repeat buffered output */
	for (int i = 0; i < n; i++, w->started++) {
		int c = cpu ? cpu[i] : -1;
		int rc = threads ? start_thread(w, i, c, set, fn, arg, err, errlen) :
				   start_process(w, i, c, set, fn, arg, parent, err, errlen);
		if (rc < 0) {
			ab_workers_reap(w, 0, NULL, NULL);
			ab_workers_free(w);
			return -1;
		}
	}
	return 0;
}

int ab_workers_ended(const struct ab_workers *w)
{
	for (int i = 0; i < w->started; i++) {
		if (w->threads) {
			if (w->start[i] && atomic_load(&w->start[i]->done))
				return i;
			continue;
		}
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (w->pid[i] > 0 && waitid(P_PID, (id_t)w->pid[i], &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid)
			return i;
	}
	return -1;
}

/* One pass over the processes: reap what ended. Returns how many are left. */
static int reap_pass(struct ab_workers *w)
{
	int left = 0;

	for (int i = 0; i < w->started; i++) {
		if (w->pid[i] <= 0)
			continue;
		pid_t r = waitpid(w->pid[i], &w->status[i], WNOHANG);
		if (r == w->pid[i] || (r < 0 && errno == ECHILD))
			w->pid[i] = 0;
		else
			left++;
	}
	return left;
}

/* Let go of thread worker i: joined when done, else given up (detached, status -1). */
static void let_go(struct ab_workers *w, int i)
{
	struct ab_thread_start *t = w->start[i];

	if (!t)
		return;
	if (atomic_load(&t->done)) {
		pthread_join(w->tid[i], NULL);
		w->status[i] = t->status;
	} else {
		pthread_detach(w->tid[i]);	/* stuck: never joined; its record outlives the set */
		w->gave_up++;
		w->status[i] = -1;
	}
	w->start[i] = NULL;
	start_put(t);
}

static int join_threads(struct ab_workers *w, uint64_t deadline_ns, void (*unblock)(void *),
			void *arg)
{
	int bad = 0;

	for (int i = 0; i < w->started; i++) {
		while (w->start[i] && !atomic_load(&w->start[i]->done)) {
			if (ab_now_ns() > deadline_ns && unblock) {
				unblock(arg);
				unblock = NULL;
				deadline_ns = ab_now_ns() + ab_scaled_ns(GIVE_UP_NS);
			} else if (ab_now_ns() > deadline_ns) {
				break;
			}
			ab_sleep_ns(AB_POLL_NS / 10);
		}
		let_go(w, i);
		bad += w->status[i] != 0;
	}
	return bad;
}

int ab_workers_reap(struct ab_workers *w, uint64_t deadline_ns, void (*unblock)(void *), void *arg)
{
	int killed = 0, bad = 0;

	if (w->threads)
		return join_threads(w, deadline_ns, unblock, arg);
	while (reap_pass(w)) {
		uint64_t now = ab_now_ns();
		if (now > deadline_ns && !killed) {
			if (unblock)
				unblock(arg);
			for (int i = 0; i < w->started; i++)
				if (w->pid[i] > 0)
					kill(w->pid[i], SIGKILL);
			killed = 1;
			deadline_ns = now + ab_scaled_ns(GIVE_UP_NS);
		} else if (now > deadline_ns) {
			for (int i = 0; i < w->started; i++)
				if (w->pid[i] > 0) {
					w->pid[i] = 0;	/* left to init: waiting on would never end */
					w->status[i] = -1;
					w->gave_up++;
				}
			break;
		}
		ab_sleep_ns(AB_POLL_NS / 10);
	}
	for (int i = 0; i < w->started; i++)
		bad += w->status[i] == -1 || !WIFEXITED(w->status[i]) || WEXITSTATUS(w->status[i]) != 0;
	return bad;
}

void ab_workers_free(struct ab_workers *w)
{
	for (int i = 0; w->start && i < w->started; i++)
		if (w->start[i]) {	/* never reaped: it may still run, so it keeps its record */
			pthread_detach(w->tid[i]);
			start_put(w->start[i]);
		}
	free(w->start);
	w->start = NULL;
	free(w->pid);
	free(w->tid);
	free(w->status);
	w->pid = NULL;
	w->tid = NULL;
	w->status = NULL;
	w->n = w->started = 0;	/* a freed set has no workers to wait for (gave_up stays) */
}

int ab_reap_one(pid_t pid, uint64_t deadline_ns)
{
	struct ab_workers w = { .n = 1, .started = 1, .pid = &pid };
	int st = 0;

	w.status = &st;
	ab_workers_reap(&w, deadline_ns, NULL, NULL);
	return w.gave_up ? -1 : st;
}

int ab_run(const char *dir, char *const argv[], const char *log, uint64_t timeout_ns)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
			      O_NOFOLLOW, 0644);
		ab_child_setup(parent, -1, NULL);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (dir && chdir(dir) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st = ab_reap_one(pid, ab_now_ns() + timeout_ns);
	if (st == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- watching ---- */

int ab_watch(uint64_t until_ns, uint64_t deadline_ns, ab_check_fn check, void *arg, char *why,
	     size_t len)
{
	for (;;) {
		uint64_t now = ab_now_ns();

		if (ab_interrupted)
			return ab_err(why, len, "interrupted by signal %d", (int)ab_interrupted);
		if (check && check(arg, why, len) < 0)
			return -1;
		if (now >= deadline_ns)
			return ab_err(why, len, "passed its deadline");
		if (now >= until_ns)
			return 0;
		uint64_t step = until_ns - now < AB_POLL_NS ? until_ns - now : AB_POLL_NS;
		ab_sleep_ns(step);
	}
}

/* ---- machine speed ---- */

#define SLOW_FORKS 20
/* fork + exit + wait of a small process: about 100 us on a VM */
#define SLOW_REF_NS (150 * 1000ull)

static double slow_factor;	/* 0: not known yet */
static uint64_t slow_probed_at;	/* when this process probed it; 0: inherited */

/* The fastest of a few forks against the reference, within [1, 100]. */
static double slow_probe(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < SLOW_FORKS; i++) {	/* the fastest of a few: noise only adds */
		uint64_t t0 = ab_now_ns();
		pid_t p = fork(), w = -1;
		if (p == 0)
			_exit(0);
		while (p > 0 && (w = waitpid(p, NULL, 0)) < 0 && errno == EINTR)
			;	/* a signal (Ctrl-C) still reaps the child: no zombie */
		if (p < 0 || w != p)
			break;
		uint64_t d = ab_now_ns() - t0;
		best = d < best ? d : best;
	}
	double f = best == UINT64_MAX ? 1 : (double)best / SLOW_REF_NS;
	return f < 1 ? 1 : f > 100 ? 100 : f;
}

/* The harness's figure (AB_SLOWNESS_ENV), or 0: none, or not a decimal number in
 * [1, 100] (then this process probes; the figure only stretches timeouts). */
static double slow_inherited(void)
{
	const char *s = getenv(AB_SLOWNESS_ENV);
	double f;

	if (!s || ab_parse_double(s, &f) < 0)
		return 0;
	return f >= 1 && f <= 100 ? f : 0;
}

/* Probe, and note when: ab_slowness_fresh's age counts from here. */
static void slow_measure(void)
{
	slow_factor = slow_probe();
	slow_probed_at = ab_now_ns();
}

double ab_slowness(void)
{
	if (slow_factor > 0)
		return slow_factor;
	slow_factor = slow_inherited();
	if (slow_factor == 0)
		slow_measure();
	return slow_factor;
}

double ab_slowness_fresh(uint64_t max_age_ns)
{
	if (!slow_probed_at || ab_now_ns() - slow_probed_at > max_age_ns)
		slow_measure();
	return slow_factor;
}

int ab_slowness_probed(void)
{
	return slow_probed_at != 0;
}

uint64_t ab_scaled_ns(uint64_t ns)
{
	return (uint64_t)((double)ns * ab_slowness());
}
