// SPDX-License-Identifier: GPL-2.0
/*
 * sqrtio's report, described once (lib/render/desc.h): the 2008 post's lines (M sqrt/s
 * and K ios/s per rq_affinity and local), what each IO cost (latency,
 * interrupts and IPIs per IO) and where everything ran, the on/off-IRQ-CPU and
 * rq_affinity ratios, the reading, and the plot. Linked into the harness too:
 * it uses lib/ and sqrtio.h's names only.
 * Known limits: a table shows the first config found for each rq and local;
 * runs that mix --io-procs or --sqrt-procs in one raw.csv show only one.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/gpscript.h"
#include "render/reading.h"
#include "render/render.h"
#include "render/desc.h"
#include "render/beside.h"
#include "render/render_plot.h"
#include "sqrtio.h"

#define POST "brunelle2008"

static const struct ab_group *cell(struct ab_render *r, const char *metric, const char *rq,
				   const char *local)
{
	return ab_r_find_kv(r, metric, "rq", rq, "local", local);
}

static const char *const locals[] = { "1", "0" };
static const char *const rate[] = { SQ_M_SQRT, SQ_M_IOS };	/* the post's two */

/* v as every human table prints it (ab_r_num), right-aligned in width; "-" when missing */
static const char *num(char *buf, size_t len, int width, double v)
{
	char t[32];

	snprintf(buf, len, "%*s", width, ab_r_num(t, sizeof(t), v));
	return buf;
}

static void post_lines(struct ab_render *r, char rqs[][32], int nrq)
{
	char key[64], a[32], b[32];

	ab_r_fence(r);
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < nrq; i++) {
			const struct ab_group *s = cell(r, SQ_M_SQRT, rqs[i], locals[l]);
			const struct ab_group *io = cell(r, SQ_M_IOS, rqs[i], locals[l]);
			if (!s && !io)
				continue;
			fprintf(r->out, "rq=%s local=%s  %s (M sqrt/sec) %s (K ios/sec)", rqs[i], locals[l],
				num(a, sizeof(a), 10, ab_r_median(s)),
				num(b, sizeof(b), 8, ab_r_median(io)));
			snprintf(key, sizeof(key), "rq%.31s.local%.1s.sqrt_M_per_s", rqs[i], locals[l]);
			if (!isnan(ab_pub(POST, key))) {
				/* as the post printed them */
				const char *sq = ab_pub_text(POST, key);
				snprintf(key, sizeof(key), "rq%.31s.local%.1s.ios_K_per_s", rqs[i], locals[l]);
				fprintf(r->out, "   post: %s / %s", sq, ab_pub_text(POST, key));
			}
			fprintf(r->out, "\n");
		}
	ab_r_fence(r);
}

/* What each IO cost and who ran where: the medians behind the post's rates. */
static void cost_lines(struct ab_render *r, char rqs[][32], int nrq)
{
	static const char *const ms[] = { SQ_M_P50, SQ_M_P99, SQ_M_IRQ, SQ_M_CAL, SQ_M_RES };
	static const int width[] = { 9, 9, 8, 8, 8 };
	char buf[32], label[80], io[128], sq[128], irq[128];

	ab_r_fence(r);
	fprintf(r->out, "%-13s %9s %9s %8s %8s %8s  %s\n", "", "p50 us", "p99 us", "irqs/io",
		"CAL/io", "RES/io", "cpus");
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < nrq; i++) {
			const struct ab_group *g[AB_ARRAY_SIZE(ms)], *any = NULL;
			for (size_t k = 0; k < AB_ARRAY_SIZE(ms); k++)
				if ((g[k] = cell(r, ms[k], rqs[i], locals[l])) && !any)
					any = g[k];
			if (!any)
				continue;
			snprintf(label, sizeof(label), "rq=%.31s local=%s", rqs[i], locals[l]);
			fprintf(r->out, "%-13s", label);
			for (size_t k = 0; k < AB_ARRAY_SIZE(ms); k++)
				fprintf(r->out, " %s", num(buf, sizeof(buf), width[k], ab_r_median(g[k])));
			ab_cfg_get(any->config, "io_cpus", io, sizeof(io));
			ab_cfg_get(any->config, "sqrt_cpus", sq, sizeof(sq));
			ab_cfg_get(any->config, "irq_cpus", irq, sizeof(irq));
			fprintf(r->out, "  io=%s sqrt=%s irq=%s\n", io, sq[0] ? sq : "-", irq);
		}
	ab_r_fence(r);
}

/* "sqrt ...; IO ..." for a/b */
static void ratio_pair(struct ab_render *r, const char *what, const char *rq_a, const char *loc_a,
		       const char *rq_b, const char *loc_b)
{
	static const char *const names[] = { "sqrt", "IO" };
	char buf[160];

	fprintf(r->out, "- %s:", what);
	for (int k = 0; k < 2; k++) {
		double q = NAN;
		struct ab_ci ci;
		enum ab_verdict v = ab_r_ratio(cell(r, rate[k], rq_a, loc_a), cell(r, rate[k], rq_b, loc_b),
					       &q, &ci);
		fprintf(r->out, "%s %s %s", k ? ";" : "", names[k],
			ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 0));
	}
	fprintf(r->out, "\n");
}

static void tables(struct ab_render *r)
{
	char rqs[8][32], what[96];
	int nrq = ab_r_distinct(r, SQ_M_IOS, "rq", rqs, 8);

	fprintf(r->out, "## sqrtio: sqrt + O_DIRECT reads, rq_affinity and IRQ placement (%s)\n\n",
		ab_pub_text(POST, "source"));
	post_lines(r, rqs, nrq);
	fprintf(r->out, "\n");
	cost_lines(r, rqs, nrq);
	fprintf(r->out, "\n");
	for (int i = 0; i < nrq; i++) {
		snprintf(what, sizeof(what), "rq=%.31s, readers off / on the IRQ CPU", rqs[i]);
		ratio_pair(r, what, rqs[i], "0", rqs[i], "1");
	}
	ratio_pair(r, "readers off the IRQ CPU, rq_affinity 1 / 0", "1", "0", "0", "0");
	fprintf(r->out, "- post (%s): off the IRQ CPU, rq_affinity=1 gave +4%% sqrt and +1%% IO; on it, "
			"no difference\n\n", ab_pub_text(POST, "machine"));
}

/* report.md's first table: the post's lines beside this run's, rq_affinity by local
 * (local=1: the readers on the device's IRQ CPU). */
static void beside(struct ab_render *r)
{
	static const char *const cols[] = { "post: M sqrt/s", "post: K ios/s", "this run: M sqrt/s",
					    "this run: K ios/s", NULL };
	char rqs[8][32], label[64], key[64];
	int nrq = ab_r_distinct(r, SQ_M_IOS, "rq", rqs, 8);

	if (nrq == 0)
		return;
	ab_r_beside_head(r, "rq_affinity, readers", cols);
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < nrq; i++) {
			snprintf(label, sizeof(label), "rq=%.31s, %s the IRQ CPU (local=%s)", rqs[i],
				 *locals[l] == '1' ? "on" : "off", locals[l]);
			ab_r_beside_row(r, label);
			snprintf(key, sizeof(key), "rq%.31s.local%.1s.sqrt_M_per_s", rqs[i], locals[l]);
			ab_r_cell_pub(r, POST, key);
			snprintf(key, sizeof(key), "rq%.31s.local%.1s.ios_K_per_s", rqs[i], locals[l]);
			ab_r_cell_pub(r, POST, key);
			ab_r_cell_median(r, cell(r, SQ_M_SQRT, rqs[i], locals[l]));
			ab_r_cell_median(r, cell(r, SQ_M_IOS, rqs[i], locals[l]));
			ab_r_beside_row_end(r);
		}
	ab_r_beside_note(r, POST);
}

/* "sqrt work rate 0.79x [0.76, 0.82] * at rq_affinity 0, ..." for readers off the IRQ
 * CPU against on it, one metric at every rq_affinity. */
static void off_on(struct ab_render *r, const char *metric, const char *name, char rqs[][32],
		   int nrq)
{
	char buf[128];

	fprintf(r->out, " %s", name);
	for (int i = 0; i < nrq; i++) {
		double q = NAN;
		struct ab_ci ci;
		enum ab_verdict v = ab_r_ratio(cell(r, metric, rqs[i], "0"), cell(r, metric, rqs[i], "1"),
					       &q, &ci);
		fprintf(r->out, "%s %s at rq_affinity %s", i ? "," : "",
			ab_r_ratio_brief(buf, sizeof(buf), v, q, &ci), rqs[i]);
	}
}

static void reading(struct ab_render *r)
{
	static const char *const names[] = { "sqrt work rate", "IO rate" };
	static const char *const post[] = { "+4%", "+1%" };
	FILE *f = r->out;
	char buf[512], rqs[8][32];
	int nrq = ab_r_distinct(r, SQ_M_IOS, "rq", rqs, 8), said = 0;

	if (nrq) {
		fprintf(f, "Readers off the IRQ CPU against readers on it (95%% CI, * where it "
			   "excludes 1):");
		off_on(r, SQ_M_SQRT, names[0], rqs, nrq);
		fprintf(f, ";");
		off_on(r, SQ_M_IOS, names[1], rqs, nrq);
		fprintf(f, ".\n\n");
	}
	for (int k = 0; k < 2; k++) {
		double q = NAN;
		struct ab_ci ci;
		enum ab_verdict v = ab_r_ratio(cell(r, rate[k], "1", "0"), cell(r, rate[k], "0", "0"), &q, &ci);
		const struct ab_claim c = { names[k], "readers off the IRQ CPU with rq_affinity 1",
					    "the same readers with rq_affinity 0", 1 };
		if (v != AB_V_NONE)
			fprintf(f, "%s%s The post saw %s.", said++ ? " " : "",
				ab_r_sentence(buf, sizeof(buf), &c, v, q, &ci), post[k]);
	}
	if (said)
		fprintf(f, "\n\n");
}

/* Its ratios people trust (desc.h): readers off the IRQ CPU, rq_affinity 1 against 0,
 * as the reading above states them. */
static int ratios(struct ab_render *r, struct ab_named_ratio *out, int max)
{
	static const char *const names[] = { "rq 1/0, readers off the IRQ CPU (sqrt work)",
					     "rq 1/0, readers off the IRQ CPU (IO)" };
	int n = 0;

	for (int k = 0; k < 2 && n < max; k++) {
		const struct ab_group *a = cell(r, rate[k], "1", "0"), *b = cell(r, rate[k], "0", "0");
		if (!a || !b)
			continue;
		snprintf(out[n].name, sizeof(out[n].name), "%s", names[k]);
		out[n].subject = a;
		out[n++].base = b;
	}
	return n;
}

/* The figure's width: two panels side by side */
#define SQ_FIG_W 1200

static void plots(struct ab_render *r)
{
	struct ab_grid s, io;

	ab_grid_build(r, &s, SQ_M_SQRT, "rq", "local", NULL);
	ab_grid_build(r, &io, SQ_M_IOS, "rq", "local", NULL);
	if (!io.nr)
		return;
	ab_grid_dat(r, &s, "sqrtio_sqrt");
	ab_grid_dat(r, &io, "sqrtio_io");
	FILE *b = ab_plot_begin(r);
	/* the figure names its benchmark and what its keys mean */
	fprintf(b, "set multiplot layout 1,2 title ");
	ab_gp_string(b, "sqrtio: sqrt workers beside O_DIRECT readers (local=1: the readers on the "
		     "IRQ CPU, local=0: off it)");
	fprintf(b, " noenhanced\n");
	ab_plot_set(b, "xlabel", "the device queue's rq_affinity");
	if (s.nr)
		ab_plot_bars(b, &s, "sqrtio_sqrt.dat", "sqrtio: sqrt work", "M sqrt/s", "local=",
			     SQ_FIG_W / 2);
	ab_plot_bars(b, &io, "sqrtio_io.dat", "sqrtio: 4 KiB O_DIRECT reads", "K ios/s", "local=",
		     SQ_FIG_W / 2);
	fprintf(b, "unset multiplot\n");
	ab_plot_end(r, b, "sqrtio", SQ_FIG_W, 450);
}

const struct ab_metric_desc sq_metrics[SQ_NM + 1] = {
	[SQ_SQRT] = { SQ_M_SQRT, "Msqrt/s", 0 },
	[SQ_IOS] = { SQ_M_IOS, "Kio/s", 0 },
	[SQ_P50] = { SQ_M_P50, "us", 1 },
	[SQ_P99] = { SQ_M_P99, "us", 1 },
	[SQ_IRQ] = { SQ_M_IRQ, "irq/io", 1 },
	[SQ_CAL] = { SQ_M_CAL, "ipi/io", 1 },
	[SQ_RES] = { SQ_M_RES, "ipi/io", 1 },
	[SQ_DONE_LOCAL] = { SQ_M_DONE_LOCAL, "%", 0 },
	[SQ_IRQ_LOCAL] = { SQ_M_IRQ_LOCAL, "%", 0 },
	[SQ_NM] = { NULL, NULL, 0 },
};

static const char *const headline[] = { SQ_M_SQRT, SQ_M_IOS, NULL };
/* The roles of its config keys (desc.h): CDF lines compare rq_affinity and whether
 * readers share the IRQ CPU; the CPU lists follow them. */
static const char *const compared[] = { "rq", "local", NULL };
static const char *const follow[] = { "io_cpus", "sqrt_cpus", "irq_cpus", NULL };

const struct ab_bench_desc ab_desc_sqrtio = {
	.name = "sqrtio",
	.post = POST,
	.question = "rq_affinity and readers on / off the IRQ CPU",
	.beside = beside,
	.headline = headline,
	.discover = "--discover",
	.metrics = sq_metrics,
	.op = "one 4 KiB read (the sqrt workers share the window)",
	.compared = compared,
	.follow = follow,
	.tables = tables,
	.reading = reading,
	.plots = plots,
	.ratios = ratios,
};
