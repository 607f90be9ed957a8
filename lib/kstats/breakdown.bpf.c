// SPDX-License-Identifier: GPL-2.0
/*
 * Where a FUSE call's time goes (lib/kstats/breakdown.h): each syscall of a caller
 * process is followed from raw_syscalls:sys_enter to sys_exit, through the
 * events that split it into steps:
 *
 *   submit       sys_enter .. fuse:fuse_request_send (in the caller)
 *   daemon wake  .. the server thread the caller woke is switched in
 *   service      .. fuse:fuse_request_end (the reply, written to /dev/fuse or
 *                   committed on the ring, ends the request)
 *   reply wake   .. the caller, woken by the reply, is switched in
 *   return       .. sys_exit
 *
 * The steps are consecutive intervals of one clock, so they add up to the
 * call exactly; every transition charges the time since the previous one to
 * the step it leaves. A server thread that was not asleep (it was already
 * running when the request came) gives no wake-up: its daemon wake lasts
 * until the caller hands its CPU to a server thread (a runnable server
 * behind the caller on a shared CPU), or is 0 when no such switch comes before
 * the reply (a server already running elsewhere). A caller that had not yet
 * slept when the reply came likewise has no wake-up and a reply wake of 0. A wake-up is
 * "cross" when the waking CPU is not the one the target then ran on, "idle"
 * when that CPU switched from its idle task.
 *
 * A call that sends several requests (a large read) charges the time between
 * a reply and the next request to submit. Calls that sent no request are not
 * counted.
 *
 * With pipe_mode (cputestfs's pipe baseline, the same steps without FUSE) a
 * call is a caller's write of its request and its read of the reply, two
 * syscalls: the request is queued when the write wakes the server (or, with
 * none asleep, when the write returns), and the reply is the server's wake-up
 * of the caller (or, with the caller not asleep, the return of the server's
 * write).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "kstats/breakdown_bpf_i.h"

__u32 target_conn = 0;	/* only this FUSE connection (0: all) */
/* Calls that enter while this is set are counted when they exit, even after it is
 * cleared: a window of calls by their start, as the benchmark's own clients time them. */
__u32 counting = 0;
/* The pipe baseline (see above), and the syscall numbers it needs (set by breakdown.c). */
__u32 pipe_mode = 0;
__s64 nr_read = -1, nr_write = -1;

struct call {
	__u64 t_last;		/* time of the last transition */
	__u64 unique;		/* the request the caller waits for */
	__u64 acc[BRK_NSTEPS];
	__u32 step;		/* the step the caller is in */
	__u32 active;		/* inside a syscall */
	__u32 nreq;
	__u32 waker_cpu;	/* of the pending wake-up */
	__u32 woken;		/* the pending step's target was woken */
	__u32 dtid;		/* the server thread woken for this request */
	__u32 counted;		/* entered while counting */
	__s64 sysno;		/* the syscall it is in (pipe_mode) */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);	/* tgid */
	__type(value, __u8);	/* BRK_ROLE_* */
} roles SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);	/* caller thread id */
	__type(value, struct call);
} calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);	/* server thread id */
	__type(value, __u32);	/* the caller that woke it */
} dwait SEC(".maps");

/* pipe_mode: the syscall each server thread is in, and the caller it serves. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);	/* server thread id */
	__type(value, __s64);
} srv_sys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);	/* server thread id */
	__type(value, __u32);	/* the caller whose request it took */
} serving SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BRK_NHIST);
	__type(key, __u32);
	__type(value, struct brk_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct brk_sums);
} sums SEC(".maps");

/* struct ab_hist's bucket, without __builtin_clzll (BPF has no such instruction). */
static __always_inline __u32 bucket(__u64 v)
{
	__u32 e = 0;
	__u64 x = v;

	if (v < BRK_HIST_SUB)
		return (__u32)v;
	if (x >> 32) { x >>= 32; e += 32; }
	if (x >> 16) { x >>= 16; e += 16; }
	if (x >> 8) { x >>= 8; e += 8; }
	if (x >> 4) { x >>= 4; e += 4; }
	if (x >> 2) { x >>= 2; e += 2; }
	if (x >> 1) e += 1;
	return (e - BRK_HIST_SUB_BITS + 1) * BRK_HIST_SUB +
	       ((__u32)(v >> (e - BRK_HIST_SUB_BITS)) & (BRK_HIST_SUB - 1));
}

static __always_inline void hist_add(__u32 k, __u64 v)
{
	struct brk_hist *h = bpf_map_lookup_elem(&hists, &k);
	__u32 b = bucket(v);

	if (h && b < BRK_HIST_BUCKETS)
		h->b[b]++;
}

/* Charge the time since the last transition to `to`, and enter step `next`. */
static __always_inline void move(struct call *c, __u32 to, __u32 next, __u64 now)
{
	/* The caller's and the server's CPUs both move a call: one may read its clock just
	 * before the other stores a later t_last. A step is then 0 ns, never 2^64 less a
	 * little (which landed in the histogram's top bucket: a max of 1.8e19 ns). */
	if (to < BRK_NSTEPS) {
		__u64 *acc = &c->acc[to];	/* indexed right after its bound: the verifier
						 * refuses a copy of `to` checked apart */
		if (now > c->t_last)
			*acc += now - c->t_last;
	}
	c->t_last = now;
	c->step = next;
	c->woken = 0;
}

static __always_inline void count_wake(const struct call *c, __u32 w, int cross, int idle)
{
	__u32 zero = 0;
	struct brk_sums *s = bpf_map_lookup_elem(&sums, &zero);

	if (!s || w >= BRK_NWAKES || !c->counted)
		return;
	s->wakes[w]++;
	s->cross[w] += cross;
	s->idle[w] += idle;
}

static __always_inline int is_role(__u32 tgid, __u8 role)
{
	__u8 *r = bpf_map_lookup_elem(&roles, &tgid);

	return r && *r == role;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(brk_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pt;
	struct call *c = bpf_map_lookup_elem(&calls, &tid);
	__s64 nr = id;

	if (pipe_mode && !c && is_role(pt >> 32, BRK_ROLE_SERVER)) {
		bpf_map_update_elem(&srv_sys, &tid, &nr, BPF_ANY);
		return 0;
	}
	/* A round trip over pipes goes on through the caller's read; only a write starts one. */
	if (pipe_mode && c && c->active && nr == nr_read) {
		c->sysno = nr;
		return 0;
	}
	if (pipe_mode && nr != nr_write)
		return 0;
	if (!c) {
		struct call fresh = {};

		if (!is_role(pt >> 32, BRK_ROLE_CALLER))
			return 0;
		bpf_map_update_elem(&calls, &tid, &fresh, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&calls, &tid);
		if (!c)
			return 0;
	}
	__builtin_memset(c->acc, 0, sizeof(c->acc));
	c->t_last = bpf_ktime_get_ns();
	c->step = BRK_SUBMIT;
	c->active = 1;
	c->woken = 0;
	c->counted = counting;
	c->sysno = nr;
	c->nreq = pipe_mode ? 1 : 0;	/* a pipe's request is its write */
	return 0;
}

/* pipe_mode: the server's write returned; if its caller was not woken by it, that is the reply. */
static __always_inline void pipe_server_exit(__u32 tid)
{
	__s64 *nr = bpf_map_lookup_elem(&srv_sys, &tid);
	__u32 *caller;
	struct call *c;

	if (!nr || *nr != nr_write)
		return;
	caller = bpf_map_lookup_elem(&serving, &tid);
	if (!caller)
		return;
	__u32 ctid = *caller;
	c = bpf_map_lookup_elem(&calls, &ctid);
	if (c && c->active && c->step == BRK_SERVICE)
		move(c, BRK_SERVICE, BRK_RWAKE, bpf_ktime_get_ns());
}

SEC("tp_btf/sys_exit")
int BPF_PROG(brk_sys_exit, struct pt_regs *regs, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct call *c = bpf_map_lookup_elem(&calls, &tid);
	struct brk_sums *s;
	__u64 total = 0;

	if (pipe_mode && !c) {
		pipe_server_exit(tid);
		return 0;
	}
	if (!c || !c->active)
		return 0;
	/* The request is in the pipe: queued, whether or not it woke a server. */
	if (pipe_mode && c->sysno == nr_write) {
		if (c->step == BRK_SUBMIT)
			move(c, BRK_SUBMIT, BRK_DWAKE, bpf_ktime_get_ns());
		return 0;
	}
	c->active = 0;
	if (!c->nreq || !c->counted)
		return 0;
	/* Not woken by the reply: the caller never slept, the rest is its return. */
	move(c, c->step == BRK_RWAKE ? BRK_RETURN : c->step, BRK_SUBMIT, bpf_ktime_get_ns());
	s = bpf_map_lookup_elem(&sums, &zero);
	if (!s)
		return 0;
	s->calls++;
	s->requests += c->nreq;
	for (__u32 i = 0; i < BRK_NSTEPS; i++) {
		s->step_ns[i] += c->acc[i];
		total += c->acc[i];
		hist_add(i, c->acc[i]);
	}
	hist_add(BRK_CALL, total);
	return 0;
}

SEC("tp_btf/fuse_request_send")
int BPF_PROG(brk_fuse_send, const struct fuse_req *req)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct call *c;

	if (target_conn && req->fm->fc->dev != target_conn)
		return 0;
	c = bpf_map_lookup_elem(&calls, &tid);
	if (!c || !c->active)
		return 0;
	/* After a reply, the way to the next request of the same call is submit again. */
	move(c, c->step == BRK_RETURN || c->step == BRK_RWAKE ? BRK_SUBMIT : c->step, BRK_DWAKE,
	     bpf_ktime_get_ns());
	c->unique = req->in.h.unique;
	c->nreq++;
	return 0;
}

SEC("tp_btf/fuse_request_end")
int BPF_PROG(brk_fuse_end, const struct fuse_req *req)
{
	__u32 tid = req->in.h.pid;	/* the caller's thread id, as the server sees it */
	struct call *c;

	if (target_conn && req->fm->fc->dev != target_conn)
		return 0;
	c = bpf_map_lookup_elem(&calls, &tid);
	if (!c || !c->active || c->unique != req->in.h.unique)
		return 0;
	/* No server thread switched in since the request: it was running, all of it is service. */
	if (c->step == BRK_DWAKE) {
		if (c->woken)
			bpf_map_delete_elem(&dwait, &c->dtid);
		c->step = BRK_SERVICE;
	}
	if (c->step == BRK_SERVICE)
		move(c, BRK_SERVICE, BRK_RWAKE, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(brk_waking, struct task_struct *p)
{
	__u32 me = (__u32)bpf_get_current_pid_tgid(), target = p->pid;
	struct call *c;

	/* The reply wakes its caller. */
	c = bpf_map_lookup_elem(&calls, &target);
	/* Over pipes the wake-up is the reply: the server's write woke the caller. */
	if (pipe_mode && c && c->active && is_role(bpf_get_current_pid_tgid() >> 32, BRK_ROLE_SERVER) &&
	    (c->step == BRK_SERVICE || c->step == BRK_DWAKE)) {
		if (c->step == BRK_DWAKE && c->woken)
			bpf_map_delete_elem(&dwait, &c->dtid);
		move(c, c->step, BRK_RWAKE, bpf_ktime_get_ns());
	}
	if (c && c->active && c->step == BRK_RWAKE && !c->woken) {
		c->woken = 1;
		c->waker_cpu = bpf_get_smp_processor_id();
		return 0;
	}
	/* The caller, with its request queued, wakes a server thread (over pipes: this queues it). */
	c = bpf_map_lookup_elem(&calls, &me);
	if (!c || !c->active || !is_role(p->tgid, BRK_ROLE_SERVER))
		return 0;
	if (pipe_mode && c->step == BRK_SUBMIT)
		move(c, BRK_SUBMIT, BRK_DWAKE, bpf_ktime_get_ns());
	if (c->step != BRK_DWAKE || c->woken)
		return 0;
	c->woken = 1;
	c->waker_cpu = bpf_get_smp_processor_id();
	c->dtid = target;
	bpf_map_update_elem(&dwait, &target, &me, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(brk_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 tid = next->pid, cpu = bpf_get_smp_processor_id();
	int idle = prev->pid == 0;	/* this CPU ran its idle task */
	__u32 *caller;
	struct call *c;

	/* A caller that queued its request and found no server asleep (one was runnable behind
	 * it, as on a shared CPU) gives its CPU to that server now: the server is on a CPU. */
	__u32 ptid = prev->pid;
	c = bpf_map_lookup_elem(&calls, &ptid);
	if (c && c->active && c->step == BRK_DWAKE && !c->woken && is_role(next->tgid, BRK_ROLE_SERVER)) {
		move(c, BRK_DWAKE, BRK_SERVICE, bpf_ktime_get_ns());
		if (pipe_mode)
			bpf_map_update_elem(&serving, &tid, &ptid, BPF_ANY);
		return 0;
	}
	c = bpf_map_lookup_elem(&calls, &tid);
	if (c && c->active && c->step == BRK_RWAKE && c->woken) {
		count_wake(c, BRK_W_REPLY, c->waker_cpu != cpu, idle);
		move(c, BRK_RWAKE, BRK_RETURN, bpf_ktime_get_ns());
		return 0;
	}
	caller = bpf_map_lookup_elem(&dwait, &tid);
	if (!caller)
		return 0;
	__u32 ctid = *caller;
	bpf_map_delete_elem(&dwait, &tid);
	c = bpf_map_lookup_elem(&calls, &ctid);
	if (!c || !c->active || c->step != BRK_DWAKE || !c->woken || c->dtid != tid)
		return 0;
	count_wake(c, BRK_W_DAEMON, c->waker_cpu != cpu, idle);
	move(c, BRK_DWAKE, BRK_SERVICE, bpf_ktime_get_ns());
	if (pipe_mode)
		bpf_map_update_elem(&serving, &tid, &ctid, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
