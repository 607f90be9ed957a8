// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare A B [C ...]: for each (bench, config, metric) present in A
 * and in another run, the ratio of medians run/A with a bootstrap 95% CI,
 * judged only with 6 or more repetitions a side. A config matches the same
 * config, or across CPU numbers the one config a side that differs in them
 * only (match.c), so two machines compare; groups are matched through hash
 * indexes, so runs
 * of 200,000 configs compare in seconds. Writes compare.md, compare.csv and
 * plots (plot.c) into --out DIR. Directory names are outside text: escaped wherever
 * they are written.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "sys/opts.h"
#include "compare.h"
#include "record/stats.h"
#include "render/render.h"

#define MAXRUNS 1000	/* a sane bound: 1000 runs of the default plan load in about 1 GB */
/*
 * What compare holds of all its runs together: the runs' groups (bench, config,
 * metric, unit: about 700 bytes each) and their values (12 bytes each), every
 * run held to the end for the ratios, trends and gate. One 64 MiB raw.csv can
 * hold 3 million groups, 2 GB in memory, and each further run would add as
 * much; past these bounds compare stops with exit 2 instead. At the bounds it
 * holds about 1 GB; 1000 runs of the default plan (529 groups) hold less than half.
 */
#define MAXGROUPS 1000000
#define MAXVALUES 32000000

/* Every pair, judged, with Holm-adjusted p-values over those that have a p. */
static struct pair *collect(struct cmp *c, size_t *np)
{
	size_t n = 0, cap = 0;
	struct pair *q = NULL;

	for (size_t i = 0; i < c->d[0].n; i++)
		for (int k = 1; k < c->nr; k++) {
			const struct ab_group *b = h_cmp_match(c, 0, &c->d[0].g[i], k);
			if (!b) {
				c->only_a++;
				c->why_a[h_cmp_why_missing(c, k, &c->d[0].g[i])]++;
				continue;
			}
			if (ab_grow(&q, &cap, n + 1, sizeof(*q), 1024) < 0)
				ab_fail("compare: out of memory");
			c->cpu_matched += b->config != c->d[0].g[i].config &&
					  strcmp(b->config, c->d[0].g[i].config);
			struct pair *o = &q[n++];
			*o = (struct pair){ .a = &c->d[0].g[i], .b = b, .k = k,
					    .cls = h_cmp_pair_class(&c->d[0].g[i]) };
			/* one bootstrap for the CI and the p-value: on a sample of a million it is
			 * most of the time; the Holm-adjusted p follows, below */
			o->v = ab_r_ratio_apart_p(o->b, o->a, &o->r, &o->ci, &o->p);
		}
	double *p = malloc((n ? n : 1) * sizeof(*p));
	if (!p)
		ab_fail("compare: out of memory");
	for (size_t i = 0; i < n; i++)	/* the family: the headline metrics' ratios */
		p[i] = q[i].cls == CLS_HEADLINE ? q[i].p : NAN;
	long m = ab_holm(p, n, p);	/* adjusted in place */
	if (m < 0)
		ab_fail("compare: out of memory");
	c->tests = (int)m;
	for (size_t i = 0; i < n; i++)
		q[i].adj = p[i];
	free(p);
	*np = n;
	return q;
}

static void table(struct cmp *c)
{
	size_t n;

	fprintf(c->md, "# affbench compare\n\n## The runs\n\nA is the base; every ratio is run/A. "
		       "The plots label the runs by these letters.\n\n| run | directory |\n|---|---|\n");
	for (int k = 0; k < c->nr; k++) {
		char l[16];
		fprintf(c->md, "| %s | ", h_cmp_run_label(l, sizeof(l), k));
		h_md_cell(c->md, c->dirs[k]);	/* outside text: escaped */
		fputs(" |\n", c->md);
	}
	fputc('\n', c->md);
	for (int k = 0; k < c->nr; k++)	/* the legend of the run column */
		h_cmp_run_legend(c, k);
	h_cmp_trusted(c);	/* first: the ratios to trust across machines */
	c->machines_differ = h_compare_machines(c->md, c->dirs, c->nr);
	fprintf(c->md, "## Ratios of the headline metrics\n\nThe metrics each benchmark's "
		       "descriptor names as its headline, judged. A config shows the keys that "
		       "vary within its benchmark (compare.csv has each config whole).\n\n| bench | "
		       "config | metric | run | A median | median | ratio run/A | p (Holm) |\n"
		       "|---|---|---|---|---|---|---|---|\n");
	fprintf(c->csv, "bench,config,metric,unit,base,run,base_median,median,ratio,ci_lo,ci_hi,p,"
			"p_holm,significant,reason\n");
	h_cmp_term_legend(c);
	printf(TERM_ROW, "bench", "config", "metric", "run", "A", "this", "this/A [95% CI]");
	for (int k = 1; k < c->nr; k++)	/* results of a run that A lacks cannot be compared either */
		for (size_t i = 0; i < c->d[k].n; i++)
			if (!h_cmp_match(c, k, &c->d[k].g[i], 0)) {
				c->only_b++;
				c->why_b[h_cmp_why_missing(c, 0, &c->d[k].g[i])]++;
			}
	struct pair *q = collect(c, &n);
	for (size_t i = 0; i < n; i++)
		if (q[i].cls == CLS_HEADLINE)
			h_cmp_one_pair(c, &q[i]);
	fprintf(c->md, "\n%d comparisons made (ratios of the headline metrics judged); %d "
		       "significant after the "
		       "Holm-Bonferroni correction for those %d comparisons (family-wise error rate "
		       "%g: the chance that any of them is significant by chance alone is at most "
		       "5%%), %d before it (the ratio's 95%% CI excludes 1). p: the two-sided "
		       "bootstrap p-value of a ratio of 1 (twice the smaller share of bootstrap ratios "
		       "on either side of 1); p (Holm): adjusted. compare.csv has each p to 6 "
		       "digits; a p of 0 (every bootstrap resample on one side of 1) is written as "
		       "the resolution it is below: 2/%d (%d resamples drawn), or twice the chance of "
		       "the least likely resample when up to %d values a side make the bootstrap "
		       "exact. %d not judged: too few repetitions (%d or more needed a side).\n",
		c->tests, c->sig, c->tests, ALPHA, c->sig_raw, AB_BOOT_RESAMPLES + 1,
		AB_BOOT_RESAMPLES, AB_BOOT_EXACT_MAX, c->few, AB_MIN_REPS_CI);
	h_cmp_agree(c, q, n);	/* on the terminal too: before the table's end */
	int apart = 0;
	for (size_t i = 0; i < n; i++) {
		apart += q[i].cls != CLS_HEADLINE && q[i].v != AB_V_NONE;
		c->no_ratio += q[i].cls != CLS_HEADLINE && q[i].v == AB_V_NONE;
	}
	printf("%d ratios of other metrics and monitor counters: in compare.md and compare.csv, "
	       "without verdicts\n", apart);
	fflush(stdout);	/* the table whole before any message on stderr */
	if (c->subsampled)
		fprintf(c->md, "%d ratios have a side of more than %d values: their bootstrap "
			       "resamples %d values a side (m out of n), which widens the CI and "
			       "raises p, so they err towards not significant.\n", c->subsampled,
			AB_BOOT_MAX_N, AB_BOOT_MAX_N);
	if (c->machines_differ) {
		fprintf(c->md, "The verdicts of runs on other machines than A's compare machines, not "
			       "only the change under test (see The machines).\n");
		ab_msg("compare: some runs ran on other machines than A's (compare.md, The machines): "
		       "their verdicts compare machines, not only the change under test");
	}
	if (c->cpu_matched)
		fprintf(c->md, "%d ratios compare configs that differ in CPU numbers only: the "
			       "one such config on each side (another machine placed it on other "
			       "CPUs). "
			       "Configs of which a run holds several that differ in CPU numbers "
			       "only compare on the same CPUs alone.\n", c->cpu_matched);
	if (c->only_a || c->only_b || c->no_ratio) {
		fprintf(c->md, "Not compared: %d results only in A", c->only_a);
		h_cmp_why_said(c->md, c->why_a, "the other run");
		fprintf(c->md, "%d only in another run", c->only_b);
		h_cmp_why_said(c->md, c->why_b, "A");
		fprintf(c->md, "%d with a median of 0 in A.\n", c->no_ratio);
		ab_msg("compare: not compared: %d results only in A, %d only in another run, %d with a "
		       "median of 0 in A", c->only_a, c->only_b, c->no_ratio);
	}
	fprintf(c->md, "\n## Other metrics\n\nThe metrics no descriptor names as a headline, "
		       "described without verdicts (they are not in the correction's family).\n\n"
		       "| bench | config | metric | run | A median | median | ratio run/A |\n"
		       "|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < n; i++)
		if (q[i].cls != CLS_HEADLINE)
			h_cmp_other_pair(c, &q[i]);
	h_cmp_monitor_said(c, q, n);
	free(q);
}

static const char cmp_usage[] =
	"usage: harness compare [--out DIR] [--sort " H_SORT_CHOICES "] [--gate FILE [--strict]]\n"
	"                       A B [C ...]\n"
	"A, B, ...: run directories (or their results.json; the raw.csv beside it is read), up to 1000,\n"
	"holding at most 1,000,000 results (bench, config, metric) and 32,000,000 values together.\n"
	"Ratios of medians (B/A, C/A, ...) with bootstrap 95% CIs for every bench, config and metric\n"
	"present in A and the other run; the headline metrics' judged with 6 or more\n"
	"repetitions a side, significant after the Holm-Bonferroni correction over them; the\n"
	"other metrics and the monitor counters described apart, without verdicts. A config\n"
	"matches the same config; failing that, across CPU numbers, the one config each run\n"
	"holds that differs in them only, so runs from two machines compare; compare.md opens\n"
	"with the ratios inside each run that the descriptors name (other/same, ...) side by\n"
	"side, what differs between the machines, then the ratios, whether the runs' medians\n"
	"agree as their intervals state (each benchmark's move as a whole said), a trend table\n"
	"and plot per headline metric (from 3 runs on) and an overlay per headline metric, its\n"
	"labels in a legend. Prints the tables and writes compare.md, compare.csv and plots\n"
	"(DIR/figures) to --out DIR (default results/compare-<date>). --sort KEY (default given:\n"
	"the order named): the runs in the order of their machine.txt's kernel, date or host, the\n"
	"first the base.\n"
	"Rows of a raw.csv that break the record grammar are reported with file:line and skipped;\n"
	"a repetition written twice (bench, config, rep, metric) refuses that raw.csv: exit 2.\n"
	"--gate FILE (default: none, no gate): rules, one a line: BENCH METRIC [KEY=VALUE ...]\n"
	"max-regression|max-drop|max-rise N%. max-regression is a drop of a metric where higher is\n"
	"better and a rise of one where lower is better, as the benchmark's descriptor says;\n"
	"max-drop and max-rise name the direction. Exit 3 when a config's ratio to A is worse than\n"
	"N%, its bootstrap p-value of \"the ratio is N% off\" Holm-corrected over the configs the\n"
	"rule matches within 0.05 (one config: its whole 95% CI beyond); a rule with fewer than 6\n"
	"repetitions a side cannot be judged, said, and fails the gate only with --strict. A bad\n"
	"rule, or one whose metric or filters match nothing in A: FILE:LINE, exit 2; a filter's key\n"
	"that a record leaves out at its default (as idle at as-found) holds that default there.\n"
	"--out must not be a file or a run directory (exit 2);\n"
	"a run without one valid record: exit 1.\n";

/*
 * A results.json names its run: the directory holding it. It carries only
 * summaries (median, interval, n), and the ratios' CIs and p-values need the
 * repetitions, so the raw.csv beside it is what is read; without one, exit 2.
 * A path is read for what it is: a directory named results.json is a run
 * directory, and only a file of that name names its parent.
 */
static void json_to_dir(char **arg)
{
	static const char name[] = "results.json";
	size_t l = strlen(*arg), nl = sizeof(name) - 1;
	struct stat st;

	if (l < nl || strcmp(*arg + l - nl, name) || (l > nl && (*arg)[l - nl - 1] != '/'))
		return;
	if (stat(*arg, &st) == 0 && S_ISDIR(st.st_mode))
		return;
	char *dir = l == nl ? strdup(".") : strndup(*arg, l - nl - 1);
	if (!dir)
		ab_fail("compare: out of memory");
	if (!dir[0]) {	/* "/results.json" */
		free(dir);
		dir = strdup("/");
	}
	*arg = dir;	/* lives as long as the command */
}

static void load_runs(struct cmp *c)
{
	char path[PATH_MAX], err[512];

	for (int i = 0; i < c->nr; i++) {
		snprintf(path, sizeof(path), "%s/raw.csv", c->dirs[i]);
		if (strlen(c->dirs[i]) > PATH_MAX - 64 || access(path, R_OK))
			ab_usage_error("compare: '%s': no readable raw.csv there (a results.json alone "
				       "holds summaries, and compare needs the repetitions)", c->dirs[i]);
	}
	size_t groups = 0, values = 0;
	for (int i = 0; i < c->nr; i++) {
		struct ab_results *raw = &c->d[i];
		snprintf(path, sizeof(path), "%s/raw.csv", c->dirs[i]);
		if (h_data_load(raw, path, err, sizeof(err)))	/* EINVAL: the file is refused */
			ab_exit(errno == EINVAL ? AB_EXIT_USAGE : AB_EXIT_FAIL, "compare: %s", err);
		groups += raw->n;
		for (size_t k = 0; k < raw->n; k++)
			values += raw->g[k].n;
		if (groups > MAXGROUPS || values > MAXVALUES)
			ab_usage_error("compare: '%s': the runs up to this one hold %zu results and "
				       "%zu values, past compare's bound of %d results and %d values "
				       "for all runs together: compare fewer or smaller runs",
				       c->dirs[i], groups, values, MAXGROUPS, MAXVALUES);
		if (h_data_none(raw, "compare", path))
			exit(AB_EXIT_FAIL);	/* nothing to compare: not a result of 0 ratios */
	}
}

/* --out is a directory compare owns: one that exists must be a directory, and not a run
 * directory (raw.csv, plan.plan), whose files compare's 30 would mix with. */
static void check_out(const char *out)
{
	static const char *const run_files[] = { "raw.csv", "plan.plan" };
	char path[PATH_MAX], cut[AB_CUT_LEN + 4];
	struct stat st;

	if (strlen(out) > PATH_MAX - 64)
		ab_usage_error("compare: bad value '%s' for --out: too long", ab_cut(out, cut));
	if (stat(out, &st) < 0)
		return;	/* made below */
	if (!S_ISDIR(st.st_mode))
		ab_usage_error("compare: bad value '%s' for --out: not a directory", ab_cut(out, cut));
	for (size_t i = 0; i < AB_ARRAY_SIZE(run_files); i++) {
		snprintf(path, sizeof(path), "%s/%s", out, run_files[i]);
		if (lstat(path, &st) == 0)
			ab_usage_error("compare: bad value '%s' for --out: a run directory (it holds "
				       "%s); give compare a directory of its own", ab_cut(out, cut),
				       run_files[i]);
	}
}

int cmd_compare(int argc, char **argv)
{
	static const struct ab_opt opts[] = {
		AB_OPT(struct cmp, out, "out", AB_OPT_STR, "DIR", "output directory"),
		AB_OPT(struct cmp, gate, "gate", AB_OPT_STR, "FILE",
		       "regression rules; exit 3 when one is violated"),
		AB_OPT(struct cmp, sort, "sort", AB_OPT_CHOICE, NULL,
		       "order of the runs, the first the base (machine.txt facts)",
		       .choices = H_SORT_CHOICES),
		AB_OPT(struct cmp, strict, "strict", AB_OPT_FLAG, NULL,
		       "with --gate: a rule that cannot be judged fails the gate too"),
		AB_OPT_END,
	};
	static struct cmp c;
	static struct h_gate gate;
	char outbuf[PATH_MAX];
	struct ab_outfile md, csv;

	memset(&c, 0, sizeof(c));
	int first = ab_parse_cmd(argc, argv, "compare", cmp_usage, opts, &c);
	c.nr = argc - first;
	c.dirs = argv + first;
	if (c.nr < 2 || c.nr > MAXRUNS)
		ab_usage_error("compare: want 2 to %d run directories, got %d", MAXRUNS, c.nr);
	if (c.strict && !c.gate)
		ab_usage_error("compare: --strict means something only with --gate FILE");
	for (int i = 0; i < c.nr; i++)
		json_to_dir(&c.dirs[i]);
	if (c.sort && c.gate)
		ab_usage_error("compare: --sort and --gate: the gate's base is the first run as given");
	if (c.sort)
		h_compare_sort(c.dirs, c.nr, c.sort);
	if (c.gate)	/* a bad rule file is said before any run is read */
		h_gate_load(&gate, c.gate);
	if (c.out)
		check_out(c.out);
	c.d = calloc((size_t)c.nr, sizeof(*c.d));
	if (!c.d)
		ab_fail("compare: out of memory");
	load_runs(&c);
	if (h_cmp_index(&c) < 0)
		ab_fail("compare: out of memory");
	if (c.gate)	/* a rule that matches nothing is said before anything is written */
		h_gate_check(&gate, &c.d[0]);
	if (!c.out) {
		char date[64];
		time_t t = time(NULL);
		strftime(date, sizeof(date), "%Y-%m-%d-%H%M%S", localtime(&t));
		snprintf(outbuf, sizeof(outbuf), "results/compare-%s", date);
		c.out = outbuf;
	}
	if (strlen(c.out) > PATH_MAX - 64 || h_mkdirs(c.out))
		ab_fail("compare: cannot create %s: %s", c.out, strerror(errno));
	c.md = ab_outfile_open(&md, c.out, "compare.md");
	c.csv = c.md ? ab_outfile_open(&csv, c.out, "compare.csv") : NULL;
	if (!c.md || !c.csv)
		ab_fail("compare: cannot write in %s", c.out);
	table(&c);
	int rc = ab_outfile_close(&csv) | h_cmp_plots(&c);
	rc |= ab_outfile_close(&md);
	ab_msg("compare: %d ratios judged, %d significant, %d with too few repetitions "
	       "(Holm-Bonferroni over %d comparisons; %d significant before it); %s/compare.md",
	       c.judged, c.sig, c.few, c.tests, c.sig_raw, c.out);
	int grc = c.gate ? h_gate_judge(&gate, &c) : 0;
	h_cmp_index_free(&c);
	for (int i = 0; i < c.nr; i++)
		ab_results_free(&c.d[i]);
	free(c.d);
	free(c.pts);
	return rc ? AB_EXIT_FAIL : grc;
}
