/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel statistics with BPF, no kernel patch needed: time each FUSE request
 * spends in the kernel (fuse:fuse_request_send -> fuse:fuse_request_end, by
 * opcode), which CPU queued it vs which ended it, and spinlock contention of
 * the measured processes (lock:contention_begin/end, as perf lock contention -b).
 *
 * Degrades cleanly: built without clang/bpftool/libbpf, not root, tracepoints
 * missing or BPF refused -> ab_kstats_open fails with the reason, and callers
 * skip these metrics (never write zeros). AFFBENCH_KSTATS_FORCE=nobpf|
 * notracepoint|eperm pretends one of those, so tests can take each path;
 * =nobrk leaves kstats up but the request breakdown (breakdown.h) unavailable.
 */
#ifndef AB_KSTATS_H
#define AB_KSTATS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ab_kstats;
struct ab_breakdown_result;

struct ab_kstats_op {
	uint64_t count;
	uint64_t same_cpu;
	double sum_ns;
};

struct ab_kstats_result {
	uint64_t requests;	/* all opcodes */
	uint64_t same_cpu;
	double req_ns;		/* summed lifetime of all requests */
	struct ab_kstats_op op[64];	/* by opcode (FUSE_GETATTR ... of <linux/fuse.h>) */
	uint64_t spin_count;
	double spin_wait_ns;
	double spin_max_ns;
};

/*
 * Headline numbers are never instrumented: open loads the probes without
 * attaching them; a benchmark attaches them only around its own instrumented
 * repetitions, whose records are the kernel_* metrics alone, and detaches them
 * before the next timed one.
 */
enum ab_kstats_mode { AB_KSTATS_AUTO, AB_KSTATS_ON, AB_KSTATS_OFF };
#define AB_KSTATS_CHOICES "auto|on|off"
/* Open per --kstats: off: NULL; on: skip (exit 4) with the reason when unavailable;
 * auto: NULL with a one-line note (unless quiet) when unavailable. */
struct ab_kstats *ab_kstats_for_mode(int mode, int quiet);
/* Attach / detach the probes (around an instrumented repetition). 0 or -1. */
int ab_kstats_attach(struct ab_kstats *ks);
void ab_kstats_detach(struct ab_kstats *ks);

/* Is kstats compiled in? If not, why (for --help and skip messages). */
const char *ab_kstats_built(void);
/* Load (not attach). 0, or -1 with "unavailable: ..." / "skipped: ..." in why. */
int ab_kstats_open(struct ab_kstats **ks, char *why, size_t whylen);
/* Count only requests of this FUSE connection (its number in /sys/fs/fuse/connections). */
int ab_kstats_set_conn(struct ab_kstats *ks, int conn);
/* Spinlock waits count for these processes (tgids) only. -1 with errno E2BIG when the
 * map (AB_KSTATS_MAX_PIDS) is full: the caller must then skip the spinlock metrics. */
#define AB_KSTATS_MAX_PIDS 4096
int ab_kstats_add_pid(struct ab_kstats *ks, pid_t tgid);
/* The processes whose FUSE calls the request breakdown follows (kstats/breakdown.h); the
 * processes add_pid names are the servers. 0, or -1 (also when the breakdown is unavailable). */
int ab_kstats_add_caller(struct ab_kstats *ks, pid_t tgid);
/* on: the breakdown follows pipe round trips (a caller's write, then its read of the
 * reply; the servers woken by it) instead of FUSE calls: the same five steps, for
 * cputestfs's pipe baseline. 0, or -1 when the breakdown is unavailable. */
int ab_kstats_brk_pipe(struct ab_kstats *ks, int on);
/* The breakdown counts the calls that enter between on (which zeroes it) and off, each
 * when it exits; none before the first on. 0, or -1. */
int ab_kstats_brk_window(struct ab_kstats *ks, int on);
/* The breakdown's counts: 0, or -1 (ab_kstats_brk_why says why). */
int ab_kstats_read_brk(struct ab_kstats *ks, struct ab_breakdown_result *r);
/* NULL when the breakdown is loaded, else why not (one line, for a message). */
const char *ab_kstats_brk_why(const struct ab_kstats *ks);
/* Forget every pid (start of a point). 0 or -1. */
int ab_kstats_clear_pids(struct ab_kstats *ks);
/* Zero the aggregates (start of a measured interval). */
int ab_kstats_reset(struct ab_kstats *ks);
int ab_kstats_read(struct ab_kstats *ks, struct ab_kstats_result *r);
void ab_kstats_close(struct ab_kstats *ks);

#endif
