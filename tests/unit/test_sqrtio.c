// SPDX-License-Identifier: GPL-2.0
/*
 * sqrtio's own logic through sqrtio.h, against fixtures: st_dev -> disk
 * (partition, device-mapper with one or two slaves, loop, no queue, not a
 * block device), and /proc/interrupts parsing and deltas (CPU columns with a
 * gap, lines with fewer columns, chip names that are not counts). IRQ
 * discovery, --discover and placement: test_sqrtio_discover.c.
 *
 * The Makefile links it with sqrtio's objects (all but main.o).
 */
#include "sqrtio_fx.h"

static const struct {
	unsigned maj, min;
	int rc;
	const char *disk;	/* expected disk, or a substring of the refusal */
	const char *how;
} blk_cases[] = {
	{ 8, 0, 0, "sda", "sda" },
	{ 8, 1, 0, "sda", "sda1 -> sda (partition)" },
	{ 253, 0, 0, "sda", "dm-0 -> sda1 (stacked on it) -> sda (partition)" },
	{ 253, 1, -1, "stacked on 2 devices", NULL },
	{ 7, 0, -1, "loop device backed by /var/img/disk.img", NULL },
	{ 259, 0, -1, "no queue/rq_affinity", NULL },
	{ 0, 42, -1, "not backed by a block device", NULL },
};

static void test_blkdev_resolve(void **state)
{
	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(blk_cases); i++) {
		struct sq_blkdev b;
		char why[512] = "";
		int rc = sq_blkdev_resolve(root, makedev(blk_cases[i].maj, blk_cases[i].min), &b, why,
					   sizeof(why));

		print_message("case %u:%u -> %d %s%s\n", blk_cases[i].maj, blk_cases[i].min, rc,
			      rc ? why : b.disk, rc ? "" : "");
		assert_int_equal(rc, blk_cases[i].rc);
		if (rc) {
			assert_non_null(strstr(why, blk_cases[i].disk));
			continue;
		}
		assert_string_equal(b.disk, blk_cases[i].disk);
		assert_string_equal(b.how, blk_cases[i].how);
		char want[128];
		snprintf(want, sizeof(want), "/sys/block/%s/queue/rq_affinity", blk_cases[i].disk);
		assert_string_equal(b.rq_path, want);
	}
}

/* CPU1 offline: the columns are CPU0 and CPU2. */
static const char intr_a[] =
	"           CPU0       CPU2       \n"
	" 36:          0      29302 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
	" 41:       1721          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"CAL:      24743      12929   Function call interrupts\n"
	"ERR:          0\n";
static const char intr_b[] =
	"           CPU0       CPU2       \n"
	" 36:          5      30302 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
	" 41:       1722          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
	" 50:          7          1 PCI-MSIX-0000:00:05.0   1-edge      new-line\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"CAL:      24843      12939   Function call interrupts\n"
	"ERR:          3\n";

static const struct {
	const char *name;
	int col;
	uint64_t delta;
} intr_cases[] = {
	{ "36", -1, 1005 }, { "36", 0, 5 }, { "36", 1, 1000 }, { "41", -1, 1 },
	{ "50", -1, 8 },	/* appeared between snapshots: counted from 0 */
	{ "CAL", -1, 110 }, { "CAL", 1, 10 }, { "NMI", -1, 0 }, { "ERR", -1, 3 },
	{ "99", -1, 0 },	/* absent */
};

static void test_intr(void **state)
{
	char pa[4200], pb[4200], err[256];
	struct sq_intr a, b;

	(void)state;
	snprintf(pa, sizeof(pa), "%s/intr_a", root);
	snprintf(pb, sizeof(pb), "%s/intr_b", root);
	write_file(pa, intr_a);
	write_file(pb, intr_b);
	assert_int_equal(sq_intr_read(pa, &a, err, sizeof(err)), 0);
	assert_int_equal(sq_intr_read(pb, &b, err, sizeof(err)), 0);
	assert_int_equal(a.ncol, 2);
	assert_int_equal(a.col_cpu[0], 0);
	assert_int_equal(a.col_cpu[1], 2);
	assert_int_equal(a.nlines, 5);
	for (size_t i = 0; i < AB_ARRAY_SIZE(intr_cases); i++) {
		print_message("%s col %d\n", intr_cases[i].name, intr_cases[i].col);
		assert_int_equal(sq_intr_delta(&a, &b, intr_cases[i].name, intr_cases[i].col),
				 intr_cases[i].delta);
	}
	assert_true(sq_intr_is_irq("36"));
	assert_false(sq_intr_is_irq("CAL"));
	assert_false(sq_intr_is_irq(""));
	sq_intr_free(&a);
	sq_intr_free(&b);

	write_file(pa, "no header here\n");
	assert_int_equal(sq_intr_read(pa, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "header"));
	assert_int_equal(sq_intr_read("/nonexistent/interrupts", &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/interrupts"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blkdev_resolve),
		cmocka_unit_test(test_intr),
	};
	return cmocka_run_group_tests(tests, setup_tree, teardown_tree);
}
