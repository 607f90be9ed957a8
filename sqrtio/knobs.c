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
#include "sys/sysfs.h"
#include "sqrtio.h"

void sq_knobs_init(void)
{
	/* Replays the journal first: a crashed run's rq_affinity or IRQ affinity, read as
	 * "original" below, would mislabel which CPU completes IO. */
	if (geteuid() == 0 && ab_knob_init("", ab_knob_default_journal()))
		ab_fail("knob journal %s: %s", ab_knob_default_journal(), strerror(errno));
}

int sq_knobs_check(const struct sq_settings *s, const struct sq_target *t)
{
	int change = s->irq_affinity;

	for (int i = 0; i < s->rq.n; i++)
		if (s->rq.v[i] != atoi(t->rq_orig))
			change = 1;
	/* Before anything changes, naming the knob that needs root. */
	if (change && !s->discover && geteuid() != 0)
		ab_skip("not root: changing %s (now %s)%s needs root; run as root, or --rq %s",
			t->blk.rq_path, t->rq_orig, s->irq_affinity ? " and IRQ affinity" : "",
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

/* ---- when rq_affinity cannot act ----
 * The block layer sends a read's completion back to its submitting CPU only in
 * blk_mq_complete_need_ipi(): never when IRQs are forced into threads (threadirqs,
 * PREEMPT_RT), and at rq_affinity 1 not when the completing CPU shares a last-level
 * cache (and capacity) with the submitting one. There the knob changes nothing. */

/* The fake tree of the AFFBENCH_SYSROOT test hook, or "" (the machine). */
static const char *sysroot(void)
{
	const char *r = ab_test_hook("AFFBENCH_SYSROOT");

	return r ? r : "";
}

/* Are IRQs forced into threads? 1 with what says so in what, else 0. */
static int irqs_threaded(char *what, size_t len)
{
	char path[4096], buf[4096];

	snprintf(path, sizeof(path), "%s/sys/kernel/realtime", sysroot());
	if (ab_sysfs_read(path, buf, sizeof(buf)) == 0 && !strcmp(buf, "1"))
		return snprintf(what, len, "a PREEMPT_RT kernel (%s is 1)", path) > 0;
	snprintf(path, sizeof(path), "%s/proc/cmdline", sysroot());
	if (ab_sysfs_read(path, buf, sizeof(buf)) < 0)
		return 0;
	for (char *t = strtok(buf, " \t"); t; t = strtok(NULL, " \t"))
		if (!strcmp(t, "threadirqs"))
			return snprintf(what, len, "booted with threadirqs") > 0;
	return 0;
}

/* cpu's last-level cache's CPUs (its highest data or unified cache): 0, or -1 when
 * sysfs does not say (no cache topology: then nobody here knows what the kernel shares). */
static int llc_cpus(int cpu, struct ab_cpuset *out)
{
	char path[4096], val[1024], err[128];
	long level, best = -1;

	for (int k = 0; k < 16; k++) {
		int n = snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cache/index%d/",
				 sysroot(), cpu, k);
		snprintf(path + n, sizeof(path) - (size_t)n, "level");
		if (ab_sysfs_read_long(path, &level) < 0)
			break;
		snprintf(path + n, sizeof(path) - (size_t)n, "type");
		if (ab_sysfs_read(path, val, sizeof(val)) < 0 || !strcmp(val, "Instruction") ||
		    level <= best)
			continue;
		snprintf(path + n, sizeof(path) - (size_t)n, "shared_cpu_list");
		if (ab_sysfs_read(path, val, sizeof(val)) < 0 ||
		    ab_cpuset_parse(out, val, NULL, err, sizeof(err)) < 0)
			continue;
		best = level;
	}
	return best < 0 ? -1 : 0;
}

/* Does sysfs say a and b share a last-level cache and capacity (cpu_capacity, where listed)? */
static int share_llc(int a, int b)
{
	struct ab_cpuset llc;
	char path[4096];
	long ca, cb;

	if (llc_cpus(a, &llc) < 0 || !ab_cpuset_isset(&llc, b))
		return 0;
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpu_capacity", sysroot(), a);
	if (ab_sysfs_read_long(path, &ca) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpu_capacity", sysroot(), b);
	return ab_sysfs_read_long(path, &cb) < 0 || ca == cb;
}

void sq_rq_check(const struct sq_settings *s)
{
	char what[4160], list[64] = "";
	size_t n = 0;

	for (int i = 0; i < s->rq.n; i++) {
		if (s->rq.v[i] == 0)	/* the reference runs */
			return;
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%d", i ? "," : "",
					      s->rq.v[i]);
	}
	if (s->discover || !irqs_threaded(what, sizeof(what)))
		return;
	ab_skip("--rq %s: rq_affinity cannot act here: IRQs are threaded (%s), and then the block "
		"layer completes each read where its IRQ ran; a kernel without threadirqs would let "
		"it act, and --rq 0 measures as it is", list, what);
}

int sq_rq_inert(const struct sq_point *pt, char *why, size_t len)
{
	char what[4160], err[128];
	struct ab_cpuset irq;
	int c;

	if (pt->rq == 0)	/* the reference: completion where the IRQ ran */
		return 0;
	if (irqs_threaded(what, sizeof(what)))
		return ab_err(why, len, "rq_affinity %d cannot act: IRQs are threaded (%s), and the "
			      "block layer then completes each read where its IRQ ran", pt->rq, what);
	/* local=1 readers complete their own reads: the control at every rq, as the post's */
	if (pt->rq != 1 || pt->local || ab_cpuset_parse(&irq, pt->irq_list, NULL, err, sizeof(err)) < 0)
		return 0;
	for (int i = 0; i < pt->nio; i++)
		ab_cpuset_for_each(c, &irq)
			if (!share_llc(pt->cpu[i], c))
				return 0;
	return ab_err(why, len, "rq_affinity 1 cannot act: readers on CPU %s share a last-level cache "
		      "with the completing CPU %s (sysfs cache/index*/shared_cpu_list), so the block "
		      "layer completes there as at 0; rq_affinity 2 forces the reader's CPU",
		      pt->io_list, pt->irq_list);
}
