// SPDX-License-Identifier: GPL-2.0
/*
 * CPUs in topology order and the relation of two CPUs (topo.h): what a matrix
 * of CPU pairs is drawn and summarised by. Generic: any benchmark that walks
 * pairs of CPUs can use it.
 */
#include "sys/topo.h"

#include <stdlib.h>

/* (package, LLC, core, thread): siblings next to each other, then cores
 * sharing a cache, then caches of one package. The thread is the CPU number. */
static int cmp_topo(const void *x, const void *y, void *arg)
{
	const struct ab_topo *t = arg;
	int a = *(const int *)x, b = *(const int *)y;
	const struct ab_cpu_topo *ca = &t->cpu[a], *cb = &t->cpu[b];

	if (ca->package != cb->package)
		return ca->package < cb->package ? -1 : 1;
	if (ca->llc != cb->llc)
		return ca->llc < cb->llc ? -1 : 1;
	if (ca->core != cb->core)
		return ca->core < cb->core ? -1 : 1;
	return (a > b) - (a < b);
}

int ab_topo_order(const struct ab_topo *t, int *cpus)
{
	int cpu, n = 0;

	ab_cpuset_for_each(cpu, &t->cpus)
		cpus[n++] = cpu;
	qsort_r(cpus, (size_t)n, sizeof(*cpus), cmp_topo, (void *)t);
	return n;
}

enum ab_placement ab_topo_pair_class(const struct ab_topo *t, int a, int b)
{
	const struct ab_cpu_topo *ca = &t->cpu[a], *cb = &t->cpu[b];

	if (a == b)
		return AB_PL_SAME;
	if (ca->core == cb->core)
		return AB_PL_SMT;
	if (ca->llc == cb->llc)
		return AB_PL_LLC;
	if (ca->node == cb->node)
		return AB_PL_CROSS_LLC;
	return AB_PL_CROSS_NODE;
}
