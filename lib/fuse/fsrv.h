/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsrv: a small FUSE server that speaks the kernel protocol itself, so our
 * filesystems can use what libfuse 3.14 lacks: FUSE over io_uring (one ring
 * queue per CPU, requests served on the CPU that made them) and passthrough.
 *
 * A filesystem is a table of handlers in the kernel's own terms (struct
 * fuse_entry_out, fuse_attr_out ... from <linux/fuse.h>). The library owns
 * the mount, INIT, the transport and the requests it answers by itself:
 * FLUSH (0), FORGET/BATCH_FORGET (no reply), INTERRUPT (ignored: handlers
 * are synchronous), DESTROY; any other opcode without a handler gets ENOSYS.
 * It negotiates FUSE_ATOMIC_O_TRUNC, so open() sees O_TRUNC and no SETATTR
 * is sent for it.
 *
 * Handlers run on the serving thread, one request at a time per thread:
 * sched_getcpu() there names the CPU that served the request. Several
 * threads call them concurrently (dev with threads > 1; uring always), so
 * they must be thread-safe. They must not block for long and must not call
 * into the mount. Out structures arrive zeroed.
 *
 * Transports:
 *  AB_FSRV_DEV    read()/write() on /dev/fuse by `threads` threads, each with
 *                 its own cloned fd when clone_fd is set (FUSE_DEV_IOC_CLONE),
 *                 thread i pinned to the i-th CPU of cpus when pin is set,
 *                 else allowed on all of cpus.
 *  AB_FSRV_URING  FUSE over io_uring (Linux 6.14+, enable_uring=Y, see
 *                 ab_fsrv_uring_enable). The kernel has one queue per possible
 *                 CPU and puts each request on the queue of the CPU that made
 *                 it; every queue needs entries or the mount hangs. One thread
 *                 and ring per allowed CPU (cpus, else the process's
 *                 affinity, that is online), serving that CPU's queue and
 *                 running where uring_cpu says (pinned to it by default)
 *                 and named "fsrv-uring-<that CPU>";
 *                 the queues of CPUs that are not allowed or offline
 *                 are spread over those threads. queue_depth entries per
 *                 queue; threads, clone_fd and pin do not apply. The calling
 *                 thread reads /dev/fuse for what the kernel still sends there
 *                 (FORGET, BATCH_FORGET, INTERRUPT). A REGISTER the kernel
 *                 refuses ends the daemon with AB_EXIT_SKIP and one line.
 *                 An abort through fusectl does not release a request already
 *                 handed to a ring thread of a SIGSTOPped daemon (Linux 6.18):
 *                 continue or kill the daemon after it (ab_daemon_stop does).
 *
 * Passthrough (Linux 6.9+, root): with cfg.passthrough the open handler may
 * set backing_fd; the library registers it (FUSE_DEV_IOC_BACKING_OPEN), the
 * kernel then does read/write on that file without asking the daemon, and
 * the library releases it (BACKING_CLOSE) at RELEASE. The kernel keeps its
 * own reference: the filesystem may keep one backing fd open for all opens.
 */
#ifndef AB_FSRV_H
#define AB_FSRV_H

#include <linux/fuse.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sys/cpuset.h"

enum ab_fsrv_transport { AB_FSRV_DEV, AB_FSRV_URING };

/*
 * uring: where the thread serving a CPU's queue runs. A request's daemon
 * wake-up and its reply copy (COMMIT) happen on that thread's CPU, so this
 * trades a cross-CPU wake-up against the copy sharing the caller's CPU:
 *   QUEUE  on the queue's own CPU (the default: no cross-CPU wake-up);
 *   NEXT   on the next allowed CPU after it (wrapping; the queue's own when
 *          it is the only one): always cross-CPU, the copy off the caller's CPU;
 *   NONE   unpinned, on any allowed CPU: the scheduler decides.
 * Names in this order: AB_FSRV_URING_CPU_NAMES (for an option's choices).
 */
enum ab_fsrv_uring_cpu { AB_FSRV_URING_CPU_QUEUE, AB_FSRV_URING_CPU_NEXT, AB_FSRV_URING_CPU_NONE };
#define AB_FSRV_URING_CPU_NAMES "queue|next|none"
static inline const char *ab_fsrv_uring_cpu_name(int c)
{
	static const char *const names[] = { "queue", "next", "none" };

	return c >= 0 && c < (int)(sizeof(names) / sizeof(names[0])) ? names[c] : "?";
}
/*
 * Can uring_cpu act for ring threads that run on cpus (the allowed CPUs)? 0
 * when it can (queue, the default, always can), or -1 with why: next and none
 * with one allowed CPU.
 */
int ab_fsrv_uring_cpu_usable(int uring_cpu, const struct ab_cpuset *cpus, char *why, size_t len);

/*
 * How a serving thread waits for its next request (--daemon-wait):
 *   BLOCK  sleeps in the kernel (read() of /dev/fuse, io_uring_enter): the
 *          kernel wakes it when a request comes. The default.
 *   SPIN   after each reply keeps looking for the next request for up to
 *          spin_us microseconds (dev: non-blocking reads; uring: peeks at the
 *          completion queue), then sleeps as BLOCK does.
 *   POLL   never sleeps: looks until the filesystem is unmounted.
 * A request found while looking needs no wake-up of the server (the caller
 * still sleeps for its reply); the looking costs CPU, which ab_fsrv_cpu counts.
 * With one CPU for server and caller (one allowed CPU, placement same) spin and
 * poll still act, so they are measured, never refused as inert: the server
 * finds a request only once the caller sleeps, which saves its same-CPU sleep
 * and wake-up, and its looking takes the CPU the caller needs until the
 * scheduler preempts it. No other CPU's wake-up is saved there.
 * Names: AB_FSRV_WAIT_FORMS; ab_fsrv_wait_parse reads "block", "spin:US", "poll".
 */
enum ab_fsrv_wait { AB_FSRV_WAIT_BLOCK, AB_FSRV_WAIT_SPIN, AB_FSRV_WAIT_POLL };
#define AB_FSRV_WAIT_FORMS "block|spin:US|poll"
#define AB_FSRV_SPIN_MAX_US 1000000	/* spin:US takes 1 .. this */
struct ab_fsrv_wait_cfg {
	int mode;		/* enum ab_fsrv_wait */
	uint32_t spin_us;	/* SPIN: how long to look after each reply */
};
/*
 * "block", "spin:US" (US a decimal 1 .. AB_FSRV_SPIN_MAX_US) or "poll" into w.
 * 0, or -1 with what is wrong in err (the caller names the option).
 */
int ab_fsrv_wait_parse(const char *s, struct ab_fsrv_wait_cfg *w, char *err, size_t len);
/* The canonical form of w ("spin:50") in buf, for a record's config. */
const char *ab_fsrv_wait_name(const struct ab_fsrv_wait_cfg *w, char *buf, size_t len);

/*
 * CPU time of the serving threads, read from outside at a window's edges: the
 * server records its process's pid in the slot the caller shares with it, and
 * the caller reads that process's CPU clock (clock_getcpuclockid) before and
 * after the window; the difference is the threads' CPU time in it (the
 * process's main thread only waits for them meanwhile). No serving thread reads
 * a clock: CLOCK_THREAD_CPUTIME_ID has no vDSO, so a read per request was a
 * syscall in the timed loop, about 1 us under PTI without PCID.
 */
struct ab_fsrv_cpu {
	_Atomic int32_t pid;	/* the serving process, 0 until it serves */
} __attribute__((aligned(64)));
/* The serving process's CPU time in ns now; 0 when none serves (n: unused, kept for
 * the callers' slot arrays). */
uint64_t ab_fsrv_cpu_sum(const struct ab_fsrv_cpu *c, int n);

/* OPEN: what the handler gets and fills. */
struct ab_fsrv_open {
	uint64_t nodeid;	/* in */
	uint32_t flags;		/* in: open(2) flags (O_ACCMODE, O_TRUNC, O_APPEND ...) */
	uint32_t open_flags;	/* out: FOPEN_DIRECT_IO, FOPEN_KEEP_CACHE ... */
	uint64_t fh;		/* out: given back to read, write and release. With
				 * passthrough on, values with bit 63 set are reserved. */
	int backing_fd;		/* out: -1 (preset), or a file to pass read/write through to
				 * (cfg.passthrough only); the library sets FOPEN_PASSTHROUGH */
};

/*
 * A filesystem. Each returns 0 (or a byte count) on success, -errno on error.
 * nodeid 1 (FUSE_ROOT_ID) is the root directory. NULL handlers: lookup,
 * getattr, read, write -> ENOSYS; open -> success with fh 0; release,
 * forget -> nothing to do; statfs -> zeros with bsize 4096, namelen 255.
 */
struct ab_fsrv_ops {
	/* name in parent: fill out->nodeid (0 = cached negative entry), generation,
	 * entry_valid/attr_valid (+ _nsec: cache timeouts) and out->attr. */
	int (*lookup)(void *fs, uint64_t parent, const char *name, struct fuse_entry_out *out);
	/* fill out->attr (ino, mode, nlink, size, blocks ...) and out->attr_valid. */
	int (*getattr)(void *fs, uint64_t nodeid, struct fuse_attr_out *out);
	int (*open)(void *fs, struct ab_fsrv_open *o);
	int (*release)(void *fs, uint64_t nodeid, uint64_t fh);
	/* copy up to size bytes at off into buf: bytes copied (0 = end of file) or -errno. */
	ssize_t (*read)(void *fs, uint64_t nodeid, uint64_t fh, uint64_t off, void *buf,
			uint32_t size);
	/* Instead of read, for data already in memory that never changes while
	 * mounted: point *data at up to size bytes at off and return how many (or
	 * -errno). The library then hands them to the kernel without a copy of its
	 * own where it can: dev writes them from there, uring copies them into an
	 * entry's payload only when that payload does not hold them already. A
	 * server that produces its data (from a disk, say) has to copy it once with
	 * either transport; a server replying from memory need not with libfuse
	 * (fuse_reply_buf), and read_ref keeps ours level with it. */
	ssize_t (*read_ref)(void *fs, uint64_t nodeid, uint64_t fh, uint64_t off, const void **data,
			    uint32_t size);
	/* take size bytes at off: bytes taken or -errno. */
	ssize_t (*write)(void *fs, uint64_t nodeid, uint64_t fh, uint64_t off, const void *buf,
			 uint32_t size);
	int (*statfs)(void *fs, struct fuse_statfs_out *out);
	/* The kernel dropped nlookup references to nodeid (FORGET, BATCH_FORGET). */
	void (*forget)(void *fs, uint64_t nodeid, uint64_t nlookup);
};

struct ab_fsrv_cfg {
	enum ab_fsrv_transport transport;
	const char *fsname;	/* mount source; NULL = "affbench-fsrv". Start it with
				 * "affbench-": stale-mount cleanup removes only those */
	const char *subtype;	/* type "fuse.<subtype>"; NULL = "fuse" */
	int threads;		/* dev: serving threads (0 = 1) */
	int clone_fd;		/* dev: one cloned /dev/fuse fd per thread */
	int pin;		/* dev: pin thread i to the i-th CPU of cpus (wrapping) */
	int queue_depth;	/* uring: entries per queue (0 = 4) */
	int uring_cpu;		/* uring: enum ab_fsrv_uring_cpu (0 = QUEUE) */
	struct ab_cpuset cpus;	/* CPUs server threads may use; empty = the process's affinity */
	uint32_t max_write;	/* bytes per WRITE request (0 = 128 KiB); READ gets as much */
	int passthrough;	/* negotiate FUSE_PASSTHROUGH (root, Linux 6.9+) */
	struct ab_fsrv_wait_cfg wait;	/* how serving threads wait (zero: BLOCK) */
	struct ab_fsrv_cpu *cpu;	/* serving threads' CPU time, or NULL: not counted */
	int ncpu;			/* slots at cpu */
};

/*
 * The daemon body: run it in its own process (ab_daemon_start's run function)
 * and exit with what it returns. Mounts at mnt (mount(2) with fd=, no
 * fusermount: root), answers INIT, serves until the filesystem is unmounted
 * or its connection aborted, and never leaves its mount behind when it fails.
 * Returns AB_EXIT_OK after an unmount, AB_EXIT_FAIL on failure and
 * AB_EXIT_SKIP when the kernel lacks what cfg asks for (io_uring refused,
 * no passthrough), each failure after one message line. After a failure,
 * threads may still be blocked in the kernel: the process must exit.
 */
int ab_fsrv_serve(const char *mnt, const struct ab_fsrv_ops *ops, void *fs,
		  const struct ab_fsrv_cfg *cfg);

/*
 * For the parent, before mounting: can this machine serve with transport t
 * (and passthrough)? 0 when it can (uring: once ab_fsrv_uring_enable has
 * run), or -1 with the reason in why: not root, no /dev/fuse, no
 * enable_uring parameter (kernel older than 6.14 or CONFIG_FUSE_IO_URING
 * off), io_uring disabled (/proc/sys/kernel/io_uring_disabled), io_uring
 * without SQE128, kernel FUSE protocol without passthrough (asks the kernel
 * with a throwaway mount in a private mount namespace). The test hook
 * AFFBENCH_FSRV_FORCE=nouring (or nopassthrough) reports it missing.
 */
int ab_fsrv_check(enum ab_fsrv_transport t, int passthrough, char *why, size_t len);

/*
 * enable_uring=Y through the knob journal (ab_knob_init must have run): the
 * knob module puts the old value back at exit or on a signal, and replays
 * the journal after a SIGKILL. 0, or -1 with a message in err.
 */
#define AB_FSRV_URING_PARAM "/sys/module/fuse/parameters/enable_uring"
int ab_fsrv_uring_enable(char *err, size_t len);

#endif
