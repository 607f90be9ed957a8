// SPDX-License-Identifier: GPL-2.0
/*
 * lib/sys/topo: topology loading from the sysfs fixture trees under
 * tests/fixtures/topo/ (see the README there) and from this machine, and the
 * placement resolver: every placement on every fixture, narrowed by an
 * allowed set, several pairs, and the reasons given when a placement is
 * impossible. Fixtures are found under $AFFBENCH_TOP (else the cwd).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/topo.h"

#define MAX_PAIRS 16

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *top = getenv("AFFBENCH_TOP");

	snprintf(path, sizeof(path), "%s/tests/fixtures/topo/%s", top && *top ? top : ".", name);
	return path;
}

static struct ab_cpuset set_of(const char *list)
{
	struct ab_cpuset s;
	char err[256];

	ab_cpuset_zero(&s);
	if (list && ab_cpuset_parse(&s, list, NULL, err, sizeof(err)) < 0)
		fail_msg("test list '%s': %s", list, err);
	return s;
}

static void load(struct ab_topo *t, const char *name, const char *allowed)
{
	struct ab_cpuset a = set_of(allowed);
	char err[512] = "";

	if (ab_topo_load(t, fixture(name), allowed ? &a : NULL, err, sizeof(err)) < 0)
		fail_msg("loading fixture %s (allowed %s): %s", name, allowed ? allowed : "all", err);
}

struct cpu_want {
	int cpu, core, llc, node, package;
};

static const struct {
	const char *fixture, *allowed, *cpus;
	int max_cpu, nr_cores, nr_llcs, nr_nodes;
	int ncpu;
	struct cpu_want cpu[8];
} loads[] = {
	/* No cache/ dirs on this VM: one LLC per package, llc = package id 0. */
	{ "vm2", NULL, "0-1", 1, 2, 1, 1, 2, {
		{ 0, 0, 0, 0, 0 }, { 1, 1, 0, 0, 0 } } },
	{ "2s-smt", NULL, "0-7", 7, 4, 2, 2, 8, {
		{ 0, 0, 0, 0, 0 }, { 1, 1, 0, 0, 0 }, { 2, 2, 2, 1, 1 }, { 3, 3, 2, 1, 1 },
		{ 4, 0, 0, 0, 0 }, { 5, 1, 0, 0, 0 }, { 6, 2, 2, 1, 1 }, { 7, 3, 2, 1, 1 } } },
	/* Narrowing keeps the ids the hardware has (core 2 is still "2" without CPU 2). */
	{ "2s-smt", "5-6", "5-6", 6, 2, 2, 2, 2, {
		{ 5, 1, 0, 0, 0 }, { 6, 2, 2, 1, 1 } } },
	/* Past 64; node2 is memory-only (empty cpulist). */
	{ "big", NULL, "0-3,64-67", 67, 8, 4, 2, 8, {
		{ 0, 0, 0, 0, 0 }, { 1, 1, 0, 0, 0 }, { 2, 2, 2, 0, 0 }, { 3, 3, 2, 0, 0 },
		{ 64, 64, 64, 1, 1 }, { 65, 65, 64, 1, 1 }, { 66, 66, 66, 1, 1 }, { 67, 67, 66, 1, 1 } } },
	/* Offline/absent CPUs in allowed are dropped. */
	{ "big", "3-64,100", "3,64", 64, 2, 2, 2, 2, {
		{ 3, 3, 2, 0, 0 }, { 64, 64, 64, 1, 1 } } },
	/* No online file, core_cpus_list only, no package id, no node dir, and an
	 * Instruction cache at level 3 (made up) that must not count as the LLC. */
	{ "l2-noinfo", NULL, "0-3", 3, 4, 2, 1, 4, {
		{ 0, 0, 0, 0, -1 }, { 1, 1, 0, 0, -1 }, { 2, 2, 2, 0, -1 }, { 3, 3, 2, 0, -1 } } },
};

static void test_load(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
		struct ab_topo t;
		char buf[256];
		int cpu;

		load(&t, loads[i].fixture, loads[i].allowed);
		ab_cpuset_format(&t.cpus, buf, sizeof(buf));
		if (strcmp(buf, loads[i].cpus))
			fail_msg("%s/%s: cpus %s, want %s", loads[i].fixture, loads[i].allowed, buf,
				 loads[i].cpus);
		assert_int_equal(t.max_cpu, loads[i].max_cpu);
		assert_int_equal(t.nr_cores, loads[i].nr_cores);
		assert_int_equal(t.nr_llcs, loads[i].nr_llcs);
		assert_int_equal(t.nr_nodes, loads[i].nr_nodes);
		assert_int_equal(ab_cpuset_count(&t.cpus), loads[i].ncpu);
		for (int j = 0; j < loads[i].ncpu; j++) {
			const struct cpu_want *w = &loads[i].cpu[j];
			const struct ab_cpu_topo *c = &t.cpu[w->cpu];

			if (c->core != w->core || c->llc != w->llc || c->node != w->node ||
			    c->package != w->package)
				fail_msg("%s cpu%d: core %d llc %d node %d package %d, want %d %d %d %d",
					 loads[i].fixture, w->cpu, c->core, c->llc, c->node, c->package,
					 w->core, w->llc, w->node, w->package);
		}
		/* CPUs not described are marked as such. */
		for (cpu = 0; cpu <= t.max_cpu; cpu++)
			if (!ab_cpuset_isset(&t.cpus, cpu))
				assert_int_equal(t.cpu[cpu].core, -1);
		ab_topo_free(&t);
		assert_null(t.cpu);
	}
}

/* This machine's own sysfs: every allowed CPU is described. */
static void test_load_this_machine(void **state)
{
	struct ab_cpuset allowed;
	struct ab_topo t;
	char err[512] = "";
	int a, b;

	(void)state;
	assert_int_equal(ab_cpuset_allowed(&allowed), 0);
	if (ab_topo_load(&t, NULL, &allowed, err, sizeof(err)) < 0)
		fail_msg("this machine: %s", err);
	assert_memory_equal(&t.cpus, &allowed, sizeof(struct ab_cpuset));
	assert_true(t.nr_cores >= 1 && t.nr_llcs >= 1 && t.nr_nodes >= 1);
	assert_int_equal(ab_placement_resolve(&t, AB_PL_SAME, 1, &a, &b, err, sizeof(err)), 0);
	assert_int_equal(a, t.max_cpu);
	ab_topo_free(&t);
	/* "" means the real machine too. */
	assert_int_equal(ab_topo_load(&t, "", &allowed, err, sizeof(err)), 0);
	assert_memory_equal(&t.cpus, &allowed, sizeof(struct ab_cpuset));
	ab_topo_free(&t);
}

static const struct {
	const char *fixture, *allowed;
	enum ab_placement p;
	int n;
	const char *a, *b;	/* the pairs, as "a0,a1,..." */
	const char *why;	/* non-NULL: must fail with this reason */
} cases[] = {
	/* vm2: two cores, one (assumed) LLC, one node. */
	{ "vm2", NULL, AB_PL_NONE, 1, "-1", "-1", NULL },
	{ "vm2", NULL, AB_PL_SAME, 1, "1", "1", NULL },
	{ "vm2", NULL, AB_PL_SMT, 1, NULL, NULL, "smt: no CPU in 0-1 has an SMT sibling" },
	{ "vm2", NULL, AB_PL_LLC, 1, "1", "0", NULL },
	{ "vm2", NULL, AB_PL_CROSS_LLC, 1, NULL, NULL,
	  "cross-llc: all CPUs in 0-1 share one last-level cache" },
	{ "vm2", NULL, AB_PL_CROSS_NODE, 1, NULL, NULL,
	  "cross-node: all CPUs in 0-1 are on one NUMA node" },
	{ "vm2", NULL, AB_PL_OTHER, 1, "1", "0", NULL },
	{ "vm2", NULL, AB_PL_SAME, 2, "1,0", "1,0", NULL },
	{ "vm2", NULL, AB_PL_NONE, 3, "-1,-1,-1", "-1,-1,-1", NULL },
	/* 2 pairs on 2 CPUs: a CPU is one pair's a and the other's b. */
	{ "vm2", NULL, AB_PL_OTHER, 2, "1,0", "0,1", NULL },
	{ "vm2", NULL, AB_PL_SAME, 3, NULL, NULL, "same: 3 pairs need 3 CPUs, only 2 in 0-1" },
	{ "vm2", NULL, AB_PL_OTHER, 3, NULL, NULL, "other: 3 pairs asked for, CPUs 0-1 offer at most 2" },
	{ "vm2", "1", AB_PL_OTHER, 1, NULL, NULL, "other: needs 2 CPUs, only CPU 1 is available" },
	{ "vm2", "1", AB_PL_LLC, 1, NULL, NULL, "llc: no two cores in 1 share a last-level cache" },
	{ "vm2", "0", AB_PL_SAME, 1, "0", "0", NULL },
	{ "vm2", NULL, AB_PL_OTHER, 0, NULL, NULL, "other: 0 pairs asked for, need at least 1" },

	/* 2s-smt: siblings (0,4) (1,5) (2,6) (3,7); socket/node/LLC 0 = 0,1,4,5. */
	{ "2s-smt", NULL, AB_PL_NONE, 1, "-1", "-1", NULL },
	{ "2s-smt", NULL, AB_PL_SAME, 1, "7", "7", NULL },
	{ "2s-smt", NULL, AB_PL_SMT, 1, "7", "3", NULL },
	{ "2s-smt", NULL, AB_PL_LLC, 1, "7", "6", NULL },
	{ "2s-smt", NULL, AB_PL_CROSS_LLC, 1, "7", "5", NULL },
	{ "2s-smt", NULL, AB_PL_CROSS_NODE, 1, "7", "5", NULL },
	{ "2s-smt", NULL, AB_PL_OTHER, 1, "7", "6", NULL },
	{ "2s-smt", NULL, AB_PL_SAME, 2, "7,6", "7,6", NULL },
	{ "2s-smt", NULL, AB_PL_SMT, 2, "7,6", "3,2", NULL },
	{ "2s-smt", NULL, AB_PL_LLC, 2, "7,5", "6,4", NULL },
	{ "2s-smt", NULL, AB_PL_CROSS_NODE, 2, "7,6", "5,4", NULL },
	{ "2s-smt", NULL, AB_PL_OTHER, 2, "7,5", "6,4", NULL },
	{ "2s-smt", NULL, AB_PL_SMT, 4, "7,6,5,4", "3,2,1,0", NULL },
	{ "2s-smt", NULL, AB_PL_LLC, 4, "7,5,3,1", "6,4,2,0", NULL },
	{ "2s-smt", NULL, AB_PL_CROSS_NODE, 4, "7,6,3,2", "5,4,1,0", NULL },
	/* More pairs than 8 CPUs hold disjointly: CPUs serve as a and b. */
	{ "2s-smt", NULL, AB_PL_CROSS_NODE, 5, "7,6,5,4,3", "5,4,7,6,1", NULL },
	{ "2s-smt", NULL, AB_PL_SMT, 8, "7,6,5,4,3,2,1,0", "3,2,1,0,7,6,5,4", NULL },
	{ "2s-smt", NULL, AB_PL_SMT, 9, NULL, NULL, "smt: 9 pairs asked for, CPUs 0-7 offer at most 8" },
	/* One socket allowed: nothing crosses. */
	{ "2s-smt", "0-1,4-5", AB_PL_SMT, 1, "5", "1", NULL },
	{ "2s-smt", "0-1,4-5", AB_PL_LLC, 1, "5", "4", NULL },
	{ "2s-smt", "0-1,4-5", AB_PL_CROSS_LLC, 1, NULL, NULL,
	  "cross-llc: all CPUs in 0-1,4-5 share one last-level cache" },
	{ "2s-smt", "0-1,4-5", AB_PL_CROSS_NODE, 1, NULL, NULL,
	  "cross-node: all CPUs in 0-1,4-5 are on one NUMA node" },
	{ "2s-smt", "0-1,4-5", AB_PL_OTHER, 1, "5", "4", NULL },
	/* One thread per core allowed: no SMT, both sockets. */
	{ "2s-smt", "0-3", AB_PL_SMT, 1, NULL, NULL, "smt: no CPU in 0-3 has an SMT sibling" },
	{ "2s-smt", "0-3", AB_PL_LLC, 1, "3", "2", NULL },
	{ "2s-smt", "0-3", AB_PL_CROSS_NODE, 2, "3,2", "1,0", NULL },
	{ "2s-smt", "0-3", AB_PL_CROSS_NODE, 3, "3,2,1", "1,0,3", NULL },
	/* Uneven: 1 CPU on node 1, 3 on node 0. Only one disjoint pair exists. */
	{ "2s-smt", "0-1,4,7", AB_PL_CROSS_NODE, 1, "7", "4", NULL },
	{ "2s-smt", "0-1,4,7", AB_PL_CROSS_NODE, 2, "7,4", "4,7", NULL },
	{ "2s-smt", "0-1,4,7", AB_PL_CROSS_NODE, 3, NULL, NULL,
	  "cross-node: 3 pairs asked for, CPUs 0-1,4,7 offer at most 2" },
	{ "2s-smt", "2,5-7", AB_PL_LLC, 1, "7", "6", NULL },

	/* big: CPUs 0-3 and 64-67, no SMT, LLCs {0,1} {2,3} {64,65} {66,67}, nodes 0-3 / 64-67. */
	{ "big", NULL, AB_PL_NONE, 1, "-1", "-1", NULL },
	{ "big", NULL, AB_PL_SAME, 1, "67", "67", NULL },
	{ "big", NULL, AB_PL_SMT, 1, NULL, NULL, "smt: no CPU in 0-3,64-67 has an SMT sibling" },
	{ "big", NULL, AB_PL_LLC, 1, "67", "66", NULL },
	{ "big", NULL, AB_PL_CROSS_LLC, 1, "67", "65", NULL },
	{ "big", NULL, AB_PL_CROSS_NODE, 1, "67", "3", NULL },
	{ "big", NULL, AB_PL_OTHER, 1, "67", "66", NULL },
	{ "big", NULL, AB_PL_LLC, 4, "67,65,3,1", "66,64,2,0", NULL },
	{ "big", NULL, AB_PL_CROSS_LLC, 2, "67,66", "65,64", NULL },
	{ "big", NULL, AB_PL_CROSS_NODE, 4, "67,66,65,64", "3,2,1,0", NULL },
	{ "big", NULL, AB_PL_CROSS_NODE, 5, "67,66,65,64,3", "3,2,1,0,67", NULL },
	{ "big", NULL, AB_PL_SAME, 8, "67,66,65,64,3,2,1,0", "67,66,65,64,3,2,1,0", NULL },
	{ "big", "64-67", AB_PL_CROSS_NODE, 1, NULL, NULL,
	  "cross-node: all CPUs in 64-67 are on one NUMA node" },
	{ "big", "64-67", AB_PL_CROSS_LLC, 1, "67", "65", NULL },
	/* The greedy must not take (66,64): it would leave 0 and 1, one LLC, for pair 2. */
	{ "big", "0-1,64,66", AB_PL_CROSS_LLC, 2, "66,64", "1,0", NULL },
	{ "big", "1,65", AB_PL_CROSS_NODE, 1, "65", "1", NULL },
	{ "big", "1,65", AB_PL_LLC, 1, NULL, NULL, "llc: no two cores in 1,65 share a last-level cache" },
	{ "big", "0-1", AB_PL_CROSS_LLC, 1, NULL, NULL,
	  "cross-llc: all CPUs in 0-1 share one last-level cache" },

	/* l2-noinfo: LLC = L2 per pair, the level-3 Instruction cache is ignored. */
	{ "l2-noinfo", NULL, AB_PL_NONE, 1, "-1", "-1", NULL },
	{ "l2-noinfo", NULL, AB_PL_SAME, 1, "3", "3", NULL },
	{ "l2-noinfo", NULL, AB_PL_SMT, 1, NULL, NULL, "smt: no CPU in 0-3 has an SMT sibling" },
	{ "l2-noinfo", NULL, AB_PL_LLC, 1, "3", "2", NULL },
	{ "l2-noinfo", NULL, AB_PL_CROSS_LLC, 2, "3,2", "1,0", NULL },
	{ "l2-noinfo", NULL, AB_PL_CROSS_NODE, 1, NULL, NULL,
	  "cross-node: all CPUs in 0-3 are on one NUMA node" },
	{ "l2-noinfo", NULL, AB_PL_OTHER, 1, "3", "2", NULL },
};

static void join(char *buf, size_t len, const int *v, int n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? "," : "", v[i]);
}

/* The pairs honour the placement, whatever the expected numbers say. */
static void check_pairs(const struct ab_topo *t, enum ab_placement p, int n, const int *a,
			const int *b, const char *label)
{
	for (int i = 0; i < n; i++) {
		if (p == AB_PL_NONE) {
			if (a[i] != -1 || b[i] != -1)
				fail_msg("%s: none pair %d is (%d,%d)", label, i, a[i], b[i]);
			continue;
		}
		if (!ab_cpuset_isset(&t->cpus, a[i]) || !ab_cpuset_isset(&t->cpus, b[i]))
			fail_msg("%s: pair %d (%d,%d) uses a CPU not allowed", label, i, a[i], b[i]);
		for (int j = 0; j < i; j++)
			if (a[i] == a[j] || b[i] == b[j])
				fail_msg("%s: pairs %d and %d share a CPU on one side", label, j, i);
		const struct ab_cpu_topo *x = &t->cpu[a[i]], *y = &t->cpu[b[i]];
		bool ok;
		switch (p) {
		case AB_PL_SAME: ok = a[i] == b[i]; break;
		case AB_PL_SMT: ok = a[i] != b[i] && x->core == y->core; break;
		case AB_PL_LLC: ok = x->core != y->core && x->llc == y->llc; break;
		case AB_PL_CROSS_LLC: ok = x->llc != y->llc; break;
		case AB_PL_CROSS_NODE: ok = x->node != y->node; break;
		default: ok = a[i] != b[i]; break;
		}
		if (!ok)
			fail_msg("%s: pair %d (%d,%d) is not %s", label, i, a[i], b[i],
				 ab_placement_name(p));
	}
}

static void test_resolve(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ab_topo t;
		int a[MAX_PAIRS], b[MAX_PAIRS];
		char why[512] = "", got_a[128], got_b[128], label[128];

		snprintf(label, sizeof(label), "%s allowed %s %s n=%d", cases[i].fixture,
			 cases[i].allowed ? cases[i].allowed : "all", ab_placement_name(cases[i].p),
			 cases[i].n);
		load(&t, cases[i].fixture, cases[i].allowed);
		int r = ab_placement_resolve(&t, cases[i].p, cases[i].n, a, b, why, sizeof(why));
		if (cases[i].why) {
			if (r == 0)
				fail_msg("%s: resolved, want failure '%s'", label, cases[i].why);
			if (strcmp(why, cases[i].why))
				fail_msg("%s: reason '%s', want '%s'", label, why, cases[i].why);
		} else {
			if (r < 0)
				fail_msg("%s: %s", label, why);
			check_pairs(&t, cases[i].p, cases[i].n, a, b, label);
			join(got_a, sizeof(got_a), a, cases[i].n);
			join(got_b, sizeof(got_b), b, cases[i].n);
			if (strcmp(got_a, cases[i].a) || strcmp(got_b, cases[i].b))
				fail_msg("%s: a=%s b=%s, want a=%s b=%s", label, got_a, got_b, cases[i].a,
					 cases[i].b);
		}
		ab_topo_free(&t);
	}
}

/*
 * Every placement on every fixture and every n up to 8: either valid pairs or
 * a reason that starts with the placement's name; and the table above covers
 * each (fixture, placement) at least once.
 */
static const char *const fixtures[] = { "vm2", "2s-smt", "big", "l2-noinfo" };

static void test_resolve_all(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		struct ab_topo t;

		load(&t, fixtures[f], NULL);
		for (int p = 0; p < AB_PL_COUNT; p++) {
			bool covered = false;
			for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
				covered |= !strcmp(cases[i].fixture, fixtures[f]) && (int)cases[i].p == p;
			if (!covered)
				fail_msg("no resolve case for %s on %s", ab_placement_name(p), fixtures[f]);
			for (int n = 1; n <= 8; n++) {
				int a[MAX_PAIRS], b[MAX_PAIRS];
				char why[512] = "", label[128];
				const char *name = ab_placement_name(p);

				snprintf(label, sizeof(label), "%s %s n=%d", fixtures[f], name, n);
				if (ab_placement_resolve(&t, p, n, a, b, why, sizeof(why)) == 0)
					check_pairs(&t, p, n, a, b, label);
				else if (strncmp(why, name, strlen(name)) || why[strlen(name)] != ':')
					fail_msg("%s: reason '%s' does not name the placement", label, why);
			}
		}
		ab_topo_free(&t);
	}
}

static void test_placement_names(void **state)
{
	static const char *const names[AB_PL_COUNT] = {
		"none", "same", "smt", "llc", "cross-llc", "cross-node", "other",
	};
	static const char *const bogus[] = { "", "SAME", "cross", "llc ", "numa" };
	enum ab_placement p;

	(void)state;
	for (int i = 0; i < AB_PL_COUNT; i++) {
		assert_string_equal(ab_placement_name((enum ab_placement)i), names[i]);
		assert_int_equal(ab_placement_parse(names[i], &p), 0);
		assert_int_equal(p, i);
		assert_non_null(strstr(ab_placement_names(), names[i]));
	}
	for (size_t i = 0; i < sizeof(bogus) / sizeof(bogus[0]); i++)
		assert_int_equal(ab_placement_parse(bogus[i], &p), -1);
	assert_string_equal(ab_placement_names(), "none|same|smt|llc|cross-llc|cross-node|other");
}

/* Fixture errors: the reason names the file and what is wrong with it. */
static const struct {
	const char *fixture, *allowed;
	const char *want;	/* appended to the fixture's sys/devices/system path */
} load_errors[] = {
	{ "nonexistent", NULL, "/cpu: No such file or directory" },
	{ "vm2", "5", ": no CPU of 5 is online (online: 0-1)" },
	{ "big", "4-63,68-100", ": no CPU of 4-63,68-100 is online (online: 0-3,64-67)" },
};

static void test_load_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(load_errors) / sizeof(load_errors[0]); i++) {
		struct ab_cpuset allowed = set_of(load_errors[i].allowed);
		struct ab_topo t;
		char err[512] = "", want[8192];

		snprintf(want, sizeof(want), "%s/sys/devices/system%s", fixture(load_errors[i].fixture),
			 load_errors[i].want);
		assert_int_equal(ab_topo_load(&t, fixture(load_errors[i].fixture),
					      load_errors[i].allowed ? &allowed : NULL, err, sizeof(err)),
				 -1);
		assert_string_equal(err, want);
	}
}

/* A one-CPU tree written at run time, with one file broken per case. */
static const struct {
	const char *file;	/* under sys/devices/system */
	const char *content;
	const char *want;	/* after "<file>: " */
} bad_files[] = {
	{ "cpu/cpu0/topology/thread_siblings_list", "x\n", "bad CPU list 'x': 'x' is not a CPU number" },
	{ "cpu/cpu0/topology/physical_package_id", "abc\n", "'abc' is not a number" },
	{ "cpu/cpu0/cache/index0/level", "two\n", "'two' is not a number" },
	{ "cpu/cpu0/cache/index0/shared_cpu_list", "0,\n", "bad CPU list '0,': empty entry at the end" },
	{ "node/node0/cpulist", "0-\n", "bad CPU list '0-': range '0-' has no end" },
	{ "cpu/online", "1-0\n", "bad CPU list '1-0': range '1-0' is reversed" },
};

static const char *const good_files[][2] = {
	{ "cpu/online", "0\n" },
	{ "cpu/cpu0/topology/thread_siblings_list", "0\n" },
	{ "cpu/cpu0/topology/physical_package_id", "0\n" },
	{ "cpu/cpu0/cache/index0/level", "1\n" },
	{ "cpu/cpu0/cache/index0/type", "Data\n" },
	{ "cpu/cpu0/cache/index0/shared_cpu_list", "0\n" },
	{ "node/node0/cpulist", "0\n" },
};

static void write_file(const char *root, const char *rel, const char *content)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/sys/devices/system/%s", root, rel);
	/* mkdir -p of the parent */
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	fputs(content, f);
	if (fclose(f) != 0)
		fail_msg("%s: %s", path, strerror(errno));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

static void test_bad_files(void **state)
{
	const char *wd = getenv("AFFBENCH_WORKDIR");
	char root[4096];

	(void)state;
	snprintf(root, sizeof(root), "%s/topo.XXXXXX", wd && *wd ? wd : "/tmp");
	if (!mkdtemp(root))
		fail_msg("mkdtemp %s: %s", root, strerror(errno));
	/* The good tree loads, so each failure below is the one broken file. */
	for (size_t j = 0; j < sizeof(good_files) / sizeof(good_files[0]); j++)
		write_file(root, good_files[j][0], good_files[j][1]);
	struct ab_topo t;
	char err[1024] = "", want[8192];
	if (ab_topo_load(&t, root, NULL, err, sizeof(err)) < 0)
		fail_msg("good tree: %s", err);
	ab_topo_free(&t);

	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		for (size_t j = 0; j < sizeof(good_files) / sizeof(good_files[0]); j++)
			write_file(root, good_files[j][0], good_files[j][1]);
		write_file(root, bad_files[i].file, bad_files[i].content);
		snprintf(want, sizeof(want), "%s/sys/devices/system/%s: %s", root, bad_files[i].file,
			 bad_files[i].want);
		int r = ab_topo_load(&t, root, NULL, err, sizeof(err));
		if (r == 0)
			ab_topo_free(&t);
		if (r == 0 || strcmp(err, want))
			fail_msg("%s = '%s': got %d '%s', want '%s'", bad_files[i].file,
				 bad_files[i].content, r, err, want);
	}
	if (nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fail_msg("removing %s: %s", root, strerror(errno));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_load_this_machine),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_resolve_all),
		cmocka_unit_test(test_placement_names),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_bad_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
