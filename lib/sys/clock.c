// SPDX-License-Identifier: GPL-2.0
/* What a clock read costs here (sys/clock.h). */
#include "sys/clock.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/barrier.h"
#include "sys/common.h"
#include "sys/sysfs.h"

#define CLOCKSOURCE "/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define STRIDE_CALLS 2000	/* per batch for ab_lat_stride: a few ms in all */
#define STRIDE_BATCHES 3
#define DEAR_SHARE 0.75		/* of a syscall's price: no vDSO read comes near it */

/* The clocksources whose vclock mode is none: every read is a syscall. */
static const char *const no_vdso[] = { "hpet", "acpi_pm", "jiffies", "refined-jiffies", "pit",
				       NULL };

static double fastest(int n, int batches, int clock)
{
	double best = -1;

	for (int b = 0; b < batches; b++) {
		uint64_t t0 = ab_now_ns();
		for (int i = 0; i < n; i++)
			if (clock)
				(void)ab_now_ns();
			else
				syscall(SYS_getppid);
		double ns = (double)(ab_now_ns() - t0) / n;
		if (best < 0 || ns < best)
			best = ns;
	}
	return best;
}

double ab_clock_read_ns(int n, int batches)
{
	return fastest(n, batches, 1);
}

double ab_getppid_ns(int n, int batches)
{
	return fastest(n, batches, 0);
}

int ab_clocksource(char *buf, size_t len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s%s", ab_sysroot(), CLOCKSOURCE);
	return ab_sysfs_read(path, buf, len);
}

int ab_clocksource_no_vdso(const char *clocksource)
{
	for (int i = 0; clocksource && no_vdso[i]; i++)
		if (!strcmp(clocksource, no_vdso[i]))
			return 1;
	return 0;
}

int ab_clock_is_dear(const char *clocksource, double clock_ns, double syscall_ns)
{
	if (ab_clocksource_no_vdso(clocksource))
		return 1;
	return clock_ns > 0 && syscall_ns > 0 && clock_ns >= DEAR_SHARE * syscall_ns;
}

unsigned ab_lat_stride(void)
{
	static unsigned stride;
	char cs[64];

	if (stride)
		return stride;
	ab_clocksource(cs, sizeof(cs));
	int dear = ab_clocksource_no_vdso(cs) ||
		   ab_clock_is_dear(cs, ab_clock_read_ns(STRIDE_CALLS, STRIDE_BATCHES),
				    ab_getppid_ns(STRIDE_CALLS, STRIDE_BATCHES));
	stride = dear ? AB_CLOCK_STRIDE_DEAR : 1;
	return stride;
}
