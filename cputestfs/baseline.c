/*
 * Baselines that show what FUSE adds to a stat():
 *  - kernel: stat() of a file on a kernel filesystem (the upper bound; the
 *    client loop is unchanged, only the path differs);
 *  - pipe: a one-byte ping-pong over two pipes with a server process placed
 *    like the daemon, which answers with its CPU: the scheduler's wake-up
 *    cost alone, without the FUSE request machinery.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "cputestfs.h"

int cfs_kernel_file(char *path, size_t len, char *err, size_t errlen)
{
	if (snprintf(path, len, "%s/affbench-kstat-XXXXXX", ab_workdir()) >= (int)len)
		return ab_err(err, errlen, "work directory path too long: %s", ab_workdir());
	int fd = mkstemp(path);
	if (fd < 0)
		return ab_err(err, errlen, "cannot create %s: %s", path, strerror(errno));
	close(fd);
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Server: answer each byte with the CPU it runs on, until the parent kills it. */
static void __attribute__((noreturn)) pipe_server(int in, int out, struct ab_counter *served)
{
	for (;;) {
		char c;
		ssize_t r = read(in, &c, 1);
		if (r == 0)
			_exit(0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		int cpu = sched_getcpu();
		ab_counter_inc(served);
		if (write(out, &cpu, sizeof(cpu)) != (ssize_t)sizeof(cpu))
			_exit(1);
	}
}

int cfs_pipes_start(struct cfs_pipe *p, int n, const int *cpu, struct cfs_shared *sh, char *err,
		    size_t errlen)
{
	for (int i = 0; i < n; i++)
		p[i] = (struct cfs_pipe){ .to_server = -1, .from_server = -1, .pid = 0 };

	pid_t parent = getpid();
	for (int i = 0; i < n; i++) {
		int req[2], rep[2];

		if (pipe(req) < 0)
			goto fail_errno;
		if (pipe(rep) < 0) {
			close(req[0]);
			close(req[1]);
			goto fail_errno;
		}
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			close(req[0]);
			close(req[1]);
			close(rep[0]);
			close(rep[1]);
			goto fail_errno;
		}
		if (pid == 0) {
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
				_exit(125);
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			/* Only client i may hold the write end of our reply pipe: it sees EOF if we die. */
			close(req[1]);
			close(rep[0]);
			for (int k = 0; k < i; k++) {
				close(p[k].to_server);
				close(p[k].from_server);
			}
			if (ab_pin_self(cpu[i]) < 0) {
				ab_msg("cannot pin pipe server %d to CPU %d: %s", i, cpu[i], strerror(errno));
				_exit(126);
			}
			pipe_server(req[0], rep[1], &sh->client[i].served);
		}
		close(req[0]);
		close(rep[1]);
		p[i].to_server = req[1];
		p[i].from_server = rep[0];
		p[i].pid = pid;
	}
	return 0;

fail_errno:
	ab_err(err, errlen, "pipe baseline: cannot start server: %s", strerror(errno));
	cfs_pipes_stop(p, n);
	return -1;
}

void cfs_pipes_keep_only(struct cfs_pipe *p, int n, int i)
{
	for (int k = 0; k < n; k++) {
		if (k == i)
			continue;
		close_fd(&p[k].to_server);
		close_fd(&p[k].from_server);
	}
}

int cfs_pipe_ping(const struct cfs_pipe *p, int *served)
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

int cfs_pipes_dead(const struct cfs_pipe *p, int n)
{
	for (int i = 0; i < n; i++) {
		siginfo_t si;

		if (p[i].pid <= 0)
			continue;
		memset(&si, 0, sizeof(si));
		/* WNOWAIT: leave the status for cfs_pipes_stop to collect. */
		if (waitid(P_PID, (id_t)p[i].pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid)
			return i;
	}
	return -1;
}

void cfs_pipes_stop(struct cfs_pipe *p, int n)
{
	for (int i = 0; i < n; i++) {
		close_fd(&p[i].to_server);
		close_fd(&p[i].from_server);
		if (p[i].pid > 0) {
			/* SIGKILL also ends a stopped server. */
			kill(p[i].pid, SIGKILL);
			while (waitpid(p[i].pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
		p[i].pid = 0;
	}
}
