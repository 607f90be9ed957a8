/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The idle policy applied (sys/idle_policy.h says what each one means). Here, above
 * lib/sys, because haltpoll:NS writes guest_halt_poll_ns through the knob
 * journal: restored at exit, on SIGINT/SIGTERM/SIGHUP, and by `harness
 * restore` after a SIGKILL.
 */
#ifndef AB_KNOB_IDLE_H
#define AB_KNOB_IDLE_H

#include "sys/idle_policy.h"

/*
 * A benchmark calls this once, right after ab_opts_checked() and before it
 * measures anything: as-found does nothing; poll and max-latency hold their
 * PM QoS limit until exit; haltpoll sets guest_halt_poll_ns. What the machine
 * lacks (no /dev/cpu_dma_latency, not root, another cpuidle driver) exits 4
 * with one line naming it; a knob write the kernel refuses exits 1.
 */
void ab_idle_apply(const struct ab_idle *p);

#endif
