// SPDX-License-Identifier: GPL-2.0
/*
 * The placement resolver (docs/placements.md): which CPUs a placement's
 * client/server pairs run on, from the topology lib/sys/topo.c read.
 *
 * Pairs: the resolver first looks for n pairs on 2n distinct CPUs, so no client
 * shares a CPU with another pair's server. Only when the CPUs allowed cannot
 * hold that does it let a CPU be one pair's a and another pair's b (a[] and b[]
 * each stay distinct, as topo.h promises), e.g. "other" n=2 on 2 CPUs gives
 * (1,0) (0,1).
 */
#include "sys/topo.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"

static const char *const placement_names[AB_PL_COUNT] = {
	[AB_PL_NONE] = "none",
	[AB_PL_SAME] = "same",
	[AB_PL_SMT] = "smt",
	[AB_PL_LLC] = "llc",
	[AB_PL_CROSS_LLC] = "cross-llc",
	[AB_PL_CROSS_NODE] = "cross-node",
	[AB_PL_OTHER] = "other",
};

const char *ab_placement_name(enum ab_placement p)
{
	return (unsigned)p < AB_PL_COUNT ? placement_names[p] : "?";
}

int ab_placement_parse(const char *name, enum ab_placement *p)
{
	for (int i = 0; i < AB_PL_COUNT; i++)
		if (name && !strcmp(name, placement_names[i])) {
			*p = (enum ab_placement)i;
			return 0;
		}
	return -1;
}

const char *ab_placement_names(void)
{
	return "none|same|smt|llc|cross-llc|cross-node|other";
}

/*
 * Every pairing placement is the same shape of graph: CPUs x, y may pair when
 * they are in the same component and in different parts of it.
 *   smt:        component = core,  part = CPU
 *   llc:        component = LLC,   part = core
 *   cross-llc:  one component,     part = LLC
 *   cross-node: one component,     part = node
 *   other:      one component,     part = CPU
 * In a complete multipartite component of m CPUs whose largest part has s, the
 * most disjoint pairs is min(m / 2, m - s), which lets a greedy choice check that
 * it leaves enough for the pairs still to come.
 */
struct pairing {
	const struct ab_topo *t;
	enum ab_placement p;
	int *comp_n, *part_n, *comp_max;	/* scratch, indexed by id */
	int nids;
};

static int comp_of(const struct pairing *g, int cpu)
{
	switch (g->p) {
	case AB_PL_SMT: return g->t->cpu[cpu].core;
	case AB_PL_LLC: return g->t->cpu[cpu].llc;
	default: return 0;
	}
}

static int part_of(const struct pairing *g, int cpu)
{
	switch (g->p) {
	case AB_PL_LLC: return g->t->cpu[cpu].core;
	case AB_PL_CROSS_LLC: return g->t->cpu[cpu].llc;
	case AB_PL_CROSS_NODE: return g->t->cpu[cpu].node;
	default: return cpu;
	}
}

static bool related(const struct pairing *g, int x, int y)
{
	return x != y && comp_of(g, x) == comp_of(g, y) && part_of(g, x) != part_of(g, y);
}

/* Most disjoint pairs the CPUs in 'free' still offer. */
static int max_disjoint(struct pairing *g, const struct ab_cpuset *free)
{
	int cpu, total = 0;

	memset(g->comp_n, 0, sizeof(int) * (size_t)g->nids);
	memset(g->part_n, 0, sizeof(int) * (size_t)g->nids);
	memset(g->comp_max, 0, sizeof(int) * (size_t)g->nids);
	ab_cpuset_for_each(cpu, free) {
		int c = comp_of(g, cpu), pt = part_of(g, cpu);
		g->comp_n[c]++;
		if (++g->part_n[pt] > g->comp_max[c])
			g->comp_max[c] = g->part_n[pt];
	}
	for (int c = 0; c < g->nids; c++) {
		int m = g->comp_n[c], s = g->comp_max[c];
		total += m / 2 < m - s ? m / 2 : m - s;
	}
	return total;
}

/*
 * n pairs on 2n distinct CPUs: take the highest free CPU with the highest
 * partner that still leaves room for the rest. Returns the pairs found.
 */
static int pick_disjoint(struct pairing *g, int n, int *a, int *b)
{
	struct ab_cpuset free = g->t->cpus;
	int found = 0;

	if (max_disjoint(g, &free) < n)
		return 0;
	while (found < n) {
		bool took = false;
		for (int x = g->t->max_cpu; x >= 0 && !took; x--) {
			if (!ab_cpuset_isset(&free, x))
				continue;
			for (int y = x - 1; y >= 0 && !took; y--) {
				if (!ab_cpuset_isset(&free, y) || !related(g, x, y))
					continue;
				ab_cpuset_clear(&free, x);
				ab_cpuset_clear(&free, y);
				if (max_disjoint(g, &free) >= n - found - 1) {
					a[found] = x;
					b[found] = y;
					found++;
					took = true;
				} else {
					ab_cpuset_set(&free, x);
					ab_cpuset_set(&free, y);
				}
			}
		}
		if (!took)	/* cannot happen: the bound above is exact */
			break;
	}
	return found;
}

/*
 * Augmenting path (Kuhn) from a-side CPU x. A free partner is taken first, the
 * highest one, so earlier pairs are only rearranged when nothing else works.
 */
static bool augment(const struct pairing *g, int x, int *match_b, int *match_a, char *seen)
{
	for (int y = g->t->max_cpu; y >= 0; y--) {
		if (match_b[y] < 0 && ab_cpuset_isset(&g->t->cpus, y) && related(g, x, y)) {
			seen[y] = 1;
			match_b[y] = x;
			match_a[x] = y;
			return true;
		}
	}
	for (int y = g->t->max_cpu; y >= 0; y--) {
		if (seen[y] || !ab_cpuset_isset(&g->t->cpus, y) || !related(g, x, y))
			continue;
		seen[y] = 1;
		if (match_b[y] < 0 || augment(g, match_b[y], match_b, match_a, seen)) {
			match_b[y] = x;
			match_a[x] = y;
			return true;
		}
	}
	return false;
}

/*
 * n pairs where a CPU may be one pair's a and another pair's b (the header's
 * contract: a[] distinct, b[] distinct). Used only when 2n distinct CPUs
 * cannot be had, e.g. n = 2 "other" on a 2-CPU machine: (1,0), (0,1).
 * Returns the pairs found (all there are when fewer than n).
 */
static int pick_overlapping(const struct pairing *g, int n, int *a, int *b)
{
	size_t ncpu = (size_t)g->t->max_cpu + 1;
	int *match_b = malloc(ncpu * sizeof(int)), *match_a = malloc(ncpu * sizeof(int));
	char *seen = malloc(ncpu);
	int found = 0, x;

	if (!match_b || !match_a || !seen)
		goto out;
	for (size_t i = 0; i < ncpu; i++)
		match_b[i] = match_a[i] = -1;
	for (x = g->t->max_cpu; x >= 0 && found < n; x--) {
		if (!ab_cpuset_isset(&g->t->cpus, x))
			continue;
		memset(seen, 0, ncpu);
		if (augment(g, x, match_b, match_a, seen))
			found++;
	}
	/* Earlier a-side CPUs keep a partner (maybe another one): list them in order. */
	int i = 0;
	for (x = g->t->max_cpu; x >= 0 && i < found; x--)
		if (match_a[x] >= 0) {
			a[i] = x;
			b[i] = match_a[x];
			i++;
		}
out:
	free(match_b);
	free(match_a);
	free(seen);
	return found;
}

int ab_placement_resolve(const struct ab_topo *t, enum ab_placement p, int n, int *a, int *b,
			 char *why, size_t whylen)
{
	const char *name = ab_placement_name(p);
	char *cpus = malloc(AB_MAX_CPUS * 6);
	int r = -1, cpu, i = 0;

	if (!cpus)
		return ab_err(why, whylen, "%s: out of memory", name);
	if (ab_cpuset_format(&t->cpus, cpus, AB_MAX_CPUS * 6) < 0)
		snprintf(cpus, AB_MAX_CPUS * 6, "%d CPUs", ab_cpuset_count(&t->cpus));
	int ncpus = ab_cpuset_count(&t->cpus);

	if ((unsigned)p >= AB_PL_COUNT) {
		ab_err(why, whylen, "unknown placement %d (want %s)", (int)p, ab_placement_names());
		goto out;
	}
	if (n < 1) {
		ab_err(why, whylen, "%s: %d pairs asked for, need at least 1", name, n);
		goto out;
	}
	switch (p) {
	case AB_PL_NONE:
		for (i = 0; i < n; i++)
			a[i] = b[i] = -1;
		r = 0;
		goto out;
	case AB_PL_SAME:
		if (n > ncpus) {
			ab_err(why, whylen, "same: %d pairs need %d CPUs, only %d in %s", n, n, ncpus,
			       cpus);
			goto out;
		}
		for (cpu = t->max_cpu; cpu >= 0 && i < n; cpu--)
			if (ab_cpuset_isset(&t->cpus, cpu)) {
				a[i] = b[i] = cpu;
				i++;
			}
		r = 0;
		goto out;
	default:
		break;
	}

	/* Ids (CPU, core, LLC, package, node numbers) are below AB_MAX_CPUS, or node ids. */
	struct pairing g = { .t = t, .p = p, .nids = t->max_cpu + 1 };
	for (cpu = 0; cpu <= t->max_cpu; cpu++) {
		const struct ab_cpu_topo *c = &t->cpu[cpu];
		int m = c->core > c->llc ? c->core : c->llc;
		m = m > c->node ? m : c->node;
		if (m >= g.nids)
			g.nids = m + 1;
	}
	g.comp_n = calloc((size_t)g.nids, sizeof(int));
	g.part_n = calloc((size_t)g.nids, sizeof(int));
	g.comp_max = calloc((size_t)g.nids, sizeof(int));
	if (g.comp_n && g.part_n && g.comp_max) {
		int found = pick_disjoint(&g, n, a, b);
		if (found < n)
			found = pick_overlapping(&g, n, a, b);
		if (found == n) {
			r = 0;
		} else if (found > 0) {
			ab_err(why, whylen, "%s: %d pairs asked for, CPUs %s offer at most %d", name, n,
			       cpus, found);
		} else {
			switch (p) {
			case AB_PL_SMT:
				ab_err(why, whylen, "smt: no CPU in %s has an SMT sibling", cpus);
				break;
			case AB_PL_LLC:
				ab_err(why, whylen, "llc: no two cores in %s share a last-level cache", cpus);
				break;
			case AB_PL_CROSS_LLC:
				ab_err(why, whylen, "cross-llc: all CPUs in %s share one last-level cache",
				       cpus);
				break;
			case AB_PL_CROSS_NODE:
				ab_err(why, whylen, "cross-node: all CPUs in %s are on one NUMA node", cpus);
				break;
			default:
				ab_err(why, whylen, "%s: needs 2 CPUs, only CPU %s is available", name, cpus);
				break;
			}
		}
	} else {
		ab_err(why, whylen, "%s: out of memory", name);
	}
	free(g.comp_n);
	free(g.part_n);
	free(g.comp_max);
out:
	free(cpus);
	return r;
}
