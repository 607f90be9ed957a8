/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the CPUs did during a measured window, from the kernel's own counters:
 * no probe is attached, so it runs in every repetition, its reads fall outside
 * the window's clock reads, and it never slows what is measured.
 *
 *   context switches       /proc/stat ctxt (the whole machine)
 *   hard IRQs              /proc/interrupts' numbered rows, summed
 *   IPIs by kind           /proc/interrupts' named rows (x86: RES rescheduling,
 *                          CAL function call, TLB shootdown, IWI irq work; arm64:
 *                          IPI0..IPIn), and LOC, the local timer
 *   softirqs by kind       /proc/softirqs
 *   idle share             /proc/stat's idle + iowait per CPU (every machine: with a
 *                          cpuidle driver, without one, under idle=poll)
 *   idle entries, time     cpuidle: stateN/usage and stateN/time per CPU, where a driver is
 *   frequency              cpufreq's scaling_cur_freq at both edges, averaged
 *   migrations, switches   of the benchmark's own tasks: /proc/PID/task/TID/sched
 *
 * Counters are summed over the CPUs given (a benchmark's allowed CPUs), per
 * operation; idle time is a share of the window on those CPUs (mon_allcpus_idle_pct,
 * always). Per CPU, the idle share and the IPIs received are written when there are at most
 * AB_CPUMON_PER_CPU CPUs, so who woke whom shows on small boxes.
 *
 * What a machine lacks is never written as zero: its metrics are left out and
 * ab_cpumon_missing() says why (local vs remote wake-ups need schedstats or the
 * BPF breakdown; no cpufreq, no cpuidle, ...).
 *
 * Known limits: the counters are system-wide on those CPUs, so other work on
 * them counts too; reading them takes a few ms on a 100-CPU box, between the
 * window's clock read and the workers' counters, which biases a per-op count
 * by that gap over the window (0.2% for 2 ms in 1 s).
 */
#ifndef AB_CPUMON_H
#define AB_CPUMON_H

#include <stddef.h>
#include <sys/types.h>

#include "sys/cpuset.h"

#define AB_CPUMON_PER_CPU 8
#define AB_CPUMON_TASKS 64
#define AB_CPUMON_VALS 200	/* the most numbers one window makes */

struct ab_cpumon;
struct ab_out;
struct ab_config;

/* A monitor of the CPUs in cpus (NULL: the allowed CPUs). NULL only without memory. */
struct ab_cpumon *ab_cpumon_new(const struct ab_cpuset *cpus);
void ab_cpumon_free(struct ab_cpumon *m);
/* Also count migrations and switches of this process's threads (up to AB_CPUMON_TASKS). */
int ab_cpumon_add_task(struct ab_cpumon *m, pid_t pid);
/* Sample at the window's start and end. 0, or -1 when nothing could be read. */
int ab_cpumon_begin(struct ab_cpumon *m);
int ab_cpumon_end(struct ab_cpumon *m, double window_s);
/* The window's records (metric names start with "mon_"), per operation: the window's
 * operations are ops_per_s (> 0) times its length. Then what m cannot count, said on
 * stderr as ab_cpumon_tell does (m may be NULL: nothing). */
void ab_cpumon_record(const struct ab_cpumon *m, struct ab_out *o, const struct ab_config *c,
		      int rep, double ops_per_s);
/* The same numbers, for a process that has no ab_out (fdget's measuring child hands them
 * to its parent in shared memory): how many went into v (at most max). */
struct ab_cpumon_val {
	char metric[64];
	double v;
	char unit[8];
};
int ab_cpumon_values(const struct ab_cpumon *m, double ops_per_s, struct ab_cpumon_val *v, int max);
/* Test hook: is facility ("cpuidle", "cpufreq", "interrupts", "softirqs") named in
 * AFFBENCH_CPUMON_HIDE, so the monitor (and sqrtio) read it as missing? */
int ab_cpumon_hidden(const char *facility);
/* "; "-separated reasons for what this machine cannot count, "" when none. */
const char *ab_cpumon_missing(const struct ab_cpumon *m);
/* Say on stderr, in one "CPU monitor: not counted on this machine: ..." line, the reasons in
 * missing (ab_cpumon_missing's form) this process has not said yet. */
void ab_cpumon_tell(const char *missing);

#endif
