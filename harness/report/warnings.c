/*
 * report.md's warnings, with hints (hyperfine's habit): a governor that moves
 * clocks, load at the start, noisy headline results, repetitions too few for a
 * 95% CI, runs too short, and knobs not as they were before the run.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "report.h"
#include "report/hindex.h"
#include "report/stats.h"

/* Is metric a headline metric of bench, per its descriptor? */
static int headline(const char *bench, const char *metric)
{
	const struct ab_bench_desc *d = h_desc(bench);

	for (int i = 0; d && d->headline && d->headline[i]; i++)
		if (!strcmp(d->headline[i], metric))
			return 1;
	return 0;
}

static int machine_warnings(FILE *f, const char *dir)
{
	char gov[256], load[256], cpus[256];
	int n = 0;

	h_machine_val(dir, "governor", gov, sizeof(gov));
	if (gov[0] && strncmp(gov, "(unavailable", 12) && strcmp(gov, "performance")) {
		fprintf(f, "- CPU frequency governor is '");
		h_md_cell(f, gov);
		fprintf(f, "', not 'performance': clock changes add noise. Hint: `cpupower "
			   "frequency-set -g performance` for the run.\n");
		n++;
	}
	h_machine_val(dir, "loadavg", load, sizeof(load));
	const char *paren = strchr(h_machine_val(dir, "allowed_cpus", cpus, sizeof(cpus)), '(');
	int ncpu = paren ? atoi(paren + 1) : 1;
	if (load[0] && atof(load) > 0.5 * (ncpu > 0 ? ncpu : 1)) {
		fprintf(f, "- load average %.2f at start on %d CPUs: other work competed with the "
			   "benchmarks. Hint: stop other programs and re-run.\n", atof(load), ncpu);
		n++;
	}
	return n;
}

/* Noise is judged on the headline metrics: the CV of a near-zero share or of a
 * count says nothing about how far to trust a result. */
static int noise_warnings(FILE *f, const struct ab_results *d)
{
	int noisy = 0, few = 0, nhead = 0, n = 0;
	const struct ab_group *worst = NULL;
	double wcv = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct ab_group *g = &d->g[i];
		double cv = ab_cv(g->v, g->n);
		if (!headline(g->bench, g->metric))
			continue;
		nhead++;
		few += g->n < AB_MIN_REPS_CI;
		if (!isnan(cv) && fabs(cv) > 0.05) {
			noisy++;
			if (fabs(cv) > wcv) {
				wcv = fabs(cv);
				worst = g;
			}
		}
	}
	if (noisy) {
		fprintf(f, "- %d of %d headline results have a CV above 5%% (worst: %s %s %s, CV %.1f%%). "
			   "Hint: a quieter machine, longer --duration or more --repeat.\n", noisy, nhead,
			worst->bench, worst->config, worst->metric, 100 * wcv);
		n++;
	}
	if (few) {
		fprintf(f, "- %d headline %s fewer than %d repetitions: %s no "
			   "95%% CI and no ratio of %s is judged (\"too few repetitions to judge\"). "
			   "Hint: --repeat %d or more.\n", few, few == 1 ? "result has" : "results have",
			AB_MIN_REPS_CI, few == 1 ? "its median has" : "their medians have",
			few == 1 ? "it" : "them", AB_MIN_REPS_CI);
		n++;
	}
	return n;
}

static int plan_warnings(FILE *f, const char *dir)
{
	char path[PATH_MAX], err[256];
	struct h_plan p;
	int n = 0;

	snprintf(path, sizeof(path), "%s/plan.plan", dir);
	if (h_plan_load(&p, path, err, sizeof(err)) < 0)
		return 0;
	for (int i = 0; i < p.nblocks && !n; i++)
		if (p.blocks[i].duration < 1 &&
		    !(h_desc(p.blocks[i].bench) && h_desc(p.blocks[i].bench)->duration_each)) {
			fprintf(f, "- %s ran %.2g s per point: start-up and warm-up weigh in on runs this "
				   "short. Hint: the default plan (1 s or more per point).\n",
				p.blocks[i].bench, p.blocks[i].duration);
			n++;
		}
	h_plan_free(&p);
	return n;
}

/*
 * machine.txt's knob lines: "knob before PATH = VALUE", then after the run
 * "knob after  PATH = VALUE" (harness/run/machine.c). One knob, keyed by its path: its
 * first "before" value, and its last "after" value (a resumed run appends another
 * "after" set; the last says how the run left the knob). No fixed count: a machine
 * with many CPUs lists an smp_affinity_list per IRQ, hundreds of them.
 */
struct knob_seen {
	char *path, *before, *after;
};

struct knob_table {
	struct knob_seen *k;
	size_t n, cap;
	struct ab_hindex idx;	/* by path: a 4 MiB machine.txt is 160,000 knob lines */
};

static struct knob_seen *knob_find(struct knob_table *t, const char *path)
{
	uint64_t h = ab_hash_str(AB_HASH_INIT, path);
	size_t pos = 0, i;

	while ((i = ab_hindex_next(&t->idx, h, &pos)))
		if (!strcmp(t->k[i - 1].path, path))
			return &t->k[i - 1];
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct knob_seen *k = realloc(t->k, cap * sizeof(*k));
		if (!k)
			return NULL;
		t->k = k;
		t->cap = cap;
	}
	struct knob_seen *e = &t->k[t->n];
	*e = (struct knob_seen){ .path = strdup(path) };
	if (!e->path || ab_hindex_add(&t->idx, h, t->n) < 0) {
		free(e->path);
		return NULL;
	}
	t->n++;
	return e;
}

/* Records one machine.txt line if it is a knob line. Out of memory, the knob is
 * left out: no warning is better than a false one. */
static void knob_note(struct knob_table *t, char *line)
{
	int before = !strncmp(line, "knob before ", 12);
	char *eq = strstr(line, " = ");

	if ((!before && strncmp(line, "knob after  ", 12)) || !eq)
		return;
	*eq = '\0';
	struct knob_seen *e = knob_find(t, line + 12);
	char **slot = e ? (before ? &e->before : &e->after) : NULL;
	if (!slot || (before && *slot))
		return;
	free(*slot);
	*slot = strdup(eq + 3);
}

/*
 * A knob whose value after the run differs from its value before was not restored.
 * One with no value before has nothing to compare with: its file appeared during
 * the run (enable_uring, once the benchmarks loaded the fuse module).
 * Lines longer than buf are no knob lines of ours (a path is allow-listed and
 * short, a value at most 255 bytes): they are skipped whole, not read in pieces.
 */
static int knob_changes(FILE *f, FILE *machine)
{
	struct knob_table t = { 0 };
	char line[8192];
	int n = 0, whole = 1;

	while (fgets(line, sizeof(line), machine)) {
		size_t len = strlen(line);
		int ends = len && line[len - 1] == '\n';
		if (whole && ends) {
			line[len - 1] = '\0';
			knob_note(&t, line);
		}
		whole = ends;
	}
	for (size_t i = 0; i < t.n; i++) {
		const struct knob_seen *e = &t.k[i];
		if (e->before && e->after && strcmp(e->before, e->after)) {
			fprintf(f, "- knob not as before the run: ");
			h_md_cell(f, e->path);
			fprintf(f, " = ");
			h_md_cell(f, e->after);
			fprintf(f, " (before: ");
			h_md_cell(f, e->before);
			fprintf(f, "). Hint: `bin/harness restore`.\n");
			n++;
		}
		free(e->path);
		free(e->before);
		free(e->after);
	}
	free(t.k);
	ab_hindex_free(&t.idx);
	return n;
}

static int knob_warnings(FILE *f, const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/machine.txt", dir);
	FILE *m = ab_infile_open(path, AB_INFILE_MAX_SMALL, NULL, 0);	/* h_inputs_check said why */
	if (!m)
		return 0;
	int n = knob_changes(f, m);
	fclose(m);
	return n;
}

void h_warnings(FILE *f, const char *dir, const struct ab_results *d)
{
	fprintf(f, "## Warnings\n\n");
	int n = machine_warnings(f, dir) + h_machine_check_warnings(f, dir) +
		h_machine_fact_warnings(f, dir) + noise_warnings(f, d) +
		plan_warnings(f, dir) + knob_warnings(f, dir);
	if (!n)
		fprintf(f, "- none\n");
	fprintf(f, "\n");
}
