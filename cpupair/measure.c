// SPDX-License-Identifier: GPL-2.0
/*
 * One repetition of one pair and method (will-it-scale's shape): a thread
 * pinned on each CPU of the pair waits at the start barrier; once both are there
 * the barrier opens, the loops run through a warm-up (a quarter of the window),
 * and the parent, on neither CPU's loop, counts the round trips the pinging
 * side made over the window it times with CLOCK_MONOTONIC. Just outside those
 * clock reads it reads both sides' context switches (/proc, switches.c): the
 * voluntary ones say how many waits slept, the involuntary ones whether a
 * spinner lost its CPU. A CPU monitor, when given, samples the pair's CPUs
 * there too.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kstats/cpumon.h"
#include "sys/common.h"
#include "sys/pin.h"
#include "cpupair.h"

static int (*const loop[CP_NMETHOD][2])(struct cp_shared *) = {
	[CP_LINE] = { cp_line_pong, cp_line_ping },
	[CP_FUTEX] = { cp_futex_pong, cp_futex_ping },
	[CP_PIPE] = { cp_pipe_pong, cp_pipe_ping },
};

struct side {
	struct cp_shared *sh;
	enum cp_method m;
	int ping, rc;
};

/* A side that fails tells the other to quit, whichever channel it waits on. */
static void *side_main(void *arg)
{
	struct side *s = arg;
	struct cp_shared *sh = s->sh;
	int *wr = s->ping ? &sh->ping_pipe[1] : &sh->pong_pipe[1];

	atomic_store(&sh->tid[s->ping], gettid());
	ab_barrier_arrive_wait(&sh->barrier);
	s->rc = loop[s->m][s->ping](sh);
	if (s->rc < 0) {
		atomic_store(&sh->line, CP_QUIT);
		syscall(SYS_futex, &sh->line, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		if (*wr >= 0)
			close(*wr);	/* the other side's read sees the end */
		*wr = -1;
	}
	return NULL;
}

static void close_pipes(struct cp_shared *sh)
{
	int *fd[] = { &sh->ping_pipe[0], &sh->ping_pipe[1], &sh->pong_pipe[0], &sh->pong_pipe[1] };

	for (size_t i = 0; i < AB_ARRAY_SIZE(fd); i++)
		if (*fd[i] >= 0)
			close(*fd[i]);
}

/* Start both sides; 0, or -1 with why (a side that started is let go). */
static int start(struct cp_shared *sh, struct side *s, pthread_t *th, const struct cp_pair *p,
		 char *why, size_t len)
{
	int cpu[2] = { p->b, p->a }, e;

	for (int i = 0; i < 2; i++) {
		if ((e = ab_thread_start_pinned(&th[i], cpu[i], NULL, side_main, &s[i])) == 0)
			continue;
		if (i) {
			atomic_store(&sh->line, CP_QUIT);	/* the answering side quits at once */
			if (sh->ping_pipe[1] >= 0)
				close(sh->ping_pipe[1]);
			sh->ping_pipe[1] = -1;
			ab_barrier_open(&sh->barrier);
			pthread_join(th[0], NULL);
		}
		return ab_err(why, len, "cannot start a thread on CPU %d: %s", cpu[i], strerror(e));
	}
	if (ab_barrier_wait_arrived(&sh->barrier, 2, ab_scaled_ns(CP_BARRIER_NS)) == 0)
		return 0;
	/* Cannot happen short of a frozen machine: the threads are joined anyway. */
	atomic_store(&sh->phase, CP_STOP);
	ab_barrier_open(&sh->barrier);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return ab_err(why, len, "CPUs %d and %d did not reach the start barrier", p->a, p->b);
}

/* Both sides' switches summed; -1 when either is not readable. */
static int both_switches(struct cp_shared *sh, struct cp_switches *s)
{
	struct cp_switches x[2];

	for (int i = 0; i < 2; i++)
		if (cp_switches(atomic_load(&sh->tid[i]), &x[i]) < 0)
			return -1;
	s->vol = x[0].vol + x[1].vol;
	s->invol = x[0].invol + x[1].invol;
	s->wait_ns = x[0].wait_ns + x[1].wait_ns;
	return 0;
}

/* What the window's switches say: on two CPUs a wait that slept is a voluntary
 * switch; on one CPU the sides take turns, so every switch is a handoff. */
static void switches_of(const struct cp_pair *p, enum cp_method m, const struct cp_switches *s0,
			const struct cp_switches *s1, uint64_t rts, uint64_t ns, struct cp_result *res)
{
	unsigned long vol = s1->vol - s0->vol;

	res->invol = s1->invol - s0->invol;
	res->wait_pct = 100.0 * (s1->wait_ns - s0->wait_ns) / (double)ns;	/* NAN stays */
	res->switches_known = 1;
	if (m == CP_LINE)
		return;
	if (p->a == p->b)
		vol += res->invol;
	res->slept_pct = 100.0 * (double)vol / (2.0 * (double)rts);
	if (res->slept_pct > 100)	/* a sleep that is no wait (a page fault's, say) */
		res->slept_pct = 100;
}

int cp_measure(const struct cp_pair *p, enum cp_method m, double duration, struct ab_cpumon *mon,
	       struct cp_result *res, char *why, size_t len)
{
	struct cp_shared *sh = aligned_alloc(AB_CACHELINE, sizeof(*sh));
	struct cp_switches s0, s1;
	struct side s[2];
	pthread_t th[2];
	uint64_t c0, c1, t0, t1, window = (uint64_t)(duration * 1e9);
	int rc = -1, sw;

	*res = (struct cp_result){ NAN, NAN, 0, NAN, 0 };
	if (!sh)
		return ab_err(why, len, "out of memory");
	if (p->a == p->b && m == CP_LINE) {	/* two spinners on one CPU hand nothing over */
		free(sh);
		return ab_err(why, len, "CPU %d: the cache line is not measured on one CPU", p->a);
	}
	memset(sh, 0, sizeof(*sh));
	ab_barrier_init(&sh->barrier);
	atomic_store(&sh->line, CP_PONG);
	sh->ping_pipe[0] = sh->ping_pipe[1] = sh->pong_pipe[0] = sh->pong_pipe[1] = -1;
	if (m == CP_PIPE && (pipe2(sh->ping_pipe, O_CLOEXEC) < 0 || pipe2(sh->pong_pipe, O_CLOEXEC) < 0)) {
		ab_err(why, len, "pipe: %s", strerror(errno));
		goto out;
	}
	s[0] = (struct side){ sh, m, 0, 0 };
	s[1] = (struct side){ sh, m, 1, 0 };
	if (start(sh, s, th, p, why, len) < 0)
		goto out;

	ab_barrier_open(&sh->barrier);
	ab_sleep_ns(window / 4);	/* warm-up: caches, frequencies, the first wake-ups */
	if (mon)
		ab_cpumon_begin(mon);
	sw = both_switches(sh, &s0);
	c0 = ab_counter_read(&sh->count);
	t0 = ab_now_ns();
	ab_sleep_ns(window);
	/* On a busy machine a spinning side can be kept off its CPU for a whole
	 * short window: the window grows, up to CP_WINDOWS_MAX of them, until a
	 * round trip was made, and the time per round trip covers all of it. */
	for (int w = 1; ab_counter_read(&sh->count) == c0 && w < CP_WINDOWS_MAX; w++)
		ab_sleep_ns(window);
	c1 = ab_counter_read(&sh->count);
	t1 = ab_now_ns();
	sw |= both_switches(sh, &s1);
	if (mon)
		ab_cpumon_end(mon, (double)(t1 - t0) / 1e9);
	atomic_store(&sh->phase, CP_STOP);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);

	if (s[0].rc < 0 || s[1].rc < 0)
		ab_err(why, len, "CPUs %d,%d: %s", p->a, p->b, sh->err[0] ? sh->err : "a side failed");
	else if (c1 == c0)
		ab_err(why, len, "CPUs %d,%d: no round trip in %g s", p->a, p->b,
		       duration * CP_WINDOWS_MAX);
	else {
		res->rt_ns = (double)(t1 - t0) / (double)(c1 - c0);
		if (sw == 0)
			switches_of(p, m, &s0, &s1, c1 - c0, t1 - t0, res);
		rc = 0;
	}
out:
	close_pipes(sh);
	free(sh);
	return rc;
}
