// SPDX-License-Identifier: GPL-2.0
/*
 * Where each sqrtio point runs: readers on CPUs that complete their own reads
 * (local=1) or on CPUs whose reads complete elsewhere (local=0), judged per
 * reader CPU from discovery (on a multi-queue device every CPU may have its
 * own completing CPU); sqrt workers on the CPUs the readers leave. With
 * --irq-affinity the readers stay and the IRQ is moved to them or away.
 * Known limits: the highest CPUs are used first (CPU 0 takes most
 * housekeeping); with fewer CPUs than workers, workers share CPUs.
 */
#include "sys/common.h"
#include "sqrtio.h"

/*
 * n CPUs from pool, highest first (CPU 0 takes most housekeeping), sharing when the pool is
 * short.
 */
static void pick(const struct ab_cpuset *pool, int n, int *out, struct ab_cpuset *used)
{
	int cnt = ab_cpuset_count(pool);

	for (int i = 0; i < n; i++) {
		out[i] = ab_cpuset_nth(pool, cnt - 1 - i % cnt);
		ab_cpuset_set(used, out[i]);
	}
}

static void minus(struct ab_cpuset *dst, const struct ab_cpuset *a, const struct ab_cpuset *b)
{
	for (size_t k = 0; k < AB_ARRAY_SIZE(dst->bits); k++)
		dst->bits[k] = a->bits[k] & ~b->bits[k];
}

void sq_place(struct sq_point *pt, const struct sq_discovery *d, const struct ab_cpuset *allowed,
	      int irq_affinity)
{
	struct ab_cpuset io, sq, rest, irq;

	ab_cpuset_zero(&io);
	ab_cpuset_zero(&sq);
	if (!irq_affinity) {
		/*
		 * Per reader CPU: local=1 readers complete their own reads, local=0 readers'
		 * complete elsewhere.
		 */
		const struct ab_cpuset *pool = pt->local ? &d->local : &d->remote;
		if (!ab_cpuset_count(pool)) {
			pt->skip = pt->local ? "no allowed CPU completes its own reads (the completing CPUs are "
					       "outside the allowed set: --cpus or the affinity mask)"
					     : "every allowed CPU completes its own reads (per-CPU queues); "
					       "try --irq-affinity";
			return;
		}
		pick(pool, pt->nio, pt->cpu, &io);
		irq = d->irq_cpus;
	} else {
		/* Readers stay on the highest CPUs; the IRQ goes to them or to the others. */
		pick(allowed, pt->nio, pt->cpu, &io);
		minus(&rest, allowed, &io);
		if (!pt->local && !ab_cpuset_count(&rest)) {
			pt->skip = "readers occupy every allowed CPU, no CPU is left for the IRQ";
			return;
		}
		irq = pt->local ? io : rest;
	}
	minus(&rest, allowed, &io);
	pick(ab_cpuset_count(&rest) ? &rest : allowed, pt->nsqrt, pt->cpu + pt->nio, &sq);
	ab_cpuset_format(&io, pt->io_list, sizeof(pt->io_list));
	ab_cpuset_format(&sq, pt->sqrt_list, sizeof(pt->sqrt_list));
	ab_cpuset_format(&irq, pt->irq_list, sizeof(pt->irq_list));

	ab_config_init(&pt->cfg);
	ab_config_set(&pt->cfg, "rq", "%d", pt->rq);
	ab_config_set(&pt->cfg, "local", "%d", pt->local);
	ab_config_set(&pt->cfg, "sqrt_procs", "%d", pt->nsqrt);
	ab_config_set(&pt->cfg, "io_procs", "%d", pt->nio);
	ab_config_set(&pt->cfg, "io_cpus", "%s", pt->io_list);
	ab_config_set(&pt->cfg, "sqrt_cpus", "%s", pt->sqrt_list);
	ab_config_set(&pt->cfg, "irq_cpus", "%s", pt->irq_list);
}
