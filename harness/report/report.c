// SPDX-License-Identifier: GPL-2.0
/*
 * The outputs of a run directory, all regenerated from raw.csv (plus
 * machine.txt, plan.plan and failures.csv when present): summary.csv,
 * tables.md, the plots and report.md. What each benchmark shows comes from its
 * descriptor in the registry (lib/render); this file only puts the pieces in
 * place. Every file is written to a new temporary name and renamed when
 * complete (lib/sys/outfile), so a failed write (a full disk) leaves the
 * previous version and fails, and a link planted under a file's name is
 * replaced, never written through; the figures are made in a private
 * directory and moved in the same way (ab_plotdir) into figures/ (PNG, SVG)
 * and figures/src/ (.gp, .dat), and a figure gnuplot fails to draw is not
 * moved, so it too leaves the previous version and fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "report.h"
#include "render/render_breakdown.h"
#include "render/render.h"
#include "render/plotdir.h"
#include "render/desc.h"
#include "record/stats.h"

/* Every result as a table, sorted by bench, then config: in tables.md only (a terminal
 * gets the posts' layouts). */
static void all_results(FILE *f, const struct ab_results *d)
{
	size_t *ix = h_sorted(d);

	if (!ix)
		return;
	fprintf(f, "## All results (median, its interval, n, CV)\n\n"
		   "The interval is the 95%% CI of the median from %d repetitions on, and the min-max "
		   "range (marked so) below.\n\n"
		   "| bench | config | metric | median | unit | interval / n / CV |\n"
		   "|---|---|---|---|---|---|\n", AB_MIN_REPS_CI);
	for (size_t i = 0; i < d->n; i++) {
		const struct ab_group *g = &d->g[ix[i]];
		struct ab_summary s;
		ab_summarize(g->v, g->n, &s);
		char cv[32] = "";	/* one value has no spread to state */
		if (s.n > 1)
			snprintf(cv, sizeof(cv), " CV %.1f%%", s.cv == s.cv ? 100 * s.cv : 0);
		char med[48], lo[48], hi[48];	/* summary.csv keeps every digit */
		fprintf(f, "| %s | %s | %s | %s | %s | [%s, %s]%s n=%zu%s |\n", g->bench,
			g->config, g->metric, ab_r_num(med, sizeof(med), s.median), g->unit,
			ab_r_num(lo, sizeof(lo), s.ci.lo), ab_r_num(hi, sizeof(hi), s.ci.hi),
			s.n < AB_MIN_REPS_CI ? " min-max" : "", s.n, cv);
	}
	free(ix);
	fprintf(f, "\n");
}

/* "# affbench WHAT" and the run directory, escaped: the directory's name is outside text,
 * and a newline in it would end the heading and start markdown of its own. */
/* The run directory as its user named it: a resumed run writes through the descriptor
 * of the directory it checked (/proc/self/fd/N, run/trust.c), which no reader knows. */
static const char *shown;

static void md_head(FILE *f, const char *what)
{
	fprintf(f, "# affbench %s\n\nRun directory: `", what);
	h_md_cell(f, shown);
	fprintf(f, "`\n\n");
}

static int write_tables(const char *dir, const struct ab_results *d)
{
	struct ab_outfile o;
	FILE *f = ab_outfile_open(&o, dir, "tables.md");

	if (!f)
		return -1;
	md_head(f, "tables");
	fprintf(f, "Medians of the repetitions. A ratio of two points is the median of their "
		   "per-round ratios (the repetitions both hold) with its distribution-free "
		   "95%% CI where %d or more rounds hold both (modes timed in one invocation: "
		   "always), else the ratio of medians with a bootstrap 95%% CI; "
		   "judged only with %d or more repetitions a side.\n\n",
		AB_MIN_REPS_CI, AB_MIN_REPS_CI);
	for (int i = 0; h_registry[i]; i++) {
		struct ab_render r = { .desc = h_registry[i], .res = d, .out = f, .markdown = 1 };
		ab_render_tables(h_registry[i], d, f, 1);
		ab_breakdown_tables(&r);	/* the request breakdown, under the post's layouts */
	}
	all_results(f, d);
	return ab_outfile_close(&o);
}

/* At most this many figures per benchmark, and in all, in report.md; the others go to
 * details.md. */
#define REPORT_FIGS 3
#define REPORT_FIGS_ALL 12

/* Plots, then readings, of every registered benchmark with data: readings and the first
 * REPORT_FIGS figures into body (report.md), the CPU monitor's tables, the other figures
 * and the CDFs into details (details.md).
 * All .gp files are written first and drawn by one gnuplot; a reading shows the
 * figures that were drawn. */
static int render_benches(const char *dir, const struct ab_results *d, FILE *body, FILE *details,
			  int ncpu)
{
	char names[AB_PLOTS_MAX][64];
	int first[H_BENCH_MAX], count[H_BENCH_MAX], ok[AB_PLOTS_MAX], n = 0, rc = 0;
	struct ab_plotdir pd;
	int have_pd = ab_plotdir_open(&pd, dir) == 0;	/* without it: the readings, and a failure */
	pd.replace = 1;	/* a re-plot removes the figures it no longer draws */
	int total = 0;	/* figures in report.md */

	rc = have_pd ? 0 : -1;
	for (int i = 0; h_registry[i] && i < H_BENCH_MAX; i++) {
		struct ab_render r = { .desc = h_registry[i], .res = d, .out = body, .markdown = 1,
				       .dir = have_pd ? pd.path : NULL, .ncpu = ncpu };
		first[i] = n;
		count[i] = 0;
		if (!ab_render_has(r.desc, d) || !r.desc->plots)
			continue;
		r.desc->plots(&r);
		/* the request breakdown's stacked bars, for any benchmark that has brk_* records */
		struct ab_render rb = r;
		rb.nfig = 0;
		ab_breakdown_plots(&rb);
		for (int k = 0; k < rb.nfig && r.nfig < (int)AB_ARRAY_SIZE(r.figures); k++)
			snprintf(r.figures[r.nfig++], sizeof(r.figures[0]), "%s", rb.figures[k]);
		r.failed |= rb.failed;
		for (int k = 0; k < r.nfig && n < AB_PLOTS_MAX; k++)
			snprintf(names[n++], sizeof(names[0]), "%s", r.figures[k]);
		count[i] = n - first[i];
		rc |= r.failed ? -1 : 0;
	}
	int cdf = n, cdf_failed;	/* the CDFs of hist.csv (histplot.c) */
	n += h_hist_plots(dir, have_pd ? pd.path : NULL, names + n, AB_PLOTS_MAX - n, &cdf_failed);
	rc |= cdf_failed ? -1 : 0;
	if (have_pd) {
		rc |= ab_plots_draw(&pd, names, n, ok) ? -1 : 0;
		rc |= ab_plotdir_close(&pd);
	}
	if (n > 0 && !ab_have_gnuplot())
		fprintf(body, "Figures not drawn: gnuplot is not installed here (apt-get install "
			      "gnuplot-nox, then `harness report` on this directory draws them).\n\n");
	struct ab_skip *skips = calloc(AB_SKIPS_MAX, sizeof(*skips));
	int nskips = skips ? h_load_skips(dir, skips, AB_SKIPS_MAX) : 0;
	for (int i = 0; h_registry[i] && i < H_BENCH_MAX; i++) {
		struct ab_render r = { .desc = h_registry[i], .res = d, .out = body, .markdown = 1,
				       .ncpu = ncpu, .skips = skips, .nskips = nskips };
		int shown = 0, moved = 0;
		if (!ab_render_has(r.desc, d))
			continue;
		fprintf(body, "## %s: %s\n\n", r.desc->name, r.desc->question ? r.desc->question :
			"what was measured");
		if (r.desc->beside)
			r.desc->beside(&r);	/* the post's numbers beside ours, first */
		if (r.desc->reading)
			r.desc->reading(&r);
		fprintf(details, "## %s\n\n", r.desc->name);
		/* the request breakdown's steps are data behind the reading: details.md */
		struct ab_render rd = r;
		rd.out = details;
		long before = ftell(details);
		ab_breakdown_reading(&rd);
		int steps = ftell(details) != before;
		h_monitor_table(details, dir, r.desc->name, d);
		/* the first figures answer; the rest are data, beside the monitor table */
		for (int k = first[i]; k < first[i] + count[i]; k++) {
			if (!ok[k])
				continue;
			int here = shown < REPORT_FIGS && total < REPORT_FIGS_ALL;
			shown += here;
			total += here;
			moved += !here;
			/* report.md: a benchmark's figures and its "More on" line are one
			 * paragraph, the figures side by side where the page is wide enough */
			fprintf(here ? body : details, "![%s](" AB_FIG_DIR "/%s.png)\n%s", names[k],
				names[k], here ? "" : "\n");
		}
		fprintf(body, "More on %s (%swhat the CPUs did%s, every result): `details.md`, "
			      "`tables.md`.\n\n", r.desc->name,
			steps ? "where the time goes, step by step; " : "", moved ? ", more figures" : "");
	}
	h_hist_section(details, names + cdf, ok + cdf, n - cdf);
	free(skips);
	return rc;
}

static void header(FILE *f, const char *dir)
{
	static const char *const labels[] = { "date", "host", "kernel", "cpu_model", "allowed_cpus",
					      "governor", "libfuse" };
	/* not harness_cpu: run.c writes it after this report (it counts the report's own
	 * drawing), so a re-plot would show a line the run's report lacks */
	char buf[512];

	h_machine_val(dir, "note", buf, sizeof(buf));
	fprintf(f, "# affbench report\n\n");
	if (buf[0]) {	/* e.g. an emulated machine: said before anything else */
		fprintf(f, "**");
		h_md_cell(f, buf);
		fprintf(f, "**\n\n");
	}
	/* one paragraph: the answer comes first, the machine in full is machine.txt */
	fprintf(f, "Run directory: `");
	h_md_cell(f, shown);
	fprintf(f, "`.");
	for (size_t i = 0; i < AB_ARRAY_SIZE(labels); i++)
		if (h_machine_val(dir, labels[i], buf, sizeof(buf))[0]) {
			fprintf(f, " %s: ", labels[i]);
			h_md_cell(f, buf);
			fprintf(f, ".");
		}
	fprintf(f, "\n\n");
}

/* details.md: what report.md links to, the data behind each section. */
static int write_details(const char *dir, const char *text)
{
	struct ab_outfile o;
	FILE *f = ab_outfile_open(&o, dir, "details.md");

	if (!f)
		return -1;
	md_head(f, "details");
	fprintf(f, "The data behind report.md, per benchmark: what the CPUs did in the "
		   "measured windows, the figures report.md leaves out, and the latency "
		   "distributions. Every result is in tables.md.\n\n");
	fputs(text ? text : "", f);
	return ab_outfile_close(&o);
}

static int write_report(const char *dir, const struct ab_results *d, int ncpu)
{
	char *body = NULL, *det = NULL;
	size_t blen = 0, dlen = 0;
	FILE *b = open_memstream(&body, &blen);
	FILE *dt = open_memstream(&det, &dlen);
	struct ab_outfile o;
	int rc = 0;

	if (!b || !dt) {
		if (b)
			fclose(b);
		if (dt)
			fclose(dt);
		free(body);
		free(det);
		return -1;
	}
	rc |= render_benches(dir, d, b, dt, ncpu);
	fclose(b);
	fclose(dt);
	rc |= write_details(dir, det);
	free(det);
	FILE *f = ab_outfile_open(&o, dir, "report.md");
	if (!f) {
		free(body);
		return -1;
	}
	header(f, dir);
	h_warnings(f, dir, d);
	h_precision(f, dir, d);
	if (!d->n)
		fprintf(f, "No records in raw.csv: nothing was measured.\n\n");
	fputs(body ? body : "", f);
	h_failures_table(f, dir);
	/* the files, in the last paragraph: results/README.md says the same at length */
	fprintf(f, "Files: `details.md` (per benchmark, what the CPUs did, the other figures and "
		   "the latency distributions), `tables.md` (the posts' layouts with their published "
		   "numbers, and every result), `summary.csv` (per bench, config and metric: n, median, "
		   "mean, stddev, CV, min, max, interval of the median: 95%% CI, or min-max below %d "
		   "repetitions), `raw.csv` (every record), `hist.csv` (the latency histograms behind "
		   "the percentiles and the CDFs), `failures.csv` (failed and skipped points), `log/` "
		   "(each run's stderr), `machine.txt` (the machine and its knobs before and after). "
		   "Regenerate with `bin/harness report DIR`.\n", AB_MIN_REPS_CI);
	free(body);
	return rc | ab_outfile_close(&o);
}

/* Does DIR/hist.csv hold a row past its header? Latency histograms alone are a
 * measurement (their CDFs are drawn), so such a run is not "no valid records". */
static int hist_rows(const char *dir)
{
	char path[PATH_MAX], buf[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/hist.csv", dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *nl = strchr(buf, '\n');
	return nl && nl[1] && nl[1] != '\n';
}

/* need_records: no valid record is a failure (-3, said in one line), as report has it;
 * a run's own report of points that all failed is still that run's report. */
static int render(const char *dir, const char *name, int quiet, int need_records)
{
	char path[PATH_MAX], err[512], buf[256];
	struct ab_results d;
	int rc = 0;

	shown = name ? name : dir;
	snprintf(path, sizeof(path), "%s/raw.csv", dir);
	if (h_data_load(&d, path, err, sizeof(err))) {
		int refused = errno == EINVAL;	/* a row written twice, a line over the limit */
		ab_msg("report: %s", err);
		return refused ? -2 : -1;
	}
	const char *paren = strchr(h_machine_val(dir, "allowed_cpus", buf, sizeof(buf)), '(');
	int ncpu = paren ? atoi(paren + 1) : 0;
	rc |= h_write_summary(&d, dir);
	rc |= h_write_json(&d, dir);
	rc |= write_tables(dir, &d);
	rc |= write_report(dir, &d, ncpu);
	if (!rc && need_records && !hist_rows(dir) && h_data_none(&d, "report", path)) {
		ab_results_free(&d);
		return -3;
	}
	ab_results_free(&d);
	if (rc)
		ab_msg("report: could not write every output in %s (see above)", shown);
	else if (!quiet)
		ab_msg("report: %s/report.md, tables: %s/tables.md", shown, shown);
	return rc;
}

int h_render(const char *dir, const char *name, int quiet)
{
	return render(dir, name, quiet, 0);
}

static const char report_usage[] =
	"usage: harness report DIR\n"
	"Regenerates DIR/summary.csv, tables.md, report.md and the figures (DIR/figures: PNG\n"
	"and SVG; DIR/figures/src: their gnuplot .gp and .dat) from DIR/raw.csv alone (machine.txt,\n"
	"plan.plan, failures.csv are used when present).\n"
	"Rows of raw.csv that break the record grammar are reported with file:line and skipped;\n"
	"a repetition written twice (bench, config, rep, metric) refuses it: exit 2, nothing written.\n"
	"A raw.csv without one valid record is exit 1, with the count of rows rejected.\n"
	"harness plot DIR is the same command under its older name.\n";

int cmd_report(int argc, char **argv)
{
	const char *dir = h_dir_arg("report", argc, argv, report_usage);

	if (!dir)
		return AB_EXIT_OK;
	int rc = render(dir, NULL, 0, 1);
	return rc == -2 ? AB_EXIT_USAGE : rc ? AB_EXIT_FAIL : AB_EXIT_OK;
}
