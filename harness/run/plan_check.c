// SPDX-License-Identifier: GPL-2.0
/*
 * A plan checked against the benchmarks' own options before the first point
 * runs: every point of a registered benchmark's block (distinct: h_plan_dups
 * refused a plan that measures one twice) goes through bin/<bench> ARGS
 * --check-options, which parses and checks the options and their combinations
 * as a real run would, then exits 0 without measuring or touching the machine
 * (lib/sys/opts.h). Exit 2 is a mistake in the plan: its one line goes back to
 * the plan line of the option it names (an axis, an extra argument), else the
 * block's 'bench' line. The benchmark is the one place that knows its
 * options, so the harness keeps no copy of them.
 *
 * Blocks with a 'program' line run a program of the plan's own, whose options
 * the harness cannot know: they are not checked.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/cpuset.h"
#include "sys/barrier.h"
#include "sys/proc.h"
#include "run.h"

#define CHECK_TIMEOUT_NS (10 * AB_NS)	/* parsing options; scaled by the machine's slowness */
#define CHECK_MSG_MAX 512
#define CHECK_PARALLEL_MAX 32	/* checks at once: one per allowed CPU, at most this */

/* ---- checks running at once, one per allowed CPU ---- */

struct check {
	int point;		/* index into the plan's points; -1: a free slot */
	pid_t pid;
	int fd;			/* its stderr */
	uint64_t deadline;
	size_t have;
	char msg[CHECK_MSG_MAX];	/* the start of its stderr */
};

struct pool {
	struct check *c;
	int max, running;
	int bad;		/* the first point refused, in plan order; -1: none */
	int bad_late;		/* it did not answer in time */
	char bad_msg[CHECK_MSG_MAX];
};

/* Start argv in a free slot: stdout on /dev/null, stderr on a pipe. 0 or -1. */
static int check_start(struct pool *pl, int point, char **argv)
{
	static const struct h_spawn how = { .pipe_to = 2, .other = -1 };
	struct check *c = pl->c;
	int fd;

	while (c->point >= 0)
		c++;
	pid_t pid = h_spawn(argv, &how, &fd);
	if (pid < 0)
		return -1;
	*c = (struct check){ .point = point, .pid = pid, .fd = fd,
			     .deadline = ab_now_ns() + ab_scaled_ns(CHECK_TIMEOUT_NS) };
	pl->running++;
	return 0;
}

/* Its exit: exit 2 or no answer in time is kept when it is the earliest point so far. */
static void check_end(struct pool *pl, struct check *c)
{
	int late = ab_now_ns() >= c->deadline;
	int st = ab_reap_one(c->pid, c->deadline);	/* killed at once when late */

	close(c->fd);
	c->msg[c->have] = '\0';
	c->msg[strcspn(c->msg, "\n")] = '\0';
	late |= st < 0;
	/* 0: good; 4 (the machine lacks something) or a failure: the point will say so */
	if ((late || (WIFEXITED(st) && WEXITSTATUS(st) == AB_EXIT_USAGE)) &&
	    (pl->bad < 0 || c->point < pl->bad)) {
		pl->bad = c->point;
		pl->bad_late = late;
		memcpy(pl->bad_msg, c->msg, sizeof(pl->bad_msg));
	}
	c->point = -1;
	pl->running--;
}

/* Wait for output, an exit or a deadline of the running checks; end those done. */
static void check_wait(struct pool *pl)
{
	struct pollfd fds[CHECK_PARALLEL_MAX];
	struct check *who[CHECK_PARALLEL_MAX];
	uint64_t t = ab_now_ns(), first = UINT64_MAX;
	int n = 0;

	for (int i = 0; i < pl->max; i++)
		if (pl->c[i].point >= 0) {
			fds[n] = (struct pollfd){ pl->c[i].fd, POLLIN, 0 };
			who[n++] = &pl->c[i];
			first = pl->c[i].deadline < first ? pl->c[i].deadline : first;
		}
	if (poll(fds, (nfds_t)n, first > t ? (int)((first - t) / 1000000 + 1) : 0) < 0 && errno != EINTR)
		return;
	for (int i = 0; i < n; i++) {
		struct check *c = who[i];
		char buf[512];
		ssize_t got = 0;
		if (fds[i].revents) {
			got = read(c->fd, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
		}
		if (got > 0) {	/* keep the start, drop the rest */
			size_t take = sizeof(c->msg) - 1 - c->have;
			take = take < (size_t)got ? take : (size_t)got;
			memcpy(c->msg + c->have, buf, take);
			c->have += take;
		} else if (fds[i].revents || ab_now_ns() >= c->deadline) {
			check_end(pl, c);	/* its end of the pipe closed (it exited), or too late */
		}
	}
}

/* ---- back to the plan line ---- */

/* The plan line of the first option --NAME in msg that the block passes. */
static int line_of(const struct h_block *b, const char *msg)
{
	for (const char *s = strstr(msg, "--"); s; s = strstr(s + 2, "--")) {
		size_t n = strspn(s + 2, H_WORD_CHARS);
		if (n == 0)
			continue;
		for (int a = 0; a < b->naxes; a++)
			if (strlen(b->axes[a].name) == n && !strncmp(b->axes[a].name, s + 2, n))
				return b->axes[a].line;
		for (int e = 0; e < b->nextra; e++)
			if (!strncmp(b->extra[e], s, n + 2) &&
			    (b->extra[e][n + 2] == '\0' || b->extra[e][n + 2] == '='))
				return b->extra_line[e];
	}
	return b->line;
}

static int refused(const struct h_plan *p, const struct h_point *pt, const char *msg, char *err,
		   size_t errlen)
{
	const struct h_block *b = pt->blk;
	const char *why = msg;
	size_t pre = strlen(b->bench);

	/* "cputestfs: unknown option ..." -> "unknown option ..." */
	if (!strncmp(why, b->bench, pre) && !strncmp(why + pre, ": ", 2))
		why += pre + 2;
	return ab_err(err, errlen, "%s:%d: %s%s%s%s: %s", p->path, line_of(b, msg), b->bench,
		      pt->label[0] ? " (" : "", pt->label, pt->label[0] ? ")" : "",
		      why[0] ? why : "exit 2 without a message");
}

/* Start the check of one point unless it is not to be checked. 0 or -1. */
static int start_point(struct pool *pl, const struct h_plan *p, int i, char *err, size_t errlen)
{
	const struct h_point *pt = &p->points[i];
	char prog[PATH_MAX], dur[32];
	char *argv[H_ARGV_MAX + 1];
	static char check[] = "--check-options";

	/* a program of the plan's own, or one not built (h_run_check_programs says so) */
	if (pt->blk->program[0] || access(h_program_of(pt->blk, prog, sizeof(prog)), X_OK))
		return 0;
	int n = h_point_argv(pt, 1, prog, argv, (int)AB_ARRAY_SIZE(argv) - 1, dur, sizeof(dur));
	if (n < 0)
		return ab_err(err, errlen, "%s:%d: too many arguments", p->path, pt->blk->line);
	argv[n++] = check;
	argv[n] = NULL;
	if (check_start(pl, i, argv) < 0)
		return ab_err(err, errlen, "cannot run %s: %s", prog, strerror(errno));
	return 0;
}

int h_plan_check(const struct h_plan *p, char *err, size_t errlen)
{
	struct ab_cpuset cpus;
	struct check c[CHECK_PARALLEL_MAX];
	struct pool pl = { .c = c, .max = 1, .bad = -1 };
	int rc = 0;

	if (ab_cpuset_allowed(&cpus) == 0)
		pl.max = ab_cpuset_count(&cpus);
	pl.max = pl.max < 1 ? 1 : pl.max > CHECK_PARALLEL_MAX ? CHECK_PARALLEL_MAX : pl.max;
	for (int i = 0; i < pl.max; i++)
		c[i].point = -1;
	/* after the first refusal nothing new starts: an earlier point's is still running */
	for (int i = 0; (i < p->npoints && pl.bad < 0 && rc == 0) || pl.running;) {
		while (pl.running < pl.max && i < p->npoints && pl.bad < 0 && rc == 0)
			rc = start_point(&pl, p, i++, err, errlen);
		if (pl.running)
			check_wait(&pl);
	}
	if (rc < 0 || pl.bad < 0)
		return rc;
	const struct h_point *pt = &p->points[pl.bad];
	if (pl.bad_late)
		return ab_err(err, errlen, "%s:%d: bin/%s --check-options did not answer within %.0f s",
			      p->path, pt->blk->line, pt->blk->bench,
			      (double)ab_scaled_ns(CHECK_TIMEOUT_NS) / AB_NS);
	return refused(p, pt, pl.bad_msg, err, errlen);
}
