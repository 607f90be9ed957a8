/*
 * ddpar's report, described once (lib/report/render.h): the tables of fuse-devel 2015
 * (Ashish, Oracle: MB/s by number of dd processes, without and with cloned
 * /dev/fuse fds), time per request and latency per call, the reading, and the
 * plots. bin/ddpar prints these tables on stdout; the harness writes them
 * into tables.md.
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
#include "report/reading.h"
#include "report/render.h"
#include "ddpar.h"

#define POST "clonefd2015"

/* The post's server: libfuse (also records from before --transport existed). */
#define LIBFUSE "transport=libfuse|"
/* The transport table's columns: uring once per --uring-cpu (queue, the default,
 * also stands for uring records from before the option existed). */
static const struct {
	const char *name, *kv, *cpu;
} tcols[] = {
	{ "libfuse", LIBFUSE, NULL },
	{ "dev", "transport=dev", NULL },
	{ "uring", "transport=uring", "uring_cpu=queue|" },
	{ "uring next", "transport=uring", "uring_cpu=next" },
	{ "uring none", "transport=uring", "uring_cpu=none" },
	{ "passthrough", "transport=passthrough", NULL },
};
#define NTCOLS ((int)AB_ARRAY_SIZE(tcols))
#define URING_COL 2	/* the first uring column; the --uring-cpu ones follow */
#define URING_NCOLS 3
static const char *const uring_cpus[URING_NCOLS] = { "queue", "next", "none" };

/* The servers, whatever their --uring-cpu (the latency and time tables' rows). */
static const char *const transports[] = { "libfuse", "dev", "uring", "passthrough" };
static const char *const modes[] = { "write", "read" };
static const char *const mbps[] = { DDP_M_WRITE, DDP_M_READ };

/* One row: MB/s without and with clone_fd at procs, and their ratio. */
static enum ab_verdict row(struct ab_render *r, int m, const char *procs, const struct ab_group **off,
			   const struct ab_group **on, double *q, struct ab_ci *ci)
{
	char mw[32], pw[48];

	snprintf(mw, sizeof(mw), "mode=%s", modes[m]);
	snprintf(pw, sizeof(pw), "procs=%.31s", procs);
	const char *woff[] = { mw, pw, "clone_fd=off", LIBFUSE, NULL };
	const char *won[] = { mw, pw, "clone_fd=on", LIBFUSE, NULL };
	*off = ab_r_find(r, mbps[m], woff);
	*on = ab_r_find(r, mbps[m], won);
	return ab_r_ratio(*on, *off, q, ci);
}

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

/* "123.4 MB/s", or "not measured" when g has no records in this run. */
static const char *mbs(char *buf, size_t len, const struct ab_group *g)
{
	if (g && g->n)
		snprintf(buf, len, "%.1f MB/s", ab_r_median(g));
	else
		snprintf(buf, len, "not measured");
	return buf;
}

/* One mode's rows: procs, MB/s without and with clone_fd, their ratio, the post's numbers. */
static void mode_table(struct ab_render *r, int m)
{
	FILE *f = r->out;
	char procs[AB_GRID_ROWS][32], buf[160], key[64];
	int np = ab_r_distinct(r, mbps[m], "procs", procs, AB_GRID_ROWS);

	describe(r, mbps[m], buf, sizeof(buf));
	ab_r_fence(r);
	fprintf(f, "%d) %s single mount (MB/s = 10^6 bytes/s, median; %s)\n", ab_r_table_no(r),
		m ? "Reading from" : "Writes to", buf);
	fprintf(f, "dd processes throughput(without clone_fd) throughput(with clone_fd)  with/without"
		   "      post (288 CPUs, \"Mb/s\") without / with\nin parallel\n");
	for (int i = 0; i < np; i++) {
		const struct ab_group *off, *on;
		double q = NAN;
		struct ab_ci ci;
		enum ab_verdict v = row(r, m, procs[i], &off, &on, &q, &ci);
		char a[32], b[32];
		fprintf(f, "%-4s %19s %29s   ", procs[i], mbs(a, sizeof(a), off), mbs(b, sizeof(b), on));
		if (v == AB_V_NONE)
			fprintf(f, "%-12s", off && on ? "-" : "needs both");
		else
			fprintf(f, "%.2fx%-7s", q, v == AB_V_FEW ? " (few)" : ab_r_star(v));
		snprintf(key, sizeof(key), "%s.%.31s.without", modes[m], procs[i]);
		if (!isnan(ab_pub(POST, key))) {
			double a = ab_pub(POST, key);
			snprintf(key, sizeof(key), "%s.%.31s.with", modes[m], procs[i]);
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

/* "transport=NAME" of transport t; libfuse also matches records without the key. */
static const char *transport_want(char *buf, size_t len, int t)
{
	snprintf(buf, len, "transport=%s%s", transports[t], t ? "" : "|");
	return buf;
}

/* A median, or "not measured" when this run has none. */
static const char *num_or_none(char *buf, size_t len, const struct ab_group *g)
{
	return g && g->n ? ab_r_num(buf, len, ab_r_median(g)) : strcpy(buf, "not measured");
}

/* "median without / median with" of metric at mode m, procs p and transport t;
 * "not measured" for a side without records, once when both have none. */
static const char *pair(struct ab_render *r, const char *metric, int m, const char *p, int t,
			char *buf, size_t len)
{
	char mw[32], pw[48], tw[48], a[32], b[32];

	snprintf(mw, sizeof(mw), "mode=%s", modes[m]);
	snprintf(pw, sizeof(pw), "procs=%.31s", p);
	transport_want(tw, sizeof(tw), t);
	const char *woff[] = { mw, pw, "clone_fd=off", tw, NULL };
	const char *won[] = { mw, pw, "clone_fd=on", tw, NULL };
	const struct ab_group *off = ab_r_find(r, metric, woff), *on = ab_r_find(r, metric, won);
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
				snprintf(mw, sizeof(mw), "mode=%s", modes[m]);
				snprintf(pw, sizeof(pw), "procs=%.31s", procs[i]);
				const char *want[] = { mw, pw, transport_want(tw, sizeof(tw), t), NULL };
				if (!ab_r_find(r, cols[ncols - 1], want))
					continue;
				fprintf(f, "%-6s %-6s", modes[m], procs[i]);
				if (servers)
					fprintf(f, " %-12s", transports[t]);
				for (int c = 0; c < ncols; c++)
					fprintf(f, " %-25s", pair(r, cols[c], m, procs[i], t, cell, sizeof(cell)));
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
	static const char *const cols[] = { DDP_M_KERNEL_US, DDP_M_SPIN_US, DDP_M_DAEMON_US };
	static const char *const heads[] = { "kernel", "spinlock wait", "daemon handler" };
	int kernel = ab_r_find(r, DDP_M_KERNEL_US, NULL) != NULL;

	if (!ab_r_find(r, DDP_M_DAEMON_US, NULL))
		return;
	ab_r_fence(r);
	fprintf(r->out, "%d) Time per request (us, median; without / with clone_fd%s)\n",
		ab_r_table_no(r), kernel ? "; kernel and spin from separate instrumented repetitions" :
			 "; no kernel statistics taken");
	pair_table(r, kernel ? cols : cols + 2, kernel ? heads : heads + 2, kernel ? 3 : 1, 1);
	ab_r_fence(r);
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

/* Column t's group of metric at procs (and bs when not NULL: else the first bs found). */
static const struct ab_group *transport_find(struct ab_render *r, const char *metric, int m,
					     const char *procs, int t, const char *bs)
{
	char mw[32], pw[48], bw[48];
	const char *want[7] = { mw, pw, tcols[t].kv, "clone_fd=off" };
	int n = 4;

	snprintf(mw, sizeof(mw), "mode=%s", modes[m]);
	snprintf(pw, sizeof(pw), "procs=%.31s", procs);
	if (bs) {
		snprintf(bw, sizeof(bw), "bs=%.31s", bs);
		want[n++] = bw;
	}
	if (tcols[t].cpu)
		want[n++] = tcols[t].cpu;
	want[n] = NULL;
	return ab_r_find(r, metric, want);
}

static const struct ab_group *transport_cell_bs(struct ab_render *r, int m, const char *procs, int t,
						const char *bs)
{
	return transport_find(r, mbps[m], m, procs, t, bs);
}

static const struct ab_group *transport_cell(struct ab_render *r, int m, const char *procs, int t)
{
	return transport_cell_bs(r, m, procs, t, NULL);
}

/* Per N: MB/s of each transport measured (one /dev/fuse fd), and its ratio to libfuse. */
static void transport_table(struct ab_render *r, int m)
{
	char procs[AB_GRID_ROWS][32], cell[64], buf[160];
	int np = ab_r_distinct(r, mbps[m], "procs", procs, AB_GRID_ROWS), have[NTCOLS] = { 0 }, others = 0;

	for (int t = 0; t < NTCOLS; t++)
		for (int i = 0; i < np; i++)
			have[t] |= transport_cell(r, m, procs[i], t) != NULL;
	for (int t = 1; t < NTCOLS; t++)
		others += have[t];
	if (!others)
		return;
	fprintf(r->out, "%s by FUSE transport (MB/s, median; x = ratio to libfuse, * = its 95%% CI "
			"excludes 1):\n\n| procs |", m ? "Reads" : "Writes");
	for (int t = 0; t < NTCOLS; t++)
		if (have[t])
			fprintf(r->out, " %s |", tcols[t].name);
	fprintf(r->out, "\n|---|");
	for (int t = 0; t < NTCOLS; t++)
		fprintf(r->out, "%s", have[t] ? "---|" : "");
	fprintf(r->out, "\n");
	for (int i = 0; i < np; i++) {
		const struct ab_group *base = transport_cell(r, m, procs[i], 0);
		fprintf(r->out, "| %s |", procs[i]);
		for (int t = 0; t < NTCOLS; t++) {
			const struct ab_group *g = transport_cell(r, m, procs[i], t);
			double q = NAN;
			struct ab_ci ci;
			if (!have[t])
				continue;
			enum ab_verdict v = t ? ab_r_ratio(g, base, &q, &ci) : AB_V_NONE;
			snprintf(cell, sizeof(cell), "%s",
				 g ? ab_r_num(buf, sizeof(buf), ab_r_median(g)) : "not measured");
			if (v != AB_V_NONE)
				snprintf(cell + strlen(cell), sizeof(cell) - strlen(cell), " (%.2fx%s)", q,
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
		if (ab_r_find(r, mbps[m], libfuse))	/* the post's layout is libfuse's */
			mode_table(r, m);
	for (int m = 0; m < 2; m++)
		transport_table(r, m);
	timereq_table(r);
	latency_table(r);
	fprintf(r->out, "Published: %s. FUSE over io_uring (%s, %s): direct I/O of 1 MiB, 1 job %g -> "
			"%g MB/s, 16 jobs %g -> %g MB/s.\n\n", ab_pub_text(POST, "machine"),
		ab_pub_text("schubert2024", "source"), ab_pub_text("schubert2024", "machine"),
		ab_pub("schubert2024", "dio1m.1job.dev_MB_per_s"), ab_pub("schubert2024", "dio1m.1job.uring_MB_per_s"),
		ab_pub("schubert2024", "dio1m.16jobs.dev_MB_per_s"),
		ab_pub("schubert2024", "dio1m.16jobs.uring_MB_per_s"));
}

/* One reader, reads of bs: each --uring-cpu choice measured against libfuse, and the best. */
static void uring_cpu_reading_bs(struct ab_render *r, const char *bs)
{
	const struct ab_group *base = transport_cell_bs(r, 1, "1", 0, bs), *g[URING_NCOLS];
	int n = 0, best = -1;
	char buf[160];

	for (int c = 0; c < URING_NCOLS; c++) {
		g[c] = transport_cell_bs(r, 1, "1", URING_COL + c, bs);
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
		const struct ab_group *p50 = transport_find(r, "lat_p50_us", 1, "1", URING_COL + c, bs);
		const struct ab_group *p99 = transport_find(r, "lat_p99_us", 1, "1", URING_COL + c, bs);
		if (p50 && p99)
			fprintf(r->out, "; per read p50 %.0f us, p99 %.0f us", ab_r_median(p50),
				ab_r_median(p99));
		fprintf(r->out, ");");
	}
	fprintf(r->out, " best here: %s. On its queue's CPU the ring thread is woken where the "
			"reader just went to sleep; elsewhere each request pays a cross-CPU wake-up "
			"(a tail of slow reads when that CPU is idle or busy), against the reply's "
			"copy running beside the reader.\n\n",
		uring_cpus[best]);
}

static void uring_cpu_reading(struct ab_render *r)
{
	char bs[8][32];
	int nb = ab_r_distinct(r, mbps[1], "bs", bs, 8);

	for (int i = 0; i < nb; i++)
		uring_cpu_reading_bs(r, bs[i]);
}

/* "Writes at N=1: the throughput of passthrough is 4.1x that of libfuse (...); ..." */
static void transport_reading(struct ab_render *r, int m)
{
	char subject[48], buf[512];

	/* each server against libfuse; uring where its ring threads run by default (queue) */
	for (int t = 1; t < NTCOLS; t++) {
		const struct ab_group *g = transport_cell(r, m, "1", t), *base = transport_cell(r, m, "1", 0);
		double q = NAN;
		struct ab_ci ci;
		if (!g || (t > URING_COL && t < URING_COL + URING_NCOLS))
			continue;	/* the other --uring-cpu choices have their own reading */
		snprintf(subject, sizeof(subject), "%s at one process", tcols[t].name);
		const struct ab_claim c = { m ? "read throughput" : "write throughput", subject,
					    "libfuse", 0 };
		enum ab_verdict v = ab_r_ratio(g, base, &q, &ci);
		fprintf(r->out, "- %s\n", ab_r_sentence(buf, sizeof(buf), &c, v, q, &ci));
	}
}

static void reading(struct ab_render *r)
{
	static const struct ab_sweep sweep[2] = {
		{ "For writes, clone_fd", "was significantly faster", "was significantly slower",
		  "made no significant difference", "process", "processes" },
		{ "For reads, clone_fd", "was significantly faster", "was significantly slower",
		  "made no significant difference", "process", "processes" },
	};
	FILE *f = r->out;
	int any = 0;

	fprintf(f, "## ddpar: do cloned /dev/fuse fds help parallel IO?\n\n");
	for (int m = 0; m < 2; m++) {
		char procs[AB_GRID_ROWS][32], buf[1024];
		enum ab_verdict v[AB_GRID_ROWS];
		int np = ab_r_distinct(r, mbps[m], "procs", procs, AB_GRID_ROWS), judged = 0;
		for (int i = 0; i < np; i++) {
			const struct ab_group *off, *on;
			double q;
			struct ab_ci ci;
			v[i] = row(r, m, procs[i], &off, &on, &q, &ci);
			judged |= v[i] != AB_V_NONE;
			any |= v[i] == AB_V_UP || v[i] == AB_V_DOWN;
		}
		if (judged)
			fprintf(f, "%s\n\n", ab_r_sweep(buf, sizeof(buf), &sweep[m], v, procs, np));
	}
	for (int m = 0; m < 2; m++)
		transport_reading(r, m);
	fprintf(f, "\nThe post (8 nodes, 288 CPUs) saw clone_fd win only from 16 processes up "
		   "(writes %g -> %g \"Mb/s\" at 128)", ab_pub(POST, "write.128.without"),
		ab_pub(POST, "write.128.with"));
	if (!any && r->ncpu > 0 && r->ncpu <= 4)
		fprintf(f, "; with %d CPUs here there is little lock contention for it to remove", r->ncpu);
	fprintf(f, ".\n\n");
	uring_cpu_reading(r);
}

/* Time per request by N, one line per clone_fd value: a panel per measured time
 * (spin, kernel; the daemon's when no kernel statistics were taken) and mode. */
static void timereq_plot(struct ab_render *r)
{
	static const char *const ms[] = { DDP_M_SPIN_US, DDP_M_KERNEL_US, DDP_M_DAEMON_US };
	static const char *const names[] = { "spinlock wait", "kernel time", "daemon handler time" };
	static const char *const fixed[2][3] = { { "mode=write", LIBFUSE, NULL },
						 { "mode=read", LIBFUSE, NULL } };
	struct ab_grid g[3][2];
	int rows = 0, cols[2] = { 0 }, ncols = 0, any_kernel = 0;

	for (int k = 0; k < 3; k++)
		for (int m = 0; m < 2; m++) {
			ab_grid_build(r, &g[k][m], ms[k], "procs", "clone_fd", fixed[m]);
			cols[m] |= g[k][m].nr > 0;
			any_kernel |= k < 2 && g[k][m].nr > 0;
		}
	for (int k = any_kernel ? 0 : 2; k < (any_kernel ? 2 : 3); k++)
		rows += g[k][0].nr > 0 || g[k][1].nr > 0;
	ncols = cols[0] + cols[1];
	if (!rows || !ncols)
		return;
	FILE *b = ab_plot_begin(r);
	fprintf(b, "set multiplot layout %d,%d\nset logscale x 2\nset key outside right top noenhanced\n"
		   "set offsets graph 0.05, graph 0.05\n", rows, ncols);
	ab_plot_set(b, "xlabel", "dd processes (N)");
	for (int k = any_kernel ? 0 : 2; k < (any_kernel ? 2 : 3); k++) {
		if (!g[k][0].nr && !g[k][1].nr)
			continue;
		for (int m = 0; m < 2; m++) {
			char dat[64], title[96], ylabel[64];
			if (!cols[m])
				continue;
			snprintf(title, sizeof(title), "ddpar %s: %s per request", modes[m],
				 names[k]);
			ab_plot_set(b, "title", title);
			snprintf(ylabel, sizeof(ylabel), "us per request (%s)", ms[k]);
			ab_plot_set(b, "ylabel", ylabel);
			if (!g[k][m].nr) {	/* keeps the layout: an empty panel that says why */
				fprintf(b, "set multiplot next\n");
				continue;
			}
			snprintf(dat, sizeof(dat), "ddpar_timereq_%s_%s", k == 0 ? "spin" : k == 1 ? "kernel" :
				 "daemon", modes[m]);
			ab_grid_dat(r, &g[k][m], dat);
			ab_plot_yrange(b, &g[k][m]);
			snprintf(dat + strlen(dat), sizeof(dat) - strlen(dat), ".dat");
			ab_plot_lines(b, &g[k][m], dat, "clone_fd ");
		}
	}
	fprintf(b, "unset multiplot\n");
	ab_plot_end(r, b, "ddpar_timereq", 550 * ncols, 380 * rows);
}

/* One panel per mode with data, one line per value of ckey among records holding fix;
 * drawn when some panel has at least min_lines lines. */
static void mbps_plot(struct ab_render *r, const char *name, const char *ckey, const char *fix,
		      const char *fix2, const char *key_prefix, int min_lines)
{
	const char *fixed[2][4] = { { "mode=write", fix, fix2, NULL }, { "mode=read", fix, fix2, NULL } };
	struct ab_grid g[2];
	int panels = 0, lines = 0;

	for (int m = 0; m < 2; m++) {
		ab_grid_build(r, &g[m], mbps[m], "procs", ckey, fixed[m]);
		panels += g[m].nr > 0;
		lines = g[m].nr && g[m].nc > lines ? g[m].nc : lines;
	}
	if (!panels || lines < min_lines)
		return;
	FILE *b = ab_plot_begin(r);
	fprintf(b, "set multiplot layout 1,%d\nset logscale x 2\n"
		   "set key outside right top noenhanced\nset offsets graph 0.05, graph 0.05\n", panels);
	ab_plot_set(b, "xlabel", "dd processes (N)");
	ab_plot_set(b, "ylabel", "MB/s");
	for (int m = 0; m < 2; m++) {
		char dat[64], title[64];
		if (!g[m].nr)
			continue;
		snprintf(dat, sizeof(dat), "%s_%s", name, modes[m]);
		ab_grid_dat(r, &g[m], dat);
		snprintf(title, sizeof(title), "ddpar %s%s", modes[m], min_lines > 1 ? " by transport" : "");
		ab_plot_set(b, "title", title);
		ab_plot_yrange(b, &g[m]);
		snprintf(dat + strlen(dat), sizeof(dat) - strlen(dat), ".dat");
		ab_plot_lines(b, &g[m], dat, key_prefix);
	}
	fprintf(b, "unset multiplot\n");
	ab_plot_end(r, b, name, 550 * panels, 450);
}

/* The post's figure (libfuse, by clone_fd), the transports beside each other
 * (one /dev/fuse fd each), and the time per request. */
static void plots(struct ab_render *r)
{
	mbps_plot(r, "ddpar", "clone_fd", LIBFUSE, NULL, "clone_fd ", 1);
	/* uring as it runs by default: the --uring-cpu points are in the table */
	mbps_plot(r, "ddpar_transports", "transport", "clone_fd=off", "uring_cpu=queue|", "", 2);
	timereq_plot(r);
}

static const char *const headline[] = { DDP_M_WRITE, DDP_M_READ, NULL };

const struct ab_bench_desc ab_desc_ddpar = {
	.name = "ddpar",
	.title = "parallel dd-style writers and readers on one FUSE mount, without and with clone_fd",
	.post = POST,
	.headline = headline,
	.tables = tables,
	.reading = reading,
	.plots = plots,
};
