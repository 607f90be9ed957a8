/*
 * A plan checked against the benchmarks' own options before the first point
 * runs: every distinct point of a registered benchmark's block goes through
 * bin/<bench> ARGS --check-options, which parses and checks the options and
 * their combinations as a real run would, then exits 0 without measuring or
 * touching the machine (lib/sys/opts.h). Exit 2 is a mistake in the plan: its
 * one line goes back to the plan line of the option it names (an axis, an
 * extra argument), else the block's 'bench' line. The benchmark is the one
 * place that knows its options, so the harness keeps no copy of them.
 *
 * Blocks with a 'program' line run a program of the plan's own, whose options
 * the harness cannot know: they are not checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/pin.h"
#include "sys/proc.h"
#include "harness.h"

#define CHECK_TIMEOUT_NS (10 * AB_NS)	/* parsing options; scaled by the machine's slowness */
#define CHECK_MSG_MAX 512

/* ---- the points already checked: a set of argv hashes ---- */

struct seen {
	uint64_t *h;	/* 0 = empty slot */
	size_t mask;
};

static uint64_t argv_hash(char **argv)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a over the words and their ends */

	for (; *argv; argv++)
		for (const unsigned char *c = (const unsigned char *)*argv;; c++) {
			h = (h ^ *c) * 1099511628211ull;
			if (!*c)
				break;
		}
	return h ? h : 1;
}

/* 1 when argv was seen before, else 0 (and it is now). */
static int seen_before(struct seen *s, char **argv)
{
	uint64_t h = argv_hash(argv);
	size_t i = h & s->mask;

	for (; s->h[i]; i = (i + 1) & s->mask)
		if (s->h[i] == h)
			return 1;
	s->h[i] = h;
	return 0;
}

/* ---- one check ---- */

/* Run argv with stdout on /dev/null, its stderr's first line into msg. The exit
 * status, 128 + signal, or -1 (could not run, or no exit within the timeout). */
static int run_check(char **argv, char *msg, size_t len)
{
	int pfd[2];
	size_t have = 0;
	char buf[256];

	msg[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		int dn = open("/dev/null", O_RDWR);
		if (dn >= 0) {
			dup2(dn, 0);
			dup2(dn, 1);
		}
		dup2(pfd[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	uint64_t deadline = ab_now_ns() + ab_scaled_ns(CHECK_TIMEOUT_NS);
	for (;;) {	/* read to the end, keeping the start; bounded in time */
		uint64_t t = ab_now_ns();
		struct pollfd p = { pfd[0], POLLIN, 0 };
		if (t >= deadline || poll(&p, 1, (int)((deadline - t) / 1000000 + 1)) == 0)
			break;
		ssize_t n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size_t take = have + 1 < len ? len - 1 - have : 0;
		take = take < (size_t)n ? take : (size_t)n;
		memcpy(msg + have, buf, take);
		have += take;
	}
	close(pfd[0]);
	msg[have] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	int late = ab_now_ns() >= deadline;
	int st = ab_reap_one(pid, deadline);	/* killed at once when late */
	if (st < 0 || late)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- back to the plan line ---- */

/* The plan line of the first option --NAME in msg that the block passes. */
static int line_of(const struct h_block *b, const char *msg)
{
	for (const char *s = strstr(msg, "--"); s; s = strstr(s + 2, "--")) {
		size_t n = strspn(s + 2, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_");
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

static int check_point(const struct h_plan *p, const struct h_point *pt, struct seen *seen,
		       char *err, size_t errlen)
{
	char prog[PATH_MAX], dur[32], msg[CHECK_MSG_MAX];
	char *argv[8 + 2 * H_AXES_MAX + H_ARGS_MAX + 2];
	static char check[] = "--check-options";

	int n = h_point_argv(pt, h_program_of(pt->blk, prog, sizeof(prog)), argv,
			     (int)AB_ARRAY_SIZE(argv) - 1, dur, sizeof(dur));
	if (n < 0)
		return ab_err(err, errlen, "%s:%d: too many arguments", p->path, pt->blk->line);
	argv[n++] = check;
	argv[n] = NULL;
	if (seen_before(seen, argv))
		return 0;
	int rc = run_check(argv, msg, sizeof(msg));
	if (rc == AB_EXIT_USAGE)
		return refused(p, pt, msg, err, errlen);
	if (rc < 0)
		return ab_err(err, errlen, "%s:%d: %s --check-options did not answer within %.0f s",
			      p->path, pt->blk->line, prog, (double)ab_scaled_ns(CHECK_TIMEOUT_NS) / AB_NS);
	/* 0: good; 4 (the machine lacks something) or a failure: the point will say so */
	return 0;
}

int h_plan_check(const struct h_plan *p, char *err, size_t errlen)
{
	struct seen seen = { 0 };
	size_t slots = 16;
	int rc = 0;

	while (slots < 2 * (size_t)p->npoints)
		slots *= 2;
	seen.h = calloc(slots, sizeof(*seen.h));
	seen.mask = slots - 1;
	if (!seen.h)
		return ab_err(err, errlen, "out of memory");
	for (int i = 0; i < p->npoints && rc == 0; i++) {
		const struct h_block *b = p->points[i].blk;
		char prog[PATH_MAX];
		/* a program of the plan's own, or one not built (h_run_check_programs says so) */
		if (b->program[0] || access(h_program_of(b, prog, sizeof(prog)), X_OK))
			continue;
		rc = check_point(p, &p->points[i], &seen, err, errlen);
	}
	free(seen.h);
	return rc;
}
