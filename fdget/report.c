// SPDX-License-Identifier: GPL-2.0
/*
 * fdget's report, described once (lib/render/desc.h): ns per fd syscall single-
 * threaded vs with an idle second thread, every mode against single, process
 * start-up with and without a thread, and the 2016 post's numbers. Every
 * ratio is paired per repetition (each mode's repetition i ran right beside
 * single's repetition i) and computed here from the ns_per_op and
 * us_per_spawn records; --verify-overhead's harness-vs-bare table likewise.
 *
 * Known limit: records of --syscall libc and raw in one raw.csv are not told
 * apart here (the first group of each op and mode is shown).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/reading.h"
#include "render/render.h"
#include "render/desc.h"
#include "render/beside.h"
#include "render/render_plot.h"
#include "fdget.h"

#define POST "goldstein2016"

static const struct ab_group *op_mode(struct ab_render *r, const char *metric, const char *op,
				      const char *mode)
{
	return ab_r_find_kv(r, metric, "op", op, "mode", mode);
}

static int has_mode(struct ab_render *r, const char *mode)
{
	return ab_r_find_kv(r, FDGET_M_NS, "mode", mode, NULL, NULL) != NULL;
}

/* Whether a change between a and b can be marked significant: the ab_r_* rule of
 * AB_MIN_REPS_CI repetitions a side. The legend of '*' is printed only then. */
static int can_mark(const struct ab_group *a, const struct ab_group *b)
{
	return a && b && a->n >= AB_MIN_REPS_CI && b->n >= AB_MIN_REPS_CI;
}

static void legend(FILE *f, int marks, const char *what)
{
	if (marks)
		fprintf(f, "(* = the 95%% CI of the %s excludes 0%%)\n", what);
	fputc('\n', f);
}

/* One op: a and b medians in columns of width wa and wb, then b against a (a against b
 * when a_vs_b), paired per repetition, with its 95% CI. Whether it can be marked. */
static int paired_row(FILE *f, const char *op, const struct ab_group *a, int wa,
		      const struct ab_group *b, int wb, int a_vs_b)
{
	char buf[160], x[32], y[32];
	double q = NAN;
	struct ab_ci ci;
	enum ab_verdict v = a_vs_b ? ab_r_paired(a, b, &q, &ci) : ab_r_paired(b, a, &q, &ci);

	fprintf(f, "%-8s %*s %*s   %s%s\n", op, wa, ab_r_num(x, sizeof(x), ab_r_median(a)), wb,
		ab_r_num(y, sizeof(y), ab_r_median(b)),
		ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 1), ab_r_star(v));
	return can_mark(a, b);
}

/* The post's layout: single vs idle-thread, one row per op. */
static void op_table(struct ab_render *r)
{
	FILE *f = r->out;
	char ops[AB_GRID_ROWS][32];
	int nop = ab_r_distinct(r, FDGET_M_NS, "op", ops, AB_GRID_ROWS);

	ab_r_fence(r);
	fprintf(f, "%-8s %12s %17s   %s\n", "op", "single ns/op", "idle-thread ns/op",
		"idle-thread vs single (paired per repetition)");
	int marks = 0;
	for (int i = 0; i < nop; i++)
		marks |= paired_row(f, ops[i], op_mode(r, FDGET_M_NS, ops[i], "single"), 12,
				    op_mode(r, FDGET_M_NS, ops[i], "idle-thread"), 17, 0);
	ab_r_fence(r);
	legend(f, marks, "change");
}

/* Every mode against single, with its worker count: what N threads on one
 * file, on private files, or N processes cost each call. */
static void mode_table(struct ab_render *r)
{
	FILE *f = r->out;
	char ops[AB_GRID_ROWS][32], modes[AB_GRID_COLS][32], buf[160], nthreads[AB_VALUE_LEN], a[32];
	int nop = ab_r_distinct(r, FDGET_M_NS, "op", ops, AB_GRID_ROWS);
	int nmode = ab_r_distinct(r, FDGET_M_NS, "mode", modes, AB_GRID_COLS), marks = 0;

	fprintf(f, "Every mode against single (threads: workers of the mode):\n\n");
	ab_r_fence(r);
	fprintf(f, "%-8s %-12s %7s %10s   %s\n", "op", "mode", "threads", "ns/op",
		"vs single (paired per repetition)");
	for (int i = 0; i < nop; i++) {
		const struct ab_group *s = op_mode(r, FDGET_M_NS, ops[i], "single");
		for (int k = 0; k < nmode; k++) {
			const struct ab_group *g = op_mode(r, FDGET_M_NS, ops[i], modes[k]);
			double q = NAN;
			struct ab_ci ci;
			if (!g)
				continue;
			fprintf(f, "%-8s %-12s %7s %10s", ops[i], modes[k],
				ab_cfg_get(g->config, "threads", nthreads, sizeof(nthreads)),
				ab_r_num(a, sizeof(a), ab_r_median(g)));
			if (g != s) {
				marks |= can_mark(g, s);
				enum ab_verdict v = ab_r_paired(g, s, &q, &ci);
				fprintf(f, "   %s%s", ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 1), ab_r_star(v));
			}
			fputc('\n', f);
		}
	}
	ab_r_fence(r);
	legend(f, marks, "change");
}

/* --verify-overhead: single mode's path against the same loop timed bare. */
static void overhead_table(struct ab_render *r)
{
	FILE *f = r->out;
	char ops[AB_GRID_ROWS][32];
	int nop = ab_r_distinct(r, FDGET_M_BARE, "op", ops, AB_GRID_ROWS), marks = 0;

	fprintf(f, "Loop overhead check: single mode as measured vs the same loop timed bare:\n\n");
	ab_r_fence(r);
	fprintf(f, "%-8s %13s %10s   %s\n", "op", "harness ns/op", "bare ns/op",
		"harness vs bare (paired per repetition)");
	for (int i = 0; i < nop; i++)
		marks |= paired_row(f, ops[i], op_mode(r, FDGET_M_NS, ops[i], "single"), 13,
				    op_mode(r, FDGET_M_BARE, ops[i], "single"), 10, 1);
	ab_r_fence(r);
	legend(f, marks, "difference");
}

static void spawn_table(struct ab_render *r)
{
	FILE *f = r->out;
	const struct ab_group *g0 = op_mode(r, FDGET_M_SPAWN, "spawn", "single");
	const struct ab_group *g1 = op_mode(r, FDGET_M_SPAWN, "spawn", "idle-thread");
	char buf[160], a[32], b[32];
	double q = NAN;
	struct ab_ci ci;

	if (!g0 && !g1)
		return;
	/* Paired: batch i of each kind ran back to back, in an order that flips. */
	enum ab_verdict v = ab_r_paired(g1, g0, &q, &ci);
	fprintf(f, "Process start-up: %s us without a thread, %s us with one: %s.\n",
		ab_r_num(a, sizeof(a), ab_r_median(g0)), ab_r_num(b, sizeof(b), ab_r_median(g1)),
		ab_r_ratio_text(buf, sizeof(buf), v, q, &ci, 1));
	fprintf(f, "- post: `xfs_io -c quit` x1000: -M (one extra thread) added %g s, about %.0f us per "
		   "start; generic/132 took %g s without and %g s with -M\n\n",
		ab_pub(POST, "spawn.added_s_per_1000"), ab_pub(POST, "spawn.added_s_per_1000") * 1000,
		ab_pub(POST, "generic132.without_s"), ab_pub(POST, "generic132.with_s"));
}

/* Its ratios people trust (desc.h): each op and the start-up with an idle thread
 * against without one, the post's question. */
static int ratios(struct ab_render *r, struct ab_named_ratio *out, int max)
{
	char ops[AB_GRID_ROWS][32];
	int nop = ab_r_distinct(r, FDGET_M_NS, "op", ops, AB_GRID_ROWS), n = 0;

	for (int i = 0; i <= nop && n < max; i++) {
		const char *m = i < nop ? FDGET_M_NS : FDGET_M_SPAWN;
		const char *op = i < nop ? ops[i] : "spawn";
		const struct ab_group *a = op_mode(r, m, op, "idle-thread");
		const struct ab_group *b = op_mode(r, m, op, "single");
		if (!a || !b)
			continue;
		snprintf(out[n].name, sizeof(out[n].name), "thread/no thread (%s)", op);
		out[n].subject = a;
		out[n++].base = b;
	}
	return n;
}

static void tables(struct ab_render *r)
{
	struct ab_grid m;

	fprintf(r->out, "## fdget: fd syscall cost, single- vs multi-threaded (%s)\n\n",
		ab_pub_text(POST, "source"));
	if (ab_r_find(r, FDGET_M_BARE, NULL)) {
		overhead_table(r);
	} else if (ab_r_find(r, FDGET_M_NS, NULL)) {
		if (has_mode(r, "idle-thread"))
			op_table(r);
		if (has_mode(r, "shared-fd") || has_mode(r, "private-fd") || has_mode(r, "procs"))
			mode_table(r);
		ab_grid_build(r, &m, FDGET_M_NS, "op", "mode", NULL);
		fprintf(r->out, "ns per call by op and mode (median [%s]):\n\n", ab_grid_interval(&m));
		ab_grid_md(r, &m, "op", 1);
	}
	spawn_table(r);
}

/* Ours: process start-up without and with one idle thread (paired batches). */
static void spawn_reading(struct ab_render *r)
{
	static const struct ab_claim c = { "start-up time", "a process with one idle thread",
					   "a process without one", 1 };
	const struct ab_group *g0 = op_mode(r, FDGET_M_SPAWN, "spawn", "single");
	const struct ab_group *g1 = op_mode(r, FDGET_M_SPAWN, "spawn", "idle-thread");
	char buf[512], a[32], b[32];
	double q = NAN;
	struct ab_ci ci;

	if (!g0 || !g1)
		return;
	enum ab_verdict v = ab_r_paired(g1, g0, &q, &ci);
	/* the change is the median of per-repetition ratios, which need not equal the ratio of
	 * the two medians: say which is which, so the numbers do not seem to disagree */
	fprintf(r->out, "%s (The change is the median of the paired, per-repetition ratios.) "
		"The median start took %s us without the thread and %s us with it, each side's "
		"own median. ", ab_r_sentence(buf, sizeof(buf), &c, v, q, &ci),
		ab_r_num(a, sizeof(a), ab_r_median(g0)), ab_r_num(b, sizeof(b), ab_r_median(g1)));
}

/* report.md's first table: the post measured whole tests and xfs_io starts, this run
 * each fd syscall and a start: the rows say which is which. */
static void beside(struct ab_render *r)
{
	static const char *const cols[] = { "post", "this run", NULL };
	const struct ab_group *g0 = op_mode(r, FDGET_M_SPAWN, "spawn", "single");
	const struct ab_group *g1 = op_mode(r, FDGET_M_SPAWN, "spawn", "idle-thread");
	char ops[AB_GRID_ROWS][32], label[96], t[192], a[32], b[32], c[32], q_text[96];
	int nop = ab_r_distinct(r, FDGET_M_NS, "op", ops, AB_GRID_ROWS);

	if (nop == 0 && !g0)
		return;
	ab_r_beside_head(r, "with a second thread / without", cols);
	ab_r_beside_row(r, "generic/132, an fd-heavy test (s)");
	snprintf(t, sizeof(t), "%s (%s -> %s s)",
		 ab_r_x(a, sizeof(a), ab_pub(POST, "generic132.with_s") /
				      ab_pub(POST, "generic132.without_s")),
		 ab_pub_text(POST, "generic132.without_s"), ab_pub_text(POST, "generic132.with_s"));
	ab_r_cell_text(r, t);
	ab_r_cell_text(r, "not run here");
	ab_r_beside_row_end(r);
	for (int i = 0; i < nop; i++) {
		const struct ab_group *s = op_mode(r, FDGET_M_NS, ops[i], "single");
		const struct ab_group *w = op_mode(r, FDGET_M_NS, ops[i], "idle-thread");
		if (!s || !w)
			continue;
		snprintf(label, sizeof(label), "%.31s(), ns per call", ops[i]);
		ab_r_beside_row(r, label);
		ab_r_cell_not_in_post(r);
		ab_r_cell_ratio(r, w, s, 1);
		ab_r_beside_row_end(r);
	}
	if (g0 && g1) {
		ab_r_beside_row(r, "process start-up, us added by the thread");
		snprintf(t, sizeof(t), "%s (%s s per 1000 starts)",
			 ab_r_num(a, sizeof(a), ab_pub(POST, "spawn.added_s_per_1000") * 1000),
			 ab_pub_text(POST, "spawn.added_s_per_1000"));
		ab_r_cell_text(r, t);
		/* the difference of medians carries the paired ratio's CI, as every compared
		 * number does: the reading below judges the change by that ratio */
		double q = NAN;
		struct ab_ci ci;
		enum ab_verdict v = ab_r_paired(g1, g0, &q, &ci);
		snprintf(t, sizeof(t), "%s (%s -> %s us, medians), %s",
			 ab_r_num(a, sizeof(a), ab_r_median(g1) - ab_r_median(g0)),
			 ab_r_num(b, sizeof(b), ab_r_median(g0)), ab_r_num(c, sizeof(c), ab_r_median(g1)),
			 ab_r_ratio_brief(q_text, sizeof(q_text), v, q, &ci));
		ab_r_cell_text(r, t);
		ab_r_beside_row_end(r);
	}
	ab_r_beside_note(r, POST);
}

/* Each op's change is a row of the table beside the post (beside): not said twice. */
static void reading(struct ab_render *r)
{
	spawn_reading(r);	/* the post's in the same paragraph */
	fprintf(r->out, "The post: an extra thread added about %.0f us per xfs_io start and %+.1f%% "
			"to an fd-heavy test (generic/132).\n\n",
		ab_pub(POST, "spawn.added_s_per_1000") * 1000,
		100 * (ab_pub(POST, "generic132.with_s") / ab_pub(POST, "generic132.without_s") - 1));
}

static void plots(struct ab_render *r)
{
	struct ab_grid m;

	ab_grid_build(r, &m, FDGET_M_NS, "op", "mode", NULL);
	ab_grid_plot(r, &m, "fdget", "fdget: ns per fd syscall", "ns/op", "", 1100, 500);
}

static const char *const headline[] = { FDGET_M_NS, FDGET_M_SPAWN, NULL };
/* Units and directions: every cost is lower-is-better. */
const struct ab_metric_desc fdget_metrics[FDGET_NM + 1] = {
	[FDGET_NS] = { FDGET_M_NS, "ns", 1 },
	[FDGET_CYCLES] = { FDGET_M_CYCLES, "cycles", 1 },
	[FDGET_INSTR] = { FDGET_M_INSTR, "instructions", 1 },
	[FDGET_OVERHEAD] = { FDGET_M_OVERHEAD, "ns", 1 },
	[FDGET_BARE] = { FDGET_M_BARE, "ns", 1 },
	[FDGET_SPAWN] = { FDGET_M_SPAWN, "us", 1 },
	/* counts that say what ran, no direction */
	[FDGET_THREADS] = { FDGET_M_THREADS, "threads", 0 },
	[FDGET_THREADS_MAX] = { FDGET_M_THREADS_MAX, "threads", 0 },
	[FDGET_ITERS] = { FDGET_M_ITERS, "count", 0 },
	[FDGET_TIMER] = { FDGET_M_TIMER, "ns", 0 },
	[FDGET_NM] = { NULL, NULL, 0 },
};

const struct ab_bench_desc ab_desc_fdget = {
	.name = "fdget",
	.post = POST,
	.question = "what does a second (idle) thread cost each fd syscall?",
	.beside = beside,
	.headline = headline,
	.metrics = fdget_metrics,
	.op = "one syscall, every worker's",
	.tables = tables,
	.reading = reading,
	.plots = plots,
	.ratios = ratios,
};
