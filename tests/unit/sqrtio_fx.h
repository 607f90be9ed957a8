/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by test_sqrtio.c and test_sqrtio_discover.c: the includes and the
 * fixture tree (a scratch sysfs of block devices under root, built once per
 * group by setup_tree and removed by teardown_tree), and write_file.
 */
#ifndef SQRTIO_FX_H
#define SQRTIO_FX_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../sqrtio/sqrtio.h"


static char root[] = "/tmp/affbench-sqrtio-unit.XXXXXX";

static inline void mk(const char *rel, const char *content)
{
	char p[4096], cmd[4300];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	if (content) {
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fputs(content, f);
		fclose(f);
	} else {
		assert_int_equal(mkdir(p, 0755), 0);
	}
}

static inline void ln(const char *target, const char *rel)
{
	char p[4096], cmd[4300];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(symlink(target, p), 0);
}

#define DEV "sys/devices"
static inline int setup_tree(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(root));
	/* sda with partition sda1 */
	mk(DEV "/pci/block/sda/queue/rq_affinity", "1\n");
	mk(DEV "/pci/block/sda/sda1/partition", "1\n");
	ln("../../devices/pci/block/sda", "sys/dev/block/8:0");
	ln("../../devices/pci/block/sda/sda1", "sys/dev/block/8:1");
	/* dm-0 on sda1 (one slave), dm-1 on sda and sdb (two) */
	mk(DEV "/virtual/block/dm-0/queue/rq_affinity", "0\n");
	ln("../../../../pci/block/sda/sda1", DEV "/virtual/block/dm-0/slaves/sda1");
	ln("../../devices/virtual/block/dm-0", "sys/dev/block/253:0");
	mk(DEV "/virtual/block/dm-1/queue/rq_affinity", "0\n");
	ln("../../../../pci/block/sda", DEV "/virtual/block/dm-1/slaves/sda");
	ln("../../../../pci/block/sdb", DEV "/virtual/block/dm-1/slaves/sdb");
	mk(DEV "/pci/block/sdb/queue/rq_affinity", "1\n");
	ln("../../devices/virtual/block/dm-1", "sys/dev/block/253:1");
	/* loop0 backed by a file */
	mk(DEV "/virtual/block/loop0/queue/rq_affinity", "1\n");
	mk(DEV "/virtual/block/loop0/loop/backing_file", "/var/img/disk.img\n");
	ln("../../devices/virtual/block/loop0", "sys/dev/block/7:0");
	/* a disk without a request queue directory */
	mk(DEV "/virtual/block/pmem0/size", "0\n");
	ln("../../devices/virtual/block/pmem0", "sys/dev/block/259:0");
	return 0;
}

static inline int teardown_tree(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static inline void write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

#endif
