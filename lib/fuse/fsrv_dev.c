// SPDX-License-Identifier: GPL-2.0
/*
 * fsrv's /dev/fuse transport: each of N threads read()s one request,
 * dispatches it and write()s the reply, two system calls per request. With
 * clone_fd every thread but the first has its own fd (FUSE_DEV_IOC_CLONE),
 * so replies are matched on a per-thread processing list rather than one
 * shared by all threads. Threads end when read() says ENODEV: the filesystem
 * was unmounted or its connection aborted. How a thread waits for a request
 * (cfg.wait: sleeping in read(), or reading a non-blocking fd for a while or
 * for good) is dev_next's; its CPU time goes to cfg.cpu (fsrv_wait.c).
 */
#include "fuse/fsrv_i.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/barrier.h"
#include "sys/pin.h"

struct dev_thr {
	struct fsrv *s;
	int fd;
	int cpu;		/* pinned CPU or -1 */
	int idx;		/* its place among the serving threads */
	char *in, *out;
	size_t in_len, out_len;
	pthread_t tid;
};

/*
 * The kernel refuses a read() buffer that could not hold the largest WRITE:
 * header, fuse_write_in and max_write bytes, and at least FUSE_MIN_READ_BUFFER.
 */
static size_t dev_in_len(const struct fsrv *s)
{
	return s->bufsize + s->page_size;
}

enum { DEV_GOT, DEV_AGAIN, DEV_GONE };

/* One read() of t->fd: DEV_GOT with the request's length in *n, DEV_AGAIN (nothing
 * there, interrupted), or DEV_GONE (unmounted, aborted, or a fatal error). */
static int dev_read(struct dev_thr *t, ssize_t *n)
{
	*n = read(t->fd, t->in, t->in_len);
	if (*n >= 0)
		return DEV_GOT;
	/* ENOENT: the request was interrupted before we got it */
	if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
		return DEV_AGAIN;
	if (errno != ENODEV && errno != ECONNABORTED)
		fsrv_set_fatal(t->s, AB_EXIT_FAIL, "read /dev/fuse (fd %d): %s", t->fd, strerror(errno));
	return DEV_GONE;
}

/*
 * The next request, waiting as cfg.wait says. spin and poll read a
 * non-blocking fd until a request is there (spin: for spin_us at most);
 * then, like block, the thread sleeps (in poll(), as its fd does not block)
 * after adding the CPU time it used. The kernel says ENODEV to a
 * non-blocking read too once the filesystem is gone: poll ends there.
 */
static int dev_next(struct dev_thr *t, ssize_t *n)
{
	const struct ab_fsrv_wait_cfg *w = &t->s->cfg->wait;
	struct pollfd p = { .fd = t->fd, .events = POLLIN };

	if (w->mode != AB_FSRV_WAIT_BLOCK) {
		uint64_t end = w->mode == AB_FSRV_WAIT_SPIN ? ab_now_ns() + w->spin_us * 1000ull
							    : UINT64_MAX;
		for (;;) {
			int r = dev_read(t, n);
			if (r != DEV_AGAIN)
				return r;
			if (ab_now_ns() >= end)
				break;	/* spin: looked long enough, now sleep */
		}
	}
	if (w->mode != AB_FSRV_WAIT_BLOCK && poll(&p, 1, -1) < 0 && errno != EINTR) {
		fsrv_set_fatal(t->s, AB_EXIT_FAIL, "poll /dev/fuse (fd %d): %s", t->fd, strerror(errno));
		return DEV_GONE;
	}
	return dev_read(t, n);
}

static void *dev_loop(void *arg)
{
	struct dev_thr *t = arg;
	ssize_t n;
	int r;

	while ((r = dev_next(t, &n)) != DEV_GONE) {
		if (r == DEV_AGAIN)
			continue;
		struct iovec iov[2];
		int k = fsrv_dev_handle_iov(t->s, t->in, (size_t)n, t->out, t->out_len, iov);
		if (k <= 0)
			continue;
		/* ENOENT: the request was interrupted or aborted meanwhile; nobody waits */
		if (writev(t->fd, iov, k) < 0 && errno != ENOENT) {
			if (errno == ENODEV)
				break;
			const struct fuse_in_header *ih = (const void *)t->in;
			ab_msg("fsrv: write of the %s reply (%zu bytes) to /dev/fuse: %s",
			       fsrv_opname(ih->opcode), iov[0].iov_len + (k > 1 ? iov[1].iov_len : 0),
			       strerror(errno));
		}
	}
	return NULL;
}

/* A /dev/fuse fd attached to the same connection as master. */
static int dev_clone(int master)
{
	uint32_t m = (uint32_t)master;
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		ab_msg("fsrv: open /dev/fuse for a cloned fd: %s", strerror(errno));
		return -1;
	}
	if (ioctl(fd, FUSE_DEV_IOC_CLONE, &m) < 0) {
		ab_msg("fsrv: FUSE_DEV_IOC_CLONE of fd %d: %s", master, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int dev_thr_setup(struct fsrv *s, struct dev_thr *t, int i)
{
	const struct ab_fsrv_cfg *cfg = s->cfg;
	int ncpus = ab_cpuset_count(&cfg->cpus);

	t->s = s;
	t->cpu = cfg->pin && ncpus ? ab_cpuset_nth(&cfg->cpus, i % ncpus) : -1;
	t->idx = i;
	t->fd = i > 0 && cfg->clone_fd ? dev_clone(s->devfd) : s->devfd;
	if (t->fd < 0)
		return -1;
	/* spin and poll look without sleeping; the fd is shared when not cloned, and all
	 * threads wait alike, so every one of them sleeps in poll() */
	if (cfg->wait.mode != AB_FSRV_WAIT_BLOCK &&
	    fcntl(t->fd, F_SETFL, fcntl(t->fd, F_GETFL) | O_NONBLOCK) < 0) {
		ab_msg("fsrv: make /dev/fuse (fd %d) non-blocking: %s", t->fd, strerror(errno));
		return -1;
	}
	t->in_len = dev_in_len(s);
	t->out_len = sizeof(struct fuse_out_header) + s->bufsize;
	t->in = malloc(t->in_len);
	t->out = malloc(t->out_len);
	if (!t->in || !t->out) {
		ab_msg("fsrv: no memory for %zu-byte request buffers", t->in_len + t->out_len);
		return -1;
	}
	return 0;
}

static void dev_thr_free(struct fsrv *s, struct dev_thr *t)
{
	if (t->fd >= 0 && t->fd != s->devfd)
		close(t->fd);
	free(t->in);
	free(t->out);
}

int fsrv_dev_run(struct fsrv *s)
{
	int n = s->cfg->threads > 0 ? s->cfg->threads : 1;
	const struct ab_cpuset *set = ab_cpuset_count(&s->cfg->cpus) ? &s->cfg->cpus : NULL;
	struct dev_thr *t = calloc((size_t)n, sizeof(*t));
	int started = 0;

	if (!t) {
		ab_msg("fsrv: no memory for %d threads", n);
		return AB_EXIT_FAIL;
	}
	for (int i = 0; i < n; i++)
		t[i].fd = -1;
	for (; started < n; started++) {
		struct dev_thr *d = &t[started];
		int rc;
		if (dev_thr_setup(s, d, started) < 0)
			break;
		rc = ab_thread_start_pinned(&d->tid, d->cpu, set, dev_loop, d);
		if (rc) {
			ab_msg("fsrv: start serving thread %d (CPU %d): %s", started, d->cpu,
			       strerror(rc));
			break;
		}
	}
	if (started < n)
		return AB_EXIT_FAIL;	/* running threads keep their buffers until exit */
	for (int i = 0; i < n; i++)
		pthread_join(t[i].tid, NULL);
	for (int i = 0; i < n; i++)
		dev_thr_free(s, &t[i]);
	free(t);
	return atomic_load(&s->fatal);
}
