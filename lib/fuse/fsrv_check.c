// SPDX-License-Identifier: GPL-2.0
/*
 * fsrv facility checks for the parent, before it starts a daemon, and the
 * one knob the io_uring transport needs. Passthrough is asked of the kernel
 * itself: a child mounts a throwaway FUSE filesystem in a private mount
 * namespace and reads its INIT (protocol version, offered flags); the mount
 * dies with the child's namespace and the connection with its /dev/fuse fd,
 * so the machine's mount table never sees it.
 */
#include "fuse/fsrv_i.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <liburing.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/sysfs.h"
#include "fuse/fusemnt.h"
#include "knob/knob.h"

#define FORCE_HOOK "AFFBENCH_FSRV_FORCE"
#define URING_DISABLED "/proc/sys/kernel/io_uring_disabled"
#define PROBE_TIMEOUT_MS 5000

int ab_fsrv_uring_enable(char *err, size_t len)
{
	/* Written even when it already reads Y: the journal entry and the knob's owner
	 * lock keep another affbench process from turning it off under us. */
	return ab_knob_write(AB_FSRV_URING_PARAM, "Y", NULL, 0, err, len) < 0 ? -1 : 0;
}

static int forced(const char *what)
{
	const char *v = ab_test_hook(FORCE_HOOK);

	return v && strcmp(v, what) == 0;
}

static int check_uring(char *why, size_t len)
{
	struct io_uring ring;
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 };
	long disabled;

	if (forced("nouring"))
		return ab_err(why, len, "FUSE over io_uring forced off (%s=nouring)", FORCE_HOOK);
	if (access(AB_FSRV_URING_PARAM, F_OK) < 0)
		return ab_err(why, len, "no %s: this kernel has no FUSE over io_uring (needs Linux "
			      "6.14+ built with CONFIG_FUSE_IO_URING)", AB_FSRV_URING_PARAM);
	/* Missing before Linux 6.6: io_uring cannot be switched off there. */
	if (ab_sysfs_read_long(URING_DISABLED, &disabled) == 0 && disabled != 0)
		return ab_err(why, len, "io_uring is disabled (%s is %ld): sysctl "
			      "kernel.io_uring_disabled=0 enables it", URING_DISABLED, disabled);
	int rc = io_uring_queue_init_params(2, &ring, &p);
	if (rc < 0)
		return ab_err(why, len, "io_uring_setup with SQE128 failed: %s (needs Linux 5.19+)",
			      strerror(-rc));
	io_uring_queue_exit(&ring);
	return 0;
}

struct probe_msg {
	int err;		/* errno of the step that failed, else 0 */
	int step;
	ssize_t n;		/* bytes of the INIT request */
	struct fuse_in_header h;
	struct fuse_init_in in;
};

static const char *const probe_steps[] = { "unshare(CLONE_NEWNS)", "make / private", "mount",
					   "read INIT" };

/* The child: system calls only (the parent may have threads). */
static void __attribute__((noreturn)) probe_child(const char *dir, const char *opts, int devfd,
						   int wfd, char *buf, size_t len)
{
	struct probe_msg m = { 0 };

	if (unshare(CLONE_NEWNS) < 0)
		m.err = errno, m.step = 0;
	else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		m.err = errno, m.step = 1;
	else if (mount("affbench-fsrv-probe", dir, "fuse.fsrv-probe", MS_NOSUID | MS_NODEV, opts) < 0)
		m.err = errno, m.step = 2;
	else if ((m.n = read(devfd, buf, len)) < 0)
		m.err = errno, m.step = 3;
	if (!m.err) {
		memcpy(&m.h, buf, m.n < (ssize_t)sizeof(m.h) ? (size_t)m.n : sizeof(m.h));
		if (m.n > (ssize_t)sizeof(m.h)) {
			size_t k = (size_t)m.n - sizeof(m.h);
			memcpy(&m.in, buf + sizeof(m.h), k < sizeof(m.in) ? k : sizeof(m.in));
		}
	}
	_exit(write(wfd, &m, sizeof(m)) == (ssize_t)sizeof(m) ? 0 : 1);
}

/* Wait for the child's message; reap it. 0 or -1 (reason in why). */
static int probe_wait(pid_t pid, int rfd, struct probe_msg *m, char *why, size_t len)
{
	struct pollfd p = { .fd = rfd, .events = POLLIN };
	int st, rc = -1;

	if (poll(&p, 1, PROBE_TIMEOUT_MS) != 1)
		ab_err(why, len, "a throwaway FUSE mount gave no INIT within %d ms", PROBE_TIMEOUT_MS);
	else if (read(rfd, m, sizeof(*m)) != (ssize_t)sizeof(*m))
		ab_err(why, len, "the FUSE probe child died");
	else if (m->err)
		ab_err(why, len, "FUSE probe: %s: %s", probe_steps[m->step], strerror(m->err));
	else if ((size_t)m->n < sizeof(m->h) + offsetof(struct fuse_init_in, flags2) ||
		 m->h.opcode != FUSE_INIT)
		ab_err(why, len, "FUSE probe: the first request is not INIT");
	else
		rc = 0;
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return rc;
}

/* What the kernel offers in INIT: protocol minor and flags (flags2 << 32). 0 or -1. */
static int probe_init(uint32_t *minor, uint64_t *flags, char *why, size_t len)
{
	char dir[PATH_MAX], opts[128];
	struct probe_msg m;
	int pfd[2];
	size_t blen = 2 * FUSE_MIN_READ_BUFFER;
	char *buf = malloc(blen);
	int rc = -1;

	if (!buf)
		return ab_err(why, len, "no memory for the FUSE probe");
	if (ab_mnt_mkdir(NULL, dir, sizeof(dir), why, len) < 0) {
		free(buf);
		return -1;
	}
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0 || pipe2(pfd, O_CLOEXEC) < 0) {
		ab_err(why, len, "FUSE probe: %s: %s", fd < 0 ? "open /dev/fuse" : "pipe",
		       strerror(errno));
		goto out;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	pid_t pid = fork();
	if (pid == 0)
		probe_child(dir, opts, fd, pfd[1], buf, blen);
	close(pfd[1]);
	if (pid < 0)
		ab_err(why, len, "FUSE probe: fork: %s", strerror(errno));
	else if (probe_wait(pid, pfd[0], &m, why, len) == 0)
		rc = 0;
	close(pfd[0]);
	if (rc == 0) {
		*minor = m.in.minor;
		*flags = m.in.flags;
		if ((m.in.flags & FUSE_INIT_EXT) && (size_t)m.n >= sizeof(m.h) + sizeof(m.in))
			*flags |= (uint64_t)m.in.flags2 << 32;
	}
out:
	if (fd >= 0)
		close(fd);
	rmdir(dir);
	free(buf);
	return rc;
}

static int check_passthrough(char *why, size_t len)
{
	uint32_t minor;
	uint64_t flags;

	if (forced("nopassthrough"))
		return ab_err(why, len, "FUSE passthrough forced off (%s=nopassthrough)", FORCE_HOOK);
	if (probe_init(&minor, &flags, why, len) < 0)
		return -1;
	if (minor < 40)
		return ab_err(why, len, "the kernel's FUSE protocol is 7.%u; passthrough needs 7.40 "
			      "(Linux 6.9+)", minor);
	if (!(flags & FUSE_PASSTHROUGH))
		return ab_err(why, len, "the kernel does not offer FUSE passthrough (built without "
			      "CONFIG_FUSE_PASSTHROUGH)");
	return 0;
}

int ab_fsrv_check(enum ab_fsrv_transport t, int passthrough, char *why, size_t len)
{
	if (geteuid() != 0)
		return ab_err(why, len, "mounting FUSE without fusermount needs root");
	/* Opening it also loads the fuse module, so its parameters exist below. */
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return ab_err(why, len, "cannot open /dev/fuse: %s (modprobe fuse)", strerror(errno));
	close(fd);
	if (t == AB_FSRV_URING && check_uring(why, len) < 0)
		return -1;
	if (passthrough && check_passthrough(why, len) < 0)
		return -1;
	return 0;
}
