/*
 * sqrtio (seed 004, LKML 2008 "Block IO: more io-cpu-affinity results"):
 * CPU-bound processes computing sqrt and IO-bound processes doing 4 KiB
 * O_DIRECT reads that the device serves from its cache (random offsets in a
 * small --span), all pinned, with the block queue's rq_affinity at 0, 1, 2
 * and the readers on (local=1) or off (local=0) the CPU(s) that complete the
 * device's IO. Reports M sqrt/s, K ios/s, IO latency and interrupts + IPIs
 * per IO, and the local vs not-local ratios.
 *
 * What to vary: --rq, --local, --sqrt-procs, --io-procs, --span, or
 * --irq-affinity to move the IRQ instead of the readers.
 * Known limits: the completing CPU is found by diffing /proc/interrupts, so a
 * busy unrelated device on the same line adds noise; interrupts and IPIs per
 * IO count the whole machine in the window; with per-CPU queues (nvme) every
 * CPU completes its own reads and local=0 cannot be offered without
 * --irq-affinity, which managed IRQs (virtio, nvme) refuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "cpuset.h"
#include "knob.h"
#include "opts.h"
#include "pin.h"
#include "record.h"
#include "stats.h"
#include "sqrtio.h"

#define BLK 4096			/* read size and alignment */
#define DEFAULT_FILE_SIZE (64ull << 20)
#define SQRT_BATCH 1024			/* sqrts between a stop check and a counter bump */
#define MAX_WORKERS 256
#define MAX_IRQS 32
#define PROBE_READS 600			/* reads per CPU when finding the IRQ */

struct params {
	const char *file, *device;
	size_t span;
	struct ab_intlist rq, local;
	int sqrt_procs, io_procs;	/* -1: the seed's 2 + 2 where four CPUs allow, else 1 + 1 */
	int irq_affinity;
	int discover;
};

static struct params P = {
	.span = 16 << 20,
	.rq = { 3, { 0, 1, 2 } },
	.local = { 2, { 0, 1 } },
	.sqrt_procs = -1,
	.io_procs = -1,
};

#define OPT(n, t, f, a, h, lo, hi) \
	{ .name = n, .type = t, .offset = offsetof(struct params, f), .arg = a, .help = h, .min = lo, .max = hi }
static const struct ab_opt opts[] = {
	OPT("file", AB_OPT_STR, file, "PATH", "read this file (created with 64 MiB if missing; default: "
	    "a scratch file in the current directory, removed after)", 0, 0),
	OPT("device", AB_OPT_STR, device, "DEV", "read this block device instead (read-only, never written)", 0, 0),
	OPT("span", AB_OPT_SIZE, span, "SIZE", "reads stay in the first SIZE bytes so the device's cache "
	    "serves them", 4096, 1ull << 40),
	OPT("rq", AB_OPT_INTLIST, rq, "LIST", "rq_affinity values to sweep", 0, 2),
	OPT("local", AB_OPT_INTLIST, local, "LIST", "1: readers on the CPU(s) completing the IO, 0: off them", 0, 1),
	OPT("sqrt-procs", AB_OPT_INT, sqrt_procs, "N", "sqrt processes, 0 for readers alone "
	    "(-1 = 2 where four CPUs allow, else 1)", -1, MAX_WORKERS / 2),
	OPT("io-procs", AB_OPT_INT, io_procs, "N", "reader processes (-1 = 2 where four CPUs allow, else 1)",
	    -1, MAX_WORKERS / 2),
	OPT("irq-affinity", AB_OPT_FLAG, irq_affinity, NULL, "keep the readers in place and move the "
	    "device's IRQ(s) instead", 0, 0),
	OPT("discover", AB_OPT_FLAG, discover, NULL, "only find the disk, its IRQ(s) and completing CPUs; "
	    "print key=value lines", 0, 0),
	{ .name = NULL }
};

static const struct ab_prog_info info = {
	.name = "sqrtio",
	.summary = "M sqrt/s and K O_DIRECT 4 KiB reads/s with rq_affinity 0/1/2 and readers on/off the IRQ CPU (seed 004)",
	.usage_extra = "Changes /sys/block/<disk>/queue/rq_affinity (and with --irq-affinity\n"
		       "/proc/irq/N/smp_affinity_list) through the knob journal; originals are\n"
		       "restored at exit and by 'harness restore' after a crash. Needs root to change them.",
	.default_duration = 2,
	.default_repeat = 3,
};

/* ---- the measured loops ---- */

enum { PH_WARMUP, PH_MEASURE, PH_STOP };

struct shared {
	struct ab_gate gate;
	_Atomic int phase;
	struct ab_counter count[MAX_WORKERS];
	struct ab_hist hist[MAX_WORKERS];	/* IO latency in ns, written once at the end */
	char err[MAX_WORKERS][200];
};

static int phase(struct shared *sh)
{
	return atomic_load_explicit(&sh->phase, memory_order_relaxed);
}

static void sqrt_loop(struct shared *sh, struct ab_counter *c)
{
	volatile double x = 1234567.0, r;

	while (phase(sh) != PH_STOP) {
		for (int i = 0; i < SQRT_BATCH; i++)
			r = sqrt(x);
		ab_counter_add(c, SQRT_BATCH);
	}
	(void)r;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Returns 0, or an errno value on a failed or short read. */
static int io_loop(struct shared *sh, int w, int fd, uint64_t nblocks, void *buf)
{
	struct ab_hist h = { { 0 } };
	uint64_t rnd = 0x9e3779b97f4a7c15ull * (uint64_t)(w + 1);
	int ph, rc = 0;

	while ((ph = phase(sh)) != PH_STOP) {
		off_t off = (off_t)(xorshift(&rnd) % nblocks) * BLK;
		/* One clock pair per IO is the latency; an IO takes tens of us, a clock read tens of ns. */
		uint64_t t = ab_now_ns();
		ssize_t n = pread(fd, buf, BLK, off);
		uint64_t lat = ab_now_ns() - t;

		if (n != BLK) {
			rc = n < 0 ? errno : EIO;
			snprintf(sh->err[w], sizeof(sh->err[w]), "pread at offset %lld: %s",
				 (long long)off, n < 0 ? strerror(errno) : "short read");
			break;
		}
		ab_counter_inc(&sh->count[w]);
		if (ph == PH_MEASURE)
			ab_hist_add(&h, lat);
	}
	sh->hist[w] = h;
	return rc;
}

/* ---- target: file or device, and the disk behind it ---- */

struct target {
	int fd;			/* O_DIRECT, read-only use */
	const char *name;	/* for messages */
	uint64_t size;
	uint64_t nblocks;	/* span / BLK */
	struct sq_blkdev blk;
	char rq_orig[32];
};

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

static void resolve(dev_t dev, const char *what, struct target *t)
{
	char why[512];

	if (sq_blkdev_resolve("", dev, &t->blk, why, sizeof(why)))
		ab_skip("%s: %s", what, why);
	read_line(t->blk.rq_path, t->rq_orig, sizeof(t->rq_orig));
	if (!t->rq_orig[0])
		ab_skip("%s: cannot read %s", what, t->blk.rq_path);
}

/* A file we create: real data, not holes or unwritten extents, which reads never take to the device. */
static void fill(int fd, const char *name, uint64_t size)
{
	static char chunk[1 << 20];

	memset(chunk, 0xa5, sizeof(chunk));
	for (uint64_t off = 0; off < size; off += sizeof(chunk)) {
		ssize_t n = pwrite(fd, chunk, sizeof(chunk), (off_t)off);
		if (n != (ssize_t)sizeof(chunk)) {
			if (n < 0 && (errno == ENOSPC || errno == EDQUOT))
				ab_skip("writing %s: %s (needs %llu MiB)", name, strerror(errno),
					(unsigned long long)(size >> 20));
			ab_fail("writing %s: %s", name, n < 0 ? strerror(errno) : "short write");
		}
	}
	if (fsync(fd))
		ab_fail("fsync %s: %s", name, strerror(errno));
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

static void set_direct(int fd, const char *name)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_DIRECT) < 0)
		ab_skip("%s: cannot enable O_DIRECT: %s (filesystem may not support O_DIRECT)", name,
			strerror(errno));
}

/*
 * Open the target. Everything that can be decided without changing anything
 * (is it on a block device, which disk, current rq_affinity) happens before
 * the caller's root check; creating files happens in open_target_io().
 */
static void find_target(struct target *t, char *scratch_dir, size_t len)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (P.file && P.device)
		ab_usage_error("--file and --device exclude each other");
	if (P.device) {
		t->name = P.device;
		if (stat(P.device, &st))
			ab_usage_error("bad value '%s' for --device: %s", P.device, strerror(errno));
		if (!S_ISBLK(st.st_mode))
			ab_usage_error("bad value '%s' for --device: not a block device", P.device);
		resolve(st.st_rdev, P.device, t);
		return;
	}
	if (P.file) {
		t->name = P.file;
		if (stat(P.file, &st) == 0) {
			if (S_ISBLK(st.st_mode))
				ab_usage_error("bad value '%s' for --file: a block device, use --device", P.file);
			if (!S_ISREG(st.st_mode))
				ab_usage_error("bad value '%s' for --file: not a regular file", P.file);
			resolve(st.st_dev, P.file, t);
			return;
		}
		if (errno != ENOENT)
			ab_usage_error("bad value '%s' for --file: %s", P.file, strerror(errno));
		/* Created later: the directory it goes into decides the filesystem. */
		char *dir = strdup(P.file), *slash = strrchr(dir, '/');
		if (slash)
			slash[slash == dir ? 1 : 0] = 0;
		if (stat(slash ? dir : ".", &st))
			ab_usage_error("bad value '%s' for --file: directory %s: %s", P.file,
				       slash ? dir : ".", strerror(errno));
		free(dir);
		resolve(st.st_dev, P.file, t);
		return;
	}
	/* Default: the current directory's filesystem, as the seed read from disk, not /tmp (often tmpfs). */
	snprintf(scratch_dir, len, ".");
	t->name = "scratch file in the current directory";
	if (stat(".", &st))
		ab_fail("stat .: %s", strerror(errno));
	resolve(st.st_dev, "current directory (use --file or --device)", t);
}

static void open_target_io(struct target *t, const char *scratch_dir, int quiet)
{
	struct stat st;

	if (P.device) {
		t->fd = open(P.device, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (t->fd < 0 && (errno == EACCES || errno == EPERM))
			ab_skip("open %s: %s (reading a disk needs root or group disk; a container or "
				"sandbox may forbid it: use --file instead)", P.device, strerror(errno));
		if (t->fd < 0)
			ab_exit(errno == EINVAL ? AB_EXIT_SKIP : AB_EXIT_FAIL, "open %s: %s%s", P.device,
				strerror(errno), errno == EINVAL ? " (device may not support O_DIRECT)" : "");
		if (ioctl(t->fd, BLKGETSIZE64, &t->size))
			ab_fail("BLKGETSIZE64 %s: %s", P.device, strerror(errno));
	} else if (P.file) {
		t->fd = open(P.file, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (t->fd < 0 && errno == ENOENT) {
			int fd = open(P.file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			uint64_t size = P.span > DEFAULT_FILE_SIZE ? (P.span + BLK - 1) / BLK * BLK : DEFAULT_FILE_SIZE;

			if (fd < 0)
				ab_fail("create %s: %s", P.file, strerror(errno));
			if (!quiet)
				ab_msg("creating %s (%llu MiB)", P.file, (unsigned long long)(size >> 20));
			fill(fd, P.file, size);
			set_direct(fd, P.file);
			t->fd = fd;
		} else if (t->fd < 0) {
			ab_exit(errno == EINVAL ? AB_EXIT_SKIP : AB_EXIT_FAIL, "open %s: %s%s", P.file,
				strerror(errno), errno == EINVAL ? " (filesystem may not support O_DIRECT)" : "");
		}
	} else {
		char path[4096];
		uint64_t size = P.span > DEFAULT_FILE_SIZE ? (P.span + BLK - 1) / BLK * BLK : DEFAULT_FILE_SIZE;

		snprintf(path, sizeof(path), "%s/.affbench-sqrtio.XXXXXX", scratch_dir);
		t->fd = mkostemp(path, O_CLOEXEC);
		if (t->fd < 0)
			ab_skip("cannot create a scratch file in the current directory (%s): %s; use --file "
				"PATH on a disk-backed filesystem", path, strerror(errno));
		/* Unlinked at once: the open fd keeps it, and no crash or signal leaves 64 MiB behind. */
		unlink(path);
		fill(t->fd, "scratch file", size);
		set_direct(t->fd, "scratch file");
	}
	if (fstat(t->fd, &st))
		ab_fail("fstat %s: %s", t->name, strerror(errno));
	if (!P.device)
		t->size = (uint64_t)st.st_size;

	uint64_t span = P.span / BLK * BLK;
	if (span > t->size / BLK * BLK) {
		span = t->size / BLK * BLK;
		if (!quiet)
			ab_msg("%s holds only %llu bytes: --span reduced to that", t->name,
			       (unsigned long long)span);
	}
	if (span < BLK)
		ab_usage_error("%s is smaller than one %d-byte block", t->name, BLK);
	t->nblocks = span / BLK;
	if (P.file && !quiet) {
		off_t hole = lseek(t->fd, 0, SEEK_HOLE);
		if (hole >= 0 && (uint64_t)hole < span)
			ab_msg("%s has a hole at %lld: reads of holes never reach the device", P.file,
			       (long long)hole);
	}

	/* The first read explains an EINVAL before any worker runs into it. */
	void *buf;
	if (posix_memalign(&buf, BLK, BLK))
		ab_fail("out of memory");
	if (pread(t->fd, buf, BLK, 0) != BLK) {
		int e = errno;
		ab_exit(e == EINVAL ? AB_EXIT_SKIP : AB_EXIT_FAIL, "O_DIRECT read of %s: %s%s", t->name,
			strerror(e), e == EINVAL ? " (filesystem may not support O_DIRECT)" : "");
	}
	free(buf);
}

/* ---- IRQ discovery ---- */

struct discovery {
	int nirq;
	char irq[MAX_IRQS][32];		/* /proc/interrupts line names of the device */
	int ncpu;
	int *cpu;			/* the allowed CPUs, ascending */
	struct ab_cpuset *completes;	/* completes[i]: CPUs that completed reads issued on cpu[i] */
	struct ab_cpuset irq_cpus;	/* union of completes[] */
	struct ab_cpuset local, remote;	/* CPUs that do / do not complete their own reads */
};

/* Up to n reads, stopping after 200 ms on a slow device; returns the reads done. */
static int burst(int fd, uint64_t nblocks, void *buf, int n)
{
	uint64_t rnd = 0x2545f4914f6cdd1dull;
	uint64_t end = ab_now_ns() + 200000000ull;
	int i;

	for (i = 0; i < n && ab_now_ns() < end; i++)
		if (pread(fd, buf, BLK, (off_t)(xorshift(&rnd) % nblocks) * BLK) != BLK)
			ab_fail("O_DIRECT read while finding the IRQ: %s", strerror(errno));
	return i;
}

static int add_irq(struct discovery *d, const char *name)
{
	for (int i = 0; i < d->nirq; i++)
		if (!strcmp(d->irq[i], name))
			return 0;
	if (d->nirq == MAX_IRQS)
		return -1;
	snprintf(d->irq[d->nirq++], sizeof(d->irq[0]), "%s", name);
	return 0;
}

/*
 * Read from each allowed CPU in turn; the numbered /proc/interrupts lines that
 * grew by at least half the reads are the device's, and the columns that grew
 * name the CPUs that completed them. No driver names are needed.
 */
static void discover(const struct target *t, const struct ab_cpuset *allowed, struct discovery *d)
{
	char err[256];
	void *buf;
	int c, i = 0;

	memset(d, 0, sizeof(*d));
	d->ncpu = ab_cpuset_count(allowed);
	d->cpu = calloc(d->ncpu, sizeof(int));
	d->completes = calloc(d->ncpu, sizeof(struct ab_cpuset));
	if (!d->cpu || !d->completes || posix_memalign(&buf, BLK, BLK))
		ab_fail("out of memory");
	ab_cpuset_for_each(c, allowed) {
		struct sq_intr a, b;
		int reads;

		d->cpu[i] = c;
		if (ab_pin_self(c))
			ab_fail("pin to CPU %d: %s", c, strerror(errno));
		burst(t->fd, t->nblocks, buf, 20);	/* settle on the new CPU */
		if (sq_intr_read("/proc/interrupts", &a, err, sizeof(err)))
			ab_skip("%s", err);
		reads = burst(t->fd, t->nblocks, buf, PROBE_READS);
		if (sq_intr_read("/proc/interrupts", &b, err, sizeof(err)))
			ab_skip("%s", err);
		ab_cpuset_zero(&d->completes[i]);
		for (int l = 0; l < b.nlines; l++) {
			const char *name = b.line[l].name;
			if (!sq_intr_is_irq(name) || sq_intr_delta(&a, &b, name, -1) < (uint64_t)reads / 2)
				continue;
			if (add_irq(d, name))
				break;
			for (int col = 0; col < b.ncol; col++)
				if (sq_intr_delta(&a, &b, name, col) >= (uint64_t)reads / 4)
					ab_cpuset_set(&d->completes[i], b.col_cpu[col]);
		}
		for (size_t k = 0; k < AB_ARRAY_SIZE(d->irq_cpus.bits); k++)
			d->irq_cpus.bits[k] |= d->completes[i].bits[k];
		if (ab_cpuset_isset(&d->completes[i], c))
			ab_cpuset_set(&d->local, c);
		else
			ab_cpuset_set(&d->remote, c);
		sq_intr_free(&a);
		sq_intr_free(&b);
		i++;
	}
	free(buf);
	if (ab_pin_self_set(allowed))
		ab_fail("restore affinity: %s", strerror(errno));
}

/* ---- points of the sweep: who runs where ---- */

enum { M_SQRT, M_IOS, M_P50, M_P99, M_IRQ, M_CAL, M_RES, NM };
static const struct {
	const char *name, *unit;
} metric[NM] = {
	[M_SQRT] = { "sqrt_M_per_s", "Msqrt/s" },
	[M_IOS] = { "ios_K_per_s", "Kio/s" },
	[M_P50] = { "io_lat_p50_us", "us" },
	[M_P99] = { "io_lat_p99_us", "us" },
	[M_IRQ] = { "irqs_per_io", "irq/io" },
	[M_CAL] = { "cal_ipis_per_io", "ipi/io" },
	[M_RES] = { "res_ipis_per_io", "ipi/io" },
};

struct point {
	int rq, local;
	int nio, nsqrt;
	int cpu[MAX_WORKERS];		/* readers first, then sqrt workers */
	char io_list[256], sqrt_list[256], irq_list[256];
	const char *skip;		/* why the machine cannot offer it, or NULL */
	struct ab_config cfg;
	double *v[NM];			/* per repetition; NAN = not measured */
};

/* n CPUs from pool, highest first (CPU 0 takes most housekeeping), sharing when the pool is short. */
static void pick(const struct ab_cpuset *pool, int n, int *out, struct ab_cpuset *used)
{
	int cnt = ab_cpuset_count(pool);

	for (int i = 0; i < n; i++) {
		out[i] = ab_cpuset_nth(pool, cnt - 1 - i % cnt);
		ab_cpuset_set(used, out[i]);
	}
}

static void minus(struct ab_cpuset *dst, const struct ab_cpuset *a, const struct ab_cpuset *b)
{
	for (size_t k = 0; k < AB_ARRAY_SIZE(dst->bits); k++)
		dst->bits[k] = a->bits[k] & ~b->bits[k];
}

static void plan(struct point *pt, const struct discovery *d, const struct ab_cpuset *allowed)
{
	struct ab_cpuset io, sq, rest, irq;
	const struct ab_cpuset *pool;

	ab_cpuset_zero(&io);
	ab_cpuset_zero(&sq);
	if (!P.irq_affinity) {
		pool = pt->local ? &d->local : &d->remote;
		if (!ab_cpuset_count(pool)) {
			pt->skip = pt->local ? "no allowed CPU completes its own reads (the IRQ CPU is not in --cpus)"
					     : "every allowed CPU completes its own reads (per-CPU queues); try --irq-affinity";
			return;
		}
		pick(pool, pt->nio, pt->cpu, &io);
		irq = d->irq_cpus;
	} else {
		/* Readers stay on the highest CPUs; the IRQ goes to them or to the others. */
		pick(allowed, pt->nio, pt->cpu, &io);
		minus(&rest, allowed, &io);
		if (!pt->local && !ab_cpuset_count(&rest)) {
			pt->skip = "readers occupy every allowed CPU, no CPU is left for the IRQ";
			return;
		}
		irq = pt->local ? io : rest;
	}
	minus(&rest, allowed, &io);
	pick(ab_cpuset_count(&rest) ? &rest : allowed, pt->nsqrt, pt->cpu + pt->nio, &sq);
	ab_cpuset_format(&io, pt->io_list, sizeof(pt->io_list));
	ab_cpuset_format(&sq, pt->sqrt_list, sizeof(pt->sqrt_list));
	ab_cpuset_format(&irq, pt->irq_list, sizeof(pt->irq_list));

	ab_config_init(&pt->cfg);
	ab_config_set(&pt->cfg, "rq", "%d", pt->rq);
	ab_config_set(&pt->cfg, "local", "%d", pt->local);
	ab_config_set(&pt->cfg, "sqrt_procs", "%d", pt->nsqrt);
	ab_config_set(&pt->cfg, "io_procs", "%d", pt->nio);
	ab_config_set(&pt->cfg, "io_cpus", "%s", pt->io_list);
	ab_config_set(&pt->cfg, "sqrt_cpus", "%s", pt->sqrt_list);
	ab_config_set(&pt->cfg, "irq_cpus", "%s", pt->irq_list);
}

/* ---- knobs ---- */

static void set_knob(const char *path, const char *val, int quiet)
{
	char cur[256], orig[256], err[512];

	read_line(path, cur, sizeof(cur));
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

static void apply_knobs(const struct point *pt, const struct target *t, const struct discovery *d,
			int quiet)
{
	char val[16];

	/* IRQs first: a kernel that refuses to move them stops us before rq_affinity changed. */
	for (int i = 0; P.irq_affinity && i < d->nirq; i++) {
		char path[128];

		snprintf(path, sizeof(path), "/proc/irq/%s/smp_affinity_list", d->irq[i]);
		set_knob(path, pt->irq_list, quiet);
	}
	snprintf(val, sizeof(val), "%d", pt->rq);
	set_knob(t->blk.rq_path, val, quiet);
}

/* ---- one measurement: fork, pin, gate, warm up, sample, stop ---- */

static struct shared *sh;

static void worker(const struct point *pt, int w, const struct target *t, pid_t parent)
{
	void *buf = NULL;
	int io = w < pt->nio, rc = 0;

	/* Workers never outlive the parent, not even a SIGKILLed one. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (ab_pin_self(pt->cpu[w]))
		snprintf(sh->err[w], sizeof(sh->err[w]), "pin to CPU %d: %s", pt->cpu[w], strerror(errno));
	else if (io && posix_memalign(&buf, BLK, BLK))
		snprintf(sh->err[w], sizeof(sh->err[w]), "out of memory");
	ab_gate_arrive_wait(&sh->gate);
	if (sh->err[w][0])
		_exit(1);
	if (io)
		rc = io_loop(sh, w, t->fd, t->nblocks, buf);
	else
		sqrt_loop(sh, &sh->count[w]);
	_exit(rc ? 1 : 0);
}

static uint64_t sum(int from, int to)
{
	uint64_t s = 0;

	for (int w = from; w < to; w++)
		s += ab_counter_read(&sh->count[w]);
	return s;
}

/* Stop and reap every worker; returns the first worker error or NULL. */
static const char *reap(pid_t *pid, int n)
{
	const char *err = NULL;

	atomic_store(&sh->phase, PH_STOP);
	ab_gate_open(&sh->gate);
	for (int w = 0; w < n; w++) {
		int st;

		if (pid[w] <= 0)
			continue;
		while (waitpid(pid[w], &st, 0) < 0 && errno == EINTR)
			;
		if (!err && sh->err[w][0])
			err = sh->err[w];
		else if (!err && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			err = "a worker died";
	}
	return err;
}

static void measure(const struct point *pt, const struct target *t, const struct discovery *d,
		    double duration, double *v)
{
	int n = pt->nio + pt->nsqrt;
	pid_t pid[MAX_WORKERS] = { 0 }, parent = getpid();
	struct sq_intr a, b;
	char err[256];
	const char *werr;

	memset(sh, 0, sizeof(*sh));
	ab_gate_init(&sh->gate);
	atomic_store(&sh->phase, PH_WARMUP);
	fflush(NULL);
	for (int w = 0; w < n; w++) {
		pid[w] = fork();
		if (pid[w] == 0)
			worker(pt, w, t, parent);
		if (pid[w] < 0) {
			int e = errno;
			reap(pid, w);
			ab_fail("fork: %s", strerror(e));
		}
	}
	if (ab_gate_wait_arrived(&sh->gate, (unsigned)n, 10000000000ull)) {
		reap(pid, n);
		ab_fail("workers did not reach the start gate within 10 s");
	}
	for (int w = 0; w < n; w++)
		if (sh->err[w][0]) {
			snprintf(err, sizeof(err), "%s", sh->err[w]);
			reap(pid, n);
			ab_fail("worker %d: %s", w, err);
		}

	ab_gate_open(&sh->gate);
	ab_sleep_ns((uint64_t)(fmin(0.5, duration / 4) * 1e9));	/* warm-up: caches, queue, frequency */

	if (sq_intr_read("/proc/interrupts", &a, err, sizeof(err)))
		ab_fail("%s", err);
	atomic_store(&sh->phase, PH_MEASURE);
	uint64_t t0 = ab_now_ns(), io0 = sum(0, pt->nio), sq0 = sum(pt->nio, n);
	ab_sleep_ns((uint64_t)(duration * 1e9));
	uint64_t t1 = ab_now_ns(), io1 = sum(0, pt->nio), sq1 = sum(pt->nio, n);
	if (sq_intr_read("/proc/interrupts", &b, err, sizeof(err)))
		ab_fail("%s", err);

	if ((werr = reap(pid, n)))
		ab_fail("rq=%d local=%d: %s (%s)", pt->rq, pt->local, werr, t->name);

	double secs = (double)(t1 - t0) / 1e9, ios = (double)(io1 - io0);
	struct ab_hist h = { { 0 } };
	uint64_t irqs = 0;

	for (int w = 0; w < pt->nio; w++)
		ab_hist_merge(&h, &sh->hist[w]);
	for (int i = 0; i < d->nirq; i++)
		irqs += sq_intr_delta(&a, &b, d->irq[i], -1);
	v[M_SQRT] = pt->nsqrt ? (double)(sq1 - sq0) / secs / 1e6 : NAN;
	v[M_IOS] = ios / secs / 1e3;
	for (int m = M_P50; m < NM; m++)
		v[m] = NAN;
	if (ios == 0) {
		/* A read that never completes is a failed measurement, not 0 ios/s: no number. */
		ab_msg("rq=%d local=%d: measurement failed: no read completed in %.2f s "
		       "(a read stalled: device or host busy?)", pt->rq, pt->local, secs);
		for (int m = 0; m < NM; m++)
			v[m] = NAN;
	} else {
		v[M_P50] = ab_hist_percentile(&h, 50) / 1e3;
		v[M_P99] = ab_hist_percentile(&h, 99) / 1e3;
		v[M_IRQ] = (double)irqs / ios;
		v[M_CAL] = (double)sq_intr_delta(&a, &b, "CAL", -1) / ios;
		v[M_RES] = (double)sq_intr_delta(&a, &b, "RES", -1) / ios;
	}
	sq_intr_free(&a);
	sq_intr_free(&b);
}

/* ---- output ---- */

static void fmt_num(char *buf, size_t len, int width, double v)
{
	if (isnan(v))
		snprintf(buf, len, "%*s", width, "-");
	else
		snprintf(buf, len, "%*.3f", width, v);
}

static double median_of(const struct point *pt, int m, int n)
{
	double x[n];
	int k = 0;

	for (int r = 0; r < n; r++)
		if (!isnan(pt->v[m][r]))
			x[k++] = pt->v[m][r];
	return k ? ab_median(x, k) : NAN;
}

static struct point *find_point(struct point *pts, int npts, int rq, int local)
{
	for (int i = 0; i < npts; i++)
		if (pts[i].rq == rq && pts[i].local == local && !pts[i].skip)
			return &pts[i];
	return NULL;
}

static void print_table(struct point *pts, int npts, int reps)
{
	char s[32], io[32];

	/* The seed's layout, grouped by placement as in the post. */
	for (int l = 0; l < P.local.n; l++)
		for (int r = 0; r < P.rq.n; r++) {
			struct point *pt = find_point(pts, npts, P.rq.v[r], P.local.v[l]);
			if (!pt)
				continue;
			fmt_num(s, sizeof(s), 10, median_of(pt, M_SQRT, reps));
			fmt_num(io, sizeof(io), 8, median_of(pt, M_IOS, reps));
			printf("rq=%d local=%d %s (M sqrt/sec) %s (K ios/sec)\n", pt->rq, pt->local, s, io);
		}
	printf("\n%-13s %9s %9s %8s %8s %8s  %s\n", "", "p50 us", "p99 us", "irqs/io", "CAL/io",
	       "RES/io", "cpus");
	for (int l = 0; l < P.local.n; l++)
		for (int r = 0; r < P.rq.n; r++) {
			struct point *pt = find_point(pts, npts, P.rq.v[r], P.local.v[l]);
			char label[32];
			if (!pt)
				continue;
			snprintf(label, sizeof(label), "rq=%d local=%d", pt->rq, pt->local);
			printf("%-13s %9.1f %9.1f %8.3f %8.3f %8.3f  io=%s sqrt=%s irq=%s\n", label,
			       median_of(pt, M_P50, reps), median_of(pt, M_P99, reps),
			       median_of(pt, M_IRQ, reps), median_of(pt, M_CAL, reps),
			       median_of(pt, M_RES, reps), pt->io_list, pt->sqrt_list[0] ? pt->sqrt_list : "-",
			       pt->irq_list);
		}

	int header = 0;
	for (int r = 0; r < P.rq.n; r++) {
		struct point *on = find_point(pts, npts, P.rq.v[r], 1);
		struct point *off = find_point(pts, npts, P.rq.v[r], 0);
		if (!on || !off)
			continue;
		if (!header++)
			printf("\nlocal=1 / local=0, ratio of medians [95%% CI, bootstrap] over %d repetition%s:\n",
			       reps, reps == 1 ? " (no spread: use --repeat 5 or more)" : "s");
		printf("rq=%d", P.rq.v[r]);
		static const int shown[] = { M_SQRT, M_IOS };
		for (size_t k = 0; k < AB_ARRAY_SIZE(shown); k++) {
			int m = shown[k];
			struct ab_ci ci;
			double ratio = median_of(on, m, reps) / median_of(off, m, reps);
			if (isnan(ratio) || ab_ratio_ci(on->v[m], reps, off->v[m], reps, 0.95, &ci))
				printf("   %s -", m == M_SQRT ? "sqrt" : "ios ");
			else
				printf("   %s %6.3f [%.3f, %.3f]", m == M_SQRT ? "sqrt" : "ios ", ratio, ci.lo, ci.hi);
		}
		printf("\n");
	}
}

static void discover_report(const struct target *t, const struct discovery *d, FILE *f, int kv)
{
	char irqs[512] = "", list[256];
	size_t off = 0;

	for (int i = 0; i < d->nirq && off < sizeof(irqs); i++)
		off += snprintf(irqs + off, sizeof(irqs) - off, "%s%s", i ? "," : "", d->irq[i]);
	if (kv) {
		fprintf(f, "target=%s\ndisk=%s\nresolved=%s\nrq_affinity=%s\nirqs=%s\n", t->name,
			t->blk.disk, t->blk.how, t->rq_orig, irqs);
		ab_cpuset_format(&d->irq_cpus, list, sizeof(list));
		fprintf(f, "irq_cpus=%s\n", list);
		ab_cpuset_format(&d->local, list, sizeof(list));
		fprintf(f, "local_cpus=%s\n", list);
		ab_cpuset_format(&d->remote, list, sizeof(list));
		fprintf(f, "remote_cpus=%s\n", list);
		for (int i = 0; i < d->ncpu; i++) {
			ab_cpuset_format(&d->completes[i], list, sizeof(list));
			fprintf(f, "cpu%d_completes_on=%s\n", d->cpu[i], list);
		}
		return;
	}
	ab_cpuset_format(&d->irq_cpus, list, sizeof(list));
	ab_msg("%s: disk %s (%s), rq_affinity %s, IRQ %s completes on CPU %s", t->name, t->blk.disk,
	       t->blk.how, t->rq_orig, irqs, list);
}

int main(int argc, char **argv)
{
	struct ab_common com;
	struct target t;
	struct discovery d;
	char scratch[8];
	int argi = ab_parse_args(argc, argv, &info, opts, &P, &com);

	if (argi < argc)
		ab_usage_error("unexpected argument '%s' (see --help)", argv[argi]);

	/* A crashed run's leftovers first: its rq_affinity or IRQ affinity, read as
	 * "original" here, would mislabel which CPU completes IO. */
	if (geteuid() == 0 && ab_knob_init("", ab_knob_default_journal()))
		ab_fail("knob journal %s: %s", ab_knob_default_journal(), strerror(errno));
	find_target(&t, scratch, sizeof(scratch));
	int ncpu = ab_cpuset_count(&com.allowed);
	if (ncpu < 2)
		ab_skip("one CPU only: readers on and off the IRQ CPU need at least 2 (check --cpus and taskset)");
	int deflt = ncpu >= 4 ? 2 : 1;
	int nio = P.io_procs >= 0 ? P.io_procs : deflt, nsqrt = P.sqrt_procs >= 0 ? P.sqrt_procs : deflt;

	if (nio == 0)
		ab_usage_error("bad value '0' for --io-procs: at least one reader is needed");

	/* Root check before anything changes, naming the knob that needs it. */
	int change = P.irq_affinity;
	for (int i = 0; i < P.rq.n; i++)
		if (P.rq.v[i] != atoi(t.rq_orig))
			change = 1;
	if (change && !P.discover && geteuid() != 0)
		ab_skip("not root: changing %s (now %s)%s needs root; run as root, or --rq %s", t.blk.rq_path,
			t.rq_orig, P.irq_affinity ? " and IRQ affinity" : "", t.rq_orig);

	open_target_io(&t, scratch, com.quiet);
	discover(&t, &com.allowed, &d);
	if (!d.nirq)
		ab_skip("%s: no interrupt line in /proc/interrupts grew with reads of %s: it completes IO "
			"without an IRQ (polled or software device); use a file on an interrupt-driven disk",
			t.name, t.blk.disk);
	if (P.discover) {
		discover_report(&t, &d, stdout, 1);
		return 0;
	}
	if (!com.quiet)
		discover_report(&t, &d, stderr, 0);

	int npts = P.rq.n * P.local.n, runnable = 0;
	struct point *pts = calloc(npts, sizeof(*pts));
	if (!pts)
		ab_fail("out of memory");
	for (int i = 0; i < npts; i++) {
		struct point *pt = &pts[i];
		pt->rq = P.rq.v[i / P.local.n];
		pt->local = P.local.v[i % P.local.n];
		pt->nio = nio;
		pt->nsqrt = nsqrt;
		plan(pt, &d, &com.allowed);
		if (pt->skip) {
			ab_msg("rq=%d local=%d skipped: %s", pt->rq, pt->local, pt->skip);
			continue;
		}
		runnable++;
		for (int m = 0; m < NM; m++) {
			pt->v[m] = malloc(com.repeat * sizeof(double));
			if (!pt->v[m])
				ab_fail("out of memory");
			for (int r = 0; r < com.repeat; r++)
				pt->v[m][r] = NAN;
		}
	}
	if (!runnable)
		ab_skip("no point of the sweep can be placed on the allowed CPUs (reasons above)");

	sh = ab_shm_alloc(sizeof(*sh));
	if (!sh)
		ab_fail("shared memory: %s", strerror(errno));

	struct ab_out out;
	int failures = 0;
	ab_out_init(&out, stdout, com.format, "sqrtio");
	/* Repetitions interleaved across points (A B C A B C) so drift does not bias a comparison. */
	for (int r = 0; r < com.repeat; r++)
		for (int i = 0; i < npts; i++) {
			struct point *pt = &pts[i];
			double v[NM];

			if (pt->skip)
				continue;
			if (!com.quiet)
				ab_msg("rep %d/%d rq=%d local=%d: io on %s, sqrt on %s", r + 1, com.repeat,
				       pt->rq, pt->local, pt->io_list, pt->sqrt_list[0] ? pt->sqrt_list : "-");
			apply_knobs(pt, &t, &d, com.quiet);
			measure(pt, &t, &d, com.duration, v);
			if (isnan(v[M_IOS]))
				failures++;
			for (int m = 0; m < NM; m++) {
				pt->v[m][r] = v[m];
				if (com.format != AB_FMT_TABLE && !isnan(v[m]))
					ab_record(&out, &pt->cfg, r + 1, metric[m].name, v[m], metric[m].unit);
			}
		}

	if (change) {
		int failed = ab_knob_restore_all();
		char now[64];

		read_line(t.blk.rq_path, now, sizeof(now));
		if (!com.quiet || failed)
			ab_msg("knob %s restored: %s (original %s)%s", t.blk.rq_path, now, t.rq_orig,
			       failed ? "; some knobs failed to restore, see above" : "");
		if (failed)
			return AB_EXIT_FAIL;
	}
	if (com.format == AB_FMT_TABLE)
		print_table(pts, npts, com.repeat);
	return failures ? AB_EXIT_FAIL : 0;
}
