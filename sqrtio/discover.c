// SPDX-License-Identifier: GPL-2.0
/*
 * Which interrupt lines serve the disk, and which CPU completes the reads
 * issued on each allowed CPU: a worker pinned to each CPU in turn reads a
 * burst while the parent diffs /proc/interrupts around it. No driver names
 * are needed, and multi-queue devices (virtio-blk or nvme with a queue and an
 * IRQ per CPU) come out right: a reader CPU is "local" when it completes its
 * own reads, whichever line that takes, never by comparison with one "IRQ CPU".
 * Known limits: a busy unrelated device on the same CPUs adds noise (a line
 * must grow by half the reads to count); a device that completes without an
 * interrupt (polled queues, loop, zram) shows no line. A burst that stalls
 * fails discovery after SQ_STALL_NS (scaled); the stuck worker is given up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "sqrtio.h"

#define SETTLE_READS 20		/* first reads on a new CPU, not counted */
#define PROBE_MAX 600		/* reads per CPU when finding the IRQ */
/* A probe reads for PROBE_NS once SQ_PROBE_MIN are done; on many CPUs for less, so all
 * probes together take about DISCOVER_NS (the harness gives discovery 20 s). */
#define PROBE_NS (200 * 1000000ull)
#define PROBE_SHORTEST_NS (20 * 1000000ull)
#define DISCOVER_NS (8 * AB_NS)

void sq_discovery_init(struct sq_discovery *d, const struct ab_cpuset *allowed)
{
	int c, i = 0;

	memset(d, 0, sizeof(*d));
	d->ncpu = ab_cpuset_count(allowed);
	d->cpu = calloc((size_t)d->ncpu, sizeof(*d->cpu));
	d->completes = calloc((size_t)d->ncpu, sizeof(*d->completes));
	if (!d->cpu || !d->completes)
		ab_fail("out of memory for %d CPUs", d->ncpu);
	ab_cpuset_for_each(c, allowed)
		d->cpu[i++] = c;
}

void sq_discovery_free(struct sq_discovery *d)
{
	free(d->irq);
	free(d->cpu);
	free(d->completes);
	memset(d, 0, sizeof(*d));
}

static void add_irq(struct sq_discovery *d, const char *name)
{
	for (int i = 0; i < d->nirq; i++)
		if (!strcmp(d->irq[i], name))
			return;
	if (ab_grow(&d->irq, &d->capirq, (size_t)d->nirq + 1, sizeof(*d->irq), 16) < 0)
		ab_fail("out of memory for %d IRQ lines", d->nirq + 1);
	snprintf(d->irq[d->nirq++], sizeof(d->irq[0]), "%s", name);
}

int sq_discover_probe(struct sq_discovery *d, int i, const struct sq_intr *a,
		      const struct sq_intr *b, int reads)
{
	int c = d->cpu[i];

	if (reads < SQ_PROBE_MIN)
		return -1;
	ab_cpuset_zero(&d->completes[i]);
	for (int l = 0; l < b->nlines; l++) {
		const char *name = b->line[l].name;
		if (!sq_intr_is_irq(name) || sq_intr_delta(a, b, name, -1) < (uint64_t)reads / 2)
			continue;
		add_irq(d, name);
		for (int col = 0; col < b->ncol; col++)
			if (sq_intr_delta(a, b, name, col) >= (uint64_t)reads / 4)
				ab_cpuset_set(&d->completes[i], b->col_cpu[col]);
	}
	for (size_t k = 0; k < AB_ARRAY_SIZE(d->irq_cpus.bits); k++)
		d->irq_cpus.bits[k] |= d->completes[i].bits[k];
	/* Per reader CPU: on a multi-queue device each CPU may complete on its own line. */
	if (ab_cpuset_isset(&d->completes[i], c)) {
		ab_cpuset_set(&d->local, c);
		ab_cpuset_clear(&d->remote, c);
	} else {
		ab_cpuset_set(&d->remote, c);
		ab_cpuset_clear(&d->local, c);
	}
	return 0;
}

/* ---- one probe: a worker pinned to one CPU, bounded in time ---- */

struct probe {
	struct ab_barrier barrier;
	const struct sq_target *t;
	uint64_t burst_ns;
	int reads;
	int err_no;
	char err[256];
};

static int probe_worker(void *arg, int i)
{
	struct probe *p = arg;
	void *buf;
	int n;

	(void)i;
	if (posix_memalign(&buf, SQ_BLK, SQ_BLK)) {
		snprintf(p->err, sizeof(p->err), "out of memory");
		return 1;
	}
	n = sq_read_burst(p->t->fd, p->t->nblocks, buf, SETTLE_READS, SETTLE_READS, 0, p->err,
			  sizeof(p->err));
	if (n >= 0) {
		ab_barrier_arrive_wait(&p->barrier);
		n = sq_read_burst(p->t->fd, p->t->nblocks, buf, SQ_PROBE_MIN, PROBE_MAX,
				  ab_now_ns() + p->burst_ns, p->err, sizeof(p->err));
	}
	p->err_no = n < 0 ? errno : 0;
	p->reads = n;
	return n < 0;
}

/* Why the probe worker failed, in why. */
static int probe_failed(const struct probe *p, const struct ab_workers *w, int cpu, char *why,
			size_t len)
{
	if (w->gave_up)
		return ab_err(why, len, "a read issued on CPU %d did not return within %.0f s and "
			      "the reader could not be killed: the device hangs", cpu,
			      (double)ab_scaled_ns(SQ_STALL_NS) / AB_NS);
	if (p->err[0])
		return ab_err(why, len, "reads on CPU %d: %s%s", cpu, p->err,
			      p->err_no == EINVAL ? " (filesystem may not support O_DIRECT)" : "");
	if (WIFSIGNALED(w->status[0]))
		return ab_err(why, len, "the reader on CPU %d did not finish within %.0f s: the "
			      "device hangs", cpu, (double)ab_scaled_ns(SQ_STALL_NS) / AB_NS);
	return ab_err(why, len, "the reader on CPU %d exited with status %d (could it be pinned?)",
		      cpu, WEXITSTATUS(w->status[0]));
}

/* Snapshots a and b around the burst of a worker pinned to cpu. 0, or AB_EXIT_FAIL or
 * AB_EXIT_SKIP (O_DIRECT refused) with why. */
static int probe_cpu(struct probe *p, int cpu, struct sq_intr *a, struct sq_intr *b, char *why,
		     size_t len)
{
	struct ab_workers w;
	int rc;

	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	p->reads = p->err_no = 0;
	p->err[0] = 0;
	ab_barrier_init(&p->barrier);
	if (ab_workers_start(&w, 1, 0, &cpu, NULL, probe_worker, p, why, len))
		return AB_EXIT_FAIL;
	rc = sq_barrier_wait(&p->barrier, &w, 1, why, len);
	if (!rc && sq_intr_read("/proc/interrupts", a, why, len))
		rc = -1;
	ab_barrier_open(&p->barrier);
	/* Failed already: the worker is killed at once; else it has the burst and a stall. */
	uint64_t deadline = ab_now_ns() + (rc ? 0 : p->burst_ns + ab_scaled_ns(SQ_STALL_NS));
	int bad = ab_workers_reap(&w, deadline, NULL, NULL);
	if (bad && (!rc || p->err[0] || w.gave_up))
		rc = probe_failed(p, &w, cpu, why, len);
	if (!rc && sq_intr_read("/proc/interrupts", b, why, len))
		rc = -1;
	ab_workers_free(&w);
	return !rc ? 0 : p->err_no == EINVAL ? AB_EXIT_SKIP : AB_EXIT_FAIL;
}

int sq_discover(const struct sq_target *t, const struct ab_cpuset *allowed,
		struct sq_discovery *d, char *why, size_t len)
{
	struct probe *p = ab_shm_alloc(sizeof(*p));
	int rc = 0;

	sq_discovery_init(d, allowed);
	if (!p) {
		ab_err(why, len, "shared memory: %s", strerror(errno));
		return AB_EXIT_FAIL;
	}
	p->t = t;
	p->burst_ns = PROBE_NS;
	if ((uint64_t)d->ncpu * PROBE_NS > DISCOVER_NS)
		p->burst_ns = DISCOVER_NS / (uint64_t)d->ncpu > PROBE_SHORTEST_NS ?
				      DISCOVER_NS / (uint64_t)d->ncpu : PROBE_SHORTEST_NS;
	for (int i = 0; i < d->ncpu && !rc; i++) {
		struct sq_intr a, b;

		rc = probe_cpu(p, d->cpu[i], &a, &b, why, len);
		if (!rc && sq_discover_probe(d, i, &a, &b, p->reads)) {
			ab_err(why, len, "only %d reads on CPU %d", p->reads, d->cpu[i]);
			rc = AB_EXIT_FAIL;
		}
		sq_intr_free(&a);
		sq_intr_free(&b);
	}
	ab_shm_free(p, sizeof(*p));
	return rc;
}

/* ---- reports ---- */

/* "36,37": the device's lines; the caller frees it. */
static char *irq_list(const struct sq_discovery *d)
{
	char *s = malloc((size_t)d->nirq * sizeof(d->irq[0]) + 1);
	size_t off = 0;

	if (!s)
		ab_fail("out of memory");
	s[0] = 0;
	for (int i = 0; i < d->nirq; i++)
		off += (size_t)sprintf(s + off, "%s%s", i ? "," : "", d->irq[i]);
	return s;
}

static void print_set(FILE *f, const char *key, const struct ab_cpuset *s)
{
	char list[4096];

	if (ab_cpuset_format(s, list, sizeof(list)) < 0)
		snprintf(list, sizeof(list), "?");
	fprintf(f, "%s=%s\n", key, list);
}

void sq_discover_print(const struct sq_target *t, const struct sq_discovery *d, FILE *f)
{
	char *irqs = irq_list(d), key[64], path[128];

	fprintf(f, "target=%s\ndisk=%s\nresolved=%s\nrq_affinity=%s\nirqs=%s\n", t->name,
		t->blk.disk, t->blk.how, t->rq_orig, irqs);
	print_set(f, "irq_cpus", &d->irq_cpus);
	print_set(f, "local_cpus", &d->local);
	print_set(f, "remote_cpus", &d->remote);
	/* What the harness records before and after a run: every knob a run may change.
	 * Before the per-CPU lines, so a reader that keeps only so much keeps these. */
	fprintf(f, "knob=%s\n", t->blk.rq_path);
	for (int i = 0; i < d->nirq; i++) {
		sq_irq_knob(path, sizeof(path), d->irq[i]);
		fprintf(f, "knob=%s\n", path);
	}
	for (int i = 0; i < d->ncpu; i++) {
		snprintf(key, sizeof(key), "cpu%d_completes_on", d->cpu[i]);
		print_set(f, key, &d->completes[i]);
	}
	free(irqs);
}

void sq_discover_note(const struct sq_target *t, const struct sq_discovery *d)
{
	char *irqs = irq_list(d), done[4096], loc[4096], rem[4096];

	ab_cpuset_format(&d->irq_cpus, done, sizeof(done));
	ab_cpuset_format(&d->local, loc, sizeof(loc));
	ab_cpuset_format(&d->remote, rem, sizeof(rem));
	int many = strchr(irqs, ',') != NULL, cpus = strpbrk(done, ",-") != NULL;
	ab_msg("%s: disk %s (%s), rq_affinity %s, %s %s %s reads on %s %s; CPUs that "
	       "complete their own reads: %s; that do not: %s", t->name, t->blk.disk, t->blk.how,
	       t->rq_orig, many ? "IRQs" : "IRQ", irqs, many ? "complete" : "completes",
	       cpus ? "CPUs" : "CPU", done, loc[0] ? loc : "none", rem[0] ? rem : "none");
	free(irqs);
}
