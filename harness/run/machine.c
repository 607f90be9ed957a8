// SPDX-License-Identifier: GPL-2.0
/*
 * machine.txt: what a reader of the results needs to know about the machine
 * (kernel, CPU, topology, allowed CPUs, governor, mitigations, libfuse), what
 * the benchmarks' discovery found (a descriptor's `discover` argument: sqrtio's
 * disk and IRQs), and the knobs affbench may change, before and after the run.
 * Read from /proc and /sys directly: no shell, nothing from outside in a
 * command line. An optional note (harness run --machine-note) comes first.
 */
#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/cpuset.h"
#include "sys/grow.h"
#include "run.h"
#include "knob/knob.h"
#include "sys/barrier.h"
#include "sys/proc.h"
#include "sys/sysfs.h"
#include "render/desc.h"

/* A discovery may probe every CPU (sqrtio): 20 s, or half a second per CPU on
 * bigger machines, and that scaled by the machine's slowness. */
#define DISCOVER_TIMEOUT_NS (20 * AB_NS)
#define DISCOVER_PER_CPU_NS (AB_NS / 2)

static void first_line(FILE *f, const char *label, const char *path)
{
	char buf[512];

	if (ab_sysfs_read(path, buf, sizeof(buf)) == 0)
		fprintf(f, "%-14s %s\n", label, buf);
	else
		fprintf(f, "%-14s (unavailable: %s)\n", label, path);
}

static void cpu_model(FILE *f)
{
	char line[512];
	FILE *c = fopen("/proc/cpuinfo", "re");

	while (c && fgets(line, sizeof(line), c))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			char *v = strchr(line, ':') + 1;
			v += strspn(v, " \t");
			fprintf(f, "%-14s %s", "cpu_model", v);
			break;
		}
	if (c)
		fclose(c);
}

/* One line per CPU: core, package, SMT siblings and the last cache level's sharing. */
static void topology(FILE *f)
{
	struct ab_cpuset present;
	char path[256], core[32], pkg[32], smt[256], llc[256];
	int cpu;

	ab_cpuset_zero(&present);
	for (cpu = 0; cpu < AB_MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology", cpu);
		if (access(path, F_OK) == 0)
			ab_cpuset_set(&present, cpu);
	}
	ab_cpuset_for_each(cpu, &present) {
		const char *base = "/sys/devices/system/cpu";
		snprintf(path, sizeof(path), "%s/cpu%d/topology/core_id", base, cpu);
		ab_sysfs_read(path, core, sizeof(core));
		snprintf(path, sizeof(path), "%s/cpu%d/topology/physical_package_id", base, cpu);
		ab_sysfs_read(path, pkg, sizeof(pkg));
		snprintf(path, sizeof(path), "%s/cpu%d/topology/thread_siblings_list", base, cpu);
		ab_sysfs_read(path, smt, sizeof(smt));
		llc[0] = '\0';
		for (int idx = 0; idx < 8; idx++) {	/* the highest index is the last level */
			char v[256];
			snprintf(path, sizeof(path), "%s/cpu%d/cache/index%d/shared_cpu_list", base, cpu, idx);
			if (ab_sysfs_read(path, v, sizeof(v)) == 0)
				snprintf(llc, sizeof(llc), "%s", v);
		}
		fprintf(f, "topology cpu%d core=%s package=%s smt_siblings=%s llc=%s\n", cpu, core, pkg,
			smt, llc);
	}
}

static void mitigations(FILE *f)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[512], v[256];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (ab_sysfs_read(path, v, sizeof(v)) == 0)
			fprintf(f, "mitigation %s:%s\n", de->d_name, v);
	}
	if (d)
		closedir(d);
}

/* ---- discovery ---- */

/* The discovery's stdout (bounded in size and time), its stderr into lf (the log, or -1). */
static int discover_output(const struct h_block *b, const char *arg, int lf, char *text,
			   size_t len)
{
	char prog[PATH_MAX], *argv[H_ARGS_MAX + 3];
	int n = 0, fd;
	size_t have = 0;

	argv[n++] = (char *)h_program_of(b, prog, sizeof(prog));
	for (int e = 0; e < b->nextra; e++)
		argv[n++] = b->extra[e];
	argv[n++] = (char *)arg;
	argv[n] = NULL;
	const struct h_spawn how = { .pipe_to = 1, .other = lf, .deathsig = SIGKILL };
	pid_t pid = h_spawn(argv, &how, &fd);
	text[0] = '\0';
	if (pid < 0)
		return -1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t limit = DISCOVER_TIMEOUT_NS;
	if (ncpu > 0 && (uint64_t)ncpu * DISCOVER_PER_CPU_NS > limit)
		limit = (uint64_t)ncpu * DISCOVER_PER_CPU_NS;
	uint64_t deadline = ab_now_ns() + ab_scaled_ns(limit);
	while (have < len - 1 && ab_now_ns() < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 200) <= 0)
			continue;
		ssize_t r = read(fd, text + have, len - 1 - have);
		if (r <= 0)
			break;
		have += (size_t)r;
	}
	close(fd);
	text[have] = '\0';
	if (ab_now_ns() >= deadline)
		kill(-pid, SIGKILL);
	return ab_reap_one(pid, deadline);	/* bounded: a stuck discovery is given up */
}

/* KEY=VALUE lines as "<bench>_KEY VALUE"; knob=PATH lines as "<bench>_knob PATH" (allow-listed). */
static void discover(FILE *f, const char *out, const struct h_block *b, const char *arg)
{
	char logp[PATH_MAX], text[8192];

	snprintf(logp, sizeof(logp), "%s/log/%s-discover.log", out, b->bench);
	int lf = h_log_fd(out, logp, 1);
	int st = discover_output(b, arg, lf, text, sizeof(text));
	if (lf >= 0)
		close(lf);
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(l, '=');
		size_t klen = strspn(l, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (!eq || eq - l != (long)klen || klen == 0 || klen > 40)
			continue;
		*eq = '\0';
		if (!strcmp(l, "knob") && !ab_knob_allowed(eq + 1))
			continue;
		char label[64];
		snprintf(label, sizeof(label), "%s_%s", b->bench, l);
		fprintf(f, "%-14s ", label);
		h_md_cell(f, eq + 1);	/* one line, whatever the program printed */
		fputc('\n', f);
	}
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(f, "%-14s (discovery %s; see %s)\n", b->bench, st == -1 ? "given up: no answer" :
			"failed", logp);
}

/* Once per distinct target: blocks of one benchmark with the same arguments share it. */
static void discoveries(FILE *f, const char *out, const struct h_plan *plan)
{
	for (int i = 0; i < plan->nblocks; i++) {
		const struct h_block *b = &plan->blocks[i];
		const struct ab_bench_desc *d = h_desc(b->bench);
		int seen = 0;
		if (!d || !d->discover)
			continue;
		for (int j = 0; j < i && !seen; j++) {
			const struct h_block *o = &plan->blocks[j];
			seen = !strcmp(o->bench, b->bench) && !strcmp(o->program, b->program) &&
			       o->nextra == b->nextra;
			for (int e = 0; seen && e < b->nextra; e++)
				seen = !strcmp(o->extra[e], b->extra[e]);
		}
		if (!seen) {
			fflush(f);
			discover(f, out, b, d->discover);
		}
	}
}

/* ---- knobs ---- */

static void knob_line(FILE *f, const char *when, const char *path)
{
	char val[256];

	if (ab_knob_read(path, val, sizeof(val)) == 0)
		fprintf(f, "knob %-6s %s = %s\n", when, path, val);
}

/* The knob paths to write, in the order found; each once (two discoveries may list one). */
struct paths {
	char **p;
	size_t n, cap;
};

static void paths_add(struct paths *ps, const char *path)
{
	if (ab_grow(&ps->p, &ps->cap, ps->n + 1, sizeof(*ps->p), 32) < 0)
		return;	/* out of memory: a knob less listed, said nowhere worse */
	if ((ps->p[ps->n] = strdup(path)))
		ps->n++;
}

static int by_path(const void *a, const void *b)
{
	char *const *x = a, *const *y = b;
	int c = strcmp(*x, *y);

	return c ? c : (*x > *y) - (*x < *y);	/* equal paths: the first found first */
}

/* A knob line per path, in the order found, a path given twice only once: machine.txt
 * keys are unique. Sorted once to find the repeats: n log n in a crafted machine.txt. */
static void paths_write(FILE *f, const char *when, struct paths *ps)
{
	char **sorted = malloc((ps->n ? ps->n : 1) * sizeof(*sorted));

	if (sorted) {
		memcpy(sorted, ps->p, ps->n * sizeof(*sorted));
		qsort(sorted, ps->n, sizeof(*sorted), by_path);
		for (size_t i = 1; i < ps->n; i++)
			if (!strcmp(sorted[i - 1], sorted[i]))
				sorted[i][0] = '\0';	/* a later copy: written by the first */
		free(sorted);
	}
	for (size_t i = 0; i < ps->n; i++) {
		if (ps->p[i][0])
			knob_line(f, when, ps->p[i]);
		free(ps->p[i]);
	}
	free(ps->p);
}

/* The knobs affbench may change: rq_affinity of every disk, FUSE's enable_uring, and
 * what discoveries listed (machine.txt's "<bench>_knob" lines). */
static void knobs(FILE *f, const char *out, const char *when)
{
	char path[PATH_MAX], line[1024];
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	struct paths ps = { 0 };

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/queue/rq_affinity", de->d_name);
		paths_add(&ps, path);
	}
	if (d)
		closedir(d);
	paths_add(&ps, "/sys/module/fuse/parameters/enable_uring");
	snprintf(path, sizeof(path), "%s/machine.txt", out);
	FILE *m = ab_infile_open(path, AB_INFILE_MAX_SMALL, NULL, 0);
	while (m && fgets(line, sizeof(line), m)) {
		char *k = strstr(line, "_knob ");
		if (!k || strchr(line, ' ') < k)
			continue;
		char *v = k + 6 + strspn(k + 6, " ");
		v[strcspn(v, "\n")] = '\0';
		if (ab_knob_allowed(v) && !strstr(v, "rq_affinity"))	/* disks are listed above */
			paths_add(&ps, v);
	}
	if (m)
		fclose(m);
	paths_write(f, when, &ps);
}

int h_machine_write(const char *out, const struct h_plan *plan, const char *note)
{
	char buf[512];
	struct utsname u;
	struct ab_cpuset allowed;
	struct ab_outfile o;

	FILE *f = ab_outfile_open(&o, out, "machine.txt");
	if (!f)
		return -1;
	if (note)
		fprintf(f, "%-14s %s\n", "note", note);
	time_t t = time(NULL);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z", localtime(&t));
	fprintf(f, "%-14s %s\n", "date", buf);
	if (uname(&u) == 0)
		fprintf(f, "%-14s %s %s %s %s\n", "kernel", u.sysname, u.release, u.version, u.machine);
	gethostname(buf, sizeof(buf));
	buf[sizeof(buf) - 1] = '\0';
	fprintf(f, "%-14s %s\n", "host", buf);
	cpu_model(f);
	if (ab_cpuset_allowed(&allowed) == 0 && ab_cpuset_format(&allowed, buf, sizeof(buf)) >= 0)
		fprintf(f, "%-14s %s (%d)\n", "allowed_cpus", buf, ab_cpuset_count(&allowed));
	first_line(f, "online_cpus", "/sys/devices/system/cpu/online");
	first_line(f, "numa_nodes", "/sys/devices/system/node/online");
	first_line(f, "smt_active", "/sys/devices/system/cpu/smt/active");
	first_line(f, "governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	first_line(f, "loadavg", "/proc/loadavg");
	h_machine_checks(f);
	h_machine_facts(f);
	topology(f);
	mitigations(f);
	fprintf(f, "%-14s %s\n", "libfuse", fuse_pkgversion());
	discoveries(f, out, plan);
	if (ab_outfile_close(&o) < 0)
		return -1;
	return h_machine_knobs(out, "before");
}

/* Is line one of a block of `when` (h_machine_knobs): its knob lines, and after the
 * run the load, the steal and the harness's CPU time (run.c writes it last)? */
static int of_block(const char *line, const char *when)
{
	static const char *const after[] = { "loadavg_after ", "steal_after ", "harness_cpu " };
	char knob[16];
	int is = 0;

	snprintf(knob, sizeof(knob), "knob %s ", when);
	for (size_t i = 0; i < AB_ARRAY_SIZE(after) && !strcmp(when, "after"); i++)
		is |= !strncmp(line, after[i], strlen(after[i]));
	return is || !strncmp(line, knob, strlen(knob));
}

/* machine.txt into m, less an earlier block of `when`: 0, or -1 when it cannot be read
 * whole (a line over the limit, a read error). */
static int lines_but(FILE *m, const char *path, const char *when)
{
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_SMALL, NULL, 0);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return -1;
	while ((n = ab_infile_line(f, &line, &cap)) >= 0)
		if (!of_block(line, when)) {
			fwrite(line, 1, (size_t)n, m);
			fputc('\n', m);
		}
	int rc = n == -1 && !ferror(f) ? 0 : -1;
	free(line);
	fclose(f);
	return rc;
}

/* machine.txt anew: what it held but the block, then the block (never through a link). */
static int replace(const char *out, const char *kept, size_t klen, const char *blk, size_t blen)
{
	struct ab_outfile o;
	FILE *f = ab_outfile_open(&o, out, "machine.txt");

	if (!f)
		return -1;
	fwrite(kept, 1, klen, f);
	fwrite(blk, 1, blen, f);
	return ab_outfile_close(&o);
}

static int append(const char *out, const char *path, const char *blk, size_t blen)
{
	FILE *f = h_log_open(out, path, 0);
	int rc = f && fwrite(blk, 1, blen, f) == blen ? 0 : -1;

	if (f && (ferror(f) | fclose(f)))
		rc = -1;
	return rc;
}

/* The block of `when` replaces an earlier one: a resumed run's finish writes "after"
 * again, and machine.txt keeps each key once (the last session's values). Where the
 * file cannot be read whole, the block is appended: nothing is lost. */
int h_machine_knobs(const char *out, const char *when)
{
	char path[PATH_MAX], *kept = NULL, *blk = NULL;
	size_t klen = 0, blen = 0;
	FILE *k = open_memstream(&kept, &klen), *b = open_memstream(&blk, &blen);
	int rc = -1;

	snprintf(path, sizeof(path), "%s/machine.txt", out);
	if (k && b) {
		int whole = lines_but(k, path, when) == 0;
		knobs(b, out, when);	/* reads machine.txt: collect first, then write */
		if (!strcmp(when, "after")) {
			first_line(b, "loadavg_after", "/proc/loadavg");
			h_machine_steal(b, "steal_after");
		}
		fclose(k);
		fclose(b);
		k = b = NULL;
		rc = whole ? replace(out, kept, klen, blk, blen) : append(out, path, blk, blen);
	}
	if (k)
		fclose(k);
	if (b)
		fclose(b);
	free(kept);
	free(blk);
	return rc;
}
