/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The idle policy, a common option of every benchmark (--idle, docs/records.md):
 * how the CPUs wait while a benchmark measures. A cross-CPU ratio on a guest
 * whose idle vCPUs halt is mostly the exit from halt, not the crossing; this
 * lever tells the two apart.
 *
 *   as-found         leave the machine as it is (the default; no config key)
 *   poll             hold a PM QoS CPU latency limit of 0 (/dev/cpu_dma_latency):
 *                    the governors pick the polling state only
 *   max-latency:US   hold a limit of US microseconds: states slower to leave are not used
 *   haltpoll:NS      guest_halt_poll_ns = NS, through the knob journal, where the
 *                    haltpoll cpuidle driver and governor are in use
 *   busy             a SCHED_IDLE spinner on each allowed CPU, so no CPU halts while it
 *                    waits: acts on every machine; its price is the CPU time the
 *                    spinners burn (the CPU monitor records it), and waking a CPU that
 *                    runs something can cost more than waking a halted one
 *
 * poll and max-latency act only where a cpuidle governor reads the PM QoS limit: with
 * no cpuidle driver (current_driver "none", or booted with idle=poll or idle=halt)
 * they are refused before anything is measured (exit 4), as haltpoll:NS is elsewhere.
 *
 * This file parses and names a policy, checks for haltpoll and holds the PM QoS
 * request: the kernel drops it when the last copy of its fd closes, so a killed
 * run leaves nothing. The haltpoll knob goes through lib/knob (knob/idle.h
 * applies a policy); lib/sys stays below it. A benchmark's records carry the
 * policy without its asking: the record writer adds AB_IDLE_KEY (record/record.h).
 */
#ifndef AB_IDLE_POLICY_H
#define AB_IDLE_POLICY_H

#include <stddef.h>

enum ab_idle_kind { AB_IDLE_AS_FOUND, AB_IDLE_POLL, AB_IDLE_MAX_LATENCY, AB_IDLE_HALTPOLL,
		    AB_IDLE_BUSY };

/* The config key of a policy other than as-found: "idle=poll". A record without it
 * was measured as found, so runs recorded before --idle keep their meaning. */
#define AB_IDLE_KEY "idle"
#define AB_IDLE_CHOICES "as-found|poll|max-latency:US|haltpoll:NS|busy"
#define AB_IDLE_MAX_US 1000000L		/* max-latency: 1 s is already no limit at all */
#define AB_IDLE_MAX_NS 1000000000L	/* haltpoll: 1 s of polling per halt */

/* The kernel's files, real-machine form (a test may prefix a fake root). */
#define AB_IDLE_QOS_DEV "/dev/cpu_dma_latency"
#define AB_IDLE_CPUIDLE "/sys/devices/system/cpu/cpuidle"
#define AB_IDLE_HALTPOLL_NS "/sys/module/haltpoll/parameters/guest_halt_poll_ns"

struct ab_idle {
	enum ab_idle_kind kind;
	long value;		/* US of max-latency, NS of haltpoll; 0 otherwise */
};

/*
 * Strict: exactly one of the four forms, a value of decimal digits only
 * ("max-latency:+5", "haltpoll:0x10", "poll:1" are refused). 0, or -1 with
 * the reason in err (the caller names the value).
 */
int ab_idle_parse(const char *s, struct ab_idle *p, char *err, size_t errlen);
/* Canonical text: "as-found", "poll", "max-latency:20", "haltpoll:200000". */
void ab_idle_format(const struct ab_idle *p, char *buf, size_t len);

/* Is guest halt polling in charge here (cpuidle driver and governor haltpoll,
 * guest_halt_poll_ns present)? 0, or -1 with what is missing in why. */
int ab_idle_haltpoll_usable(char *why, size_t len);

/* Does a cpuidle governor read the PM QoS limit here (a cpuidle driver other than
 * "none")? 0, or -1 with what is missing and what would act in why. */
int ab_idle_qos_usable(char *why, size_t len);

/*
 * Hold a CPU latency limit of us microseconds until exit: open the PM QoS
 * device and write the 32-bit value; the fd stays open (O_CLOEXEC). 0, or -1
 * with what is missing in why (no device, not writable).
 */
int ab_idle_qos_hold(long us, char *why, size_t len);
/* In a forked child: close its copy of the request's fd, so a child the
 * parent gave up on (stuck in the kernel) cannot keep the limit alive. */
void ab_idle_qos_child(void);

/*
 * Start the spinners of --idle busy: one child process, killed with its parent
 * (PR_SET_PDEATHSIG, and at exit), with a SCHED_IDLE thread pinned to each CPU of
 * cpus that spins until killed. 0, or -1 with the reason in why.
 */
struct ab_cpuset;
int ab_idle_busy_start(const struct ab_cpuset *cpus, char *why, size_t len);
/* The spinners' CPU time so far in ns (read at a window's edges, never inside it);
 * -1 when no spinner runs. */
long long ab_idle_busy_cpu_ns(void);

#endif
