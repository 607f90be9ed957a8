/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sqrtio: the interfaces between its files.
 *   main.c      options, the sweep, records and tables, exit codes
 *   place.c     which CPUs each point's readers and sqrt workers use
 *   measure.c   one repetition of one point: pinned workers behind the start
 *               barrier, warm-up, the timed window, stall watch, reap
 *   loop.c      the measured loops: sqrt, and 4 KiB O_DIRECT reads
 *   target.c    the file or device read, and the disk behind it
 *   discover.c  which IRQ lines serve the disk and which CPU completes the reads
 *               issued on each CPU (/proc/interrupts diffs)
 *   knobs.c     rq_affinity and IRQ affinity through lib/knob (journaled, restored)
 *   blkdev.c    st_dev -> the disk whose queue serves it (sysfs)
 *   intr.c      /proc/interrupts snapshots
 *   complete.c  where the readers' IO completed, from interrupt and softirq counts
 *   report.c      the report (tables, reading, plot); linked into the harness too,
 *               so it uses lib/ and the names below, never code of the files above
 */
#ifndef SQRTIO_H
#define SQRTIO_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "kstats/cpumon.h"
#include "sys/cpuset.h"
#include "sys/opts.h"
#include "sys/barrier.h"
#include "sys/proc.h"
#include "record/record.h"
#include "render/desc.h"
#include "record/stats.h"

#define SQ_BLK 4096			/* read size and alignment */
#define SQ_MAX_WORKERS 256
#define SQ_SQRT_BATCH 1024		/* sqrts between a stop check and a counter bump */

/*
 * Machine-speed bounds (each goes through ab_scaled_ns): workers reach the
 * start barrier within SQ_BARRIER_NS; a read that has not returned after SQ_STALL_NS
 * means a hung device (a busy host stalls one read for a few hundred ms).
 */
#define SQ_BARRIER_NS (10 * AB_NS)
#define SQ_STALL_NS (5 * AB_NS)

/* Record names, shared by main.c (writes them) and report.c (renders them). */
#define SQ_M_SQRT "sqrt_M_per_s"
#define SQ_M_IOS "ios_K_per_s"
#define SQ_M_P50 "io_lat_p50_us"
#define SQ_M_P99 "io_lat_p99_us"
#define SQ_M_IRQ "irqs_per_io"
#define SQ_M_CAL "cal_ipis_per_io"
#define SQ_M_RES "res_ipis_per_io"
#define SQ_M_DONE_LOCAL "mon_io_complete_local_pct"
#define SQ_M_IRQ_LOCAL "mon_io_irq_local_pct"

/* Settings: defaults in main.c, one option table fills them. */
struct sq_settings {
	const char *file, *device;
	size_t span;
	struct ab_intlist rq, local;
	int sqrt_procs, io_procs;	/* -1: the post's 2 + 2 where four CPUs allow, else 1 + 1 */
	int irq_affinity;
	int discover;
};

/* ---- blkdev.c: the disk whose request queue serves IO to a file or device ---- */
struct sq_blkdev {
	char disk[64];		/* "vda", "nvme0n1" */
	char rq_path[128];	/* "/sys/block/vda/queue/rq_affinity" (knob path form) */
	char how[256];		/* how we got there: "vda1 -> vda (partition)" */
};
/*
 * Resolve st_dev to its disk through /sys/dev/block/MAJ:MIN under sysroot ("" =
 * the real machine): a partition maps to its disk, a stacked device (dm-*, md*)
 * with exactly one slave is followed, loop devices and multi-slave devices are
 * refused. Returns 0, or -1 with the reason in why (the caller skips with it).
 */
int sq_blkdev_resolve(const char *sysroot, dev_t dev, struct sq_blkdev *b, char *why,
		      size_t whylen);

/* ---- intr.c: one /proc/interrupts snapshot, one count per CPU column ---- */
struct sq_intr_line {
	char name[32];		/* "36", "CAL", "RES" (without the colon) */
	uint64_t *count;	/* ncol counts; columns a line lacks are 0 */
};
struct sq_intr {
	int ncol;
	int *col_cpu;		/* column -> CPU number, from the "CPUn" header */
	int nlines;
	struct sq_intr_line *line;
};
/* Read path (normally "/proc/interrupts"). 0, or -1 with a reason in err. */
int sq_intr_read(const char *path, struct sq_intr *s, char *err, size_t errlen);
void sq_intr_free(struct sq_intr *s);
/* Index of line name in s, or -1. */
int sq_intr_find(const struct sq_intr *s, const char *name);
/* Growth of line name from a to b on one column (col >= 0) or summed over all (col < 0). */
uint64_t sq_intr_delta(const struct sq_intr *a, const struct sq_intr *b, const char *name, int col);
/* Is the line a device IRQ (a number), not a per-CPU event like LOC or CAL? */
int sq_intr_is_irq(const char *name);

/* ---- target.c: what the readers read ---- */
struct sq_target {
	int fd;			/* O_DIRECT, read-only use; -1 until opened */
	const char *name;	/* for messages */
	uint64_t size;
	uint64_t nblocks;	/* span / SQ_BLK */
	struct sq_blkdev blk;
	int hwq;		/* the disk's hardware queues (0: not known) */
	char rq_orig[32];	/* rq_affinity before this run changed it */
};
/* --file and --device as the run takes them (bad input: exit 2); stat only. */
void sq_target_check(const struct sq_settings *s);
/* Decide the target and its disk without changing anything (bad input: exit 2;
 * not on a block device: exit 4). */
void sq_target_find(struct sq_target *t, const struct sq_settings *s);
/* Open it O_DIRECT, creating and filling --file or the scratch file; the span in blocks.
 * Reads nothing: a hung device would hold this process (discovery reads first). */
void sq_target_open(struct sq_target *t, const struct sq_settings *s, int quiet);

/* ---- loop.c: the measured loops, in worker processes ---- */
enum { SQ_WARMUP, SQ_MEASURE, SQ_STOP };
/* Shared with the workers (ab_shm_alloc): barrier, phase, one counter per worker. */
struct sq_shared {
	struct ab_barrier barrier;
	_Atomic int phase;
	struct ab_counter count[SQ_MAX_WORKERS];
	struct ab_hist hist[SQ_MAX_WORKERS / 2];	/* readers' IO latency (ns), written at the end */
	char err[SQ_MAX_WORKERS][200];
};
void sq_sqrt_loop(struct sq_shared *sh, int w);
/* Random aligned 4 KiB preads over nblocks until SQ_STOP; latency kept while SQ_MEASURE.
 * 0, or an errno value on a failed or short read (message in sh->err[w]). */
int sq_io_loop(struct sq_shared *sh, int w, int fd, uint64_t nblocks, void *buf);
/* Up to max random reads, stopping at until_ns once min are done (discovery's bursts).
 * The reads done, or -1 with a message in err. */
int sq_read_burst(int fd, uint64_t nblocks, void *buf, int min, int max, uint64_t until_ns,
		  char *err, size_t errlen);

/* ---- discover.c: the device's IRQ lines and who completes whose reads ---- */
struct sq_discovery {
	int nirq;
	size_t capirq;
	char (*irq)[32];		/* /proc/interrupts line names of the device ("36") */
	int ncpu;
	int *cpu;			/* the allowed CPUs, ascending */
	struct ab_cpuset *completes;	/* completes[i]: CPUs that completed reads issued on cpu[i] */
	struct ab_cpuset irq_cpus;	/* union of completes[] */
	struct ab_cpuset local, remote;	/* reader CPUs that do / do not complete their own reads */
};
#define SQ_PROBE_MIN 20			/* reads a probe makes whatever the time */
/* Probe each allowed CPU in a pinned worker (bounded: a hung device fails it). 0 (no
 * line grew: d->nirq == 0), or AB_EXIT_FAIL or AB_EXIT_SKIP (O_DIRECT refused) with why. */
int sq_discover(const struct sq_target *t, const struct ab_cpuset *allowed,
		struct sq_discovery *d, char *why, size_t len);
/* Allocate d for the allowed CPUs (exit 1 when out of memory). */
void sq_discovery_init(struct sq_discovery *d, const struct ab_cpuset *allowed);
void sq_discovery_free(struct sq_discovery *d);
/*
 * One probe's verdict, for d->cpu[i] which issued reads between snapshots a and b:
 * numbered lines that grew by at least reads/2 are the device's, and their columns
 * that grew by at least reads/4 completed them. Then local/remote for that CPU:
 * does it complete its own reads? 0, or -1 when reads is below SQ_PROBE_MIN.
 */
int sq_discover_probe(struct sq_discovery *d, int i, const struct sq_intr *a,
		      const struct sq_intr *b, int reads);
/* key=value lines for the harness's machine.txt (--discover), knob= lines included. */
void sq_discover_print(const struct sq_target *t, const struct sq_discovery *d, FILE *f);
/* The same in one line on stderr, for people. */
void sq_discover_note(const struct sq_target *t, const struct sq_discovery *d);

/* ---- knobs.c: rq_affinity and IRQ affinity, journaled and restored ---- */
/* As root: set up the knob module, which first replays a crashed run's journal, so a
 * leftover rq_affinity or IRQ affinity is never read as the original. */
void sq_knobs_init(void);
/* Does the sweep change a knob? Skips (exit 4) if so and not root. */
int sq_knobs_check(const struct sq_settings *s, const struct sq_target *t);
/* "/proc/irq/36/smp_affinity_list" for line "36". */
void sq_irq_knob(char *buf, size_t len, const char *irq);
/* Set rq_affinity (and with --irq-affinity the device's IRQs to irq_list). Exits 1 or 4
 * when the kernel refuses. */
void sq_knobs_apply(int rq, const char *irq_list, const struct sq_target *t,
		    const struct sq_discovery *d, int irq_affinity, int quiet);
/* Restore every knob changed; 0, or -1 when one failed (message printed). */
int sq_knobs_restore(const struct sq_target *t, int quiet);
/* Exit 4 when no --rq value can act anywhere here (IRQs forced into threads). */
void sq_rq_check(const struct sq_settings *s);
struct sq_point;
/* Can pt's rq_affinity change where its reads complete? 0, or -1 with why it cannot
 * (threaded IRQs; rq 1 with readers sharing the completing CPU's last-level cache). */
int sq_rq_inert(const struct sq_point *pt, char *why, size_t len);

/* ---- place.c and measure.c: one point of the sweep ---- */
enum {
	SQ_SQRT, SQ_IOS, SQ_P50, SQ_P99, SQ_IRQ, SQ_CAL, SQ_RES, SQ_DONE_LOCAL, SQ_IRQ_LOCAL, SQ_NM
};
/* Each metric's name, unit and direction, by the enum above (report.c: the descriptor's). */
extern const struct ab_metric_desc sq_metrics[SQ_NM + 1];
struct sq_point {
	int rq, local;
	int nio, nsqrt;
	int cpu[SQ_MAX_WORKERS];	/* readers first, then sqrt workers */
	char io_list[256], sqrt_list[256], irq_list[256];
	const char *skip;		/* why the machine cannot offer it, or NULL */
	char inert[512];		/* skip's text when the knob cannot act here */
	struct ab_config cfg;
};
/* Readers and sqrt workers of pt on CPUs (local=1: CPUs that complete their own reads,
 * local=0: CPUs whose reads complete elsewhere), or pt->skip set with the reason. */
void sq_place(struct sq_point *pt, const struct sq_discovery *d, const struct ab_cpuset *allowed,
	      int irq_affinity);
#define SQ_NOTE_LEN 256
/* One repetition: 0 with v[SQ_NM] (NAN: not applicable), or -1 with why (failed point,
 * no number). Workers stuck in the kernel are given up, never waited for. mon (may be
 * NULL) samples what the CPUs did at the window's edges; note: why a completion share
 * is not written ("" when both are; SQ_NOTE_LEN bytes). */
int sq_measure(struct sq_shared *sh, const struct sq_point *pt, const struct sq_target *t,
	       const struct sq_discovery *d, double duration, struct ab_cpumon *mon, double *v,
	       char *note, char *why, size_t len);

/* ---- complete.c: where the readers' IO completed (counters, no probe) ---- */
/* The disk's hardware queues (/sys/block/DISK/mq/N), 0 when not listed. */
int sq_hw_queues(const char *disk);
/* A /proc/softirqs snapshot (its format is /proc/interrupts'); -1 when unreadable. */
int sq_softirqs_read(struct sq_intr *s);
/* v[SQ_IRQ_LOCAL] and v[SQ_DONE_LOCAL] from interrupt (ia, ib) and softirq (sa, sb)
 * snapshots around the window; NAN, with the reason in note, when not known. */
void sq_complete_share(const struct sq_point *pt, const struct sq_discovery *d, int hwq,
		       const struct sq_intr *ia, const struct sq_intr *ib, const struct sq_intr *sa,
		       const struct sq_intr *sb, double *v, char *note, size_t len);
/* Wait for n workers at the barrier, bounded by ab_scaled_ns(SQ_BARRIER_NS); one that ended
 * first or a signal fails it. 0 or -1 with why. */
int sq_barrier_wait(struct ab_barrier *g, struct ab_workers *w, int n, char *why, size_t len);

/* ---- report.c ---- */
struct ab_bench_desc;
extern const struct ab_bench_desc ab_desc_sqrtio;

#endif
