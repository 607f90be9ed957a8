// SPDX-License-Identifier: GPL-2.0
/*
 * The machine facts that change a cross-CPU ratio, beside machcheck.c's settings:
 * which hypervisor, PTI and PCID, whether the cache topology was read or guessed,
 * and what a syscall and a same-CPU pipe round trip cost on this machine, measured
 * at the run's start. Under PTI without PCID every syscall flushes the TLB, so
 * same-CPU round trips get dearer and cross-CPU ratios shrink; without a cpuidle
 * driver no PM QoS lever acts; with guessed topology a pair's class is unknown;
 * where the clocksource has no vDSO every clock read is a syscall (sys/clock.h).
 * report.md warns of each (h_machine_fact_warnings); compare names them as causes.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "harness.h"
#include "sys/barrier.h"
#include "sys/clock.h"
#include "sys/common.h"
#include "sys/cpuset.h"
#include "sys/pin.h"
#include "sys/sysfs.h"

#define SYSCALLS 20000		/* per batch: about 10-30 ms at 0.5-1.5 us each */
#define ROUND_TRIPS 2000	/* per batch of the pipe */
#define BATCHES 5		/* the fastest batch counts: the least disturbed by others */

/* root/rel: the files a test fakes (the AFFBENCH_SYSROOT hook, as machcheck.c reads them). */
static const char *at(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s%s", ab_sysroot(), rel);
	return buf;
}

/* The CPUID hypervisor vendor (leaf 0x40000000), "" where there is none. */
static void cpuid_vendor(char *sig, size_t len)
{
	sig[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char s[13];

	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 31)))	/* no hypervisor bit */
		return;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(s, &b, 4);
	memcpy(s + 4, &c, 4);
	memcpy(s + 8, &d, 4);
	s[12] = '\0';
	for (char *p = s; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	snprintf(sig, len, "%s", s);
#else
	(void)len;
#endif
}

/* The kernel's own "Hypervisor detected: NAME" from its log, "" when gone or unreadable. */
static void kernel_says(char *name, size_t len)
{
	char buf[1 << 16];
	FILE *k = fopen("/dev/kmsg", "re");
	int fd = k ? fileno(k) : -1;

	name[0] = '\0';
	if (fd < 0)
		return;
	lseek(fd, 0, SEEK_DATA);	/* from the oldest record kept */
	for (int i = 0; i < 4096; i++) {	/* the first lines of the boot say it */
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 0) <= 0)
			break;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		if (n <= 0)
			break;
		buf[n] = '\0';
		const char *h = strstr(buf, "Hypervisor detected: ");
		if (h) {
			h += strlen("Hypervisor detected: ");
			snprintf(name, len, "%.*s", (int)strcspn(h, "\n"), h);
			break;
		}
	}
	fclose(k);
}

static void hypervisor_name(FILE *f)
{
	char sig[16], said[64];

	cpuid_vendor(sig, sizeof(sig));
	kernel_says(said, sizeof(said));
	if (!sig[0] && !said[0]) {
		h_machine_put(f, "hypervisor_name", "none seen (no CPUID vendor, no 'Hypervisor detected' in the "
		    "kernel log)");
		return;
	}
	h_machine_put(f, "hypervisor_name", "%s (kernel log: %s; CPUID 0x40000000: '%s')",
	    said[0] ? said : sig, said[0] ? said : "not found", sig[0] ? sig : "none");
}

/* PCID from the CPU flags, and whether PTI is on. */
static void pti_pcid(FILE *f)
{
	char line[4096], melt[256] = "", path[4096];
	int pcid = 0, seen = 0;
	FILE *c = fopen(at(path, sizeof(path), "/proc/cpuinfo"), "re");

	while (c && !seen && fgets(line, sizeof(line), c))
		if (!strncmp(line, "flags", 5)) {
			seen = 1;
			pcid = strstr(line, " pcid") != NULL;
		}
	if (c)
		fclose(c);
	ab_sysfs_read(at(path, sizeof(path), "/sys/devices/system/cpu/vulnerabilities/meltdown"), melt,
		      sizeof(melt));
	h_machine_put(f, "pti", "%s", strstr(melt, "PTI") ? "on (meltdown: Mitigation: PTI)" : "off");
	h_machine_put(f, "pcid", "%s",
		      !seen ? "(unavailable: no flags in /proc/cpuinfo)" : pcid ? "yes" : "no");
}

/* Was the last-level cache's sharing read from sysfs, or must it be guessed? */
static void topology_source(FILE *f)
{
	char path[4096];

	if (access(at(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index0/shared_cpu_list"),
		   F_OK) == 0)
		h_machine_put(f, "topology_src", "read (cache/index*/shared_cpu_list in sysfs)");
	else
		h_machine_put(f, "topology_src", "guessed (no cache topology in sysfs: "
		    "/sys/devices/system/cpu/cpu0/cache is missing)");
}

/* The clocksource, and what a CLOCK_MONOTONIC read costs beside a syscall (sc). */
static void clock_facts(FILE *f, double sc)
{
	char cs[64];
	double ck = ab_clock_read_ns(SYSCALLS, BATCHES);

	if (ab_clocksource(cs, sizeof(cs)) < 0 || !cs[0])
		h_machine_put(f, "clocksource", "(unavailable: no clocksource0/current_clocksource "
			      "in sysfs)");
	else
		h_machine_put(f, "clocksource", "%s", cs);
	if (ck > 0)
		h_machine_put(f, "clock_ns", "%.0f (clock_gettime(CLOCK_MONOTONIC), the fastest "
			      "of 5 batches: %s)", ck, ab_clock_is_dear(cs, ck, sc) ?
			      "enters the kernel" : "read in user space, the vDSO");
	else
		h_machine_put(f, "clock_ns", "(unmeasured)");
}

/* In a child pinned to cpu: a grandchild echoes a byte over two pipes; the fastest batch's
 * ns per round trip goes to out. */
static void pipe_child(int cpu, int out)
{
	int ab[2], ba[2];
	char x = 0;
	double best = -1;

	if (ab_pin_self(cpu) < 0 || pipe(ab) < 0 || pipe(ba) < 0)
		_exit(1);
	pid_t echo = fork();
	if (echo < 0)
		_exit(1);
	if (echo == 0) {
		close(ab[1]);	/* so that the parent's close ends the echo */
		while (read(ab[0], &x, 1) == 1 && write(ba[1], &x, 1) == 1)
			;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	for (int b = 0; b < BATCHES; b++) {
		uint64_t t0 = ab_now_ns();
		for (int i = 0; i < ROUND_TRIPS; i++)
			if (write(ab[1], &x, 1) != 1 || read(ba[0], &x, 1) != 1)
				_exit(1);
		double ns = (double)(ab_now_ns() - t0) / ROUND_TRIPS;
		if (best < 0 || ns < best)
			best = ns;
	}
	close(ab[1]);
	waitpid(echo, NULL, 0);
	_exit(write(out, &best, sizeof(best)) == sizeof(best) ? 0 : 1);
}

/* ns per same-CPU pipe round trip on the first allowed CPU; -1 when it could not be measured. */
static double pipe_rt_same_ns(void)
{
	struct ab_cpuset allowed;
	int fd[2];
	double ns = -1;

	if (ab_cpuset_allowed(&allowed) < 0 || pipe(fd) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		pipe_child(ab_cpuset_next(&allowed, 0), fd[1]);
	}
	close(fd[1]);
	struct pollfd p = { fd[0], POLLIN, 0 };
	if (pid > 0 && poll(&p, 1, 10000) == 1 && read(fd[0], &ns, sizeof(ns)) != sizeof(ns))
		ns = -1;
	close(fd[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return ns;
}

void h_machine_facts(FILE *f)
{
	hypervisor_name(f);
	pti_pcid(f);
	topology_source(f);
	double s = ab_getppid_ns(SYSCALLS, BATCHES), p = pipe_rt_same_ns();
	if (s > 0)
		h_machine_put(f, "syscall_ns", "%.0f (getppid, the fastest of 5 batches)", s);
	else
		h_machine_put(f, "syscall_ns", "(unmeasured)");
	if (p > 0)
		h_machine_put(f, "pipe_rt_ns", "%.0f (a same-CPU pipe round trip, the fastest of 5 batches)", p);
	else
		h_machine_put(f, "pipe_rt_ns", "(unmeasured: the pipe ping-pong failed)");
	clock_facts(f, s);
}

/* ---- report.md's warnings about them ---- */

static int warn(FILE *f, const char *what, const char *why)
{
	fprintf(f, "- %s: %s\n", what, why);
	return 1;
}

/* The leading number of dir's label ("1234 (getppid...)"), or -1. */
static double fact_num(const char *dir, const char *label)
{
	char v[256];
	double x;

	return sscanf(h_machine_val(dir, label, v, sizeof(v)), "%lf", &x) == 1 ? x : -1;
}

/* Where a clock read enters the kernel: by the clocksource's name or its measured price. */
static int clock_warning(FILE *f, const char *dir, double sc)
{
	char v[256], cs[64];
	double ck = fact_num(dir, "clock_ns");

	h_machine_val(dir, "clocksource", v, sizeof(v));
	snprintf(cs, sizeof(cs), "%.*s", (int)strcspn(v, " "), v);
	if (!ab_clock_is_dear(cs, ck, sc))
		return 0;
	fprintf(f, "- clock_gettime is not served by the vDSO (clocksource %s",
		cs[0] ? cs : "unknown");
	if (ab_clocksource_no_vdso(cs))
		fputs(", which has none", f);
	else
		fprintf(f, "; a read costs %.0f ns, a syscall %.0f ns", ck, sc);
	fputs("): every clock read enters the kernel, so latency histograms and window edges cost "
	      "a syscall each; loops that time every call time one in 64 here (docs/probes.md).\n", f);
	return 1;
}

int h_machine_fact_warnings(FILE *f, const char *dir)
{
	char v[512], w[256];
	int n = 0;

	if (strstr(h_machine_val(dir, "cpuidle", v, sizeof(v)), "driver=none"))
		n += warn(f, "no cpuidle driver", "idle CPUs wait in the kernel's default halt, and no "
			  "PM QoS lever (--idle poll, --idle max-latency:US) can act: they are skipped. "
			  "--idle busy acts here.");
	double sc = fact_num(dir, "syscall_ns");
	if (!strncmp(h_machine_val(dir, "pti", v, sizeof(v)), "on", 2) &&
	    !strcmp(h_machine_val(dir, "pcid", w, sizeof(w)), "no")) {
		if (sc > 0)
			snprintf(w, sizeof(w), "syscalls cost %.2f us here", sc / 1e3);
		else
			snprintf(w, sizeof(w), "syscalls are dear here");
		fprintf(f, "- PTI without PCID: %s (every kernel entry and exit switches page tables "
			"and flushes the TLB): same-CPU round trips are dearer, so cross-CPU ratios "
			"shrink.\n", w);
		n++;
	}
	n += clock_warning(f, dir, sc);
	if (!strncmp(h_machine_val(dir, "topology_src", v, sizeof(v)), "guessed", 7))
		n += warn(f, "no cache topology in sysfs", "which CPUs share a cache is unknown, so "
			  "placements by shared cache and pairs of CPUs cannot be classed by it.");
	return n;
}
