/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a clock read costs on this machine, and whether it enters the kernel.
 * glibc reads CLOCK_MONOTONIC in the vDSO, in tens of ns, where the
 * clocksource lets user space read it (tsc, kvm-clock, arm's arch_sys_counter);
 * where it does not (hpet, acpi_pm, jiffies) every read is a syscall, a
 * microsecond or more under PTI. A loop that reads the clock around every call
 * then pays two syscalls per call inside the window it measures, so the loops
 * that time each call (ddpar's and sqrtio's workers) time one call in
 * AB_CLOCK_STRIDE_DEAR there (ab_lat_stride). docs/probes.md lists every probe.
 */
#ifndef AB_CLOCK_H
#define AB_CLOCK_H

#include <stddef.h>

/* Where the clock is dear, one call in this many is timed. */
#define AB_CLOCK_STRIDE_DEAR 64

/* ns per clock_gettime(CLOCK_MONOTONIC) and per getppid(), the fastest of batches
 * batches of n calls each: the least disturbed by whatever else runs. */
double ab_clock_read_ns(int n, int batches);
double ab_getppid_ns(int n, int batches);

/*
 * The current clocksource's name into buf ("" when unreadable), from sysfs under
 * the AFFBENCH_SYSROOT test hook's root. 0, or -1 with buf "".
 */
int ab_clocksource(char *buf, size_t len);
/* Whether clocksource is one that Linux never serves from the vDSO. */
int ab_clocksource_no_vdso(const char *clocksource);
/*
 * Whether a clock read enters the kernel: the clocksource has no vDSO, or a read
 * (clock_ns) costs three quarters of a syscall (syscall_ns) or more, which no
 * vDSO read does. Prices <= 0 are unknown and decide nothing.
 */
int ab_clock_is_dear(const char *clocksource, double clock_ns, double syscall_ns);

/*
 * 1 where a clock read is cheap, AB_CLOCK_STRIDE_DEAR where it enters the kernel:
 * measured once per process (a few ms) and kept, so a parent that calls it before
 * forking hands the answer to its workers.
 */
unsigned ab_lat_stride(void);

#endif
