/* Layouts shared by kstats.bpf.c and kstats.c. */
#ifndef AB_KSTATS_SHARED_H
#define AB_KSTATS_SHARED_H

#define KS_MAX_OP 64		/* FUSE opcodes we keep apart (others fold into 0) */
#define KS_HBUCKETS 40		/* log2 ns buckets: up to ~18 minutes */

struct ks_op_stat {
	__u64 count;
	__u64 sum_ns;
	__u64 same_cpu;		/* ended on the CPU that queued it */
	__u64 hist[KS_HBUCKETS];
};

struct ks_lock_stat {
	__u64 count;
	__u64 wait_ns;
	__u64 max_ns;
};

#endif
