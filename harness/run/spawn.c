// SPDX-License-Identifier: GPL-2.0
/* One fork/exec for the harness's children whose output it reads (run.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "run.h"
#include "sys/machlock.h"
#include "sys/proc.h"

/* In the child: never returns. */
static void child(char **argv, const struct h_spawn *how, pid_t parent, int wr, char *slow)
{
	if (how->deathsig) {
		setpgid(0, 0);
		/* if the harness dies, the child is told (a benchmark restores its knobs) */
		if (prctl(PR_SET_PDEATHSIG, how->deathsig) < 0 || getppid() != parent)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
	}
	int dn = open("/dev/null", O_RDWR);
	if (dn >= 0)
		dup2(dn, 0);
	dup2(how->other >= 0 ? how->other : dn, how->pipe_to == 1 ? 2 : 1);
	dup2(wr, how->pipe_to);
	if (how->env)
		putenv((char *)how->env);	/* the child's copy of the environment */
	putenv(slow);
	char lock[64];
	int lfd = how->with_lock ? h_machine_lock_fd() : -1;
	if (lfd >= 0 && fcntl(lfd, F_SETFD, 0) == 0) {	/* this one kept across exec */
		snprintf(lock, sizeof(lock), AB_MACHINE_LOCK_FD_ENV "=%d", lfd);
		putenv(lock);
	}
	execv(argv[0], argv);
	fprintf(stderr, "harness: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

pid_t h_spawn(char **argv, const struct h_spawn *how, int *fd)
{
	pid_t parent = getpid();
	int pfd[2];
	char slow[64];

	snprintf(slow, sizeof(slow), AB_SLOWNESS_ENV "=%.3f", ab_slowness_fresh(H_SLOWNESS_MAX_AGE_NS));

	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		errno = e;
		return -1;
	}
	if (pid == 0)
		child(argv, how, parent, pfd[1], slow);
	if (how->deathsig)
		setpgid(pid, pid);	/* also here: the watchdog may signal the group at once */
	close(pfd[1]);
	*fd = pfd[0];
	return pid;
}
