// SPDX-License-Identifier: GPL-2.0
/*
 * ddpar's reading (the harness's report.md): the sentences that answer the
 * post's question, from the same records as the tables in report.c.
 */
#include <math.h>
#include <stdio.h>

#include "render/reading.h"
#include "render/render.h"
#include "render/beside.h"
#include "render/render_plot.h"
#include "report_i.h"

static const char *const uring_cpus[URING_NCOLS] = { "queue", "next", "none" };

#define TAIL_X 2	/* a p99 this many times the queue's, and significantly above it: a tail */

/* Is choice c significantly slower than queue (its MB/s) or, tail set, its p99 at least
 * TAIL_X times queue's and significantly above it? The canned sentence's two claims. */
static int worse_than_queue(struct ab_render *r, const struct ab_group *const *g, int c,
			    const char *bs, int tail)
{
	double q = NAN;
	struct ab_ci ci;

	if (!tail)
		return ab_r_ratio(g[c], g[0], &q, &ci) == AB_V_DOWN;
	const struct ab_group *p = ddp_transport_find(r, DDP_M_P99, 1, "1", URING_COL + c, bs);
	const struct ab_group *p0 = ddp_transport_find(r, DDP_M_P99, 1, "1", URING_COL, bs);
	return p && p0 && ab_r_ratio(p, p0, &q, &ci) == AB_V_UP && q >= TAIL_X;
}

/* Why queue wins, said only where the data show it: queue is best and another choice is
 * significantly slower; the tail of slow reads only where another choice's p99 is one. */
static void uring_cpu_why(struct ab_render *r, const struct ab_group *const *g, int best,
			  const char *bs)
{
	int slower = 0, tail = 0;

	for (int c = 1; c < URING_NCOLS && g[0] && best == 0; c++) {
		if (!g[c])
			continue;
		slower |= worse_than_queue(r, g, c, bs, 0);
		tail |= worse_than_queue(r, g, c, bs, 1);
	}
	if (slower)
		fprintf(r->out, " On its queue's CPU the ring thread is woken where the reader just "
				"went to sleep; elsewhere each request pays a cross-CPU wake-up%s, "
				"against the reply's copy running beside the reader.",
			tail ? " (a tail of slow reads when that CPU is idle or busy)" : "");
}

/* One reader, reads of bs: each --uring-cpu choice measured against libfuse, and the best. */
static void uring_cpu_reading_bs(struct ab_render *r, const char *bs)
{
	const struct ab_group *base = ddp_transport_find(r, ddp_mbps[1], 1, "1", 0, bs), *g[URING_NCOLS];
	int n = 0, best = -1;
	char buf[160], b99[32];

	for (int c = 0; c < URING_NCOLS; c++) {
		g[c] = ddp_transport_find(r, ddp_mbps[1], 1, "1", URING_COL + c, bs);
		n += g[c] != NULL;
		if (g[c] && (best < 0 || ab_r_median(g[c]) > ab_r_median(g[best])))
			best = c;
	}
	if (n < 2 || !base)
		return;
	fprintf(r->out, "One reader, bs %s, FUSE over io_uring by where its ring threads run "
			"(--uring-cpu; MB/s vs libfuse at %s MB/s):", bs,
		ab_r_num(buf, sizeof(buf), ab_r_median(base)));
	for (int c = 0; c < URING_NCOLS; c++) {
		double q = NAN;
		struct ab_ci ci;
		if (!g[c])
			continue;
		enum ab_verdict v = ab_r_ratio(g[c], base, &q, &ci);
		fprintf(r->out, " %s %s", uring_cpus[c], ab_r_num(buf, sizeof(buf),
			ab_r_median(g[c])));
		fprintf(r->out, " (%s", ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 0));
		const struct ab_group *p50 = ddp_transport_find(r, DDP_M_P50, 1, "1", URING_COL + c,
								 bs);
		const struct ab_group *p99 = ddp_transport_find(r, DDP_M_P99, 1, "1", URING_COL + c,
								 bs);
		if (p50 && p99)
			fprintf(r->out, "; per read p50 %s us, p99 %s us",
				ab_r_num(buf, sizeof(buf), ab_r_median(p50)),
				ab_r_num(b99, sizeof(b99), ab_r_median(p99)));
		fprintf(r->out, ");");
	}
	fprintf(r->out, " best here: %s.", uring_cpus[best]);
	uring_cpu_why(r, g, best, bs);
	fprintf(r->out, "\n\n");
}

static void uring_cpu_reading(struct ab_render *r)
{
	char bs[8][32];
	int nb = ab_r_distinct(r, ddp_mbps[1], "bs", bs, 8);

	for (int i = 0; i < nb; i++)
		uring_cpu_reading_bs(r, bs[i]);
}

/* "At one process, write throughput against libfuse's: dev 0.76x [0.64, 0.89] *, ..." */
static void transport_reading(struct ab_render *r, int m)
{
	const struct ab_group *base = ddp_transport_find(r, ddp_mbps[m], m, "1", 0, NULL);
	char buf[128];
	int n = 0;

	/* each server against libfuse; uring where its ring threads run by default (queue) */
	for (int t = 1; t < NTCOLS; t++) {
		const struct ab_group *g = ddp_transport_find(r, ddp_mbps[m], m, "1", t, NULL);
		double q = NAN;
		struct ab_ci ci;
		if (!g || !base || (t > URING_COL && t < URING_COL + URING_NCOLS))
			continue;	/* the other --uring-cpu choices have their own reading */
		enum ab_verdict v = ab_r_ratio(g, base, &q, &ci);
		if (!n++)
			fprintf(r->out, "%s throughput at one process against libfuse's (95%% CI, * "
					"where it excludes 1):", m ? "Read" : "Write");
		fprintf(r->out, "%s %s %s", n > 1 ? "," : "", ddp_tcols[t].name,
			ab_r_ratio_brief(buf, sizeof(buf), v, q, &ci));
	}
	if (n)	/* writes and reads in one paragraph */
		fprintf(r->out, m ? ".\n\n" : ".\n");
}

void ddp_reading(struct ab_render *r)
{
	FILE *f = r->out;
	int any = 0, said = 0;

	for (int m = 0; m < 2; m++) {
		const struct ab_sweep sweep = { m ? "For reads, clone_fd" : "For writes, clone_fd",
						"was significantly faster", "was significantly slower",
						"made no significant difference", "process", "processes" };
		char procs[AB_GRID_ROWS][32], buf[1024];
		enum ab_verdict v[AB_GRID_ROWS];
		int np = ab_r_distinct(r, ddp_mbps[m], "procs", procs, AB_GRID_ROWS), judged = 0;
		for (int i = 0; i < np; i++) {
			const struct ab_group *off, *on;
			double q;
			struct ab_ci ci;
			v[i] = ddp_row(r, m, procs[i], &off, &on, &q, &ci);
			judged |= v[i] != AB_V_NONE;
			any |= v[i] == AB_V_UP || v[i] == AB_V_DOWN;
		}
		if (judged)	/* writes and reads in one paragraph */
			fprintf(f, "%s%s", said++ ? " " : "",
				ab_r_sweep(buf, sizeof(buf), &sweep, v, procs, np));
	}
	/* the post's answer in the same paragraph */
	fprintf(f, "%sThe post (8 nodes, 288 CPUs) saw clone_fd win only from 16 processes up "
		   "(writes %g -> %g \"Mb/s\" at 128)", said ? " " : "", ab_pub(POST, "write.128.without"),
		ab_pub(POST, "write.128.with"));
	if (!any && r->ncpu > 0 && r->ncpu <= 4)
		fprintf(f, "; with %d CPUs here there is little lock contention for it to remove", r->ncpu);
	fprintf(f, ".\n\n");
	for (int m = 0; m < 2; m++)
		transport_reading(r, m);
	uring_cpu_reading(r);
	ddp_levers(r);
}
