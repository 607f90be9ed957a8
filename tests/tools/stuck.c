// SPDX-License-Identifier: GPL-2.0
/*
 * A benchmark that gets stuck in the kernel, for the harness's watchdog test:
 * it mounts a FUSE filesystem whose WRITE never answers, lets a helper process
 * (in a session of its own, out of the harness's reach) block in a write to
 * the file while holding the inode lock, then writes to the same file itself.
 * That second write waits for the inode lock uninterruptibly: SIGKILL cannot
 * end it until the helper's write ends. The pids of the daemon and the helper
 * go to $STUCK_PIDFILE so the test can free everything afterwards.
 *   stuck [benchmark options, ignored]
 */
#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "fuse/fusedaemon.h"

static void st_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st = { .st_ino = ino, .st_nlink = 1 };

	(void)fi;
	st.st_mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
	fuse_reply_attr(req, &st, 0);
}

static void st_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e = { .ino = 2 };

	if (parent != FUSE_ROOT_ID || strcmp(name, "f")) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	e.attr.st_ino = 2;
	e.attr.st_mode = S_IFREG | 0644;
	e.attr.st_nlink = 1;
	fuse_reply_entry(req, &e);
}

static void st_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	fi->direct_io = 1;
	fuse_reply_open(req, fi);
}

static void st_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	(void)req; (void)ino; (void)buf; (void)size; (void)off; (void)fi;
	for (;;)	/* never answers: the writer waits, holding the inode lock */
		pause();
}

static const struct fuse_lowlevel_ops st_ops = {
	.lookup = st_lookup, .getattr = st_getattr, .open = st_open, .write = st_write,
};

static int serve(void *arg, const char *mnt)
{
	(void)arg;
	setsid();	/* out of the harness's process group */
	return ab_fuse_serve(&st_ops, sizeof(st_ops), NULL, mnt, "stuck", NULL, AB_LOOP_MULTI, 0);
}

static void write_to(const char *file)
{
	int fd = open(file, O_WRONLY);

	if (fd >= 0 && write(fd, "x", 1) < 0)
		perror("write");
}

int main(void)
{
	struct ab_daemon d;
	char err[512], file[4200];
	const char *pidfile = getenv("STUCK_PIDFILE");

	ab_prog = "stuck";
	if (ab_daemon_start(&d, NULL, -1, serve, NULL, 5000, err, sizeof(err)) < 0)
		ab_fail("%s", err);
	snprintf(file, sizeof(file), "%s/f", d.mnt);
	pid_t helper = fork();
	if (helper == 0) {
		setsid();
		write_to(file);
		_exit(0);
	}
	FILE *pf = pidfile ? fopen(pidfile, "w") : NULL;
	if (pf) {
		fprintf(pf, "%d %d\n", (int)d.pid, (int)helper);
		fclose(pf);
	}
	usleep(300000);	/* the helper holds the inode lock by now */
	fprintf(stderr, "stuck: writing to %s\n", file);
	write_to(file);
	return 0;
}
