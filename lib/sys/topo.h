/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU topology from sysfs (SMT siblings, last-level cache, NUMA node) and the
 * placement resolver: named placements (docs/placements.md) -> concrete CPUs.
 * The sysfs root is a parameter so tests can use fixture trees.
 */
#ifndef AB_TOPO_H
#define AB_TOPO_H

#include "sys/cpuset.h"

struct ab_cpu_topo {
	int core;		/* first CPU of thread_siblings_list: one id per core */
	int llc;		/* first CPU of the highest cache level's shared_cpu_list */
	int node;		/* NUMA node, 0 when the machine has no node directories */
	int package;		/* physical_package_id, -1 if unknown */
};

struct ab_topo {
	struct ab_cpuset cpus;	/* CPUs described (those present and allowed) */
	int max_cpu;		/* highest CPU number described */
	struct ab_cpu_topo *cpu;	/* indexed by CPU number, max_cpu + 1 entries */
	int nr_cores, nr_llcs, nr_nodes;
};

/*
 * Read topology for the CPUs in 'allowed' from <sysroot>/sys/devices/system/{cpu,node}.
 * sysroot "" or NULL means the real machine. Returns 0, or -1 with a reason in err.
 */
int ab_topo_load(struct ab_topo *t, const char *sysroot, const struct ab_cpuset *allowed,
		 char *err, size_t errlen);
void ab_topo_free(struct ab_topo *t);

enum ab_placement {
	AB_PL_NONE,		/* no pinning: the scheduler decides */
	AB_PL_SAME,		/* both parties on one CPU */
	AB_PL_SMT,		/* SMT siblings of one core */
	AB_PL_LLC,		/* different cores sharing a last-level cache */
	AB_PL_CROSS_LLC,	/* different last-level caches */
	AB_PL_CROSS_NODE,	/* different NUMA nodes */
	AB_PL_OTHER,		/* two different CPUs, whatever their relation */
	AB_PL_COUNT
};

/* "none", "same", "smt", "llc", "cross-llc", "cross-node", "other" */
const char *ab_placement_name(enum ab_placement p);
int ab_placement_parse(const char *name, enum ab_placement *p);
/* "none|same|smt|llc|cross-llc|cross-node|other", for help and error messages */
const char *ab_placement_names(void);

/*
 * Resolve placement p into n (a, b) CPU pairs, e.g. n clients (a) and the daemon
 * threads serving them (b). The a[] CPUs are all distinct; so are the b[] CPUs for
 * every placement but none (a[i] = b[i] = -1). Pairs are chosen deterministically,
 * preferring high CPU numbers (CPU 0 takes most housekeeping interrupts).
 * Returns 0, or -1 with the reason the machine cannot offer it in why
 * (e.g. "smt: no CPU in 0-1 has an SMT sibling").
 */
int ab_placement_resolve(const struct ab_topo *t, enum ab_placement p, int n, int *a, int *b,
			 char *why, size_t whylen);

/*
 * The CPUs described, in topology order: by (package, LLC, core, thread), so
 * SMT siblings sit together, then cores sharing a cache, then packages (a
 * matrix of CPU pairs drawn in this order shows its blocks). cpus holds
 * ab_cpuset_count(&t->cpus) entries; returns that count.
 */
int ab_topo_order(const struct ab_topo *t, int *cpus);
/*
 * The closest relation of two described CPUs, as the placements name it:
 * AB_PL_SAME (a == b), AB_PL_SMT (one core), AB_PL_LLC (one last-level cache),
 * AB_PL_CROSS_LLC (one NUMA node, different caches), else AB_PL_CROSS_NODE.
 */
enum ab_placement ab_topo_pair_class(const struct ab_topo *t, int a, int b);

#endif
