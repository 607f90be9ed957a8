/*
 * sqrtio's report, described once (lib/render): the 2008 post's lines (M sqrt/s
 * and K ios/s per rq_affinity and local), the on/off-IRQ-CPU and rq_affinity
 * ratios, the reading, and the plot.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

#define POST "brunelle2008"

static const struct ab_group *cell(struct ab_render *r, const char *metric, const char *rq,
				   const char *local)
{
	char a[48], b[48];

	snprintf(a, sizeof(a), "rq=%.31s", rq);
	snprintf(b, sizeof(b), "local=%.31s", local);
	const char *want[] = { a, b, NULL };
	return ab_r_find(r, metric, want);
}

static void post_lines(struct ab_render *r, char rqs[][32], int nrq)
{
	static const char *const locals[] = { "1", "0" };
	char key[64];

	ab_r_fence(r);
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < nrq; i++) {
			const struct ab_group *s = cell(r, "sqrt_M_per_s", rqs[i], locals[l]);
			const struct ab_group *io = cell(r, "ios_K_per_s", rqs[i], locals[l]);
			if (!s && !io)
				continue;
			fprintf(r->out, "rq=%s local=%s  %10.3f (M sqrt/sec) %8.3f (K ios/sec)", rqs[i],
				locals[l], ab_r_median(s), ab_r_median(io));
			snprintf(key, sizeof(key), "rq%.31s.local%.1s.sqrt_M_per_s", rqs[i], locals[l]);
			if (!isnan(ab_pub(POST, key))) {
				double sq = ab_pub(POST, key);
				snprintf(key, sizeof(key), "rq%.31s.local%.1s.ios_K_per_s", rqs[i], locals[l]);
				fprintf(r->out, "   post: %.3f / %.3f", sq, ab_pub(POST, key));
			}
			fprintf(r->out, "\n");
		}
	ab_r_fence(r);
}

/* "sqrt ...; IO ..." for a/b */
static void ratio_pair(struct ab_render *r, const char *what, const char *rq_a, const char *loc_a,
		       const char *rq_b, const char *loc_b)
{
	static const char *const ms[] = { "sqrt_M_per_s", "ios_K_per_s" }, *const names[] = { "sqrt",
											       "IO" };
	char buf[160];

	fprintf(r->out, "- %s:", what);
	for (int k = 0; k < 2; k++) {
		double q = NAN;
		struct ab_ci ci;
		enum ab_verdict v = ab_r_ratio(cell(r, ms[k], rq_a, loc_a), cell(r, ms[k], rq_b, loc_b),
					       &q, &ci);
		fprintf(r->out, "%s %s %s", k ? ";" : "", names[k],
			ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 0));
	}
	fprintf(r->out, "\n");
}

static void tables(struct ab_render *r)
{
	char rqs[8][32], what[96];
	int nrq = ab_r_distinct(r, "ios_K_per_s", "rq", rqs, 8);

	fprintf(r->out, "## sqrtio: sqrt + O_DIRECT reads, rq_affinity and IRQ placement (%s)\n\n",
		ab_pub_text(POST, "source"));
	post_lines(r, rqs, nrq);
	fprintf(r->out, "\n");
	for (int i = 0; i < nrq; i++) {
		snprintf(what, sizeof(what), "rq=%.31s, readers off / on the IRQ CPU", rqs[i]);
		ratio_pair(r, what, rqs[i], "0", rqs[i], "1");
	}
	ratio_pair(r, "readers off the IRQ CPU, rq_affinity 1 / 0", "1", "0", "0", "0");
	fprintf(r->out, "- post (%s): off the IRQ CPU, rq_affinity=1 gave +4%% sqrt and +1%% IO; on it, "
			"no difference\n\n", ab_pub_text(POST, "machine"));
}

static void reading(struct ab_render *r)
{
	FILE *f = r->out;
	char buf[160], rqs[8][32];
	int nrq = ab_r_distinct(r, "ios_K_per_s", "rq", rqs, 8);

	fprintf(f, "## sqrtio: rq_affinity and readers on / off the IRQ CPU\n\n");
	for (int i = 0; i < nrq; i++) {
		double q = NAN;
		struct ab_ci ci;
		enum ab_verdict v = ab_r_ratio(cell(r, "ios_K_per_s", rqs[i], "0"),
					       cell(r, "ios_K_per_s", rqs[i], "1"), &q, &ci);
		if (v != AB_V_NONE)
			fprintf(f, "- rq=%s: readers off the IRQ CPU reach %s of the IO rate of readers on it.\n",
				rqs[i], ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 0));
	}
	static const char *const ms[] = { "sqrt_M_per_s", "ios_K_per_s" };
	static const char *const names[] = { "sqrt work", "IO rate" }, *const post[] = { "+4%", "+1%" };
	for (int k = 0; k < 2; k++) {
		double q = NAN;
		struct ab_ci ci;
		enum ab_verdict v = ab_r_ratio(cell(r, ms[k], "1", "0"), cell(r, ms[k], "0", "0"), &q, &ci);
		if (v != AB_V_NONE)
			fprintf(f, "- readers off the IRQ CPU, rq_affinity 1 vs 0: %s %s (post: %s).\n",
				names[k], ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 1), post[k]);
	}
	fprintf(f, "\n");
}

static void plots(struct ab_render *r)
{
	static const char *const fixed[] = { NULL };
	struct ab_grid s, io;

	ab_grid_build(r, &s, "sqrt_M_per_s", "rq", "local", fixed);
	ab_grid_build(r, &io, "ios_K_per_s", "rq", "local", fixed);
	if (!io.nr)
		return;
	ab_grid_dat(r, &s, "sqrtio_sqrt");
	ab_grid_dat(r, &io, "sqrtio_io");
	FILE *b = ab_plot_begin(r);
	fprintf(b, "set multiplot layout 1,2\n");
	ab_plot_set(b, "xlabel", "rq_affinity");
	if (s.nr)
		ab_plot_bars(b, &s, "sqrtio_sqrt.dat", "sqrt work", "M sqrt/s", "local=");
	ab_plot_bars(b, &io, "sqrtio_io.dat", "4 KiB O_DIRECT reads", "K ios/s", "local=");
	fprintf(b, "unset multiplot\n");
	ab_plot_end(r, b, "sqrtio", 1200, 450);
}

static const char *const headline[] = { "sqrt_M_per_s", "ios_K_per_s", NULL };

const struct ab_bench_desc ab_desc_sqrtio = {
	.name = "sqrtio",
	.title = "sqrt throughput and 4 KiB O_DIRECT reads vs rq_affinity and the IRQ CPU",
	.post = POST,
	.headline = headline,
	.discover = "--discover",
	.tables = tables,
	.reading = reading,
	.plots = plots,
};
