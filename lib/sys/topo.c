// SPDX-License-Identifier: GPL-2.0
/*
 * CPU topology from sysfs (docs/placements.md); lib/sys/placement.c resolves
 * placements on it.
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
 */
#include "sys/topo.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/sysfs.h"

#define SYS_SUFFIX "/sys/devices/system"

/* A one-line sysfs file into buf. 0, 1 when the file does not exist, or -1 with the
 * path and errno in err. */
static int read_line(const char *path, char *buf, size_t len, char *err, size_t errlen)
{
	if (ab_sysfs_read(path, buf, len) == 0)
		return 0;
	if (errno == ENOENT)
		return 1;
	return ab_err(err, errlen, "%s: %s", path, strerror(errno));
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
