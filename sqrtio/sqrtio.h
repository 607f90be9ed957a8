/*
 * Interfaces between the sqrtio files: the block device behind a file
 * (blkdev.c) and /proc/interrupts snapshots (intr.c).
 */
#ifndef SQRTIO_H
#define SQRTIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The disk whose request queue serves IO to a file or device. */
struct sq_blkdev {
	char disk[64];		/* "vda", "nvme0n1" */
	char rq_path[128];	/* "/sys/block/vda/queue/rq_affinity" (knob path form) */
	char how[256];		/* how we got there: "vda1 -> vda (partition)" */
};

/*
 * Resolve st_dev to its disk through /sys/dev/block/MAJ:MIN under sysroot ("" =
 * the real machine): a partition maps to its disk, a stacked device (dm-*, md*)
 * with exactly one slave is followed, loop devices and multi-slave devices are
 * refused. Returns 0, or -1 with the reason in why (the caller skips with it).
 */
int sq_blkdev_resolve(const char *sysroot, dev_t dev, struct sq_blkdev *b, char *why, size_t whylen);

/* The filesystem type mounted from dev ("tmpfs", "overlay"), from /proc/self/mountinfo. */
void sq_fstype(dev_t dev, char *buf, size_t len);

/* One /proc/interrupts snapshot: every line with one count per CPU column. */
struct sq_intr_line {
	char name[32];		/* "36", "CAL", "RES" (without the colon) */
	uint64_t *count;	/* ncol counts; columns a line lacks are 0 */
};
struct sq_intr {
	int ncol;
	int *col_cpu;		/* column -> CPU number, from the "CPUn" header */
	int nlines;
	struct sq_intr_line *line;
};

/* Read path (normally "/proc/interrupts"). 0, or -1 with a reason in err. */
int sq_intr_read(const char *path, struct sq_intr *s, char *err, size_t errlen);
void sq_intr_free(struct sq_intr *s);
/* Index of line name in s, or -1. */
int sq_intr_find(const struct sq_intr *s, const char *name);
/* Growth of line name from a to b on one column (col >= 0) or summed over all (col < 0). */
uint64_t sq_intr_delta(const struct sq_intr *a, const struct sq_intr *b, const char *name, int col);
/* Is the line a device IRQ (a number), not a per-CPU event like LOC or CAL? */
int sq_intr_is_irq(const char *name);

#endif
