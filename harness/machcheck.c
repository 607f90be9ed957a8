// SPDX-License-Identifier: GPL-2.0
/*
 * The machine's settings that decide what a cross-CPU ratio means: the same
 * "same vs other 3x" is a deep C-state on one box, a hypervisor exit on
 * another and a turbo clock on a third. Each setting is read once at the start
 * of a run into machine.txt (one "label value" line, no shell, nothing from
 * outside in a command line), and report.md's warnings read them back with a
 * hint. Everything is read under a root prefix so a test can point it at a
 * fake tree (the AFFBENCH_SYSROOT test hook).
 *
 * What a machine lacks is written "(unavailable: why)", never as a value.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/sysfs.h"
#include "harness.h"

/* /dev/cpu_dma_latency's value when nobody holds a limit (PM_QOS_DEFAULT_VALUE). */
#define QOS_NO_LIMIT 2000000000
/* An idle state slower to leave than this is "deep": a wake-up of a CPU in it shows. */
#define DEEP_STATE_US 20
/* Steal above this share of the run's CPU time is worth a warning. */
#define STEAL_WARN 0.01

/* First line of root/rel, trimmed (sys/sysfs.h): 0, or -1 with buf "". */
static int rd(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", ab_sysroot(), rel);
	return ab_sysfs_read(path, buf, len);
}

void h_machine_put(FILE *f, const char *label, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%-14s ", label);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

/* irqbalance moves the IRQs sqrtio places: is it running? */
static void irqbalance(FILE *f)
{
	char dir[PATH_MAX], comm[64];
	DIR *d;
	struct dirent *de;
	long pid = 0;

	snprintf(dir, sizeof(dir), "%s/proc", ab_sysroot());
	d = opendir(dir);
	while (d && !pid && (de = readdir(d))) {
		char rel[300];
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(rel, sizeof(rel), "/proc/%s/comm", de->d_name);
		if (rd(rel, comm, sizeof(comm)) == 0 && !strcmp(comm, "irqbalance"))
			pid = atol(de->d_name);
	}
	if (d)
		closedir(d);
	if (pid)
		h_machine_put(f, "irqbalance", "running (pid %ld)", pid);
	else
		h_machine_put(f, "irqbalance", "not running");
}

/* Turbo/boost: cpufreq's boost (acpi-cpufreq, amd-pstate) or intel_pstate's no_turbo. */
static void boost(FILE *f)
{
	char v[32];

	if (rd("/sys/devices/system/cpu/cpufreq/boost", v, sizeof(v)) == 0 && v[0])
		h_machine_put(f, "cpu_boost", "%s (cpufreq/boost=%s)", atoi(v) ? "on" : "off", v);
	else if (rd("/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof(v)) == 0 && v[0])
		h_machine_put(f, "cpu_boost", "%s (intel_pstate/no_turbo=%s)", atoi(v) ? "off" : "on", v);
	else
		h_machine_put(f, "cpu_boost", "(unavailable: no cpufreq/boost nor intel_pstate/no_turbo)");
}

static void smt(FILE *f)
{
	char ctl[32], act[32];

	if (rd("/sys/devices/system/cpu/smt/control", ctl, sizeof(ctl)) < 0)
		snprintf(ctl, sizeof(ctl), "unknown");
	if (rd("/sys/devices/system/cpu/smt/active", act, sizeof(act)) < 0)
		snprintf(act, sizeof(act), "unknown");
	h_machine_put(f, "smt", "control=%s active=%s", ctl, act);
}

static void isolation(FILE *f)
{
	char v[256], arg[256];

	rd("/sys/devices/system/cpu/isolated", v, sizeof(v));
	ab_cmdline_arg("isolcpus=", arg, sizeof(arg));
	if (arg[0])
		h_machine_put(f, "isolated_cpus", "%s (isolcpus=%s)", v[0] ? v : "none", arg);
	else
		h_machine_put(f, "isolated_cpus", "%s", v[0] ? v : "none");
	if (rd("/sys/devices/system/cpu/nohz_full", v, sizeof(v)) < 0)
		h_machine_put(f, "nohz_full", "none (no /sys/devices/system/cpu/nohz_full: not configured)");
	else
		h_machine_put(f, "nohz_full", "%s", v[0] && strcmp(v, "(null)") ? v : "none");
}

/* The idle driver and governor, idle=, haltpoll's guest polling and CPU 0's states. */
static void cpuidle(FILE *f)
{
	char drv[64], gov[64], idle[64], hp[32], states[1024] = "";
	size_t o = 0;

	if (rd("/sys/devices/system/cpu/cpuidle/current_driver", drv, sizeof(drv)) < 0 || !drv[0])
		snprintf(drv, sizeof(drv), "none");
	if (rd("/sys/devices/system/cpu/cpuidle/current_governor", gov, sizeof(gov)) < 0 &&
	    rd("/sys/devices/system/cpu/cpuidle/current_governor_ro", gov, sizeof(gov)) < 0)
		snprintf(gov, sizeof(gov), "none");
	h_machine_put(f, "cpuidle", "driver=%s governor=%s", drv, gov);
	ab_cmdline_arg("idle=", idle, sizeof(idle));
	h_machine_put(f, "idle_cmdline", "%s", idle[0] ? idle : "none");
	if (rd("/sys/module/haltpoll/parameters/guest_halt_poll_ns", hp, sizeof(hp)) == 0)
		h_machine_put(f, "haltpoll_ns", "%s", hp);
	else
		h_machine_put(f, "haltpoll_ns", "(unavailable: haltpoll not loaded)");
	for (int s = 0; s < 16; s++) {
		char rel[128], name[32], lat[32], dis[8];
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu0/cpuidle/state%d/name", s);
		if (rd(rel, name, sizeof(name)) < 0)
			break;
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu0/cpuidle/state%d/latency", s);
		rd(rel, lat, sizeof(lat));
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu0/cpuidle/state%d/disable", s);
		rd(rel, dis, sizeof(dis));
		for (char *c = name; *c; c++)	/* "haltpoll idle" is one state */
			if (*c == ' ')
				*c = '_';
		if (o < sizeof(states))
			o += (size_t)snprintf(states + o, sizeof(states) - o, "%s%s:%sus%s", o ? " " : "",
					      name, lat, atoi(dis) ? ":disabled" : "");
	}
	h_machine_put(f, "idle_states", "%s", o ? states : "none (no cpuidle states on CPU 0)");
}

/* PM QoS: the CPU latency limit (/dev/cpu_dma_latency; reading adds and drops a
 * request at the default, so it changes nothing) and per-CPU resume limits. */
static void pm_qos(FILE *f)
{
	char path[PATH_MAX], cpus[256] = "";
	int32_t v;
	size_t o = 0;

	snprintf(path, sizeof(path), "%s/dev/cpu_dma_latency", ab_sysroot());
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		h_machine_put(f, "pm_qos_us", v >= QOS_NO_LIMIT ? "none (%d)" : "%d", (int)v);
	else
		h_machine_put(f, "pm_qos_us", "(unavailable: /dev/cpu_dma_latency)");
	if (fd >= 0)
		close(fd);
	for (int c = 0; c < 4096; c++) {
		char rel[128], val[32];
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us", c);
		if (rd(rel, val, sizeof(val)) < 0) {
			if (c > 0)
				break;
			continue;
		}
		if (strcmp(val, "0") && strcmp(val, "n/a") && o < sizeof(cpus))
			o += (size_t)snprintf(cpus + o, sizeof(cpus) - o, "%scpu%d=%sus", o ? " " : "", c, val);
	}
	h_machine_put(f, "pm_qos_resume", "%s", o ? cpus : "none");
}

static void thp(FILE *f)
{
	char v[128];

	if (rd("/sys/kernel/mm/transparent_hugepage/enabled", v, sizeof(v)) < 0) {
		h_machine_put(f, "thp", "(unavailable: no transparent_hugepage)");
		return;
	}
	char *a = strchr(v, '['), *b = a ? strchr(a, ']') : NULL;
	if (a && b)
		h_machine_put(f, "thp", "%.*s", (int)(b - a - 1), a + 1);
	else
		h_machine_put(f, "thp", "%s", v);
}

/* "steal total" jiffies of /proc/stat's cpu line, for the run's steal share. */
static int steal(unsigned long long *st, unsigned long long *total)
{
	char line[512];
	unsigned long long x[10] = { 0 };

	if (rd("/proc/stat", line, sizeof(line)) < 0 || strncmp(line, "cpu ", 4))
		return -1;
	int n = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &x[0], &x[1], &x[2],
		       &x[3], &x[4], &x[5], &x[6], &x[7]);
	if (n < 8)
		return -1;
	*st = x[7];
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += x[i];
	return 0;
}

static void hypervisor(FILE *f)
{
	char path[PATH_MAX], line[4096];
	int guest = 0;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", ab_sysroot());
	FILE *c = fopen(path, "re");
	while (c && !guest && fgets(line, sizeof(line), c))
		guest = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
	if (c)
		fclose(c);
	h_machine_put(f, "hypervisor", "%s",
		      guest ? "yes (a VM: the CPU flag 'hypervisor')" : "none seen");
}

void h_machine_checks(FILE *f)
{
	irqbalance(f);
	boost(f);
	smt(f);
	isolation(f);
	cpuidle(f);
	pm_qos(f);
	thp(f);
	hypervisor(f);
	h_machine_steal(f, "steal_before");
}

void h_machine_steal(FILE *f, const char *label)
{
	unsigned long long s, t;

	if (steal(&s, &t) == 0)
		h_machine_put(f, label, "%llu of %llu jiffies", s, t);
	else
		h_machine_put(f, label, "(unavailable: /proc/stat)");
}

/* ---- report.md's warnings about them ---- */

static int warn(FILE *f, const char *what, const char *value, const char *why, const char *hint)
{
	fprintf(f, "- %s", what);
	if (value) {
		fputs(" (", f);
		h_md_cell(f, value);
		fputc(')', f);
	}
	fprintf(f, ": %s Hint: %s\n", why, hint);
	return 1;
}

/* The slowest idle state to leave in "NAME:LATus[:disabled] ..." that is enabled, or -1. */
static int deepest(const char *states, char *name, size_t len)
{
	int best = -1;
	char copy[1024];

	snprintf(copy, sizeof(copy), "%s", states);
	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " ")) {
		char *c = strchr(w, ':');
		if (!c || strstr(c, ":disabled"))
			continue;
		int us = atoi(c + 1);
		if (us > best) {
			best = us;
			snprintf(name, len, "%.*s", (int)(c - w), w);
		}
	}
	return best;
}

static int idle_warnings(FILE *f, const char *dir)
{
	char v[1024], hp[64], name[64];
	int n = 0;

	if (strcmp(h_machine_val(dir, "idle_cmdline", v, sizeof(v)), "poll") == 0)
		n += warn(f, "idle=poll", NULL, "idle CPUs spin, so waking one costs almost nothing: "
			  "cross-CPU placements look better than on a default machine.",
			  "boot without idle=poll to measure what users get.");
	h_machine_val(dir, "cpuidle", v, sizeof(v));
	h_machine_val(dir, "haltpoll_ns", hp, sizeof(hp));
	if (strstr(v, "driver=haltpoll") && !strcmp(hp, "0"))
		n += warn(f, "cpuidle driver haltpoll with guest halt polling off", "guest_halt_poll_ns=0",
			  "an idle vCPU halts into the hypervisor, so every wake-up of another CPU is an "
			  "IPI and a VM exit (tens of microseconds): cross-CPU ratios mostly measure that.",
			  "a second run after `echo 200000 > "
			  "/sys/module/haltpoll/parameters/guest_halt_poll_ns` shows how much.");
	int us = deepest(h_machine_val(dir, "idle_states", v, sizeof(v)), name, sizeof(name));
	if (us >= DEEP_STATE_US) {
		char lat[96];
		snprintf(lat, sizeof(lat), "%s, %d us to leave", name, us);
		n += warn(f, "deep idle states are enabled", lat, "a request that wakes an idle CPU may "
			  "pay that exit latency, which a CPU kept busy (placement same) never does.",
			  "`cpupower idle-set -D 10` for a run without them, to see their share.");
	}
	h_machine_val(dir, "pm_qos_us", v, sizeof(v));
	if (v[0] && isdigit((unsigned char)v[0]))
		n += warn(f, "a PM QoS CPU latency limit is held", v, "deep idle states are off while "
			  "some process holds /dev/cpu_dma_latency, so wake-ups are cheaper than on a "
			  "default machine.", "find the holder (`fuser /dev/cpu_dma_latency`) and close it.");
	if (strcmp(h_machine_val(dir, "pm_qos_resume", v, sizeof(v)), "none") && v[0])
		n += warn(f, "per-CPU PM QoS resume latency limits", v, "those CPUs skip slow idle "
			  "states, so they wake faster than the others.",
			  "`echo 0 > /sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us`.");
	return n;
}

/* Steal over the run, from steal_before and steal_after ("S of T jiffies"). */
static double steal_share(const char *dir)
{
	char a[128], b[128];
	unsigned long long s0, t0, s1, t1;

	if (sscanf(h_machine_val(dir, "steal_before", a, sizeof(a)), "%llu of %llu", &s0, &t0) != 2 ||
	    sscanf(h_machine_val(dir, "steal_after", b, sizeof(b)), "%llu of %llu", &s1, &t1) != 2 ||
	    t1 <= t0 || s1 < s0)
		return -1;
	return (double)(s1 - s0) / (double)(t1 - t0);
}

static int vm_warnings(FILE *f, const char *dir)
{
	char v[256], share[64], name[160], what[200];
	double st = steal_share(dir);

	if (strncmp(h_machine_val(dir, "hypervisor", v, sizeof(v)), "yes", 3))
		return 0;
	/* its kind: "PVM (kernel log: ...)" -> "PVM"; runs before machfacts.c have none */
	h_machine_val(dir, "hypervisor_name", name, sizeof(name));
	name[strcspn(name, " (")] = '\0';
	if (name[0] && strcmp(name, "none"))
		snprintf(what, sizeof(what), "a virtual machine on %s", name);
	else
		snprintf(what, sizeof(what), "a virtual machine");
	if (st >= 0)
		snprintf(share, sizeof(share), "%.1f%% of CPU time stolen during the run", 100 * st);
	else
		snprintf(share, sizeof(share), "steal time not measured");
	if (st < 0 || st >= STEAL_WARN)
		return warn(f, what, share, "the hypervisor ran other work on these "
			    "vCPUs, and a cross-CPU wake-up may exit to it: the same ratio on bare metal "
			    "can differ several-fold.", "compare with a bare-metal run before blaming the "
			    "kernel; pin the vCPUs on the host if you can.");
	return warn(f, what, share, "a cross-CPU wake-up may exit to the hypervisor, "
		    "so the same ratio on bare metal can differ several-fold.",
		    "compare with a bare-metal run before blaming the kernel.");
}

int h_machine_check_warnings(FILE *f, const char *dir)
{
	char v[512];
	int n = 0;

	if (!strncmp(h_machine_val(dir, "irqbalance", v, sizeof(v)), "running", 7))
		n += warn(f, "irqbalance is running", v, "it moves IRQs on its own schedule, so "
			  "an IRQ's placement (and which CPU completes a read) may change mid-run.",
			  "`systemctl stop irqbalance` for the run, `systemctl start irqbalance` after.");
	if (!strncmp(h_machine_val(dir, "cpu_boost", v, sizeof(v)), "on", 2))
		n += warn(f, "turbo/boost is on", v, "a CPU's clock depends on how many others are "
			  "busy, so one busy CPU (placement same) may run faster than two (other).",
			  "`echo 0 > /sys/devices/system/cpu/cpufreq/boost` (or `echo 1 > "
			  "/sys/devices/system/cpu/intel_pstate/no_turbo`) for the run.");
	if (strstr(h_machine_val(dir, "smt", v, sizeof(v)), "active=1"))
		n += warn(f, "SMT is on", v, "two CPUs may be threads of one core: placement other "
			  "can land on siblings, which share caches and execution units.",
			  "compare placements smt and llc (they say which), or `echo off > "
			  "/sys/devices/system/cpu/smt/control` for the run.");
	if (strcmp(h_machine_val(dir, "isolated_cpus", v, sizeof(v)), "none") && v[0])
		n += warn(f, "isolated CPUs", v, "the scheduler does not balance onto them, so "
			  "placement none differs from a default machine there.",
			  "leave them out with --cpus, or boot without isolcpus=.");
	if (strcmp(h_machine_val(dir, "nohz_full", v, sizeof(v)), "none") && v[0] &&
	    strncmp(v, "none", 4))
		n += warn(f, "nohz_full CPUs", v, "their tick stops when one task runs, which changes "
			  "wake-up and idle costs there.", "leave them out with --cpus, or boot without "
			  "nohz_full=.");
	n += idle_warnings(f, dir);
	if (!strcmp(h_machine_val(dir, "thp", v, sizeof(v)), "always"))
		n += warn(f, "THP is 'always'", NULL, "khugepaged may collapse pages of a benchmark "
			  "while it is measured.", "`echo madvise > "
			  "/sys/kernel/mm/transparent_hugepage/enabled` for the run.");
	return n + vm_warnings(f, dir);
}
