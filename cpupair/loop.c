// SPDX-License-Identifier: GPL-2.0
/*
 * The measured loops of cpupair: one thread on each CPU of a pair hands a
 * token back and forth, and the pinging side counts round trips on its own
 * cache line (the parent times the window, measure.c).
 *   line:  one cache line, an atomic store and a spinning load each way
 *          (release/acquire): the floor of any handoff between the CPUs;
 *   futex: the same word, but each side sleeps in FUTEX_WAIT until the other's
 *          FUTEX_WAKE: a wake-up each way;
 *   pipe:  a byte each way through two pipes, each side sleeping in read(),
 *          through the wait queues FUSE's own wake-ups take.
 * The pinging side checks for the stop once per round trip (a load of a line
 * nobody writes meanwhile: an L1 hit) and tells the other side to quit.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpupair.h"

static int stopping(struct cp_shared *sh)
{
	return atomic_load_explicit(&sh->phase, memory_order_relaxed) == CP_STOP;
}

static uint32_t get(struct cp_shared *sh)
{
	return atomic_load_explicit(&sh->line, memory_order_acquire);
}

static void put(struct cp_shared *sh, uint32_t v)
{
	atomic_store_explicit(&sh->line, v, memory_order_release);
}

/* The answering side failed and said so (measure.c): its reason is in sh->err. */
static int quit(struct cp_shared *sh)
{
	(void)sh;
	return -1;
}

int cp_line_ping(struct cp_shared *sh)
{
	uint32_t v;

	while (!stopping(sh)) {
		put(sh, CP_PING);
		while ((v = get(sh)) == CP_PING)
			;
		if (v == CP_QUIT)
			return quit(sh);
		ab_counter_inc(&sh->count);
	}
	put(sh, CP_QUIT);
	return 0;
}

int cp_line_pong(struct cp_shared *sh)
{
	uint32_t v;

	for (;;) {
		while ((v = get(sh)) == CP_PONG)
			;
		if (v == CP_QUIT)
			return 0;
		put(sh, CP_PONG);
	}
}

/* FUTEX_WAIT while the word is still v; a changed word (EAGAIN) or a signal
 * just returns. 0, or -1 with the reason in sh->err. */
static int futex_wait(struct cp_shared *sh, uint32_t v)
{
	if (syscall(SYS_futex, &sh->line, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0) == 0 ||
	    errno == EAGAIN || errno == EINTR)
		return 0;
	snprintf(sh->err, sizeof(sh->err), "futex wait: %s", strerror(errno));
	return -1;
}

static void futex_wake(struct cp_shared *sh)
{
	syscall(SYS_futex, &sh->line, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

int cp_futex_ping(struct cp_shared *sh)
{
	uint32_t v;

	while (!stopping(sh)) {
		put(sh, CP_PING);
		futex_wake(sh);
		while ((v = get(sh)) == CP_PING)
			if (futex_wait(sh, CP_PING) < 0)
				return -1;
		if (v == CP_QUIT)
			return quit(sh);
		ab_counter_inc(&sh->count);
	}
	put(sh, CP_QUIT);
	futex_wake(sh);
	return 0;
}

int cp_futex_pong(struct cp_shared *sh)
{
	uint32_t v;

	for (;;) {
		while ((v = get(sh)) == CP_PONG)
			if (futex_wait(sh, CP_PONG) < 0)
				return -1;
		if (v == CP_QUIT)
			return 0;
		put(sh, CP_PONG);
		futex_wake(sh);
	}
}

/* One byte through fd; 0, or -1 with the reason in sh->err. */
static int pipe_io(struct cp_shared *sh, int fd, char *c, int out)
{
	ssize_t r;

	do
		r = out ? write(fd, c, 1) : read(fd, c, 1);
	while (r < 0 && errno == EINTR);
	if (r == 1)
		return 0;
	snprintf(sh->err, sizeof(sh->err), "pipe %s: %s", out ? "write" : "read",
		 r < 0 ? strerror(errno) : "end of file");
	return -1;
}

int cp_pipe_ping(struct cp_shared *sh)
{
	char c = CP_PING;

	while (!stopping(sh)) {
		if (pipe_io(sh, sh->ping_pipe[1], &c, 1) < 0 || pipe_io(sh, sh->pong_pipe[0], &c, 0) < 0)
			return -1;
		ab_counter_inc(&sh->count);
		c = CP_PING;
	}
	c = CP_QUIT;
	return pipe_io(sh, sh->ping_pipe[1], &c, 1);
}

int cp_pipe_pong(struct cp_shared *sh)
{
	char c;

	for (;;) {
		if (pipe_io(sh, sh->ping_pipe[0], &c, 0) < 0)
			return -1;
		if (c == CP_QUIT)
			return 0;
		c = CP_PONG;
		if (pipe_io(sh, sh->pong_pipe[1], &c, 1) < 0)
			return -1;
	}
}
