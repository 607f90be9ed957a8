// SPDX-License-Identifier: GPL-2.0
/*
 * What clients call, one table entry per kind of server: the libfuse daemon
 * (the benchmark: --daemon single, multi or clone_fd, in its own process
 * pinned to the placement's daemon CPUs), a file on a kernel filesystem (the
 * upper bound, no daemon), and pipe servers placed like the daemon (the
 * scheduler's wake-up cost without FUSE). Each entry starts its side, says
 * whether it died, unsticks clients blocked on it when it hangs, and stops it;
 * the measured loop and the watchdog never ask which kind they run, so a new
 * kind (another FUSE transport) is one more entry.
 *
 * Timeouts that depend on machine speed go through ab_scaled_ns.
 * Limits: the kernel file lies in the work directory, whatever filesystem
 * that is (tmpfs under /tmp on most machines).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "cputestfs.h"
#include "fuse/fuseenv.h"
#include "fuse/fusemnt.h"

#define MOUNT_WAIT_NS (5 * AB_NS)	/* the daemon mounts within this */
#define STOP_WAIT_NS (3 * AB_NS)	/* a healthy daemon exits within this of its unmount */
#define HUNG_STOP_NS (200 * 1000000ull)	/* a hung one cannot exit by itself: kill it soon */
#define PIPES_STOP_NS AB_NS		/* pipe servers see EOF and exit within this */

static int ms(uint64_t ns)
{
	return (int)(ns / 1000000ull);
}

uint64_t ctf_requests(const struct ctf_shared *sh, int nclients)
{
	uint64_t n = ab_counter_read(&sh->requests);

	for (int i = 0; i < nclients; i++)
		n += ab_counter_read(&sh->client[i].served);
	return n;
}

/* ---- the libfuse daemon ---- */

static int fuse_started(struct ctf_serving *s, char *why, size_t len);

static int fuse_start(struct ctf_serving *s, char *why, size_t len)
{
	struct ctf_daemon_args args = {
		.sh = s->sh,
		.loop = (enum ab_fuse_loop)s->set->daemon,
		.cpus = s->pt->server_pinned ? &s->pt->server_set : NULL,
	};

	/* Pinned inside ctf_daemon_run, before libfuse starts threads that inherit the mask. */
	if (ab_daemon_start(&s->daemon, s->set->mountpoint, -1, ctf_daemon_run, &args,
			    ms(ab_scaled_ns(MOUNT_WAIT_NS)), why, len) < 0)
		return -1;
	return fuse_started(s, why, len);
}

/* A daemon is up (libfuse's or fsrv's): where clients stat(), and the test hook. */
static int fuse_started(struct ctf_serving *s, char *why, size_t len)
{
	s->have_daemon = 1;
	s->daemon.keep_dir = s->set->mountpoint != NULL;	/* the user's directory stays */
	if (snprintf(s->target.path, sizeof(s->target.path), "%s/%s", s->daemon.mnt,
		     CTF_FILE_NAME) >= (int)sizeof(s->target.path))
		return ab_err(why, len, "mountpoint path too long: %s", s->daemon.mnt);
	if (!s->set->quiet)
		ab_msg("daemon pid %d on %s (connection %d)", (int)s->daemon.pid, s->daemon.mnt,
		       s->daemon.conn);
	ab_pidfile_hook(s->daemon.pid);
	return 0;
}

static int fuse_gone(struct ctf_serving *s, char *why, size_t len)
{
	char how[96];

	if (!s->have_daemon || ab_daemon_alive(&s->daemon))
		return 0;
	/* how it ended tells a crash (signal 11, 6) from a kill from outside (9) */
	return ab_err(why, len, "the FUSE daemon (pid %d) ended during the run: %s", (int)s->daemon.pid,
		      ab_daemon_how(&s->daemon, how, sizeof(how)));
}

static void fuse_unblock(struct ctf_serving *s)
{
	if (s->have_daemon && s->daemon.conn >= 0)
		ab_mnt_abort_conn(s->daemon.conn);
}

static int fuse_stop(struct ctf_serving *s, int hung, char *why, size_t len)
{
	if (!s->have_daemon)
		return 0;
	pid_t pid = s->daemon.pid;
	int st = ab_daemon_stop(&s->daemon, ms(ab_scaled_ns(hung ? HUNG_STOP_NS : STOP_WAIT_NS)));
	s->have_daemon = 0;
	if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (st != -1 && WIFSIGNALED(st))
		return ab_err(why, len, "the FUSE daemon (pid %d) was killed by signal %d", (int)pid,
			      WTERMSIG(st));
	return ab_err(why, len, "the FUSE daemon (pid %d) exited with status %d", (int)pid,
		      st == -1 ? -1 : WEXITSTATUS(st));
}

/* ---- the same filesystem on lib/fuse/fsrv: --transport dev or uring ---- */

static int raw_start(struct ctf_serving *s, char *why, size_t len)
{
	struct ctf_raw_args args = {
		.sh = s->sh,
		.transport = s->set->transport,
		.threads = 1,
		.clone_fd = s->set->daemon == AB_LOOP_CLONE_FD,
		.uring_cpu = s->set->uring_cpu,
		.wait = s->set->wait,
	};

	if (s->pt->server_pinned)
		args.cpus = s->pt->server_set;	/* else empty: every allowed CPU */
	if (s->set->daemon != AB_LOOP_SINGLE)	/* a thread per daemon CPU, as libfuse's pool */
		args.threads = s->pt->server_pinned ? ab_cpuset_count(&s->pt->server_set) :
						       s->set->ncpus;
	args.pin = s->pt->server_pinned;
	if (ab_daemon_start(&s->daemon, s->set->mountpoint, -1, ctf_raw_run, &args,
			    ms(ab_scaled_ns(MOUNT_WAIT_NS)), why, len) < 0)
		return -1;
	return fuse_started(s, why, len);
}

/* ---- a file on a kernel filesystem ---- */

static int kfile_start(struct ctf_serving *s, char *why, size_t len)
{
	char *path = s->target.path;
	size_t size = sizeof(s->target.path);

	if (snprintf(path, size, "%s/affbench-kstat-XXXXXX", ab_workdir()) >= (int)size)
		return ab_err(why, len, "work directory path too long: %s", ab_workdir());
	int fd = mkstemp(path);
	if (fd < 0)
		return ab_err(why, len, "cannot create %s: %s", path, strerror(errno));
	close(fd);
	s->have_file = 1;
	return 0;
}

/* A file left behind costs nothing but a line: it fails no measurement. */
static int kfile_stop(struct ctf_serving *s, int hung, char *why, size_t len)
{
	(void)hung, (void)why, (void)len;
	if (s->have_file && unlink(s->target.path) < 0)
		ab_msg("cannot remove %s: %s", s->target.path, strerror(errno));
	s->have_file = 0;
	return 0;
}

/* ---- pipe servers ---- */

static int pipes_start(struct ctf_serving *s, char *why, size_t len)
{
	int n = s->set->clients;
	struct ctf_pipe_servers arg = { .n = n, .sh = s->sh };

	s->target.n = n;
	s->target.pipes = calloc((size_t)n, sizeof(*s->target.pipes));
	if (!s->target.pipes)
		return ab_err(why, len, "out of memory for %d pipes", n);
	arg.pipes = s->target.pipes;
	if (ctf_pipes_open(s->target.pipes, n, why, len) < 0)
		return -1;
	if (ab_workers_start(&s->pipe_servers, n, 0, s->pt->server_cpu, NULL, ctf_pipe_server, &arg,
			     why, len) < 0)
		return -1;
	s->have_pipe_servers = 1;
	ctf_pipes_close_server_ends(s->target.pipes, n);
	ab_pidfile_hook(s->pipe_servers.pid[0]);
	return 0;
}

static int pipes_gone(struct ctf_serving *s, char *why, size_t len)
{
	int i = s->have_pipe_servers ? ab_workers_ended(&s->pipe_servers) : -1;

	if (i < 0)
		return 0;
	return ab_err(why, len, "pipe server %d (pid %d) died", i, (int)s->pipe_servers.pid[i]);
}

static int pipes_stop(struct ctf_serving *s, int hung, char *why, size_t len)
{
	struct ab_workers *w = &s->pipe_servers;
	int rc = 0;

	/* The clients are gone: once our ends close, each server reads EOF and exits 0. */
	if (s->target.pipes)
		ctf_pipes_close_all(s->target.pipes, s->target.n);
	if (s->have_pipe_servers) {
		ab_workers_reap(w, hung ? 0 : ab_now_ns() + ab_scaled_ns(PIPES_STOP_NS), NULL, NULL);
		for (int i = 0; i < w->started && rc == 0; i++) {
			int st = w->status[i];
			if (st == -1)
				rc = ab_err(why, len, "pipe server %d could not be killed (stuck in the kernel)", i);
			else if (hung || (WIFEXITED(st) && WEXITSTATUS(st) == 0))
				continue;	/* killed by unblock(), as it should be */
			else if (WIFSIGNALED(st))
				rc = ab_err(why, len, "pipe server %d was killed by signal %d", i, WTERMSIG(st));
			else
				rc = ab_err(why, len, "pipe server %d exited with status %d", i, WEXITSTATUS(st));
		}
		s->have_pipe_servers = 0;
	}
	ab_workers_free(w);	/* also after a failed start */
	free(s->target.pipes);
	s->target.pipes = NULL;
	return rc;
}

/* Killing the servers (deadline now) gives blocked clients EOF. */
static void pipes_unblock(struct ctf_serving *s)
{
	if (s->have_pipe_servers)
		ab_workers_reap(&s->pipe_servers, 0, NULL, NULL);
}

static const struct ctf_server servers[CTF_BASE_COUNT] = {
	[CTF_BASE_FUSE] = { "fuse", "stat", NULL, "daemon", "aborted its FUSE connection",
			    fuse_start, fuse_gone, fuse_unblock, fuse_stop },
	[CTF_BASE_KERNEL] = { "kernel", "stat", "none", "kernel file", "nothing to abort",
			      kfile_start, NULL, NULL, kfile_stop },
	[CTF_BASE_PIPE] = { "pipe", "pipe round trip", "single", "pipe server", "killed it",
			    pipes_start, pipes_gone, pipes_unblock, pipes_stop },
};

/* The FUSE daemon by transport: libfuse's (the post's), or lib/fuse/fsrv's. */
static const struct ctf_server transports[CTF_TR_COUNT] = {
	[CTF_TR_LIBFUSE] = { "fuse", "stat", NULL, "daemon", "aborted its FUSE connection",
			     fuse_start, fuse_gone, fuse_unblock, fuse_stop },
	[CTF_TR_DEV] = { "fuse", "stat", NULL, "daemon", "aborted its FUSE connection",
			 raw_start, fuse_gone, fuse_unblock, fuse_stop },
	[CTF_TR_URING] = { "fuse", "stat", "percpu", "daemon", "aborted its FUSE connection",
			   raw_start, fuse_gone, fuse_unblock, fuse_stop },
};

const struct ctf_server *ctf_server_for(const struct ctf_settings *set)
{
	if (set->baseline == CTF_BASE_FUSE)
		return &transports[set->transport];
	return &servers[set->baseline];
}
