// SPDX-License-Identifier: GPL-2.0
/*
 * The settings sqrtio changes: the disk queue's rq_affinity and, with
 * --irq-affinity, the device IRQs' smp_affinity_list. Every write goes
 * through lib/knob, which journals the original first and restores it at
 * exit, on SIGINT/SIGTERM/SIGHUP, and (harness restore) after a SIGKILL.
 * Known limits: managed IRQs (virtio and nvme queues) refuse a new affinity
 * even to root; that is a skip naming the IRQ.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "knob/knob.h"
#include "sqrtio.h"

void sq_knobs_init(void)
{
	/* Replays the journal first: a crashed run's rq_affinity or IRQ affinity, read as
	 * "original" below, would mislabel which CPU completes IO. */
	if (geteuid() == 0 && ab_knob_init("", ab_knob_default_journal()))
		ab_fail("knob journal %s: %s", ab_knob_default_journal(), strerror(errno));
}

int sq_knobs_check(const struct sq_params *p, const struct sq_target *t)
{
	int change = p->irq_affinity;

	for (int i = 0; i < p->rq.n; i++)
		if (p->rq.v[i] != atoi(t->rq_orig))
			change = 1;
	/* Before anything changes, naming the knob that needs root. */
	if (change && !p->discover && geteuid() != 0)
		ab_skip("not root: changing %s (now %s)%s needs root; run as root, or --rq %s",
			t->blk.rq_path, t->rq_orig, p->irq_affinity ? " and IRQ affinity" : "",
			t->rq_orig);
	return change;
}

void sq_irq_knob(char *buf, size_t len, const char *irq)
{
	snprintf(buf, len, "/proc/irq/%s/smp_affinity_list", irq);
}

static void set_knob(const char *path, const char *val, int quiet)
{
	char cur[256], orig[256], err[512];

	if (ab_knob_read(path, cur, sizeof(cur)))
		ab_fail("read %s: %s", path, strerror(errno));
	if (!strcmp(cur, val))
		return;
	if (ab_knob_write(path, val, orig, sizeof(orig), err, sizeof(err))) {
		/* Root gets EPERM (or EIO from some chips) for IRQs the kernel manages itself. */
		if ((errno == EIO || errno == EPERM) && !strncmp(path, "/proc/irq/", 10))
			ab_skip("%s: the kernel refuses to move this IRQ (%s: a managed IRQ, as virtio and "
				"nvme queue IRQs are); run without --irq-affinity to move the readers instead",
				path, strerror(errno));
		ab_fail("%s", err);
	}
	if (!quiet)
		ab_msg("knob %s: %s -> %s (original %s)", path, cur, val, orig);
}

void sq_knobs_apply(int rq, const char *irq_list, const struct sq_target *t,
		    const struct sq_discovery *d, int irq_affinity, int quiet)
{
	char val[16], path[128];

	/* IRQs first: a kernel that refuses to move them stops us before rq_affinity changed. */
	for (int i = 0; irq_affinity && i < d->nirq; i++) {
		sq_irq_knob(path, sizeof(path), d->irq[i]);
		set_knob(path, irq_list, quiet);
	}
	snprintf(val, sizeof(val), "%d", rq);
	set_knob(t->blk.rq_path, val, quiet);
}

int sq_knobs_restore(const struct sq_target *t, int quiet)
{
	int failed = ab_knob_restore_all();
	char now[64];

	if (ab_knob_read(t->blk.rq_path, now, sizeof(now)))
		snprintf(now, sizeof(now), "unreadable: %s", strerror(errno));
	if (!quiet || failed)
		ab_msg("knob %s restored: %s (original %s)%s", t->blk.rq_path, now, t->rq_orig,
		       failed ? "; some knobs failed to restore, see above" : "");
	return failed ? -1 : 0;
}
