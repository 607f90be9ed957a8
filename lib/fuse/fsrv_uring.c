// SPDX-License-Identifier: GPL-2.0
/*
 * fsrv's io_uring transport (FUSE over io_uring, Linux 6.14+).
 *
 * The kernel keeps one queue per possible CPU and puts a request on the
 * queue of the CPU its caller runs on; it holds every request until each
 * queue has a registered entry. An entry is an IORING_OP_URING_CMD on the
 * /dev/fuse fd with two buffers (header, payload): REGISTER hands it over,
 * its completion carries a request, COMMIT_AND_FETCH answers that request
 * and hands the entry back. The request is copied into the entry in the
 * task that submitted it, so each entry belongs to the thread serving it.
 *
 * One thread and ring per allowed online CPU serve that CPU's queue;
 * queues of CPUs not allowed or offline are spread over those threads. Each
 * thread runs where cfg.uring_cpu says: pinned to its queue's CPU (default),
 * pinned to the next allowed CPU, or unpinned on the allowed ones. One
 * submit-and-wait system call per request; with cfg.wait spin or poll, a
 * submit and then peeks at the completion queue before it (uring_look). The
 * main thread reads /dev/fuse for what never goes through the ring (FORGET,
 * INTERRUPT). Ring threads add their CPU time to cfg.cpu (fsrv_wait.c).
 *
 * Teardown: an unmount or abort completes every entry with -ENOTCONN and
 * /dev/fuse reads fail with ENODEV; threads end by themselves. A REGISTER
 * the kernel refuses (enable_uring off: -EOPNOTSUPP) is fatal and ends the
 * daemon with AB_EXIT_SKIP; then threads are left to the process exit.
 */
#include "fuse/fsrv_i.h"

#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/barrier.h"
#include "sys/pin.h"
#include "sys/sysfs.h"

#define POSSIBLE "/sys/devices/system/cpu/possible"
#define ONLINE "/sys/devices/system/cpu/online"
/* REGISTER before the kernel finished INIT answers -EAGAIN: retry this long. */
#define AGAIN_TRIES 2000
#define AGAIN_SLEEP_NS 1000000
/* How long threads may take to see the end after /dev/fuse did. */
#define JOIN_TIMEOUT_S 5

enum { ENT_REGISTER, ENT_LIVE, ENT_DEAD };

struct uring_ent {
	struct fuse_uring_req_header *hdr;
	void *payload;
	struct iovec iov[2];
	uint16_t qid;
	uint8_t state;
	uint16_t again;		/* -EAGAIN answers to REGISTER so far */
	struct fsrv_held held;	/* read_ref data the payload holds */
};

struct uring_thr {
	struct fsrv *s;
	int cpu;		/* the CPU whose queue it serves first */
	int run_cpu;		/* the CPU it is pinned to; -1: unpinned on run_set */
	struct ab_cpuset run_set;
	int evfd;		/* wakes the /dev/fuse reader on a fatal error */
	uint16_t *qids;		/* queues it serves */
	unsigned nq;
	struct uring_ent *ent;
	unsigned nent, live;
	void *mem;
	struct io_uring ring;
	pthread_t tid;
	int idx;		/* its place among the ring threads */
};

/* ---- which thread serves which queue ---- */

static int read_cpulist(const char *path, struct ab_cpuset *set)
{
	char buf[4096], err[256];

	if (ab_sysfs_read(path, buf, sizeof(buf)) < 0) {
		ab_msg("fsrv: %s: %s", path, strerror(errno));
		return -1;
	}
	if (!buf[0]) {
		ab_msg("fsrv: %s is empty", path);
		return -1;
	}
	if (ab_cpuset_parse(set, buf, NULL, err, sizeof(err)) < 0) {
		ab_msg("fsrv: %s: %s", path, err);
		return -1;
	}
	return 0;
}

/*
 * next moves a ring thread off its queue's CPU and none lets the scheduler
 * choose, both within the allowed CPUs: with one, each puts every thread on
 * that CPU, as queue does, so neither can act.
 */
int ab_fsrv_uring_cpu_usable(int uring_cpu, const struct ab_cpuset *cpus, char *why, size_t len)
{
	if (uring_cpu == AB_FSRV_URING_CPU_QUEUE || ab_cpuset_count(cpus) != 1)
		return 0;
	return ab_err(why, len, "one allowed CPU (CPU %d): %s places the ring threads on it as "
		      "queue does; a second allowed CPU (taskset, --cpus, the cpuset) would let it "
		      "act", ab_cpuset_next(cpus, 0), ab_fsrv_uring_cpu_name(uring_cpu));
}

/* Where the thread serving cpu's queue runs (cfg.uring_cpu), within allowed. */
static void place_thread(struct uring_thr *t, int mode, const struct ab_cpuset *allowed)
{
	int next = ab_cpuset_next(allowed, t->cpu + 1);

	t->run_set = *allowed;
	if (mode == AB_FSRV_URING_CPU_NONE)
		t->run_cpu = -1;
	else if (mode == AB_FSRV_URING_CPU_NEXT)
		t->run_cpu = next >= 0 ? next : ab_cpuset_next(allowed, 0);	/* wrap */
	else
		t->run_cpu = t->cpu;
}

/*
 * Threads (their CPUs) and the queues each serves. The kernel numbers queues
 * 0..num_possible_cpus()-1 and uses the caller's CPU number as the queue.
 * Returns the thread count, or -1 after a message.
 */
static int uring_plan(const struct fsrv *s, struct uring_thr **out)
{
	struct ab_cpuset possible, online, allowed, cpus;
	int nq, nt = 0, cpu, k = 0;

	if (read_cpulist(POSSIBLE, &possible) < 0 || read_cpulist(ONLINE, &online) < 0)
		return -1;
	if (ab_cpuset_count(&s->cfg->cpus))
		allowed = s->cfg->cpus;
	else if (ab_cpuset_allowed(&allowed) < 0) {
		ab_msg("fsrv: sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	ab_cpuset_and(&allowed, &allowed, &online);
	nq = ab_cpuset_count(&possible);
	ab_cpuset_zero(&cpus);
	ab_cpuset_for_each(cpu, &allowed)
		if (cpu < nq)
			ab_cpuset_set(&cpus, cpu);
	/* No allowed CPU has a queue of its own: one thread serves them all. */
	if (!ab_cpuset_count(&cpus) && ab_cpuset_count(&allowed))
		ab_cpuset_set(&cpus, ab_cpuset_next(&allowed, 0));
	nt = ab_cpuset_count(&cpus);
	if (!nt || nq <= 0 || nq > UINT16_MAX) {
		ab_msg("fsrv: no online CPU to serve io_uring queues on (%d possible)", nq);
		return -1;
	}
	struct uring_thr *t = calloc((size_t)nt, sizeof(*t));
	/* Each thread's list has room for every queue: a few bytes per CPU. */
	uint16_t *qids = calloc((size_t)nt * (size_t)nq, sizeof(*qids));
	if (!t || !qids) {
		free(t);
		free(qids);
		ab_msg("fsrv: no memory for %d io_uring threads", nt);
		return -1;
	}
	int i = 0;
	ab_cpuset_for_each(cpu, &cpus) {
		t[i].s = (struct fsrv *)s;
		t[i].cpu = cpu;
		t[i].idx = i;
		place_thread(&t[i], s->cfg->uring_cpu, &allowed);
		t[i].qids = qids + (size_t)i * (size_t)nq;
		if (cpu < nq)
			t[i].qids[t[i].nq++] = (uint16_t)cpu;
		i++;
	}
	/* The queues of CPUs without a thread, round-robin. */
	for (int qid = 0; qid < nq; qid++) {
		if (ab_cpuset_isset(&cpus, qid))
			continue;
		struct uring_thr *o = &t[k++ % nt];
		o->qids[o->nq++] = (uint16_t)qid;
	}
	*out = t;
	return nt;
}

/* ---- one thread ---- */

static void ent_submit(struct uring_thr *t, struct uring_ent *e, uint32_t op, uint64_t commit_id)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&t->ring);
	struct fuse_uring_cmd_req cmd = { .commit_id = commit_id, .qid = e->qid };

	/* At most one SQE per entry is pending and the SQ has room for all entries. */
	if (!sqe) {
		fsrv_set_fatal(t->s, AB_EXIT_FAIL, "io_uring SQ of CPU %d full (%u entries)", t->cpu,
			       t->nent);
		return;
	}
	/* The kernel rejects stray bits in a reused SQE: clear all 128 bytes. */
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = t->s->devfd;
	sqe->cmd_op = op;
	sqe->user_data = (uintptr_t)e;
	if (op == FUSE_IO_URING_CMD_REGISTER) {
		sqe->addr = (uintptr_t)e->iov;
		sqe->len = 2;
	}
	memcpy(sqe->cmd, &cmd, sizeof(cmd));
}

static const char *refusal_hint(int err)
{
	if (err == EOPNOTSUPP)
		return " (fuse-io-uring is disabled: " AB_FSRV_URING_PARAM " is N)";
	return "";
}

static void ent_complete(struct uring_thr *t, struct uring_ent *e, int res)
{
	if (res == 0) {
		e->state = ENT_LIVE;
		uint64_t id = fsrv_uring_handle(t->s, e->hdr, e->payload, t->s->bufsize, &e->held);
		ent_submit(t, e, FUSE_IO_URING_CMD_COMMIT_AND_FETCH, id);
		return;
	}
	if (res == -EAGAIN && e->state == ENT_REGISTER && e->again++ < AGAIN_TRIES) {
		struct timespec ts = { 0, AGAIN_SLEEP_NS };
		nanosleep(&ts, NULL);
		ent_submit(t, e, FUSE_IO_URING_CMD_REGISTER, 0);
		return;
	}
	int was = e->state;
	e->state = ENT_DEAD;
	t->live--;
	/* The connection is gone (unmount, abort, daemon dying): the normal end. */
	if (res == -ENOTCONN || res == -ECONNABORTED || res == -ECANCELED)
		return;
	if (was == ENT_REGISTER)
		fsrv_set_fatal(t->s, AB_EXIT_SKIP,
			       "the kernel refused FUSE io_uring REGISTER on queue %u: %s%s", e->qid,
			       strerror(-res), refusal_hint(-res));
	else
		fsrv_set_fatal(t->s, AB_EXIT_FAIL, "FUSE io_uring COMMIT_AND_FETCH on queue %u: %s",
			       e->qid, strerror(-res));
}

/* Ring, buffers and a REGISTER for every entry. 0, or -1 with the fatal error set. */
static int thr_setup(struct uring_thr *t)
{
	struct fsrv *s = t->s;
	unsigned depth = s->cfg->queue_depth > 0 ? (unsigned)s->cfg->queue_depth : FSRV_DEFAULT_DEPTH;
	size_t hsz = (sizeof(struct fuse_uring_req_header) + 63) & ~(size_t)63;
	size_t psz = (s->bufsize + s->page_size - 1) / s->page_size * s->page_size;
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 };

	t->nent = depth * t->nq;
	t->ent = calloc(t->nent, sizeof(*t->ent));
	if (!t->ent || posix_memalign(&t->mem, s->page_size, t->nent * (psz + hsz))) {
		fsrv_set_fatal(s, AB_EXIT_FAIL, "no memory for %u io_uring entries of %zu bytes",
			       t->nent, psz + hsz);
		return -1;
	}
	int rc = io_uring_queue_init_params(t->nent, &t->ring, &p);
	if (rc < 0) {
		fsrv_set_fatal(s, rc == -ENOMEM ? AB_EXIT_FAIL : AB_EXIT_SKIP,
			       "io_uring_setup with SQE128 (%u entries) on CPU %d: %s", t->nent, t->cpu,
			       strerror(-rc));
		return -1;
	}
	for (unsigned i = 0; i < t->nent; i++) {
		struct uring_ent *e = &t->ent[i];
		e->payload = (char *)t->mem + i * psz;
		e->hdr = (void *)((char *)t->mem + t->nent * psz + i * hsz);
		e->iov[0] = (struct iovec){ e->hdr, sizeof(*e->hdr) };
		e->iov[1] = (struct iovec){ e->payload, psz };
		e->qid = t->qids[i % t->nq];
		ent_submit(t, e, FUSE_IO_URING_CMD_REGISTER, 0);
	}
	t->live = t->nent;
	return 0;
}

/* Handle every completion there is. */
static void reap_cqes(struct uring_thr *t)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&t->ring, head, cqe) {
		ent_complete(t, (struct uring_ent *)(uintptr_t)cqe->user_data, cqe->res);
		n++;
	}
	io_uring_cq_advance(&t->ring, n);
}

/*
 * spin and poll: hand the replies over, then peek at the completion queue
 * until a request is there (spin: for spin_us at most). 1 when one is, 0 when
 * the thread should sleep. The kernel posts a request's completion from task
 * work, which it makes this thread run by interrupting it: no wake-up.
 */
static int uring_look(struct uring_thr *t)
{
	const struct ab_fsrv_wait_cfg *w = &t->s->cfg->wait;
	struct io_uring_cqe *cqe;
	uint64_t end;

	if (w->mode == AB_FSRV_WAIT_BLOCK)
		return 0;
	int rc = io_uring_submit(&t->ring);
	if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
		return 0;	/* submit_and_wait says it again, and fails */
	end = w->mode == AB_FSRV_WAIT_SPIN ? ab_now_ns() + w->spin_us * 1000ull : UINT64_MAX;
	while (io_uring_peek_cqe(&t->ring, &cqe) != 0) {
		if (atomic_load_explicit(&t->s->fatal, memory_order_relaxed) || ab_now_ns() >= end)
			return 0;
	}
	return 1;
}

static void *uring_loop(void *arg)
{
	struct uring_thr *t = arg;
	char name[16];

	/* Named for its first queue, so tools and tests can tell where it runs. */
	snprintf(name, sizeof(name), "fsrv-uring-%d", t->cpu);
	pthread_setname_np(pthread_self(), name);
	if (thr_setup(t) == 0) {
		while (t->live > 0 && !atomic_load(&t->s->fatal)) {
			if (!uring_look(t)) {
				int rc = io_uring_submit_and_wait(&t->ring, 1);
				if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
					fsrv_set_fatal(t->s, AB_EXIT_FAIL, "io_uring_enter on CPU %d: %s",
						       t->cpu, strerror(-rc));
					break;
				}
			}
			reap_cqes(t);
		}
	}
	if (atomic_load(&t->s->fatal) && eventfd_write(t->evfd, 1) < 0)
		ab_msg("fsrv: eventfd_write: %s", strerror(errno));
	return NULL;
}

/* ---- the /dev/fuse reader and the whole ---- */

/* Serve /dev/fuse until it says ENODEV or a ring thread reports a fatal error. */
static int dev_reader(struct fsrv *s, int evfd)
{
	size_t in_len = s->bufsize + s->page_size, out_len = sizeof(struct fuse_out_header) + s->bufsize;
	char *in = malloc(in_len), *out = malloc(out_len);
	struct pollfd p[2] = { { .fd = s->devfd, .events = POLLIN }, { .fd = evfd, .events = POLLIN } };

	if (!in || !out) {
		free(in);
		free(out);
		fsrv_set_fatal(s, AB_EXIT_FAIL, "no memory for /dev/fuse buffers");
		return -1;
	}
	while (!atomic_load(&s->fatal)) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fsrv_set_fatal(s, AB_EXIT_FAIL, "poll /dev/fuse: %s", strerror(errno));
			break;
		}
		if (!p[0].revents)
			continue;
		ssize_t n = read(s->devfd, in, in_len);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
				continue;
			if (errno != ENODEV && errno != ECONNABORTED)
				fsrv_set_fatal(s, AB_EXIT_FAIL, "read /dev/fuse: %s", strerror(errno));
			break;
		}
		ssize_t len = fsrv_dev_handle(s, in, (size_t)n, out, out_len);
		if (len > 0 && write(s->devfd, out, (size_t)len) < 0 && errno != ENOENT &&
		    errno != ENODEV)
			ab_msg("fsrv: write of a reply to /dev/fuse: %s", strerror(errno));
	}
	free(in);
	free(out);
	return atomic_load(&s->fatal) ? -1 : 0;
}

/* Join every thread within JOIN_TIMEOUT_S in all. 0, or -1 when one is still running. */
static int join_all(struct uring_thr *t, int nt)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);	/* pthread_timedjoin_np takes CLOCK_REALTIME */
	dl.tv_sec += JOIN_TIMEOUT_S;
	for (int i = 0; i < nt; i++) {
		int rc = pthread_timedjoin_np(t[i].tid, NULL, &dl);
		if (rc) {
			ab_msg("fsrv: the io_uring thread on CPU %d did not end %d s after the "
			       "unmount: %s", t[i].cpu, JOIN_TIMEOUT_S, strerror(rc));
			return -1;
		}
	}
	return 0;
}

int fsrv_uring_run(struct fsrv *s)
{
	struct uring_thr *t = NULL;
	int nt = uring_plan(s, &t), started = 0;

	if (nt < 0)
		return AB_EXIT_FAIL;
	int evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (evfd < 0) {
		ab_msg("fsrv: eventfd: %s", strerror(errno));
		return AB_EXIT_FAIL;
	}
	for (; started < nt; started++) {
		t[started].evfd = evfd;
		int rc = ab_thread_start_pinned(&t[started].tid, t[started].run_cpu,
						&t[started].run_set, uring_loop, &t[started]);
		if (rc) {
			fsrv_set_fatal(s, AB_EXIT_FAIL, "start the io_uring thread on CPU %d: %s",
				       t[started].cpu, strerror(rc));
			break;
		}
	}
	/* On a fatal error threads may be blocked in the kernel: leave them to exit(). */
	if (started < nt || dev_reader(s, evfd) < 0 || join_all(t, nt) < 0)
		return atomic_load(&s->fatal) ? atomic_load(&s->fatal) : AB_EXIT_FAIL;
	for (int i = 0; i < nt; i++) {
		io_uring_queue_exit(&t[i].ring);
		free(t[i].ent);
		free(t[i].mem);
	}
	free(t[0].qids);
	free(t);
	close(evfd);
	return atomic_load(&s->fatal);
}
