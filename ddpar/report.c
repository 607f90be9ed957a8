// SPDX-License-Identifier: GPL-2.0
/*
 * ddpar's report, described once (lib/render/desc.h): the tables of fuse-devel 2015
 * (Ashish, Oracle: MB/s by number of dd processes, without and with cloned
 * /dev/fuse fds), time per request and latency per call; the reading is in
 * report_reading.c, the plots in report_plot.c. bin/ddpar prints these tables on stdout;
 * the harness writes them into tables.md.
 *
 * Known limits: each cell is the first matching record group, so records of
 * several --bs or --dd settings in one file share a table (the heading lists
 * every value seen).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "render/reading.h"
#include "render/render.h"
#include "render/desc.h"
#include "render/render_plot.h"
#include "report_i.h"

/* The servers, whatever their --uring-cpu (the latency and time tables' rows). */
static const char *const transports[] = { "libfuse", "dev", "uring", "passthrough" };
/* "bs 131072, built-in loop, n = 6" for the heading of metric's table. */
static void describe(struct ab_render *r, const char *metric, char *buf, size_t len)
{
	char bs[8][32], client[2][32], list[128] = "";
	int nb = ab_r_distinct(r, metric, "bs", bs, 8), nc = ab_r_distinct(r, metric, "client", client, 2);
	size_t lo = (size_t)-1, hi = 0, used = 0;

	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		if (strcmp(g->bench, r->desc->name) || strcmp(g->metric, metric))
			continue;
		lo = g->n < lo ? g->n : lo;
		hi = g->n > hi ? g->n : hi;
	}
	for (int i = 0; i < nb && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? "," : "", bs[i]);
	if (lo == hi)
		snprintf(buf, len, "bs %s, %s, n = %zu", list, nc ? "coreutils dd" : "built-in loop", hi);
	else
		snprintf(buf, len, "bs %s, %s, n = %zu-%zu", list, nc ? "coreutils dd" : "built-in loop",
			 lo, hi);
}

/* "123 MB/s" (ab_r_num), or "not measured" when g has no records in this run. */
static const char *mbs(char *buf, size_t len, const struct ab_group *g)
{
	char t[32];

	if (g && g->n)
		snprintf(buf, len, "%s MB/s", ab_r_num(t, sizeof(t), ab_r_median(g)));
	else
		snprintf(buf, len, "not measured");
	return buf;
}

/* One mode's rows: procs, MB/s without and with clone_fd, their ratio, the post's numbers. */
static void mode_table(struct ab_render *r, int m)
{
	FILE *f = r->out;
	char procs[AB_GRID_ROWS][32], buf[160], key[64];
	int np = ab_r_distinct(r, ddp_mbps[m], "procs", procs, AB_GRID_ROWS);

	describe(r, ddp_mbps[m], buf, sizeof(buf));
	ab_r_fence(r);
	fprintf(f, "%d) %s single mount (MB/s = 10^6 bytes/s, median; %s)\n", ab_r_table_no(r),
		m ? "Reading from" : "Writes to", buf);
	fprintf(f, "dd processes throughput(without clone_fd) throughput(with clone_fd)  with/without"
		   "      post (288 CPUs, \"Mb/s\") without / with\nin parallel\n");
	for (int i = 0; i < np; i++) {
		const struct ab_group *off, *on;
		double q = NAN;
		struct ab_ci ci;
		enum ab_verdict v = ddp_row(r, m, procs[i], &off, &on, &q, &ci);
		char a[32], b[32];
		fprintf(f, "%-4s %19s %29s   ", procs[i], mbs(a, sizeof(a), off), mbs(b, sizeof(b), on));
		if (v == AB_V_NONE)
			fprintf(f, "%-12s", off && on ? "-" : "needs both");
		else
			fprintf(f, "%-5s%-7s", ab_r_x(a, sizeof(a), q),
				v == AB_V_FEW ? " (few)" : ab_r_star(v));
		snprintf(key, sizeof(key), "%s.%.31s.without", ddp_modes[m], procs[i]);
		if (!isnan(ab_pub(POST, key))) {
			double a = ab_pub(POST, key);
			snprintf(key, sizeof(key), "%s.%.31s.with", ddp_modes[m], procs[i]);
			fprintf(f, "   %g / %g", a, ab_pub(POST, key));
		}
		fprintf(f, "\n");
		if (i == np - 1 && v != AB_V_NONE)
			fprintf(f, "largest N, with / without: %s\n",
				ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 0));
	}
	ab_r_fence(r);
	fprintf(f, "(* = the 95%% CI of the ratio excludes 1; (few) = too few repetitions to judge)\n\n");
}

static const char *num_or_none(char *buf, size_t len, const struct ab_group *g)
{
	return g && g->n ? ab_r_num(buf, len, ab_r_median(g)) : strcpy(buf, "not measured");
}

/* "median without / median with" of metric at row's mode, procs and transport;
 * "not measured" for a side without records, once when both have none. */
static const char *pair(struct ab_render *r, const char *metric, const char *const *row,
			char *buf, size_t len)
{
	const char *woff[] = { row[0], row[1], "clone_fd=off", row[2], WAIT_BLOCK, NULL };
	const char *won[] = { row[0], row[1], "clone_fd=on", row[2], WAIT_BLOCK, NULL };
	const struct ab_group *off = ab_r_find(r, metric, woff), *on = ab_r_find(r, metric, won);
	char a[32], b[32];

	if (!off && !on)
		snprintf(buf, len, "not measured");
	else
		snprintf(buf, len, "%s / %s", num_or_none(a, sizeof(a), off), num_or_none(b, sizeof(b), on));
	return buf;
}

/* Rows of mode x procs x transport (those with a record of the last column), one
 * "without / with" cell per metric, a server column when not all rows are libfuse;
 * the post's spinlock figures (writes, libfuse) at the end of write rows when post. */
static void pair_table(struct ab_render *r, const char *const *cols, const char *const *heads,
		       int ncols, int post)
{
	FILE *f = r->out;
	char procs[AB_GRID_ROWS][32], cell[80], key[64], mw[32], pw[48], tw[48];
	int np = ab_r_distinct(r, cols[ncols - 1], "procs", procs, AB_GRID_ROWS), servers = 0;

	for (int t = 1; t < 4; t++)
		servers |= ab_r_find_kv(r, cols[ncols - 1], "transport", transports[t], NULL, NULL) != NULL;
	fprintf(f, "%-6s %-6s", "mode", "procs");
	if (servers)
		fprintf(f, " %-12s", "server");
	for (int c = 0; c < ncols; c++)
		fprintf(f, " %-25s", heads[c]);	/* "-0.0004036 / not measured" */
	fprintf(f, "%s\n", post ? " post: spinlock ms/req" : "");
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < np; i++)
			for (int t = 0; t < 4; t++) {
				snprintf(mw, sizeof(mw), "mode=%s", ddp_modes[m]);
				snprintf(pw, sizeof(pw), "procs=%.31s", procs[i]);
				/* libfuse also matches records without the key */
				snprintf(tw, sizeof(tw), "transport=%s%s", transports[t], t ? "" : "|");
				const char *want[] = { mw, pw, tw, NULL };
				if (!ab_r_find(r, cols[ncols - 1], want))
					continue;
				fprintf(f, "%-6s %-6s", ddp_modes[m], procs[i]);
				if (servers)
					fprintf(f, " %-12s", transports[t]);
				for (int c = 0; c < ncols; c++)
					fprintf(f, " %-25s", pair(r, cols[c], want, cell, sizeof(cell)));
				snprintf(key, sizeof(key), "spin_ms.%.31s.without", procs[i]);
				if (post && m == 0 && t == 0 && !isnan(ab_pub(POST, key))) {
					double a = ab_pub(POST, key);
					snprintf(key, sizeof(key), "spin_ms.%.31s.with", procs[i]);
					fprintf(f, " %g / %g", a, ab_pub(POST, key));
				}
				fprintf(f, "\n");
			}
}

/* Time per request: the post measured spinlock time; we show kernel, spin and daemon time
 * (daemon time alone when no kernel statistics were taken). */
static void timereq_table(struct ab_render *r)
{
	const char *cols[4], *heads[4];
	int kernel = ab_r_find(r, DDP_M_KERNEL_US, NULL) != NULL, n = 0;

	if (!ab_r_find(r, DDP_M_DAEMON_US, NULL))
		return;
	if (kernel) {
		cols[n] = DDP_M_KERNEL_US, heads[n++] = "kernel";
		cols[n] = DDP_M_SPIN_US, heads[n++] = "spinlock wait";
	}
	/* lib/fuse/fsrv's servers: their threads' CPU time, what a --daemon-wait costs */
	if (ab_r_find(r, DDP_M_SERVER_CPU, NULL))
		cols[n] = DDP_M_SERVER_CPU, heads[n++] = "server CPU";
	cols[n] = DDP_M_DAEMON_US, heads[n++] = "daemon handler";	/* last: it picks the rows */
	ab_r_fence(r);
	fprintf(r->out, "%d) Time per request (us, median; without / with clone_fd%s)\n",
		ab_r_table_no(r), kernel ? "; kernel and spin from separate instrumented repetitions" :
			 "; no kernel statistics taken");
	pair_table(r, cols, heads, n, 1);
	ab_r_fence(r);
	/* The spans differ by server: say so rather than let the column compare them. */
	if (ab_r_find(r, DDP_M_DAEMON_US, (const char *[]){ "transport=dev", NULL }) ||
	    ab_r_find(r, DDP_M_DAEMON_US, (const char *[]){ "transport=uring", NULL }))
		fprintf(r->out, "The daemon handler's time is not the same span for every server: "
				"libfuse's handler sends its reply (the copy into the kernel) before it "
				"ends; dev's and uring's return the data, and the transport sends the "
				"reply after the clock stops.\n");
	fprintf(r->out, "\n");
}

/* Latency per call as the caller sees it (built-in loop only). */
static void latency_table(struct ab_render *r)
{
	static const char *const cols[] = { DDP_M_P50, DDP_M_P99 };
	static const char *const heads[] = { "p50", "p99" };

	if (!ab_r_find(r, DDP_M_P99, NULL))
		return;
	ab_r_fence(r);
	fprintf(r->out, "%d) Latency per call (us, median of the repetitions' percentiles; "
			"without / with clone_fd)\n", ab_r_table_no(r));
	pair_table(r, cols, heads, 2, 0);
	ab_r_fence(r);
	fprintf(r->out, "\n");
}

/* Per N: MB/s of each transport measured (one /dev/fuse fd), and its ratio to libfuse. */
static void transport_table(struct ab_render *r, int m)
{
	char procs[AB_GRID_ROWS][32], cell[64], buf[160];
	int np = ab_r_distinct(r, ddp_mbps[m], "procs", procs, AB_GRID_ROWS);
	int have[NTCOLS] = { 0 }, others = 0;

	for (int t = 0; t < NTCOLS; t++)
		for (int i = 0; i < np; i++)
			have[t] |= ddp_transport_find(r, ddp_mbps[m], m, procs[i], t, NULL) != NULL;
	for (int t = 1; t < NTCOLS; t++)
		others += have[t];
	if (!others)
		return;
	fprintf(r->out, "%s by FUSE transport (MB/s, median; x = ratio to libfuse, * = its 95%% CI "
			"excludes 1):\n\n| procs |", m ? "Reads" : "Writes");
	for (int t = 0; t < NTCOLS; t++)
		if (have[t])
			fprintf(r->out, " %s |", ddp_tcols[t].name);
	fprintf(r->out, "\n|---|");
	for (int t = 0; t < NTCOLS; t++)
		fprintf(r->out, "%s", have[t] ? "---|" : "");
	fprintf(r->out, "\n");
	for (int i = 0; i < np; i++) {
		const struct ab_group *base = ddp_transport_find(r, ddp_mbps[m], m, procs[i], 0, NULL);
		fprintf(r->out, "| %s |", procs[i]);
		for (int t = 0; t < NTCOLS; t++) {
			const struct ab_group *g = ddp_transport_find(r, ddp_mbps[m], m, procs[i], t, NULL);
			double q = NAN;
			struct ab_ci ci;
			if (!have[t])
				continue;
			enum ab_verdict v = t ? ab_r_ratio(g, base, &q, &ci) : AB_V_NONE;
			snprintf(cell, sizeof(cell), "%s",
				 g ? ab_r_num(buf, sizeof(buf), ab_r_median(g)) : "not measured");
			if (v != AB_V_NONE)
				snprintf(cell + strlen(cell), sizeof(cell) - strlen(cell), " (%s%s)",
					 ab_r_x(buf, sizeof(buf), q),
					 v == AB_V_FEW ? ", few" : ab_r_star(v));
			fprintf(r->out, " %s |", cell);
		}
		fprintf(r->out, "\n");
	}
	if (have[URING_COL + 1] || have[URING_COL + 2])
		fprintf(r->out, "(uring: its ring threads on the queue's CPU; next: on the next allowed "
				"CPU; none: unpinned; --uring-cpu)\n");
	fprintf(r->out, "\n");
}

static void tables(struct ab_render *r)
{
	fprintf(r->out, "## ddpar: parallel dd on one FUSE mount, without / with clone_fd (%s)\n\n",
		ab_pub_text(POST, "source"));
	static const char *const libfuse[] = { LIBFUSE, NULL };
	for (int m = 0; m < 2; m++)
		if (ab_r_find(r, ddp_mbps[m], libfuse))	/* the post's layout is libfuse's */
			mode_table(r, m);
	for (int m = 0; m < 2; m++)
		transport_table(r, m);
	ddp_wait_table(r);
	timereq_table(r);
	latency_table(r);
	fprintf(r->out, "Published: %s. FUSE over io_uring (%s, %s): direct I/O of 1 MiB, 1 job %g -> "
			"%g MB/s, 16 jobs %g -> %g MB/s.\n\n", ab_pub_text(POST, "machine"),
		ab_pub_text("schubert2024", "source"), ab_pub_text("schubert2024", "machine"),
		ab_pub("schubert2024", "dio1m.1job.dev_MB_per_s"),
		ab_pub("schubert2024", "dio1m.1job.uring_MB_per_s"),
		ab_pub("schubert2024", "dio1m.16jobs.dev_MB_per_s"),
		ab_pub("schubert2024", "dio1m.16jobs.uring_MB_per_s"));
}

static const char *const headline[] = { DDP_M_WRITE, DDP_M_READ, NULL };
/* Units and directions (the records' own units); times per request: lower is better. */
static const struct ab_metric_desc metrics[DDP_NM + 1] = {
	[DDP_WRITE_MBPS] = { DDP_M_WRITE, "MB/s", 0 },
	[DDP_READ_MBPS] = { DDP_M_READ, "MB/s", 0 },
	[DDP_REQS] = { DDP_M_REQS, "req/s", 0 },
	[DDP_P50] = { DDP_M_P50, "us", 1 },
	[DDP_P99] = { DDP_M_P99, "us", 1 },
	[DDP_DAEMON_US] = { DDP_M_DAEMON_US, "us", 1 },
	[DDP_KERNEL_US] = { DDP_M_KERNEL_US, "us", 1 },
	[DDP_SPIN_US] = { DDP_M_SPIN_US, "us", 1 },
	[DDP_SERVER_CPU] = { DDP_M_SERVER_CPU, "us", 1 },
	[DDP_CLIENT_BYTES] = { DDP_M_CLIENT_BYTES, "bytes", 0 },
	[DDP_DAEMON_BYTES] = { DDP_M_DAEMON_BYTES, "bytes", 0 },
	[DDP_NM] = { NULL, NULL, 0 },
};
const struct ab_metric_desc *const ddp_metrics = metrics;
/* The roles of its config keys (desc.h): CDF lines compare transports, in panels by
 * mode and procs; uring_cpu names a policy (queue, next, none), not CPUs. */
static const char *const compared[] = { "transport", "clone_fd", "uring_cpu", NULL };
static const char *const not_cpus[] = { "uring_cpu", NULL };
static const char *const breakdown_keys[] = { "transport", "uring_cpu", NULL };
/* --daemon-wait block, the default, is not written (docs/records.md) */
static const struct ab_key_absent absent_as[] = { { "daemon_wait", "block" }, { NULL, NULL } };

const struct ab_bench_desc ab_desc_ddpar = {
	.name = "ddpar",
	.post = POST,
	.question = "do cloned /dev/fuse fds help parallel IO?",
	.beside = ddp_beside,
	.headline = headline,
	.probes = "kstats",
	.metrics = metrics,
	.op = "one read() or write() of bs bytes (requests_per_s's unit)",
	.compared = compared,
	.not_cpus = not_cpus,
	.absent_as = absent_as,
	.breakdown_keys = breakdown_keys,
	.tables = tables,
	.reading = ddp_reading,
	.plots = ddp_plots,
	.ratios = ddp_ratios,
};
