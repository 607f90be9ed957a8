// SPDX-License-Identifier: GPL-2.0
/*
 * Which ordered pairs of CPUs cpupair measures (cpupair.h): every one, a few
 * per topology class, or a deterministic sample, always in topology order
 * (lib/sys/topo_order.c) so records and heatmaps read the same way.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/parse.h"
#include "cpupair.h"

static const char *const method_names[CP_NMETHOD] = { "line", "futex", "pipe" };

const char *cp_method_name(enum cp_method m)
{
	return (unsigned)m < CP_NMETHOD ? method_names[m] : "?";
}

int cp_methods_parse(const char *s, unsigned *mask, char *err, size_t errlen)
{
	char buf[64], *tok, *save;

	if (!s || !*s || strlen(s) >= sizeof(buf))
		return ab_err(err, errlen, "bad --method '%s': want a list of line, futex, pipe",
			      s ? s : "");
	snprintf(buf, sizeof(buf), "%s", s);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int m;
		for (m = 0; m < CP_NMETHOD && strcmp(tok, method_names[m]); m++)
			;
		if (m == CP_NMETHOD)
			return ab_err(err, errlen, "bad --method '%s': '%s' is not line, futex or pipe",
				      s, tok);
		if (*mask & (1u << m))	/* one method measured twice would be two points alike */
			return ab_err(err, errlen, "bad --method '%s': '%s' is given twice", s, tok);
		*mask |= 1u << m;
	}
	if (!*mask || s[strlen(s) - 1] == ',' || s[0] == ',' || strstr(s, ",,"))
		return ab_err(err, errlen, "bad --method '%s': empty entry", s);
	return 0;
}

int cp_pairs_parse(const char *s, enum cp_pairs_mode *mode, long *n, char *err, size_t errlen)
{
	char *end;

	if (s && !strcmp(s, "all"))
		*mode = CP_PAIRS_ALL;
	else if (s && !strcmp(s, "classes"))
		*mode = CP_PAIRS_CLASSES;
	else {
		errno = 0;
		long v = s && *s >= '1' && *s <= '9' ? strtol(s, &end, 10) : 0;
		if (v < 1 || errno || *end)
			return ab_err(err, errlen, "bad --pairs '%s': want all, classes or a count >= 1",
				      s ? s : "");
		*mode = CP_PAIRS_N;
		*n = v;
	}
	return 0;
}

const char *cp_class_name(const struct cp_pair *p, int cache_known)
{
	if (p->a == p->b)
		return CP_CLASS_SAME;
	/* without cache/ the topology guesses one LLC per package: SMT siblings and
	 * NUMA nodes come from elsewhere in sysfs, the rest is not known */
	if (!cache_known && (p->cls == AB_PL_LLC || p->cls == AB_PL_CROSS_LLC))
		return CP_CLASS_UNKNOWN;
	return ab_placement_name(p->cls);
}

int cp_cache_known(const char *sysroot, const struct ab_topo *t)
{
	char path[4096];
	int cpu = ab_cpuset_next(&t->cpus, 0);
	DIR *d;

	/* a machine has cache/ for all its CPUs or for none (lib/sys/topo.c) */
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cache", sysroot ? sysroot : "",
		 cpu);
	if (cpu < 0 || !(d = opendir(path)))
		return 0;
	closedir(d);
	return 1;
}

long cp_pairs_diagonal(const struct cp_pair *pairs, long n, struct cp_pair **out)
{
	long nd = 0;

	*out = malloc(sizeof(**out) * (size_t)(2 * n + 1));
	if (!*out)
		return -1;
	for (long i = 0; i < n; i++)
		for (int k = 0; k < 2; k++) {
			int cpu = k ? pairs[i].b : pairs[i].a, pos = k ? pairs[i].pb : pairs[i].pa;
			long j;
			for (j = 0; j < nd && (*out)[j].a != cpu; j++)
				;
			if (j == nd)
				(*out)[nd++] = (struct cp_pair){ cpu, cpu, pos, pos, AB_PL_SAME };
		}
	/* in topology order: by place (insertion sort, a few hundred at most) */
	for (long i = 1; i < nd; i++)
		for (long j = i; j > 0 && (*out)[j - 1].pa > (*out)[j].pa; j--) {
			struct cp_pair t = (*out)[j];
			(*out)[j] = (*out)[j - 1];
			(*out)[j - 1] = t;
		}
	return nd;
}

static struct cp_pair pair_at(const struct ab_topo *t, const int *order, int pa, int pb)
{
	return (struct cp_pair){ order[pa], order[pb], pa, pb,
				 ab_topo_pair_class(t, order[pa], order[pb]) };
}

/* Off-diagonal index k of an n x n matrix (row-major, diagonal skipped) -> (pa, pb). */
static void unrank(long k, int n, int *pa, int *pb)
{
	*pa = (int)(k / (n - 1));
	*pb = (int)(k % (n - 1));
	*pb += *pb >= *pa;
}

/* splitmix64: a fixed seed, so a sample is the same pairs on every run. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Per class, the last pair of that class in topology order and its reverse. */
static long by_class(const struct ab_topo *t, const int *order, int n, struct cp_pair *out)
{
	long np = 0;

	for (int c = AB_PL_SMT; c <= AB_PL_CROSS_NODE; c++) {
		for (int pa = n - 1, found = 0; pa >= 0 && !found; pa--)
			for (int pb = pa - 1; pb >= 0 && !found; pb--)
				if (ab_topo_pair_class(t, order[pa], order[pb]) == (enum ab_placement)c) {
					out[np++] = pair_at(t, order, pb, pa);
					out[np++] = pair_at(t, order, pa, pb);
					found = 1;
				}
	}
	return np;
}

long cp_pairs_select(const struct ab_topo *t, enum cp_pairs_mode mode, long want,
		     struct cp_pair **out, char *err, size_t errlen)
{
	int n = ab_cpuset_count(&t->cpus), *order = malloc(sizeof(int) * (size_t)n), pa, pb;
	long total = (long)n * (n - 1), np = 0;
	uint64_t seed = 1;

	*out = NULL;
	if (!order)
		return ab_err(err, errlen, "out of memory");
	if (n < 2) {
		free(order);
		return ab_err(err, errlen, "a pair needs two CPUs; only %d allowed", n);
	}
	ab_topo_order(t, order);
	if (mode == CP_PAIRS_CLASSES)
		want = 2 * (AB_PL_CROSS_NODE - AB_PL_SMT + 1);
	else if (mode == CP_PAIRS_ALL || want > total)
		want = total;
	*out = malloc(sizeof(**out) * (size_t)want);
	if (!*out) {
		free(order);
		return ab_err(err, errlen, "out of memory for %ld pairs", want);
	}
	if (mode == CP_PAIRS_CLASSES)
		np = by_class(t, order, n, *out);
	else
		for (long k = 0; k < want; k++) {
			/* stride k of want: [k * total / want, (k + 1) * total / want) */
			long lo = (long)((__int128)k * total / want), hi = (long)((__int128)(k + 1) * total / want);
			long i = want == total ? k : lo + (long)(next_rand(&seed) % (uint64_t)(hi - lo));
			unrank(i, n, &pa, &pb);
			(*out)[np++] = pair_at(t, order, pa, pb);
		}
	free(order);
	return np;
}
