// SPDX-License-Identifier: GPL-2.0
/*
 * The request breakdown's user-space half: load breakdown.bpf.c, name its
 * processes, read and zero its per-CPU sums and histograms; and, with or
 * without BPF, turn two reads into the brk_* records.
 */
#include "kstats/breakdown.h"
#include "kstats/breakdown_i.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/histio.h"
#include "sys/common.h"

const char *const ab_breakdown_step_names[AB_BREAKDOWN_STEPS] = {
	"submit", "daemon_wake", "service", "reply_wake", "return",
};
const char *const ab_breakdown_wake_names[AB_BREAKDOWN_WAKES] = { "daemon", "reply" };

const char *ab_breakdown_step_name(int step)
{
	return step >= 0 && step < AB_BREAKDOWN_STEPS ? ab_breakdown_step_names[step] : "?";
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : NAN;
}

double ab_breakdown_hist_mean(const struct ab_hist *h)
{
	double sum = 0, n = 0;

	for (unsigned i = 0; i < AB_HIST_BUCKETS; i++) {
		sum += (double)h->b[i] * ab_hist_bucket_mid(i);
		n += (double)h->b[i];
	}
	return n > 0 ? sum / n : NAN;
}

int ab_breakdown_metrics(const struct ab_breakdown_result *r, struct ab_breakdown_metrics *m)
{
	double total = 0;

	if (!r->calls)
		return -1;
	for (int i = 0; i < AB_BREAKDOWN_STEPS; i++)
		total += r->step_ns[i];
	m->calls = (double)r->calls;
	m->call_ns = total / (double)r->calls;
	m->call_p50 = ab_hist_percentile(&r->hist[AB_BREAKDOWN_STEPS], 50);
	m->call_p99 = ab_hist_percentile(&r->hist[AB_BREAKDOWN_STEPS], 99);
	m->call_p90 = ab_hist_percentile(&r->hist[AB_BREAKDOWN_STEPS], 90);
	m->call_p999 = ab_hist_percentile(&r->hist[AB_BREAKDOWN_STEPS], 99.9);
	m->call_max = ab_hist_max(&r->hist[AB_BREAKDOWN_STEPS]);
	memcpy(m->hist, r->hist, sizeof(m->hist));
	for (int i = 0; i < AB_BREAKDOWN_STEPS; i++) {
		m->p50[i] = ab_hist_percentile(&r->hist[i], 50);
		m->p99[i] = ab_hist_percentile(&r->hist[i], 99);
		m->p90[i] = ab_hist_percentile(&r->hist[i], 90);
		m->p999[i] = ab_hist_percentile(&r->hist[i], 99.9);
		m->max[i] = ab_hist_max(&r->hist[i]);
		m->share[i] = total > 0 ? 100.0 * r->step_ns[i] / total : NAN;
	}
	for (int w = 0; w < AB_BREAKDOWN_WAKES; w++) {
		m->per_call[w] = (double)r->wakes[w] / (double)r->calls;
		m->cross_pct[w] = pct(r->cross[w], r->wakes[w]);
		m->idle_pct[w] = pct(r->idle[w], r->wakes[w]);
	}
	m->loop_ns = m->client_ns = m->calls_per_s = NAN;
	return 0;
}

/*
 * What the clients' clock saw outside the five steps: the syscall's entry before the
 * first probe and its exit after the last (dearer under PTI), and the clock reads
 * themselves. client_ns - call_ns, so that steps + outside = the client's time by
 * construction; 0 where the difference lies within the clients' histogram's
 * resolution below zero (its mean is within 1/64 of the truth); NAN when either
 * side is unknown.
 */
static double ab_breakdown_outside_ns(const struct ab_breakdown_metrics *m)
{
	double d = m->client_ns - m->call_ns;

	if (isnan(d))
		return NAN;
	/* the bucket middle is within 1/64 of each call: a smaller deficit is not a deficit */
	if (d < 0 && -d <= m->client_ns / (2 * AB_HIST_SUB))
		return 0;
	return d;
}

static void put(ab_breakdown_emit_fn *emit, void *ctx, const char *name, double v, const char *unit)
{
	if (!isnan(v))
		emit(ctx, name, v, unit);
}

/* The record named fmt with part (a step or a wake-up) in place of its %s. */
static void put_of(ab_breakdown_emit_fn *emit, void *ctx, const char *fmt, const char *part,
		   double v, const char *unit)
{
	char name[64];

	snprintf(name, sizeof(name), fmt, part);
	put(emit, ctx, name, v, unit);
}

void ab_breakdown_emit(const struct ab_breakdown_metrics *m, ab_breakdown_emit_fn *emit, void *ctx)
{
	put(emit, ctx, "brk_calls", m->calls, "count");
	put(emit, ctx, "brk_call_ns", m->call_ns, "ns");
	put(emit, ctx, "brk_call_p50_ns", m->call_p50, "ns");
	put(emit, ctx, "brk_call_p99_ns", m->call_p99, "ns");
	put(emit, ctx, "brk_call_p90_ns", m->call_p90, "ns");
	put(emit, ctx, "brk_call_p999_ns", m->call_p999, "ns");
	put(emit, ctx, "brk_call_max_ns", m->call_max, "ns");
	put(emit, ctx, "brk_loop_ns", m->loop_ns, "ns");
	put(emit, ctx, "brk_client_ns", m->client_ns, "ns");
	put(emit, ctx, "brk_outside_ns", ab_breakdown_outside_ns(m), "ns");
	put(emit, ctx, "brk_calls_per_s", m->calls_per_s, "1/s");
	for (int i = 0; i < AB_BREAKDOWN_STEPS; i++) {
		const char *st = ab_breakdown_step_names[i];
		put_of(emit, ctx, "brk_%s_p50_ns", st, m->p50[i], "ns");
		put_of(emit, ctx, "brk_%s_p99_ns", st, m->p99[i], "ns");
		put_of(emit, ctx, "brk_%s_p90_ns", st, m->p90[i], "ns");
		put_of(emit, ctx, "brk_%s_p999_ns", st, m->p999[i], "ns");
		put_of(emit, ctx, "brk_%s_max_ns", st, m->max[i], "ns");
		put_of(emit, ctx, "brk_%s_share_pct", st, m->share[i], "%");
	}
	for (int w = 0; w < AB_BREAKDOWN_WAKES; w++) {
		const char *wk = ab_breakdown_wake_names[w];
		put_of(emit, ctx, "brk_%s_wakes_per_call", wk, m->per_call[w], "ratio");
		put_of(emit, ctx, "brk_%s_wake_cross_pct", wk, m->cross_pct[w], "%");
		put_of(emit, ctx, "brk_%s_wake_idle_pct", wk, m->idle_pct[w], "%");
	}
}

void ab_breakdown_hist_rows(const struct ab_breakdown_metrics *m, struct ab_out *o,
			    const struct ab_config *c, int rep)
{
	char name[64];

	for (int i = 0; i <= AB_BREAKDOWN_STEPS; i++) {
		snprintf(name, sizeof(name), "brk_%s",
			 i < AB_BREAKDOWN_STEPS ? ab_breakdown_step_names[i] : "call");
		if (ab_hist_count(&m->hist[i]))
			ab_hist_rows(o, c, rep, name, "ns", &m->hist[i]);
	}
}

void ab_breakdown_describe(const struct ab_breakdown_metrics *m, char *buf, size_t len)
{
	size_t at = 0;

	at += (size_t)snprintf(buf, len, "%.2f us per call =", m->call_ns / 1e3);
	for (int i = 0; i < AB_BREAKDOWN_STEPS && at < len; i++) {
		at += (size_t)snprintf(buf + at, len - at, "%s %s %.2f", i ? " +" : "",
				       ab_breakdown_step_names[i], m->share[i] * m->call_ns / 100 / 1e3);
		int w = i == AB_BREAKDOWN_DWAKE ? AB_BREAKDOWN_W_DAEMON :
			i == AB_BREAKDOWN_RWAKE ? AB_BREAKDOWN_W_REPLY : -1;
		if (w >= 0 && at < len && !isnan(m->cross_pct[w]))
			at += (size_t)snprintf(buf + at, len - at, " (cross %.0f%%, idle %.0f%%)",
					       m->cross_pct[w], m->idle_pct[w]);
	}
}

/* Without BPF only kstats.c's stubs are built, and they never call what follows. */
#ifdef AB_HAVE_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include <sys/syscall.h>

#include "kstats/breakdown_bpf_i.h"
#include "breakdown.skel.h"

_Static_assert(BRK_HIST_BUCKETS == AB_HIST_BUCKETS && BRK_HIST_SUB_BITS == AB_HIST_SUB_BITS,
	       "breakdown.bpf.c's histogram must be struct ab_hist's");
_Static_assert((int)BRK_NSTEPS == (int)AB_BREAKDOWN_STEPS &&
	       (int)BRK_NWAKES == (int)AB_BREAKDOWN_WAKES, "step lists differ");

struct ab_breakdown {
	struct breakdown_bpf *skel;
	int ncpus;
	struct brk_hist *buf;	/* one histogram per CPU, for reading */
};

int ab_breakdown_open(struct ab_breakdown **out, char *why, size_t len)
{
	struct ab_breakdown *b = calloc(1, sizeof(*b));
	int err;

	*out = NULL;
	if (!b)
		return ab_err(why, len, "out of memory");
	b->ncpus = libbpf_num_possible_cpus();
	b->buf = calloc((size_t)b->ncpus, sizeof(*b->buf));
	b->skel = b->buf ? breakdown_bpf__open_and_load() : NULL;
	if (!b->skel) {
		err = errno;
		free(b->buf);
		free(b);
		return ab_err(why, len, "BPF load refused: %s", strerror(err));
	}
	err = breakdown_bpf__attach(b->skel);
	if (err) {
		ab_breakdown_close(b);
		return ab_err(why, len, "attaching the sched, syscall and FUSE tracepoints failed: %s",
			      strerror(-err));
	}
	breakdown_bpf__detach(b->skel);
	*out = b;
	return 0;
}

int ab_breakdown_attach(struct ab_breakdown *b)
{
	return breakdown_bpf__attach(b->skel) ? -1 : 0;
}

void ab_breakdown_detach(struct ab_breakdown *b)
{
	breakdown_bpf__detach(b->skel);
}

void ab_breakdown_set_conn(struct ab_breakdown *b, int conn)
{
	b->skel->bss->target_conn = conn > 0 ? (__u32)conn : 0;
}

void ab_breakdown_set_pipe(struct ab_breakdown *b, int on)
{
	b->skel->bss->pipe_mode = on ? 1 : 0;
	b->skel->data->nr_read = SYS_read;	/* this architecture's numbers */
	b->skel->data->nr_write = SYS_write;
}

int ab_breakdown_add(struct ab_breakdown *b, pid_t tgid, int role)
{
	__u32 k = (__u32)tgid;
	__u8 v = (__u8)role, old;

	if (role != BRK_ROLE_CALLER &&
	    bpf_map__lookup_elem(b->skel->maps.roles, &k, sizeof(k), &old, sizeof(old), 0) == 0)
		return 0;	/* a caller stays one */
	return bpf_map__update_elem(b->skel->maps.roles, &k, sizeof(k), &v, sizeof(v),
				    BPF_ANY) < 0 ? -1 : 0;
}

int ab_bpf_map_clear(struct bpf_map *m)
{
	__u32 key;

	/* From the front: next_key of a deleted key restarts the walk. */
	while (bpf_map__get_next_key(m, NULL, &key, sizeof(key)) == 0)
		if (bpf_map__delete_elem(m, &key, sizeof(key), 0) < 0)
			return -1;
	return 0;
}

int ab_bpf_map_zero(struct bpf_map *m, unsigned nkeys, size_t vsize, int ncpus)
{
	size_t size = vsize * (size_t)ncpus;
	void *z = calloc(1, size);
	int r = 0;

	if (!z)
		return -1;
	for (__u32 k = 0; k < nkeys; k++)
		r |= bpf_map__update_elem(m, &k, sizeof(k), z, size, BPF_ANY);
	free(z);
	return r ? -1 : 0;
}

int ab_breakdown_clear(struct ab_breakdown *b)
{
	b->skel->bss->counting = 0;
	return ab_bpf_map_clear(b->skel->maps.roles) | ab_bpf_map_clear(b->skel->maps.calls) |
	       ab_bpf_map_clear(b->skel->maps.dwait);
}

int ab_breakdown_reset(struct ab_breakdown *b)
{
	return ab_bpf_map_zero(b->skel->maps.sums, 1, sizeof(struct brk_sums), b->ncpus) |
	       ab_bpf_map_zero(b->skel->maps.hists, BRK_NHIST, sizeof(*b->buf), b->ncpus);
}

int ab_breakdown_window(struct ab_breakdown *b, int on)
{
	if (on && ab_breakdown_reset(b) < 0)
		return -1;
	/* A plain store the probes read on their next call: the window's edge is where this lands. */
	__atomic_store_n(&b->skel->bss->counting, on ? 1u : 0u, __ATOMIC_SEQ_CST);
	return 0;
}

int ab_breakdown_read(struct ab_breakdown *b, struct ab_breakdown_result *r)
{
	struct brk_sums *s = calloc((size_t)b->ncpus, sizeof(*s));
	size_t hsize = sizeof(*b->buf) * (size_t)b->ncpus;
	__u32 k = 0;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!s || bpf_map__lookup_elem(b->skel->maps.sums, &k, sizeof(k), s, sizeof(*s) * b->ncpus, 0))
		goto out;
	for (int c = 0; c < b->ncpus; c++) {
		r->calls += s[c].calls;
		r->requests += s[c].requests;
		for (int i = 0; i < AB_BREAKDOWN_STEPS; i++)
			r->step_ns[i] += (double)s[c].step_ns[i];
		for (int w = 0; w < AB_BREAKDOWN_WAKES; w++) {
			r->wakes[w] += s[c].wakes[w];
			r->cross[w] += s[c].cross[w];
			r->idle[w] += s[c].idle[w];
		}
	}
	for (k = 0; k < BRK_NHIST; k++) {
		if (bpf_map__lookup_elem(b->skel->maps.hists, &k, sizeof(k), b->buf, hsize, 0))
			goto out;
		for (int c = 0; c < b->ncpus; c++)
			for (unsigned i = 0; i < AB_HIST_BUCKETS; i++)
				r->hist[k].b[i] += b->buf[c].b[i];
	}
	ret = 0;
out:
	free(s);
	return ret;
}

void ab_breakdown_close(struct ab_breakdown *b)
{
	if (!b)
		return;
	breakdown_bpf__destroy(b->skel);
	free(b->buf);
	free(b);
}

#endif
