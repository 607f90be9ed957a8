/*
 * harness compare A B [C ...]: for each (bench, config, metric) present in A
 * and in another run, the ratio of medians run/A with a bootstrap 95% CI;
 * significant when the CI excludes 1. CPU numbers in configs (keys ending in
 * _cpu or _cpus) are dropped before matching, so two machines compare.
 * Writes compare.md, compare.csv and overlay plots into --out DIR.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "harness.h"
#include "gpscript.h"
#include "proc.h"
#include "record.h"
#include "stats.h"

/* config without the CPU-number keys */
static void norm_config(const char *in, char *out, size_t len)
{
	char tmp[512], *save = NULL;
	size_t o = 0;
	snprintf(tmp, sizeof(tmp), "%s", in);
	out[0] = '\0';
	for (char *kv = strtok_r(tmp, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');
		size_t kl = eq ? (size_t)(eq - kv) : strlen(kv);
		if ((kl > 4 && !strncmp(kv + kl - 4, "_cpu", 4)) || (kl > 5 && !strncmp(kv + kl - 5, "_cpus", 5)))
			continue;
		o += snprintf(out + o, o < len ? len - o : 0, "%s%s", o ? ";" : "", kv);
	}
}

/*
 * The run with CPU numbers dropped from every config, found through the result
 * model's hash index: groups whose configs differ only in CPU numbers merge.
 * 0, or -1 out of memory.
 */
static int normalize(const struct ab_results *in, struct ab_results *out)
{
	ab_results_init(out);
	for (size_t i = 0; i < in->n; i++) {
		const struct ab_group *g = &in->g[i];
		char cfg[AB_CONFIG_LEN];
		norm_config(g->config, cfg, sizeof(cfg));
		for (size_t k = 0; k < g->n; k++)
			if (ab_results_add(out, g->bench, cfg, g->rep[k], g->metric, g->v[k], g->unit) < 0)
				return -1;
	}
	return 0;
}

static const struct ab_group *match(const struct ab_results *d, const struct ab_group *g)
{
	return ab_results_get(d, g->bench, g->config, g->metric, g->unit);
}

static const char cmp_usage[] =
	"usage: harness compare [--out DIR] A B [C ...]\n"
	"Ratios of medians (B/A, C/A, ...) with bootstrap 95% CIs for every bench, config and metric\n"
	"present in A and the other run; '*' marks a CI that excludes 1. CPU numbers in configs\n"
	"are ignored, so runs from two machines compare. Prints the table and writes\n"
	"compare.md, compare.csv and overlay plots to --out DIR (default results/compare-<date>).\n";

#define MAXRUNS 8

int cmd_compare(int argc, char **argv)
{
	static const struct option lo[] = { { "out", required_argument, NULL, 'o' },
					    { "help", no_argument, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	const char *out = NULL;
	char outbuf[PATH_MAX], path[PATH_MAX], err[512];
	struct ab_results d[MAXRUNS];
	int c, nr;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h': fputs(cmp_usage, stdout); return AB_EXIT_OK;
		default: ab_usage_error("compare: bad option '%s' (see harness compare --help)", argv[optind - 1]);
		}
	}
	nr = argc - optind;
	if (nr < 2 || nr > MAXRUNS)
		ab_usage_error("compare: want 2 to %d run directories, got %d", MAXRUNS, nr);
	char **dirs = argv + optind;
	for (int i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/raw.csv", dirs[i]);
		if (access(path, R_OK))
			ab_usage_error("compare: '%s': no readable raw.csv there", dirs[i]);
	}
	for (int i = 0; i < nr; i++) {
		struct ab_results raw;
		snprintf(path, sizeof(path), "%s/raw.csv", dirs[i]);
		if (h_data_load(&raw, path, err, sizeof(err)))
			ab_fail("compare: %s", err);
		if (normalize(&raw, &d[i]) < 0)
			ab_fail("compare: %s: out of memory", path);
		ab_results_free(&raw);
	}
	if (!out) {
		char date[64];
		time_t t = time(NULL);
		strftime(date, sizeof(date), "%Y-%m-%d-%H%M%S", localtime(&t));
		snprintf(outbuf, sizeof(outbuf), "results/compare-%s", date);
		out = outbuf;
	}
	if (strlen(out) > PATH_MAX - 64 || h_mkdirs(out))
		ab_fail("compare: cannot create %s: %s", out, strerror(errno));
	snprintf(path, sizeof(path), "%.3000s/compare.csv", out);
	FILE *csv = fopen(path, "w");
	snprintf(path, sizeof(path), "%.3000s/compare.md", out);
	FILE *md = fopen(path, "w");
	if (!csv || !md)
		ab_fail("compare: cannot write in %s: %s", out, strerror(errno));
	fprintf(csv, "bench,config,metric,unit,base,run,base_median,median,ratio,ci_lo,ci_hi,significant\n");
	fprintf(md, "# affbench compare\n\nBase (A): `%s`\n\n| bench | config | metric | run | A median | "
		    "median | ratio | 95%% CI | |\n|---|---|---|---|---|---|---|---|---|\n", dirs[0]);
	printf("%-10s %-44s %-18s %-8s %12s %12s %8s  %s\n", "bench", "config", "metric", "run", "A",
	       "this", "ratio", "95% CI");
	int nsig = 0, npairs = 0, only_a = 0, only_b = 0, no_ratio = 0;
	for (int k = 1; k < nr; k++)	/* results of a run that A lacks cannot be compared either */
		for (size_t i = 0; i < d[k].n; i++)
			only_b += match(&d[0], &d[k].g[i]) == NULL;
	for (size_t i = 0; i < d[0].n; i++) {
		const struct ab_group *a = &d[0].g[i];
		const char *cfg = a->config;
		for (int k = 1; k < nr; k++) {
			const struct ab_group *b = match(&d[k], a);
			struct ab_ci ci;
			if (!b) {
				only_a++;
				continue;
			}
			if (ab_ratio_ci(b->v, b->n, a->v, a->n, 0.95, &ci)) {
				no_ratio++;	/* a median of 0 in A: no ratio exists */
				continue;
			}
			double ma = ab_median(a->v, a->n), mb = ab_median(b->v, b->n), r = mb / ma;
			int sig = ci.lo > 1 || ci.hi < 1;
			nsig += sig;
			npairs++;
			const char *f[] = { a->bench, cfg, a->metric, a->unit, dirs[0], dirs[k] };
			for (int j = 0; j < 6; j++) {
				ab_csv_field(csv, f[j]);
				fputc(',', csv);
			}
			fprintf(csv, "%.6g,%.6g,%.6g,%.6g,%.6g,%d\n", ma, mb, r, ci.lo, ci.hi, sig);
			fprintf(md, "| %s | %s | %s | %s | %.5g | %.5g | %.3fx | [%.3f, %.3f] | %s |\n", a->bench,
				cfg, a->metric, dirs[k], ma, mb, r, ci.lo, ci.hi, sig ? "*" : "");
			printf("%-10s %-44s %-18s %-8s %12.5g %12.5g %7.3fx  [%.3f, %.3f]%s\n", a->bench, cfg,
			       a->metric, k == 1 ? "B" : k == 2 ? "C" : "D+", ma, mb, r, ci.lo, ci.hi,
			       sig ? " *" : "");
		}
	}
	fprintf(md, "\n%d of %d ratios significant ('*': the 95%% CI excludes 1; with many ratios, about 1 in "
		    "20 is so by chance alone: trust the headline metrics and effects that repeat).\n",
		nsig, npairs);
	if (only_a || only_b || no_ratio) {
		fprintf(md, "Not compared: %d results only in A, %d only in another run (a failed or skipped "
			    "point, or another plan), %d with a median of 0 in A.\n", only_a, only_b, no_ratio);
		ab_msg("compare: not compared: %d results only in A, %d only in another run, %d with a "
		       "median of 0 in A", only_a, only_b, no_ratio);
	}
	fclose(csv);

	/* overlay plots: each registered benchmark's headline metrics, one bar per run */
	const char *mains[64][2];
	size_t nmains = 0;
	for (int b = 0; h_registry[b]; b++)
		for (int k = 0; h_registry[b]->headline && h_registry[b]->headline[k] && nmains < 64; k++) {
			mains[nmains][0] = h_registry[b]->name;
			mains[nmains++][1] = h_registry[b]->headline[k];
		}
	for (size_t mi = 0; mi < nmains; mi++) {
		char name[96];
		snprintf(name, sizeof(name), "compare_%s_%s", mains[mi][0], mains[mi][1]);
		snprintf(path, sizeof(path), "%.3000s/%s.dat", out, name);
		FILE *dat = fopen(path, "w");
		int rows = 0;
		if (!dat)
			continue;
		fprintf(dat, "# config, then median ci_lo ci_hi per run\n");
		for (size_t i = 0; i < d[0].n && rows < 40; i++) {
			const struct ab_group *a = &d[0].g[i];
			int all = 1;
			if (strcmp(a->bench, mains[mi][0]) || strcmp(a->metric, mains[mi][1]))
				continue;
			for (int k = 1; k < nr; k++)
				all &= match(&d[k], a) != NULL;
			if (!all)
				continue;	/* plot only what every run holds */
			ab_gp_label(dat, a->config);
			for (int k = 0; k < nr; k++) {
				const struct ab_group *b = k ? match(&d[k], a) : a;
				struct ab_summary s;
				ab_summarize(b->v, b->n, &s);
				fprintf(dat, " %.6g %.6g %.6g", s.median, s.ci.lo, s.ci.hi);
			}
			fprintf(dat, "\n");
			rows++;
		}
		fclose(dat);
		if (!rows) {
			unlink(path);
			continue;
		}
		snprintf(path, sizeof(path), "%.3000s/%s.gp", out, name);
		FILE *gp = fopen(path, "w");
		if (!gp)
			continue;
		for (int term = 0; term < 2; term++) {
			fprintf(gp, "set terminal %s size 1200,600\nset output '%s.%s'\n", term ? "svg" : "pngcairo",
				name, term ? "svg" : "png");
			char title[160];
			snprintf(title, sizeof(title), "%s %s by config, one bar per run", mains[mi][0],
				 mains[mi][1]);
			fprintf(gp, "set title ");
			ab_gp_string(gp, title);
			fprintf(gp, "\nset style data histograms\n"
				    "set style histogram errorbars gap 1 lw 1\nset style fill solid 0.6 border -1\n"
				    "set xtics rotate by -30 font ',7' noenhanced\nset yrange [0:*]\nset key noenhanced\nplot ");
			for (int k = 0; k < nr; k++) {
				fprintf(gp, "%s'%s.dat' using %d:%d:%d%s title ", k ? ", " : "", name, 2 + 3 * k,
					3 + 3 * k, 4 + 3 * k, k ? "" : ":xtic(1)");
				ab_gp_string(gp, dirs[k]);	/* a directory name is outside text */
			}
			fprintf(gp, "\n");
		}
		fclose(gp);
		char gpn[128];
		snprintf(gpn, sizeof(gpn), "%s.gp", name);
		char *av[] = { "gnuplot", gpn, NULL };
		if (ab_run(out, av, NULL, 60 * AB_NS))
			ab_msg("compare: gnuplot %s/%s failed", out, gpn);
		else
			fprintf(md, "\n![%s](%s.png)\n", name, name);
	}
	fclose(md);
	for (int i = 0; i < nr; i++)
		ab_results_free(&d[i]);
	ab_msg("compare: %d of %d ratios significant; %s/compare.md", nsig, npairs, out);
	return AB_EXIT_OK;
}
