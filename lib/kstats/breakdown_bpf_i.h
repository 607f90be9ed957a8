/* SPDX-License-Identifier: GPL-2.0 */
/* Layouts shared by breakdown.bpf.c and breakdown.c (the request breakdown). */
#ifndef AB_BREAKDOWN_SHARED_H
#define AB_BREAKDOWN_SHARED_H

/* The steps of a call, in order; BRK_CALL is the whole call (its histogram only). */
enum brk_step { BRK_SUBMIT, BRK_DWAKE, BRK_SERVICE, BRK_RWAKE, BRK_RETURN, BRK_NSTEPS };
#define BRK_CALL BRK_NSTEPS
#define BRK_NHIST (BRK_NSTEPS + 1)

/* The wake-ups we follow. */
enum brk_wake { BRK_W_DAEMON, BRK_W_REPLY, BRK_NWAKES };

/* Same bucket layout as struct ab_hist (lib/record/stats.h); breakdown.c asserts it. */
#define BRK_HIST_SUB_BITS 5
#define BRK_HIST_SUB (1u << BRK_HIST_SUB_BITS)
#define BRK_HIST_BUCKETS ((64 - BRK_HIST_SUB_BITS + 1) * BRK_HIST_SUB)

struct brk_hist {
	__u64 b[BRK_HIST_BUCKETS];
};

struct brk_sums {
	__u64 calls;			/* syscalls that sent at least one FUSE request */
	__u64 requests;			/* the requests those calls sent */
	__u64 step_ns[BRK_NSTEPS];
	__u64 wakes[BRK_NWAKES];	/* the target slept and was woken */
	__u64 cross[BRK_NWAKES];	/* ... by a CPU other than the one it then ran on */
	__u64 idle[BRK_NWAKES];		/* ... onto a CPU that was idle */
};

/* Roles of the processes (tgids) under measurement. */
#define BRK_ROLE_SERVER 1
#define BRK_ROLE_CALLER 2

#endif
