// SPDX-License-Identifier: GPL-2.0
/* The idle policy applied: a PM QoS limit held, guest_halt_poll_ns journaled, or the
 * spinners of busy started (idle.h). */
#include "knob/idle.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "knob/knob.h"
#include "sys/common.h"
#include "sys/cpuset.h"
#include "sys/machlock.h"

/* One idle policy at a time on a machine: a direct run that changes it holds the
 * machine lock (sys/machlock.h; under harness run, the harness's). */
static void hold_machine(const char *name)
{
	char why[512], what[128];

	snprintf(what, sizeof(what), "%s --idle %s", ab_prog, name);
	int rc = ab_machine_lock_hold(what, why, sizeof(why));
	if (rc < 0)
		ab_skip("--idle %s: another affbench run holds this machine (%s): two idle "
			"policies at once would each be recorded for numbers measured under the "
			"other; run again when it has finished", name, why);
	if (rc > 0 && geteuid() == 0)	/* a user cannot hold PM QoS either: it says so */
		ab_msg("warning: --idle %s: no machine lock (%s): another run at the same time "
		       "would go unnoticed", name, why);
}

void ab_idle_apply(const struct ab_idle *p)
{
	char why[512], name[64], val[32];

	ab_idle_format(p, name, sizeof(name));
	if (p->kind != AB_IDLE_AS_FOUND)
		hold_machine(name);
	switch (p->kind) {
	case AB_IDLE_AS_FOUND:
		return;
	case AB_IDLE_POLL:
	case AB_IDLE_MAX_LATENCY:
		/* before the hold: a limit nothing reads would be recorded as a lever */
		if (ab_idle_qos_usable(why, sizeof(why)) < 0 ||
		    ab_idle_qos_hold(p->value, why, sizeof(why)) < 0)
			ab_skip("--idle %s: %s", name, why);
		return;
	case AB_IDLE_BUSY: {
		struct ab_cpuset cpus;
		if (ab_cpuset_allowed(&cpus) < 0)
			ab_fail("--idle busy: cannot read the allowed CPUs: %s", strerror(errno));
		if (ab_idle_busy_start(&cpus, why, sizeof(why)) < 0)
			ab_fail("--idle busy: %s", why);
		return;
	}
	case AB_IDLE_HALTPOLL:
		if (ab_idle_haltpoll_usable(why, sizeof(why)) < 0)
			ab_skip("--idle %s: %s", name, why);
		if (ab_knob_init("", ab_knob_default_journal()) < 0)
			ab_fail("--idle %s: cannot set up the knob journal %s", name,
				ab_knob_default_journal());
		snprintf(val, sizeof(val), "%ld", p->value);
		if (ab_knob_write(AB_IDLE_HALTPOLL_NS, val, NULL, 0, why, sizeof(why)) < 0)
			ab_fail("--idle %s: %s", name, why);
		return;
	}
}
