/* SPDX-License-Identifier: GPL-2.0 */
/* Layouts shared by kstats.bpf.c and kstats.c. */
#ifndef AB_KSTATS_SHARED_H
#define AB_KSTATS_SHARED_H

#define KS_MAX_OP 64		/* FUSE opcodes we keep apart (others fold into 0) */

struct ks_op_stat {
	__u64 count;
	__u64 sum_ns;
	__u64 same_cpu;		/* ended on the CPU that queued it */
};

struct ks_lock_stat {
	__u64 count;
	__u64 wait_ns;
	__u64 max_ns;
};

#endif
