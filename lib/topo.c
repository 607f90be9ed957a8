/*
 * CPU topology from sysfs and the placement resolver (docs/placements.md).
 *
 * Per CPU we read, under <sysroot>/sys/devices/system:
 *   cpu/online                                 which CPUs exist (else the cpuN dirs)
 *   cpu/cpuN/topology/thread_siblings_list     core = its first CPU
 *     (core_cpus_list when that is missing; the CPU itself when both are)
 *   cpu/cpuN/topology/physical_package_id      package (-1 when missing)
 *   cpu/cpuN/cache/indexK/{type,level,shared_cpu_list}
 *       llc = first CPU of the highest-level data or unified cache
 *   node/nodeM/cpulist                         node (0 when there are no node dirs)
 *
 * Missing cache information (VMs often have no cache/ directory) is read as
 * "one LLC per package": llc = the package id, or 0 when that is unknown too.
 * Guessing "every CPU its own LLC" instead would invent cross-llc pairs the
 * hardware does not have; one LLC per package is what every current x86 and
 * most Arm parts are. The guess cannot collide with real ids on real machines,
 * which either have cache info for all CPUs or for none.
 *
 * Pairs: the resolver first looks for n pairs on 2n distinct CPUs, so no client
 * shares a CPU with another pair's server. Only when the CPUs allowed cannot
 * hold that does it let a CPU be one pair's a and another pair's b (a[] and b[]
 * each stay distinct, as topo.h promises), e.g. "other" n=2 on 2 CPUs gives
 * (1,0) (0,1).
 */
#include "topo.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define SYS_SUFFIX "/sys/devices/system"

/*
 * Reads a one-line sysfs file into buf without its trailing newline.
 * Returns 0, 1 when the file does not exist, or -1 with the path and errno in err.
 */
static int read_line(const char *path, char *buf, size_t len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");

	if (!f) {
		if (errno == ENOENT)
			return 1;
		return ab_err(err, errlen, "%s: %s", path, strerror(errno));
	}
	if (!fgets(buf, (int)len, f)) {
		int e = ferror(f) ? errno : 0;
		fclose(f);
		if (e)
			return ab_err(err, errlen, "%s: %s", path, strerror(e));
		buf[0] = '\0';	/* an empty file, e.g. a memory-only node's cpulist */
		return 0;
	}
	fclose(f);
	size_t n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return 0;
}

/* A CPU-list file. Returns 0, 1 when missing, -1 on error. An empty file is an empty set. */
static int read_list(const char *path, struct ab_cpuset *s, char *err, size_t errlen)
{
	/* A list of every other CPU of 8192 is about 40 KB. */
	size_t len = AB_MAX_CPUS * 6;
	char *buf = malloc(len), perr[256];
	int r;

	if (!buf)
		return ab_err(err, errlen, "%s: out of memory", path);
	r = read_line(path, buf, len, err, errlen);
	if (r == 0) {
		ab_cpuset_zero(s);
		if (buf[0] && ab_cpuset_parse(s, buf, NULL, perr, sizeof(perr)) < 0)
			r = ab_err(err, errlen, "%s: %s", path, perr);
	}
	free(buf);
	return r;
}

/* First CPU of a CPU-list file: >= 0, -2 when missing or empty, -1 on error. */
static int read_first(const char *path, char *err, size_t errlen)
{
	struct ab_cpuset s;
	int r = read_list(path, &s, err, errlen);

	if (r < 0)
		return -1;
	if (r > 0 || ab_cpuset_count(&s) == 0)
		return -2;
	return ab_cpuset_next(&s, 0);
}

/* Integer file: 0 with *v set, 1 when missing, -1 on error. */
static int read_int(const char *path, int *v, char *err, size_t errlen)
{
	char buf[64], *end;
	int r = read_line(path, buf, sizeof(buf), err, errlen);

	if (r)
		return r;
	errno = 0;
	long l = strtol(buf, &end, 10);
	if (end == buf || *end || errno || l < -1 || l > 1000000)
		return ab_err(err, errlen, "%s: '%s' is not a number", path, buf);
	*v = (int)l;
	return 0;
}

/* CPUs that exist: cpu/online, or the cpuN directories when there is no such file. */
static int online_cpus(const char *sys, struct ab_cpuset *s, char *err, size_t errlen)
{
	char path[4096];
	int r;

	snprintf(path, sizeof(path), "%s/cpu/online", sys);
	r = read_list(path, s, err, errlen);
	if (r <= 0)
		return r;

	snprintf(path, sizeof(path), "%s/cpu", sys);
	DIR *d = opendir(path);
	if (!d)
		return ab_err(err, errlen, "%s: %s", path, strerror(errno));
	ab_cpuset_zero(s);
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		if (strncmp(de->d_name, "cpu", 3) || de->d_name[3] < '0' || de->d_name[3] > '9')
			continue;
		long cpu = strtol(de->d_name + 3, &end, 10);
		if (!*end && cpu < AB_MAX_CPUS)
			ab_cpuset_set(s, (int)cpu);
	}
	closedir(d);
	return 0;
}

/* llc of one CPU from its cache/indexK dirs: >= 0, -2 when unknown, -1 on error. */
static int read_llc(const char *sys, int cpu, char *err, size_t errlen)
{
	char path[4096], type[64];
	int best_level = -1, llc = -2;

	snprintf(path, sizeof(path), "%s/cpu/cpu%d/cache", sys, cpu);
	DIR *d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			return -2;
		return ab_err(err, errlen, "%s: %s", path, strerror(errno));
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		int level, first, r;

		if (strncmp(de->d_name, "index", 5))
			continue;
		snprintf(path, sizeof(path), "%s/cpu/cpu%d/cache/%s/type", sys, cpu, de->d_name);
		r = read_line(path, type, sizeof(type), err, errlen);
		if (r < 0)
			goto fail;
		/* An instruction cache holds no data that two parties could share. */
		if (r == 0 && !strcmp(type, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "%s/cpu/cpu%d/cache/%s/level", sys, cpu, de->d_name);
		r = read_int(path, &level, err, errlen);
		if (r < 0)
			goto fail;
		if (r > 0 || level <= best_level)
			continue;
		snprintf(path, sizeof(path), "%s/cpu/cpu%d/cache/%s/shared_cpu_list", sys, cpu,
			 de->d_name);
		first = read_first(path, err, errlen);
		if (first == -1)
			goto fail;
		if (first < 0)
			continue;
		best_level = level;
		llc = first;
	}
	closedir(d);
	return llc;
fail:
	closedir(d);
	return -1;
}

/* node/nodeM/cpulist -> t->cpu[].node for the CPUs described. */
static int read_nodes(const char *sys, struct ab_topo *t, char *err, size_t errlen)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/node", sys);
	DIR *d = opendir(path);
	if (!d) {
		if (errno == ENOENT)	/* !CONFIG_NUMA: everything is node 0 */
			return 0;
		return ab_err(err, errlen, "%s: %s", path, strerror(errno));
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		struct ab_cpuset s;
		char *end;
		int cpu;

		if (strncmp(de->d_name, "node", 4) || de->d_name[4] < '0' || de->d_name[4] > '9')
			continue;
		long node = strtol(de->d_name + 4, &end, 10);
		if (*end || node > 1000000)
			continue;
		snprintf(path, sizeof(path), "%s/node/%s/cpulist", sys, de->d_name);
		int r = read_list(path, &s, err, errlen);
		if (r < 0) {
			closedir(d);
			return -1;
		}
		if (r > 0)
			continue;
		ab_cpuset_for_each(cpu, &s)
			if (ab_cpuset_isset(&t->cpus, cpu))
				t->cpu[cpu].node = (int)node;
	}
	closedir(d);
	return 0;
}

/* Number of distinct values of one field over the CPUs described. */
static int count_distinct(const struct ab_topo *t, size_t field)
{
	int cpu, other, n = 0;

	ab_cpuset_for_each(cpu, &t->cpus) {
		int v = *(const int *)((const char *)&t->cpu[cpu] + field);
		bool seen = false;
		ab_cpuset_for_each(other, &t->cpus) {
			if (other >= cpu)
				break;
			if (*(const int *)((const char *)&t->cpu[other] + field) == v) {
				seen = true;
				break;
			}
		}
		n += !seen;
	}
	return n;
}

int ab_topo_load(struct ab_topo *t, const char *sysroot, const struct ab_cpuset *allowed,
		 char *err, size_t errlen)
{
	char sys[2048], path[4096], buf[256], buf2[256];
	struct ab_cpuset online;
	int cpu;

	memset(t, 0, sizeof(*t));
	snprintf(sys, sizeof(sys), "%s" SYS_SUFFIX, sysroot ? sysroot : "");
	if (online_cpus(sys, &online, err, errlen) < 0)
		return -1;
	if (allowed)
		ab_cpuset_and(&t->cpus, &online, allowed);
	else
		t->cpus = online;
	if (ab_cpuset_count(&t->cpus) == 0) {
		ab_cpuset_format(&online, buf, sizeof(buf));
		if (allowed)
			ab_cpuset_format(allowed, buf2, sizeof(buf2));
		return ab_err(err, errlen, "%s: no CPU of %s is online (online: %s)", sys,
			      allowed ? buf2 : "the machine", buf);
	}
	ab_cpuset_for_each(cpu, &t->cpus)
		t->max_cpu = cpu;
	t->cpu = calloc((size_t)t->max_cpu + 1, sizeof(*t->cpu));
	if (!t->cpu)
		return ab_err(err, errlen, "out of memory for %d CPUs", t->max_cpu + 1);
	for (int i = 0; i <= t->max_cpu; i++)
		t->cpu[i] = (struct ab_cpu_topo){ -1, -1, -1, -1 };

	ab_cpuset_for_each(cpu, &t->cpus) {
		struct ab_cpu_topo *c = &t->cpu[cpu];
		int r;

		snprintf(path, sizeof(path), "%s/cpu/cpu%d/topology/thread_siblings_list", sys, cpu);
		c->core = read_first(path, err, errlen);
		if (c->core == -2) {
			snprintf(path, sizeof(path), "%s/cpu/cpu%d/topology/core_cpus_list", sys, cpu);
			c->core = read_first(path, err, errlen);
		}
		if (c->core == -1)
			goto fail;
		if (c->core == -2)	/* no SMT information: a core of its own */
			c->core = cpu;

		snprintf(path, sizeof(path), "%s/cpu/cpu%d/topology/physical_package_id", sys, cpu);
		r = read_int(path, &c->package, err, errlen);
		if (r < 0)
			goto fail;
		if (r > 0)
			c->package = -1;

		c->llc = read_llc(sys, cpu, err, errlen);
		if (c->llc == -1)
			goto fail;
		if (c->llc == -2)	/* see the comment at the top */
			c->llc = c->package >= 0 ? c->package : 0;
		c->node = 0;
	}
	if (read_nodes(sys, t, err, errlen) < 0)
		goto fail;

	t->nr_cores = count_distinct(t, offsetof(struct ab_cpu_topo, core));
	t->nr_llcs = count_distinct(t, offsetof(struct ab_cpu_topo, llc));
	t->nr_nodes = count_distinct(t, offsetof(struct ab_cpu_topo, node));
	return 0;
fail:
	ab_topo_free(t);
	return -1;
}

void ab_topo_free(struct ab_topo *t)
{
	free(t->cpu);
	t->cpu = NULL;
}

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
				ab_err(why, whylen, "%s: needs 2 CPUs, only %s is available", name, cpus);
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
