// SPDX-License-Identifier: GPL-2.0
/*
 * User-space half of kstats: load the BPF skeleton, point it at one FUSE
 * connection and a set of processes, zero and read the per-CPU aggregates.
 * Built as a stub that explains itself when clang, bpftool or libbpf are
 * missing (AB_HAVE_BPF unset).
 */
#include "kstats/kstats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "record/stats.h"

struct ab_kstats *ab_kstats_for_mode(int mode, int quiet)
{
	struct ab_kstats *ks = NULL;
	char why[512];

	if (mode == AB_KSTATS_OFF || ab_kstats_open(&ks, why, sizeof(why)) == 0)
		return ks;
	if (mode == AB_KSTATS_ON)
		ab_skip("--kstats on: kernel statistics %s", why);
	if (!quiet)
		ab_msg("kernel statistics %s: kernel_* metrics not written", why);
	return NULL;
}

#ifndef AB_HAVE_BPF

#ifndef AB_KSTATS_WHY
#define AB_KSTATS_WHY \
	"built without BPF support (install clang, llvm, libbpf-dev and bpftool, then rebuild)"
#endif

const char *ab_kstats_built(void)
{
	return "unavailable: " AB_KSTATS_WHY;
}

int ab_kstats_open(struct ab_kstats **ks, char *why, size_t whylen)
{
	*ks = NULL;
	return ab_err(why, whylen, "%s", ab_kstats_built());
}
int ab_kstats_set_conn(struct ab_kstats *ks, int conn) { (void)ks; (void)conn; return -1; }
int ab_kstats_attach(struct ab_kstats *ks) { (void)ks; return -1; }
void ab_kstats_detach(struct ab_kstats *ks) { (void)ks; }
int ab_kstats_add_pid(struct ab_kstats *ks, pid_t tgid) { (void)ks; (void)tgid; return -1; }
int ab_kstats_clear_pids(struct ab_kstats *ks) { (void)ks; return -1; }
int ab_kstats_reset(struct ab_kstats *ks) { (void)ks; return -1; }
int ab_kstats_read(struct ab_kstats *ks, struct ab_kstats_result *r)
{
	(void)ks; (void)r;
	return -1;
}
int ab_kstats_add_caller(struct ab_kstats *ks, pid_t tgid) { (void)ks; (void)tgid; return -1; }
int ab_kstats_read_brk(struct ab_kstats *ks, struct ab_breakdown_result *r)
{
	(void)ks; (void)r;
	return -1;
}
int ab_kstats_brk_window(struct ab_kstats *ks, int on) { (void)ks; (void)on; return -1; }
int ab_kstats_brk_pipe(struct ab_kstats *ks, int on) { (void)ks; (void)on; return -1; }
const char *ab_kstats_brk_why(const struct ab_kstats *ks) { (void)ks; return ab_kstats_built(); }
void ab_kstats_close(struct ab_kstats *ks) { (void)ks; }

#else

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "kstats/breakdown_i.h"
#include "kstats/kstats_bpf_i.h"
#include "kstats.skel.h"

static const char *forced(void)
{
	return ab_test_hook("AFFBENCH_KSTATS_FORCE");
}

struct ab_kstats {
	struct kstats_bpf *skel;
	int ncpus;
	struct ab_breakdown *brk;	/* the request breakdown; NULL: brk_why says why not */
	char brk_why[256];
	int brk_lost;		/* a server pid it could not take since the last clear */
};

const char *ab_kstats_built(void)
{
	return NULL;
}

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level; (void)fmt; (void)ap;
	return 0;
}

static int tracepoint_exists(const char *group, const char *name)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events",
					     "/sys/kernel/debug/tracing/events" };
	char path[256];

	for (size_t i = 0; i < AB_ARRAY_SIZE(roots); i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", roots[i], group, name);
		if (access(path, F_OK) == 0)
			return 1;
	}
	/* tracefs not mounted: we cannot tell, let the attach decide */
	return access("/sys/kernel/tracing/events", F_OK) != 0 ? -1 : 0;
}

static void open_brk(struct ab_kstats *ks, const char *f);

int ab_kstats_open(struct ab_kstats **out, char *why, size_t whylen)
{
	static const char *const tps[][2] = {
		{ "fuse", "fuse_request_send" }, { "fuse", "fuse_request_end" },
		{ "lock", "contention_begin" }, { "lock", "contention_end" },
	};
	const char *f = forced();
	struct ab_kstats *ks;
	int err;

	*out = NULL;
	/* Forced paths first, so tests take each one whoever runs them. */
	if (f && !strcmp(f, "nobpf"))
		return ab_err(why, whylen,
			      "unavailable: built without BPF support (forced by AFFBENCH_KSTATS_FORCE)");
	if (f && !strcmp(f, "notracepoint"))
		return ab_err(why, whylen, "skipped: tracepoint fuse:fuse_request_send missing (forced by "
			      "AFFBENCH_KSTATS_FORCE)");
	if (geteuid() != 0 || (f && !strcmp(f, "eperm")))
		return ab_err(why, whylen, "skipped: loading BPF needs root (run as root)%s",
			      f ? " (forced by AFFBENCH_KSTATS_FORCE)" : "");
	for (size_t i = 0; i < AB_ARRAY_SIZE(tps); i++) {
		if (!tracepoint_exists(tps[i][0], tps[i][1]))
			return ab_err(why, whylen,
				      "skipped: tracepoint %s:%s missing (FUSE tracepoints need Linux >= 6.12, "
				      "lock tracepoints Linux >= 5.19)%s",
				      tps[i][0], tps[i][1], f ? " (forced by AFFBENCH_KSTATS_FORCE)" : "");
	}

	libbpf_set_print(quiet_print);
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return ab_err(why, whylen, "skipped: out of memory");
	ks->ncpus = libbpf_num_possible_cpus();
	ks->skel = kstats_bpf__open_and_load();
	if (!ks->skel) {
		err = errno;
		free(ks);
		return ab_err(why, whylen, "skipped: BPF load refused: %s", strerror(err));
	}
	/* One attach and detach now: a kernel that refuses the tracepoints says so here. */
	err = kstats_bpf__attach(ks->skel);
	if (err) {
		kstats_bpf__destroy(ks->skel);
		free(ks);
		return ab_err(why, whylen, "skipped: attaching tracepoints failed: %s", strerror(-err));
	}
	kstats_bpf__detach(ks->skel);
	open_brk(ks, f);
	*out = ks;
	return 0;
}

/* The breakdown is a second program: without it kstats still counts, and says why. */
static void open_brk(struct ab_kstats *ks, const char *f)
{
	char why[200];

	if (f && !strcmp(f, "nobrk"))
		snprintf(ks->brk_why, sizeof(ks->brk_why), "the request breakdown is unavailable "
			 "(forced by AFFBENCH_KSTATS_FORCE)");
	else if (ab_breakdown_open(&ks->brk, why, sizeof(why)) < 0)
		snprintf(ks->brk_why, sizeof(ks->brk_why), "the request breakdown is unavailable: %s", why);
}

const char *ab_kstats_brk_why(const struct ab_kstats *ks)
{
	return ks->brk ? NULL : ks->brk_why;
}

int ab_kstats_attach(struct ab_kstats *ks)
{
	if (kstats_bpf__attach(ks->skel))
		return -1;
	if (ks->brk && ab_breakdown_attach(ks->brk) < 0) {
		kstats_bpf__detach(ks->skel);
		return -1;
	}
	return 0;
}

void ab_kstats_detach(struct ab_kstats *ks)
{
	kstats_bpf__detach(ks->skel);
	if (ks->brk)
		ab_breakdown_detach(ks->brk);
}

int ab_kstats_set_conn(struct ab_kstats *ks, int conn)
{
	ks->skel->bss->target_conn = conn > 0 ? (__u32)conn : 0;
	if (ks->brk)
		ab_breakdown_set_conn(ks->brk, conn);
	return 0;
}

int ab_kstats_add_caller(struct ab_kstats *ks, pid_t tgid)
{
	return ks->brk ? ab_breakdown_add(ks->brk, tgid, 2) : -1;
}

int ab_kstats_brk_pipe(struct ab_kstats *ks, int on)
{
	if (!ks->brk || ks->brk_lost)
		return -1;
	ab_breakdown_set_pipe(ks->brk, on);
	return 0;
}

int ab_kstats_brk_window(struct ab_kstats *ks, int on)
{
	return ks->brk && !ks->brk_lost ? ab_breakdown_window(ks->brk, on) : -1;
}

int ab_kstats_read_brk(struct ab_kstats *ks, struct ab_breakdown_result *r)
{
	return ks->brk && !ks->brk_lost ? ab_breakdown_read(ks->brk, r) : -1;
}

int ab_kstats_add_pid(struct ab_kstats *ks, pid_t tgid)
{
	__u32 k = (__u32)tgid;
	__u8 one = 1;

	if (bpf_map__update_elem(ks->skel->maps.pids, &k, sizeof(k), &one, sizeof(one), BPF_ANY) < 0) {
		errno = errno == ENOSPC || errno == E2BIG ? E2BIG : errno;
		return -1;
	}
	/* A server to the breakdown, unless a caller; a process it could not take makes its
	 * figures unknown, not the spinlock figures. */
	if (ks->brk && ab_breakdown_add(ks->brk, tgid, 1) < 0)
		ks->brk_lost = 1;
	return 0;
}

int ab_kstats_clear_pids(struct ab_kstats *ks)
{
	int rc = ab_bpf_map_clear(ks->skel->maps.pids);

	if (ks->brk && ab_breakdown_clear(ks->brk) < 0)
		rc = -1;
	ks->brk_lost = 0;
	return rc;
}

int ab_kstats_reset(struct ab_kstats *ks)
{
	return ab_bpf_map_zero(ks->skel->maps.ops, KS_MAX_OP, sizeof(struct ks_op_stat),
			       ks->ncpus) |
	       ab_bpf_map_zero(ks->skel->maps.locks, 1, sizeof(struct ks_lock_stat), ks->ncpus) |
	       (ks->brk ? ab_breakdown_reset(ks->brk) : 0);
}

int ab_kstats_read(struct ab_kstats *ks, struct ab_kstats_result *r)
{
	struct ks_op_stat *v = calloc(ks->ncpus, sizeof(*v));
	struct ks_lock_stat *l = calloc(ks->ncpus, sizeof(*l));
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!v || !l)
		goto out;
	_Static_assert(KS_MAX_OP <= sizeof(r->op) / sizeof(r->op[0]),
		       "the BPF map keeps more opcodes than ab_kstats_result holds");
	for (__u32 k = 0; k < KS_MAX_OP; k++) {
		struct ab_kstats_op *o = &r->op[k];

		if (bpf_map__lookup_elem(ks->skel->maps.ops, &k, sizeof(k), v, sizeof(*v) * ks->ncpus, 0))
			goto out;
		for (int c = 0; c < ks->ncpus; c++) {
			o->count += v[c].count;
			o->same_cpu += v[c].same_cpu;
			o->sum_ns += (double)v[c].sum_ns;
		}
		r->requests += o->count;
		r->same_cpu += o->same_cpu;
		r->req_ns += o->sum_ns;
	}
	__u32 zero = 0;
	if (bpf_map__lookup_elem(ks->skel->maps.locks, &zero, sizeof(zero), l, sizeof(*l) * ks->ncpus, 0))
		goto out;
	for (int c = 0; c < ks->ncpus; c++) {
		r->spin_count += l[c].count;
		r->spin_wait_ns += (double)l[c].wait_ns;
		if ((double)l[c].max_ns > r->spin_max_ns)
			r->spin_max_ns = (double)l[c].max_ns;
	}
	ret = 0;
out:
	free(v);
	free(l);
	return ret;
}

void ab_kstats_close(struct ab_kstats *ks)
{
	if (!ks)
		return;
	ab_breakdown_close(ks->brk);
	kstats_bpf__destroy(ks->skel);
	free(ks);
}

#endif
