// SPDX-License-Identifier: GPL-2.0
/*
 * cputestfs's report, described once (lib/render/desc.h): the 2012 post's two tables,
 * stat/s by placement and daemon mode, the baselines, kernel time per request, every
 * configuration, and the reading; what moves the ratios is report_levers.c. Uses lib/ and
 * cputestfs.h's names only: bin/cputestfs prints these tables, the harness links it too.
 * Limits: grids key on placement and daemon (or baseline); runs that differ only in
 * --clients share a cell (the first group found fills it), listed apart in configurations.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "render/desc.h"
#include "render/render_plot.h"
#include "cputestfs.h"
#include "report_levers.h"
#include "report_pub.h"

#define POST "westerfeld2012"

static const char *const libfuse[] = { "baseline=fuse", "transport=libfuse|", NULL };

/* The transports, each as it runs best: libfuse and dev single-threaded, uring per CPU. */
static const struct {
	const char *name, *daemon;
} transports[] = { { "libfuse", "single" }, { "dev", "single" }, { "uring", "percpu" } };

/* Transport t as it runs best at placement pl, its server waiting as w says: libfuse
 * also matches records without the transport key, block those without daemon_wait
 * (--daemon-wait block, the default); uring as it runs by default (--uring-cpu queue;
 * other transports lack the key). */
static const struct ab_group *cell(struct ab_render *r, const char *metric, int t, const char *pl,
				   const char *w)
{
	char p[64], tr[48], dm[48], dw[48];

	snprintf(p, sizeof(p), "placement=%s", pl);
	snprintf(tr, sizeof(tr), "transport=%s%s", transports[t].name, t ? "" : "|");
	snprintf(dm, sizeof(dm), "daemon=%s", transports[t].daemon);
	snprintf(dw, sizeof(dw), "daemon_wait=%.31s%s", w, strcmp(w, "block") ? "" : "|");
	const char *want[] = { p, tr, dm, "baseline=fuse", "uring_cpu=queue|", dw, NULL };
	return ab_r_find(r, metric, want);
}

/* rows: placements, columns: transports that were measured beside libfuse. */
static int transport_grid(struct ab_render *r, struct ab_grid *m, const char *metric)
{
	int others = 0;

	memset(m, 0, sizeof(*m));
	snprintf(m->rkey, sizeof(m->rkey), "placement");
	m->nr = ab_r_distinct(r, metric, "placement", m->rows, AB_GRID_ROWS);
	for (int t = 0; t < (int)(sizeof(transports) / sizeof(transports[0])); t++) {
		int any = 0;
		for (int a = 0; a < m->nr; a++)
			any |= cell(r, metric, t, m->rows[a], "block") != NULL;
		if (!any)
			continue;
		others += t > 0;
		snprintf(m->cols[m->nc], sizeof(m->cols[0]), "%s", transports[t].name);
		for (int a = 0; a < m->nr; a++)
			m->g[a][m->nc] = cell(r, metric, t, m->rows[a], "block");
		m->nc++;
	}
	return others;
}

static void transport_tables(struct ab_render *r)
{
	struct ab_grid m;

	if (!transport_grid(r, &m, CTF_M_STAT))
		return;
	fprintf(r->out, "FUSE transports: stat() calls/s (median [%s]; libfuse and dev one "
			"thread, uring one ring thread per daemon CPU):\n\n", ab_grid_interval(&m));
	ab_grid_md(r, &m, "placement", 1);
	transport_grid(r, &m, CTF_M_SAME);
	fprintf(r->out, "FUSE transports: share of stat() calls served on the caller's CPU (%%, "
			"median):\n\n");
	ab_grid_md(r, &m, "placement", 0);
}

/* --daemon-wait: how affbench's own servers wait, each beside its block, with the
 * serving threads' CPU time per request: the price of every gain. */
static void wait_table(struct ab_render *r)
{
	char w[AB_GRID_COLS][32], pl[AB_GRID_ROWS][32];
	int nw = 1 + ab_r_distinct(r, CTF_M_STAT, "daemon_wait", w + 1, AB_GRID_COLS - 1);
	int np = ab_r_distinct(r, CTF_M_STAT, "placement", pl, AB_GRID_ROWS);
	FILE *f = r->out;

	if (nw == 1)
		return;
	snprintf(w[0], sizeof(w[0]), "block");
	fprintf(f, "How affbench's server waits for requests (--daemon-wait; stat() calls/s, median, "
		   "with the serving threads' CPU time per request in us and the ratio to block):\n\n"
		   "| transport | placement |");
	for (int k = 0; k < nw; k++)
		fprintf(f, " %s |", w[k]);
	fprintf(f, "\n|---|---|");
	for (int k = 0; k < nw; k++)
		fprintf(f, "---|");
	fprintf(f, "\n");
	for (int t = 1; t < 3; t++)
		for (int i = 0; i < np; i++) {
			const struct ab_group *base = cell(r, CTF_M_STAT, t, pl[i], "block");
			int any = 0;
			for (int k = 1; k < nw; k++)
				any |= cell(r, CTF_M_STAT, t, pl[i], w[k]) != NULL;
			if (!any)
				continue;
			fprintf(f, "| %s | %s |", transports[t].name, pl[i]);
			for (int k = 0; k < nw; k++)
				ab_r_cost_cell(r, cell(r, CTF_M_STAT, t, pl[i], w[k]),
					       cell(r, CTF_M_SCPU, t, pl[i], w[k]), base);
			fprintf(f, "\n");
		}
	fprintf(f, "\n(spin:US looks for the next request US microseconds after each reply before it "
		   "sleeps, poll never sleeps: the server's wake-up goes, the caller still sleeps for "
		   "its reply; * = the ratio's 95%% CI excludes 1)\n\n");
	ctf_pub_spin(r);
}

static void post_table(struct ab_render *r, const char *const *want, const char *title)
{
	FILE *f = r->out;
	const struct ab_group *st = ab_r_find(r, CTF_M_STAT, want);
	char a[32], b[32], c[32];

	fprintf(f, "#### %s cpu affinity ####\n\n", title);
	if (!st) {
		fprintf(f, "(not measured in this run)\n\n");
		return;
	}
	/* one column of numbers, as wide as the largest calls/s; each as the grids and
	 * report.md print it (ab_r_num) */
	fprintf(f, "same  cpu (%%) %11s\n",
		ab_r_num(a, sizeof(a), ab_r_median(ab_r_find(r, CTF_M_SAME, want))));
	fprintf(f, "other cpu (%%) %11s\n",
		ab_r_num(b, sizeof(b), ab_r_median(ab_r_find(r, CTF_M_OTHER, want))));
	fprintf(f, "-------------------------\nstat calls/s  %11s   (median of %zu)\n\n",
		ab_r_num(c, sizeof(c), ab_r_median(st)), st->n);
}

/* The comparison the post's title makes: same CPU against another CPU. */
static void same_other(struct ab_render *r)
{
	const struct ab_group *same = ab_r_find(r, CTF_M_STAT, ctf_w_same);
	const struct ab_group *other = ab_r_find(r, CTF_M_STAT, ctf_w_other);
	struct ab_ci ci;
	double q = NAN;
	char buf[160];

	if (!same || !other)
		return;
	enum ab_verdict v = ab_r_ratio(same, other, &q, &ci);
	fprintf(r->out, "- same / other CPU (daemon single): %s\n",
		ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 0));
}

static void published(struct ab_render *r)
{
	static const char *const mach[] = { "phenom", "athlon" };
	char key[64], x[32];

	fprintf(r->out, "- published (%s):", ab_pub_text(POST, "source"));
	for (size_t i = 0; i < 2; i++) {	/* as the post printed them; their ratio is ours */
		snprintf(key, sizeof(key), "%s.without.stat_per_s", mach[i]);
		const char *a = ab_pub_text(POST, key);
		snprintf(key, sizeof(key), "%s.with.stat_per_s", mach[i]);
		const char *b = ab_pub_text(POST, key);
		snprintf(key, sizeof(key), "machine.%s", mach[i]);
		fprintf(r->out, "%s %s: %s -> %s stat/s (%s)", i ? ";" : "", ab_pub_text(POST, key),
			a, b, ab_r_x(x, sizeof(x), atof(b) / atof(a)));
	}
	fprintf(r->out, "\n");
}

static void baselines(struct ab_render *r)
{
	struct ab_grid m;

	ab_grid_build(r, &m, CTF_M_STAT, "placement", "baseline", NULL);
	if (m.nc < 2 && !(m.nc == 1 && strcmp(m.cols[0], "fuse")))
		return;	/* FUSE alone: the grids above show it */
	for (int a = 0; a < m.nr; a++)	/* the fuse column is the daemon single one */
		for (int c = 0; c < m.nc; c++) {
			char pl[64], ba[64];
			snprintf(pl, sizeof(pl), "placement=%s", m.rows[a]);
			snprintf(ba, sizeof(ba), "baseline=%s", m.cols[c]);
			int f = !strcmp(m.cols[c], "fuse");
			const char *want[] = { pl, ba, f ? "daemon=single" : NULL, "transport=libfuse|", NULL };
			m.g[a][c] = ab_r_find(r, CTF_M_STAT, want);
		}
	fprintf(r->out, "Baselines, calls/s (median [%s]; fuse = stat() with daemon single, "
			"kernel = stat() on a kernel filesystem, pipe = a one-byte round trip):\n\n",
		ab_grid_interval(&m));
	ab_grid_md(r, &m, "placement", 1);
}

/* Why configs()'s column k of g has no number: the kernel baseline has no daemon to
 * share a CPU with and sends no FUSE request; anything else was not measured. */
static const char *no_value(const struct ab_group *g, size_t k)
{
	char v[AB_VALUE_LEN];

	if (k < 2 && !strcmp(ab_cfg_get(g->config, "baseline", v, sizeof(v)), "kernel"))
		return k == 0 ? "no daemon" : "no FUSE";
	return "not measured";
}

/* One row per configuration: where it ran and what the tables above leave out. */
static void configs(struct ab_render *r)
{
	static const char *const keys[] = { "placement", "baseline", "transport", "daemon", "clients",
					    "client_cpu", "daemon_cpu" };
	static const char *const cols[][2] = { { CTF_M_SAME, "%" }, { CTF_M_REQ, "ratio" },
					       { CTF_M_P50, "ns" }, { CTF_M_P99, "ns" } };
	FILE *f = r->out;
	char v[AB_VALUE_LEN], num[32];
	int idle = 0;	/* a column for --idle only in runs that swept it */

	for (size_t i = 0; i < r->res->n; i++)
		idle |= !strcmp(r->res->g[i].bench, r->desc->name) &&
			ab_cfg_get(r->res->g[i].config, "idle", v, sizeof(v))[0];
	fprintf(f, "Every configuration (medians; calls are stat() or pipe round trips; latency of one "
		   "call in 64):\n\n| placement | baseline | transport | daemon | clients | client cpu | "
		   "daemon cpu |%s calls/s | same cpu %% | requests/call | p50 us | p99 us | reps |\n"
		   "|---|---|---|---|---|---|---|%s---|---|---|---|---|---|\n", idle ? " idle |" : "",
		idle ? "---|" : "");
	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		if (strcmp(g->bench, r->desc->name) || strcmp(g->metric, CTF_M_STAT))
			continue;
		fprintf(f, "|");
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			fprintf(f, " %s |", ab_cfg_get(g->config, keys[k], v, sizeof(v)));
		if (idle)
			fprintf(f, " %s |", ab_cfg_get(g->config, "idle", v, sizeof(v))[0] ? v : "as-found");
		fprintf(f, " %s |", ab_r_num(num, sizeof(num), ab_r_median(g)));
		for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
			/* exactly g's config, in the unit main.c writes: one hash lookup, so a
			 * raw.csv of 200,000 configs renders in seconds, not minutes */
			double x = ab_r_median(ab_results_get(r->res, g->bench, g->config,
							      cols[k][0], cols[k][1]));
			fprintf(f, " %s |", isnan(x) ? no_value(g, k) :
					   ab_r_num(num, sizeof(num), k >= 2 ? x / 1e3 : x));
		}
		fprintf(f, " %zu |\n", g->n);
	}
	fprintf(f, "\n");
}

static void tables(struct ab_render *r)
{
	FILE *f = r->out;
	const struct ab_group *none = ab_r_find(r, CTF_M_STAT, ctf_w_none);
	const struct ab_group *same = ab_r_find(r, CTF_M_STAT, ctf_w_same);
	struct ab_ci ci;
	double q = NAN;
	char buf[160];
	struct ab_grid m;

	fprintf(f, "## cputestfs: stat() on FUSE, same CPU vs other CPU (%s)\n\n",
		ab_pub_text(POST, "source"));
	if (none || same) {	/* the post's own layout, daemon single */
		ab_r_fence(r);
		post_table(r, ctf_w_none, "without");
		post_table(r, ctf_w_same, "with");
		ab_r_fence(r);
		enum ab_verdict v = ab_r_ratio(same, none, &q, &ci);
		if (none && same)
			fprintf(f, "\n- with / without cpu affinity (daemon single): %s\n",
				ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 0));
		else
			fprintf(f, "\n- with / without cpu affinity (daemon single): not compared, "
				   "placement %s was not measured in this run\n", none ? "same" : "none");
		same_other(r);
		published(r);
	}
	ab_grid_build(r, &m, CTF_M_STAT, "placement", "daemon", libfuse);
	if (m.nr) {
		fprintf(f, "\nstat() calls/s (median [%s]) by placement and libfuse daemon mode:\n\n",
			ab_grid_interval(&m));
		ab_grid_md(r, &m, "placement", 1);
	}
	ab_grid_build(r, &m, CTF_M_SAME, "placement", "daemon", libfuse);
	if (m.nr) {
		fprintf(f, "Share of stat() calls served on the caller's CPU (%%, median):\n\n");
		ab_grid_md(r, &m, "placement", 0);
	}
	transport_tables(r);
	wait_table(r);
	baselines(r);
	ab_grid_build(r, &m, CTF_M_KNS, "placement", "daemon", libfuse);
	if (m.nr) {
		fprintf(f, "Kernel time per FUSE request (ns, median; from separate instrumented "
			   "repetitions, never the ones timed above):\n\n");
		ab_grid_md(r, &m, "placement", 0);
	}
	configs(r);
	ctf_levers(r, 0);
}

/* Today's answer: io_uring unpinned against libfuse unpinned and pinned. */
static void transport_reading(struct ab_render *r)
{
	const struct ab_group *u = cell(r, CTF_M_STAT, 2, "none", "block");
	const struct ab_group *up = cell(r, CTF_M_SAME, 2, "none", "block");
	const struct ab_group *ln = cell(r, CTF_M_STAT, 0, "none", "block");
	const struct ab_group *ls = cell(r, CTF_M_STAT, 0, "same", "block");
	struct ab_ci ci;
	double q = NAN;
	char buf[160], a[32], b[32];

	if (!u)
		return;
	fprintf(r->out, "FUSE over io_uring, caller unpinned: %s%% of stat() calls served on the "
			"caller's CPU, %s stat/s. ", ab_r_num(a, sizeof(a), ab_r_median(up)),
		ab_r_num(b, sizeof(b), ab_r_median(u)));
	enum ab_verdict v = ab_r_ratio(u, ln, &q, &ci);
	if (v != AB_V_NONE)
		fprintf(r->out, "Against libfuse unpinned: %s. ",
			ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 0));
	v = ab_r_ratio(u, ls, &q, &ci);
	if (v != AB_V_NONE)
		fprintf(r->out, "Against libfuse with client and daemon pinned to one CPU (the 2012 "
				"answer): %s.", ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 0));
	fprintf(r->out, " ");	/* the 2025 post in the same paragraph */
	ctf_pub_samecpu(r);
}

/* Same CPU against unpinned, the post's question, is a row of the table beside the post
 * (report_pub.c: ctf_beside), with the post's own ratios and shares: not said twice. */
static void reading(struct ab_render *r)
{
	transport_reading(r);
	ctf_levers(r, 1);
	if (!ab_r_find(r, CTF_M_STAT, ctf_w_none) || !ab_r_find(r, CTF_M_STAT, ctf_w_same))
		fprintf(r->out, "Placements none and same (libfuse, daemon single) were not both "
				"measured.\n\n");
}

/* The wait table's metric as a grid: rows the waits (block first), columns transport
 * and placement; 0 when no wait other than block was measured. */
static int wait_grid(struct ab_render *r, struct ab_grid *m, const char *metric)
{
	char pl[AB_GRID_ROWS][32];
	int np = ab_r_distinct(r, CTF_M_STAT, "placement", pl, AB_GRID_ROWS);

	memset(m, 0, sizeof(*m));
	snprintf(m->rkey, sizeof(m->rkey), "daemon_wait");
	snprintf(m->rows[0], sizeof(m->rows[0]), "block");
	m->nr = 1 + ab_r_distinct(r, CTF_M_STAT, "daemon_wait", m->rows + 1, AB_GRID_ROWS - 1);
	if (m->nr == 1)
		return 0;
	for (int t = 1; t < 3; t++)
		for (int i = 0; i < np && m->nc < AB_GRID_COLS; i++) {
			int any = 0;
			for (int k = 1; k < m->nr; k++)
				any |= cell(r, CTF_M_STAT, t, pl[i], m->rows[k]) != NULL;
			if (!any)
				continue;
			snprintf(m->cols[m->nc], sizeof(m->cols[0]), "%s %.20s", transports[t].name, pl[i]);
			for (int k = 0; k < m->nr; k++)
				m->g[k][m->nc] = cell(r, metric, t, pl[i], m->rows[k]);
			m->nc++;
		}
	return m->nc > 0;
}

static void plots(struct ab_render *r)
{
	struct ab_grid m;

	ab_grid_build(r, &m, CTF_M_STAT, "placement", "daemon", libfuse);
	ab_grid_plot(r, &m, "cputestfs", "cputestfs: stat() calls/s, libfuse", "stat/s", "daemon ",
		     1000, 500);
	if (transport_grid(r, &m, CTF_M_STAT))
		ab_grid_plot(r, &m, "cputestfs_transports", "cputestfs: stat() calls/s by FUSE transport",
			     "stat/s", "", 1000, 500);
	if (wait_grid(r, &m, CTF_M_STAT))	/* each gain, then its price */
		ab_grid_plot(r, &m, "cputestfs_wait", "cputestfs: stat() calls/s by how the server "
			     "waits (--daemon-wait)", "stat/s", "", 900, 450);
	if (wait_grid(r, &m, CTF_M_SCPU))
		ab_grid_plot(r, &m, "cputestfs_wait_cpu", "cputestfs: the serving threads' CPU time "
			     "per request by --daemon-wait", "us per request", "", 900, 450);
	ctf_split_plot(r);
}

/* Units and directions, by enum ctf_metric: main.c writes the records from it. */
const struct ab_metric_desc ctf_metrics[CTF_NM + 1] = {
	[CTF_STAT] = { CTF_M_STAT, "1/s", 0 },	 [CTF_SAME] = { CTF_M_SAME, "%", 0 },
	[CTF_OTHER] = { CTF_M_OTHER, "%", 1 },	 [CTF_REQ] = { CTF_M_REQ, "ratio", 1 },
	[CTF_P50] = { CTF_M_P50, "ns", 1 },	 [CTF_P99] = { CTF_M_P99, "ns", 1 },
	[CTF_SCPU] = { CTF_M_SCPU, "us", 1 },	 [CTF_KNS] = { CTF_M_KNS, "ns", 1 },
	[CTF_KSAME] = { CTF_M_KSAME, "%", 0 },	 [CTF_KREQ] = { CTF_M_KREQ, "count", 0 },
	[CTF_DREQ] = { CTF_M_DREQ, "count", 0 }, [CTF_NM] = { NULL, NULL, 0 },
};

static const char *const headline[] = { CTF_M_STAT, NULL };
/* The roles of its config keys (desc.h): CDF lines compare placements, in panels
 * by daemon mode, transport and baseline; the CPUs follow the placement. */
static const char *const compared[] = { "placement", NULL };
static const char *const follow[] = { "client_cpu", "daemon_cpu", NULL };
static const char *const not_cpus[] = { "uring_cpu", NULL };	/* queue, next, none */
static const char *const baseline_values[] = { "kernel", "pipe", NULL };
/* --daemon-wait block, the default, is not written (docs/records.md) */
static const struct ab_key_absent absent_as[] = { { "daemon_wait", "block" }, { NULL, NULL } };
static const char *const breakdown_keys[] = {
	"baseline", "placement", "transport", "uring_cpu", NULL
};

const struct ab_bench_desc ab_desc_cputestfs = {
	.name = "cputestfs",
	.post = POST,
	.question = "does serving a FUSE request on the caller's CPU help?",
	.beside = ctf_beside,
	.headline = headline,
	.probes = "kstats",
	.op = "one stat()",
	.metrics = ctf_metrics,
	.compared = compared,
	.follow = follow,
	.not_cpus = not_cpus,
	.absent_as = absent_as,
	.baseline_key = "baseline",
	.baselines = baseline_values,
	.breakdown_keys = breakdown_keys,
	.breakdown_reading = ctf_pipe_reading,
	.tables = tables,
	.reading = reading,
	.plots = plots,
	.ratios = ctf_ratios,
};
