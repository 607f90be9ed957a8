// SPDX-License-Identifier: GPL-2.0
/*
 * Where the readers' IO completed, from the kernel's counters around the timed
 * window (no probe: a tracepoint would slow the measured reads):
 *
 *   mon_io_irq_local_pct       the device's interrupts taken on a reader's CPU,
 *                              over all of its interrupts (/proc/interrupts)
 *   mon_io_complete_local_pct  the completions run on a reader's CPU
 *
 * Since Linux 5.9 (blk_mq_complete_request_remote) a completion runs in the
 * BLOCK softirq whenever the block layer moves it to the submitting CPU
 * (rq_affinity, a function-call IPI) or the disk has one hardware queue;
 * otherwise in the device's interrupt. So with one hardware queue every
 * completion is one BLOCK softirq on the CPU that ran it: the share is the
 * BLOCK softirqs on the readers' CPUs (/proc/softirqs). With several, it is
 * the interrupts on the readers' CPUs plus the completions moved there (BLOCK
 * softirqs on them), over the device's interrupts.
 *
 * Known limits: "a reader's CPU" is the submitting CPU when one reader runs
 * or each reader's queue interrupts only its own CPU; BLOCK softirqs count the
 * whole machine (another disk's IO adds to them); a softirq or an interrupt
 * that finishes several requests counts once.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats/cpumon.h"
#include "sys/common.h"
#include "sqrtio.h"

int sq_hw_queues(const char *disk)
{
	char path[160];
	int n = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/mq", disk);
	DIR *d = opendir(path);
	struct dirent *e;

	while (d && (e = readdir(d)))
		n += e->d_name[0] >= '0' && e->d_name[0] <= '9';
	if (d)
		closedir(d);
	return n;
}

int sq_softirqs_read(struct sq_intr *s)
{
	memset(s, 0, sizeof(*s));
	if (ab_cpumon_hidden("softirqs"))
		return -1;
	return sq_intr_read("/proc/softirqs", s, NULL, 0);
}

static int is_reader(const struct sq_point *pt, int cpu)
{
	for (int r = 0; r < pt->nio; r++)
		if (pt->cpu[r] == cpu)
			return 1;
	return 0;
}

/* Growth of line name on the readers' CPUs (*on) and on all (*all). */
static void split(const struct sq_intr *a, const struct sq_intr *b, const char *name,
		  const struct sq_point *pt, double *on, double *all)
{
	for (int c = 0; c < b->ncol; c++) {
		double g = (double)sq_intr_delta(a, b, name, c);
		*all += g;
		*on += is_reader(pt, b->col_cpu[c]) ? g : 0;
	}
}

void sq_complete_share(const struct sq_point *pt, const struct sq_discovery *d, int hwq,
		       const struct sq_intr *ia, const struct sq_intr *ib, const struct sq_intr *sa,
		       const struct sq_intr *sb, double *v, char *note, size_t len)
{
	double irq_on = 0, irq = 0, blk_on = 0, blk = 0;

	v[SQ_IRQ_LOCAL] = v[SQ_DONE_LOCAL] = NAN;
	note[0] = '\0';
	for (int i = 0; i < d->nirq; i++)
		split(ia, ib, d->irq[i], pt, &irq_on, &irq);
	if (irq > 0)
		v[SQ_IRQ_LOCAL] = 100 * irq_on / irq;
	if (!sb->ncol || sq_intr_find(sb, "BLOCK") < 0) {
		snprintf(note, len, "completions on the submitting CPU: no BLOCK row in /proc/softirqs");
		return;
	}
	split(sa, sb, "BLOCK", pt, &blk_on, &blk);
	if (hwq < 1)
		snprintf(note, len, "completions on the submitting CPU: the disk's hardware queues are "
			 "not listed in /sys/block/DISK/mq");
	else if (hwq == 1 && blk > 0)
		v[SQ_DONE_LOCAL] = 100 * blk_on / blk;
	else if (hwq == 1)
		snprintf(note, len, "completions on the submitting CPU: no BLOCK softirq ran in a window "
			 "of a one-queue disk");
	else if (irq > 0)
		v[SQ_DONE_LOCAL] = fmin(100, 100 * (irq_on + blk_on) / irq);
}
