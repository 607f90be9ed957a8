// SPDX-License-Identifier: GPL-2.0
/*
 * sqrtio's IRQ discovery through sqrtio.h, against /proc/interrupts fixtures:
 * the verdict per reader CPU on single- and multi-queue devices (one IRQ per
 * vCPU, queues shared, completions rotated to the next CPU, 72 queues), the
 * --discover lines, and where each point places readers and sqrt workers.
 *
 * The Makefile links it with sqrtio's objects (all but main.o).
 */
#include "sqrtio_fx.h"

/* ---- discovery: the verdict per reader CPU ---- */

/*
 * A snapshot from "LINE:CPU=COUNT ..." (CPUs, not columns: cols names the CPU of
 * each column). Discovery diffs it against an empty one: every line starts at 0.
 */
static void snap(struct sq_intr *s, const int *cols, int ncol, const char *spec)
{
	char buf[512], *save = NULL;

	memset(s, 0, sizeof(*s));
	s->ncol = ncol;
	s->col_cpu = calloc((size_t)ncol, sizeof(int));
	s->line = calloc(16, sizeof(*s->line));
	assert_non_null(s->col_cpu);
	assert_non_null(s->line);
	memcpy(s->col_cpu, cols, (size_t)ncol * sizeof(int));
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char name[32];
		int cpu, col = -1, l;
		unsigned long long n;

		assert_int_equal(sscanf(tok, "%31[^:]:%d=%llu", name, &cpu, &n), 3);
		for (int c = 0; c < ncol; c++)
			if (cols[c] == cpu)
				col = c;
		assert_true(col >= 0);
		for (l = 0; l < s->nlines && strcmp(s->line[l].name, name); l++)
			;
		if (l == s->nlines) {
			assert_true(l < 16);
			snprintf(s->line[l].name, sizeof(s->line[l].name), "%s", name);
			s->line[l].count = calloc((size_t)ncol, sizeof(uint64_t));
			assert_non_null(s->line[l].count);
			s->nlines++;
		}
		s->line[l].count[col] += n;
	}
}

static const struct {
	const char *name;
	const char *cpus;	/* allowed CPUs = /proc/interrupts columns */
	int reads;
	const char *probe[8];	/* what grew while the CPU of that index read */
	int rc;
	const char *irqs, *irq_cpus, *local, *remote;
	const char *completes[8];
} probe_cases[] = {
	{ "one queue, its IRQ on CPU 1 (this VM)", "0-1", 600, { "36:1=600", "36:1=600" }, 0,
	  "36", "1", "1", "0", { "1", "1" } },
	{ "virtio-blk, one queue and IRQ per vCPU", "0-3", 600,
	  { "40:0=600", "41:1=600", "42:2=600", "43:3=600" }, 0,
	  "40,41,42,43", "0-3", "0-3", "", { "0", "1", "2", "3" } },
	{ "two queues for four CPUs", "0-3", 600,
	  { "50:0=600", "50:0=600", "51:3=600", "51:3=600" }, 0,
	  "50,51", "0,3", "0,3", "1-2", { "0", "0", "3", "3" } },
	/* Every CPU is "an IRQ CPU", yet none completes its own reads: judged per reader. */
	{ "each queue's IRQ fires on the next CPU", "0-2", 600,
	  { "60:1=600", "61:2=600", "62:0=600" }, 0,
	  "60,61,62", "0-2", "", "0-2", { "1", "2", "0" } },
	{ "noise: a line below half the reads, a column below a quarter", "0-1", 600,
	  { "36:1=560 36:0=40 41:0=299", "36:1=600" }, 0, "36", "1", "1", "0", { "1", "1" } },
	{ "per-CPU events (CAL, LOC) are not device lines", "0-1", 600,
	  { "CAL:0=5000 LOC:0=900 36:1=600", "36:1=600" }, 0, "36", "1", "1", "0", { "1", "1" } },
	{ "one IRQ delivered to two CPUs in turn", "0-1", 600, { "36:0=300 36:1=300", "36:1=600" },
	  0, "36", "0-1", "0-1", "", { "0-1", "1" } },
	{ "CPU 1 offline: the columns are CPU0 and CPU2", "0,2", 600, { "36:2=600", "36:2=600" }, 0,
	  "36", "2", "2", "0", { "2", "2" } },
	{ "no line grew: a device without interrupts", "0-1", 600, { "", "" }, 0, "", "", "", "0-1",
	  { "", "" } },
	{ "too few reads to judge", "0-1", SQ_PROBE_MIN - 1, { "36:1=19", "36:1=19" }, -1, NULL, NULL,
	  NULL, NULL, { NULL } },
};

static void set_str(const struct ab_cpuset *s, char *buf, size_t len)
{
	assert_true(ab_cpuset_format(s, buf, len) >= 0);
}

static void run_probes(struct sq_discovery *d, const char *cpus, const char *const *probe,
		       int reads, int rc)
{
	struct ab_cpuset allowed;
	char err[128];
	int cols[64];

	assert_int_equal(ab_cpuset_parse(&allowed, cpus, NULL, err, sizeof(err)), 0);
	sq_discovery_init(d, &allowed);
	assert_true(d->ncpu <= 64);
	memcpy(cols, d->cpu, (size_t)d->ncpu * sizeof(int));
	for (int i = 0; i < d->ncpu; i++) {
		struct sq_intr a, b;
		snap(&a, cols, d->ncpu, "");
		snap(&b, cols, d->ncpu, probe[i]);
		assert_int_equal(sq_discover_probe(d, i, &a, &b, reads), rc);
		sq_intr_free(&a);
		sq_intr_free(&b);
	}
}

static void test_discover_probe(void **state)
{
	char got[256], irqs[256];

	(void)state;
	for (size_t k = 0; k < AB_ARRAY_SIZE(probe_cases); k++) {
		struct sq_discovery d;

		print_message("case: %s\n", probe_cases[k].name);
		run_probes(&d, probe_cases[k].cpus, probe_cases[k].probe, probe_cases[k].reads,
			   probe_cases[k].rc);
		if (probe_cases[k].rc) {
			sq_discovery_free(&d);
			continue;
		}
		irqs[0] = 0;
		for (int i = 0; i < d.nirq; i++)
			snprintf(irqs + strlen(irqs), sizeof(irqs) - strlen(irqs), "%s%s", i ? "," : "",
				 d.irq[i]);
		assert_string_equal(irqs, probe_cases[k].irqs);
		set_str(&d.irq_cpus, got, sizeof(got));
		assert_string_equal(got, probe_cases[k].irq_cpus);
		set_str(&d.local, got, sizeof(got));
		assert_string_equal(got, probe_cases[k].local);
		set_str(&d.remote, got, sizeof(got));
		assert_string_equal(got, probe_cases[k].remote);
		for (int i = 0; i < d.ncpu; i++) {
			set_str(&d.completes[i], got, sizeof(got));
			assert_string_equal(got, probe_cases[k].completes[i]);
		}
		sq_discovery_free(&d);
	}
}

/* 72 vCPUs, a virtio-blk queue and IRQ each: more lines than a fixed table of 32 held. */
static void test_discover_72_queues(void **state)
{
	struct sq_discovery d;
	struct ab_cpuset allowed;
	char err[128], got[256];
	int cols[72];

	(void)state;
	assert_int_equal(ab_cpuset_parse(&allowed, "0-71", NULL, err, sizeof(err)), 0);
	sq_discovery_init(&d, &allowed);
	for (int i = 0; i < 72; i++)
		cols[i] = i;
	for (int i = 0; i < 72; i++) {
		struct sq_intr a, b;
		char spec[64];

		snprintf(spec, sizeof(spec), "%d:%d=600 CAL:%d=40", 100 + i, i, (i + 1) % 72);
		snap(&a, cols, 72, "");
		snap(&b, cols, 72, spec);
		assert_int_equal(sq_discover_probe(&d, i, &a, &b, 600), 0);
		sq_intr_free(&a);
		sq_intr_free(&b);
	}
	assert_int_equal(d.nirq, 72);
	assert_string_equal(d.irq[71], "171");
	set_str(&d.local, got, sizeof(got));
	assert_string_equal(got, "0-71");
	assert_int_equal(ab_cpuset_count(&d.remote), 0);
	sq_discovery_free(&d);
}

/* --discover's lines: the keys the harness copies into machine.txt, and one knob= per knob. */
static void test_discover_print(void **state)
{
	static const char *const probe[] = { "50:0=600", "50:0=600", "51:3=600", "51:3=600" };
	static const char want[] =
		"target=/data/f\ndisk=vda\nresolved=vda1 -> vda (partition)\nrq_affinity=1\n"
		"irqs=50,51\nirq_cpus=0,3\nlocal_cpus=0,3\nremote_cpus=1-2\n"
		"knob=/sys/block/vda/queue/rq_affinity\n"
		"knob=/proc/irq/50/smp_affinity_list\nknob=/proc/irq/51/smp_affinity_list\n"
		"cpu0_completes_on=0\ncpu1_completes_on=0\ncpu2_completes_on=3\ncpu3_completes_on=3\n";
	struct sq_target t = { .fd = -1, .name = "/data/f", .rq_orig = "1" };
	struct sq_discovery d;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	snprintf(t.blk.disk, sizeof(t.blk.disk), "vda");
	snprintf(t.blk.how, sizeof(t.blk.how), "vda1 -> vda (partition)");
	snprintf(t.blk.rq_path, sizeof(t.blk.rq_path), "/sys/block/vda/queue/rq_affinity");
	run_probes(&d, "0-3", probe, 600, 0);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	sq_discover_print(&t, &d, f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text, want);
	free(text);
	sq_discovery_free(&d);
}

/* ---- placement ---- */

static const struct {
	const char *name;
	const char *probe[4];	/* discovery on CPUs 0..n-1, as above */
	const char *cpus;
	int local, nio, nsqrt, irq_affinity;
	const char *io, *sqrt, *irq;	/* NULL io: skipped, with skip containing sqrt */
} place_cases[] = {
	{ "one queue, readers on the completing CPU", { "36:1=600", "36:1=600" }, "0-1", 1, 1, 1, 0,
	  "1", "0", "1" },
	{ "one queue, readers off it", { "36:1=600", "36:1=600" }, "0-1", 0, 1, 1, 0, "0", "1", "1" },
	{ "one queue, two readers share the one remote CPU", { "36:1=600", "36:1=600" }, "0-1", 0, 2,
	  1, 0, "0", "1", "1" },
	{ "per-vCPU queues: local=0 impossible", { "40:0=600", "41:1=600", "42:2=600", "43:3=600" },
	  "0-3", 0, 2, 2, 0, NULL, "every allowed CPU completes its own reads", NULL },
	{ "per-vCPU queues: two local readers, sqrt on the rest",
	  { "40:0=600", "41:1=600", "42:2=600", "43:3=600" }, "0-3", 1, 2, 2, 0, "2-3", "0-1", "0-3" },
	{ "rotated completions: local=1 impossible", { "60:1=600", "61:2=600", "62:0=600" }, "0-2", 1,
	  1, 1, 0, NULL, "no allowed CPU completes its own reads", NULL },
	{ "rotated completions: a reader off its completing CPU", { "60:1=600", "61:2=600", "62:0=600" },
	  "0-2", 0, 1, 1, 0, "2", "1", "0-2" },
	{ "--irq-affinity: the IRQ to the reader", { "36:1=600", "36:1=600" }, "0-1", 1, 1, 1, 1, "1",
	  "0", "1" },
	{ "--irq-affinity: the IRQ away from the reader", { "36:1=600", "36:1=600" }, "0-1", 0, 1, 1, 1,
	  "1", "0", "0" },
	{ "--irq-affinity: no CPU left for the IRQ", { "36:1=600", "36:1=600" }, "0-1", 0, 2, 0, 1,
	  NULL, "no CPU is left for the IRQ", NULL },
};

static void test_place(void **state)
{
	(void)state;
	for (size_t k = 0; k < AB_ARRAY_SIZE(place_cases); k++) {
		struct sq_discovery d;
		struct ab_cpuset allowed;
		struct sq_point pt = { .rq = 2, .local = place_cases[k].local,
				       .nio = place_cases[k].nio, .nsqrt = place_cases[k].nsqrt };
		char err[128], want[512], cfg[512];

		print_message("case: %s\n", place_cases[k].name);
		run_probes(&d, place_cases[k].cpus, place_cases[k].probe, 600, 0);
		assert_int_equal(ab_cpuset_parse(&allowed, place_cases[k].cpus, NULL, err, sizeof(err)), 0);
		sq_place(&pt, &d, &allowed, place_cases[k].irq_affinity);
		if (!place_cases[k].io) {
			assert_non_null(pt.skip);
			assert_non_null(strstr(pt.skip, place_cases[k].sqrt));
			sq_discovery_free(&d);
			continue;
		}
		assert_null(pt.skip);
		assert_string_equal(pt.io_list, place_cases[k].io);
		assert_string_equal(pt.sqrt_list, place_cases[k].sqrt);
		assert_string_equal(pt.irq_list, place_cases[k].irq);
		snprintf(want, sizeof(want), "io_cpus=%s;io_procs=%d;irq_cpus=%s;local=%d;rq=2;"
			 "sqrt_cpus=%s;sqrt_procs=%d", place_cases[k].io, place_cases[k].nio,
			 place_cases[k].irq, place_cases[k].local, place_cases[k].sqrt,
			 place_cases[k].nsqrt);
		assert_true(ab_config_format(&pt.cfg, cfg, sizeof(cfg)) >= 0);
		assert_string_equal(cfg, want);
		sq_discovery_free(&d);
	}
}

/* Where completions ran (complete.c): 4 CPUs, the device's IRQ lines 40 and 41. */
static const char share_ia[] = "           CPU0       CPU1       CPU2       CPU3\n"
			       "  40:          0          0          0          0   PCI-MSIX virtio0-req.0\n"
			       "  41:          0          0          0          0   PCI-MSIX virtio0-req.1\n"
			       " CAL:          5          5          5          5   Function call interrupts\n";
static const char share_ib[] = "           CPU0       CPU1       CPU2       CPU3\n"
			       "  40:          0         50          0          0   PCI-MSIX virtio0-req.0\n"
			       "  41:          0          0          0         50   PCI-MSIX virtio0-req.1\n"
			       " CAL:          5         80          5          5   Function call interrupts\n";
static const char share_sa[] = "                    CPU0       CPU1       CPU2       CPU3\n"
			       "          HI:          0          0          0          0\n"
			       "       BLOCK:        100        100        100        100\n";

static const struct {
	const char *what;
	int hwq, nio, io[2];
	const char *sb;		/* the softirqs after the window; NULL: share_sa (none ran) */
	double irq_local, done_local;	/* -1: not known (NAN) */
	const char *note;		/* a part of the reason when done_local is not known */
} share_cases[] = {
	/* one queue: every completion is a BLOCK softirq where it ran; 30 of 40 on reader 1 */
	{ "one queue", 1, 1, { 1 }, "                    CPU0       CPU1       CPU2       CPU3\n"
	  "       BLOCK:        110        130        100        100\n", 50, 75, NULL },
	/* several queues: IRQs on the readers (50 of 100) plus completions moved there (25) */
	{ "multi-queue", 4, 2, { 1, 2 }, "                    CPU0       CPU1       CPU2       CPU3\n"
	  "       BLOCK:        100        100        125        100\n", 50, 75, NULL },
	/* every IRQ on a reader and completions moved there too: never above 100% */
	{ "multi-queue, capped", 4, 2, { 1, 3 },
	  "                    CPU0       CPU1       CPU2       CPU3\n"
	  "       BLOCK:        100        120        100        100\n", 100, 100, NULL },
	{ "no BLOCK row", 1, 1, { 1 }, "                    CPU0       CPU1       CPU2       CPU3\n"
	  "          HI:          0          0          0          0\n", 50, -1, "no BLOCK row" },
	{ "queues not listed", 0, 1, { 1 }, NULL, 50, -1, "not listed" },
	{ "one queue, no softirq in the window", 1, 1, { 1 }, NULL, 50, -1, "no BLOCK softirq ran" },
};

static void test_complete_share(void **state)
{
	char path[4200], err[256], note[SQ_NOTE_LEN], irqs[2][32] = { "40", "41" };
	struct sq_intr ia, ib, sa, sb;
	struct sq_discovery d = { .nirq = 2, .irq = irqs };
	double v[SQ_NM];

	(void)state;
	snprintf(path, sizeof(path), "%s/share", root);
	write_file(path, share_ia);
	assert_int_equal(sq_intr_read(path, &ia, err, sizeof(err)), 0);
	write_file(path, share_ib);
	assert_int_equal(sq_intr_read(path, &ib, err, sizeof(err)), 0);
	write_file(path, share_sa);
	assert_int_equal(sq_intr_read(path, &sa, err, sizeof(err)), 0);
	for (size_t k = 0; k < AB_ARRAY_SIZE(share_cases); k++) {
		struct sq_point pt = { .nio = share_cases[k].nio };
		print_message("%s\n", share_cases[k].what);
		memcpy(pt.cpu, share_cases[k].io, sizeof(share_cases[k].io));
		write_file(path, share_cases[k].sb ? share_cases[k].sb : share_sa);
		assert_int_equal(sq_intr_read(path, &sb, err, sizeof(err)), 0);
		sq_complete_share(&pt, &d, share_cases[k].hwq, &ia, &ib, &sa, &sb, v, note,
				  sizeof(note));
		assert_float_equal(v[SQ_IRQ_LOCAL], share_cases[k].irq_local, 1e-9);
		if (share_cases[k].done_local < 0) {
			assert_true(isnan(v[SQ_DONE_LOCAL]));
			assert_non_null(strstr(note, share_cases[k].note));
		} else {
			assert_float_equal(v[SQ_DONE_LOCAL], share_cases[k].done_local, 1e-9);
			assert_string_equal(note, "");
		}
		sq_intr_free(&sb);
	}
	sq_intr_free(&ia);
	sq_intr_free(&ib);
	sq_intr_free(&sa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discover_probe),
		cmocka_unit_test(test_discover_72_queues),
		cmocka_unit_test(test_discover_print),
		cmocka_unit_test(test_place),
		cmocka_unit_test(test_complete_share),
	};
	return cmocka_run_group_tests(tests, setup_tree, teardown_tree);
}
