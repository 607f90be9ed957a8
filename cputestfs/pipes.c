// SPDX-License-Identifier: GPL-2.0
/*
 * The pipe baseline: a one-byte ping-pong over two pipes with a server process
 * placed like the FUSE daemon, which answers with the CPU it runs on. It shows
 * the scheduler's wake-up cost alone, without the FUSE request machinery.
 * Servers are lib/sys/proc workers (pinned, die with the benchmark); this file
 * holds their pipes, their loop and the client's round trip.
 *
 * Limits: one server per client, always (no shared server like --daemon
 * single); the reply is the server's CPU after its read, not at its write.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "cputestfs.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int ctf_pipes_open(struct ctf_pipe *p, int n, char *why, size_t len)
{
	for (int i = 0; i < n; i++)
		p[i] = (struct ctf_pipe){ -1, -1, -1, -1 };
	for (int i = 0; i < n; i++) {
		int req[2], rep[2];

		if (pipe2(req, O_CLOEXEC) < 0)
			goto fail;
		if (pipe2(rep, O_CLOEXEC) < 0) {
			close(req[0]);
			close(req[1]);
			goto fail;
		}
		p[i] = (struct ctf_pipe){ .to_server = req[1], .from_server = rep[0],
					  .server_in = req[0], .server_out = rep[1] };
	}
	return 0;
fail:
	ab_err(why, len, "pipe baseline: pipe: %s", strerror(errno));
	ctf_pipes_close_all(p, n);
	return -1;
}

void ctf_pipes_close_server_ends(struct ctf_pipe *p, int n)
{
	for (int i = 0; i < n; i++) {
		close_fd(&p[i].server_in);
		close_fd(&p[i].server_out);
	}
}

void ctf_pipes_keep_client(struct ctf_pipe *p, int n, int i)
{
	for (int k = 0; k < n; k++) {
		if (k == i)
			continue;
		close_fd(&p[k].to_server);
		close_fd(&p[k].from_server);
	}
}

void ctf_pipes_close_all(struct ctf_pipe *p, int n)
{
	ctf_pipes_close_server_ends(p, n);
	ctf_pipes_keep_client(p, n, -1);
}

int ctf_pipe_server(void *servers, int i)
{
	struct ctf_pipe_servers *s = servers;
	int in = s->pipes[i].server_in, out = s->pipes[i].server_out;
	struct ab_counter *served = &s->sh->client[i].served;

	/* Only client i may hold the ends of these pipes: each side sees EOF when the other dies. */
	s->pipes[i].server_in = s->pipes[i].server_out = -1;
	ctf_pipes_close_all(s->pipes, s->n);
	for (;;) {
		char c;
		ssize_t r = read(in, &c, 1);
		if (r == 0)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return 1;
		int cpu = sched_getcpu();
		ab_counter_inc(served);
		if (write(out, &cpu, sizeof(cpu)) != (ssize_t)sizeof(cpu))
			return 1;
	}
}

int ctf_pipe_ping(const struct ctf_pipe *p, int *served)
{
	char c = 0;
	int cpu;
	ssize_t r;

	do
		r = write(p->to_server, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		return -1;
	do
		r = read(p->from_server, &cpu, sizeof(cpu));
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(cpu)) {
		if (r >= 0)
			errno = EPIPE;	/* EOF or a torn reply: the server is gone */
		return -1;
	}
	*served = cpu;
	return 0;
}
