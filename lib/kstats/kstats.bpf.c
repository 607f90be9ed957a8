// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-side aggregation for lib/kstats: FUSE request count and summed lifetime by opcode,
 * the CPU that queued vs the CPU that ended each request, and spinlock
 * contention of the processes under measurement. Everything is summed in
 * per-CPU maps so the probes add no shared cache-line traffic of their own.
 *
 * fuse:fuse_request_send / fuse:fuse_request_end (Linux >= 6.12), paired on
 * (connection, unique); lock:contention_begin / lock:contention_end, with
 * flags bit 0 marking a spinlock (the approach of perf lock contention -b).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "kstats/kstats_bpf_i.h"

#define LCB_F_SPIN 1u

/* Set by user space after the mount exists: only this connection counts (0 = all). */
__u32 target_conn = 0;

/*
 * Requests in flight, in an array indexed by their unique id: an array lookup
 * is a pointer computation the verifier inlines, where a hash map costs a
 * hash, a bucket walk and an allocation per request; on a stat() loop that
 * difference is the probe's overhead. FUSE ids advance by 2 per request, so
 * KS_SLOTS slots hold that many requests in flight before two could share a
 * slot, and the end probe checks the id before it trusts a slot.
 */
#define KS_SLOTS 65536

struct req_slot {
	__u64 unique;		/* 0: free */
	__u64 ts;
	__u32 conn;
	__u32 cpu;
	__u32 opcode;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KS_SLOTS);
	__type(key, __u32);
	__type(value, struct req_slot);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KS_MAX_OP);
	__type(key, __u32);
	__type(value, struct ks_op_stat);
} ops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);	/* AB_KSTATS_MAX_PIDS */
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);	/* thread id */
	__type(value, __u64);	/* wait start */
} lock_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ks_lock_stat);
} locks SEC(".maps");

static __always_inline __u32 slot_of(__u64 unique)
{
	return (__u32)(unique >> 1) & (KS_SLOTS - 1);
}

/* Raw (BTF) tracepoints: the probe gets the struct fuse_req itself, with no
 * trace buffer to fill, which is the cheaper path of the two. */
SEC("tp_btf/fuse_request_send")
int BPF_PROG(ks_fuse_send, const struct fuse_req *req)
{
	__u32 conn = req->fm->fc->dev;	/* BTF pointers: plain loads, no helper calls */
	__u64 unique = req->in.h.unique;
	__u32 k = slot_of(unique);
	struct req_slot *s;

	if (target_conn && conn != target_conn)
		return 0;
	s = bpf_map_lookup_elem(&inflight, &k);
	if (!s)
		return 0;
	s->ts = bpf_ktime_get_ns();
	s->conn = conn;
	s->cpu = bpf_get_smp_processor_id();
	s->opcode = req->in.h.opcode;
	s->unique = unique;
	return 0;
}

SEC("tp_btf/fuse_request_end")
int BPF_PROG(ks_fuse_end, const struct fuse_req *req)
{
	__u32 conn = req->fm->fc->dev;
	__u64 unique = req->in.h.unique;
	__u32 k = slot_of(unique), op;
	struct req_slot *r;
	struct ks_op_stat *s;
	__u64 d;

	if (target_conn && conn != target_conn)
		return 0;
	r = bpf_map_lookup_elem(&inflight, &k);
	if (!r || r->unique != unique || r->conn != conn)
		return 0;
	d = bpf_ktime_get_ns() - r->ts;
	op = r->opcode < KS_MAX_OP ? r->opcode : 0;
	s = bpf_map_lookup_elem(&ops, &op);
	if (s) {
		s->count++;
		s->sum_ns += d;
		if (r->cpu == bpf_get_smp_processor_id())
			s->same_cpu++;
	}
	r->unique = 0;
	return 0;
}

SEC("tp_btf/contention_begin")
int BPF_PROG(ks_lock_begin, void *lock, unsigned int flags)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	__u64 now;

	if (!(flags & LCB_F_SPIN))
		return 0;
	if (!bpf_map_lookup_elem(&pids, &tgid))	/* only the processes under measurement */
		return 0;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&lock_start, &tid, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(ks_lock_end, void *lock, int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	__u64 *start = bpf_map_lookup_elem(&lock_start, &tid);
	struct ks_lock_stat *s;
	__u64 d;

	if (!start)
		return 0;
	d = bpf_ktime_get_ns() - *start;
	bpf_map_delete_elem(&lock_start, &tid);
	s = bpf_map_lookup_elem(&locks, &zero);
	if (s) {
		s->count++;
		s->wait_ns += d;
		if (d > s->max_ns)
			s->max_ns = d;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
