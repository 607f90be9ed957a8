// SPDX-License-Identifier: GPL-2.0
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

#include "sys/grow.h"
#include "report.h"
#include "record/hindex.h"
#include "record/stats.h"
#include "render/render.h"
#include "render/desc.h"

/* The load average at the start, per machine.txt (NAN when not recorded), and the CPUs the
 * run was allowed. */
static double start_load(const char *dir, int *ncpu)
{
	char load[256], cpus[256];
	const char *paren = strchr(h_machine_val(dir, "allowed_cpus", cpus, sizeof(cpus)), '(');

	*ncpu = paren && atoi(paren + 1) > 0 ? atoi(paren + 1) : 1;
	h_machine_val(dir, "loadavg", load, sizeof(load));
	return load[0] ? atof(load) : NAN;
}

/* Was the machine busy at the start: a load above half its CPUs? */
static int start_busy(double load, int ncpu)
{
	return load > 0.5 * ncpu;
}

static int machine_warnings(FILE *f, const char *dir)
{
	char gov[256];
	int n = 0, ncpu;
	double load = start_load(dir, &ncpu);

	h_machine_val(dir, "governor", gov, sizeof(gov));
	if (gov[0] && strncmp(gov, "(unavailable", 12) && strcmp(gov, "performance")) {
		fprintf(f, "- CPU frequency governor is '");
		h_md_cell(f, gov);
		fprintf(f, "', not 'performance': clock changes add noise. Hint: `cpupower "
			   "frequency-set -g performance` for the run.\n");
		n++;
	}
	if (start_busy(load, ncpu)) {
		fprintf(f, "- load average %.2f at start on %d CPUs: other work competed with the "
			   "benchmarks. Hint: stop other programs and re-run.\n", load, ncpu);
		n++;
	}
	return n;
}

/* Results with too few repetitions for a 95% CI: said once, as a count. The noise
 * itself is said per benchmark in the Precision section (h_precision). */
static int noise_warnings(FILE *f, const struct ab_results *d)
{
	int few = 0;

	for (size_t i = 0; i < d->n; i++)	/* a test's program (no descriptor): none */
		few += h_desc(d->g[i].bench) && h_is_headline(d->g[i].bench, d->g[i].metric) &&
		       d->g[i].n < AB_MIN_REPS_CI;
	if (!few)
		return 0;
	fprintf(f, "- %d headline %s fewer than %d repetitions: %s no "
		   "95%% CI and no ratio of %s is judged (\"too few repetitions to judge\"). "
		   "Hint: --repeat %d or more.\n", few, few == 1 ? "result has" : "results have",
		AB_MIN_REPS_CI, few == 1 ? "its median has" : "their medians have",
		few == 1 ? "it" : "them", AB_MIN_REPS_CI);
	return 1;
}

/* Shorter points let start-up and warm-up weigh in; the default plan runs 0.1 s points
 * (sqrtio's 0.5 s; 9 of them, then more where precision adds them: more, shorter
 * repetitions narrow a median's interval on a shared machine). Paired against 0.25 and
 * 0.5 s, no median moved at 0.1 s, and two default runs at 0.1 s agreed with those at
 * 0.25 s (docs/plans.md); below it, warm-up holds its floor and weighs more. */
#define SHORT_POINT_S 0.1

static int plan_warnings(FILE *f, const char *dir)
{
	char path[PATH_MAX], err[256];
	struct h_plan p;
	int n = 0;

	snprintf(path, sizeof(path), "%s/plan.plan", dir);
	if (h_plan_load(&p, path, err, sizeof(err)) < 0)
		return 0;
	for (int i = 0; i < p.nblocks && !n; i++)
		if (p.blocks[i].duration < SHORT_POINT_S &&
		    !(h_desc(p.blocks[i].bench) && h_desc(p.blocks[i].bench)->duration_each)) {
			fprintf(f, "- %s ran %.2g s per point: start-up and warm-up weigh in on runs this "
				   "short. Hint: the default plan (%g s or more per point).\n",
				p.blocks[i].bench, p.blocks[i].duration, SHORT_POINT_S);
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
	if (ab_grow(&t->k, &t->cap, t->n + 1, sizeof(*t->k), 64) < 0)
		return NULL;
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

/*
 * ---- Precision: one line per benchmark ----
 * How far its headline results can be trusted: the half-width of each one's 95% CI of
 * the median relative to that median, at the median and at worst over the benchmark,
 * and what would narrow them, from what the records show: more repetitions (with 6 the
 * distribution-free interval is the sample's whole range), pinning where the worst ran
 * on any CPU, a quieter machine where the load at the start was high. Then the
 * outliers, kept and said (hyperfine's habit): values farther than OUTLIER_SDS robust
 * SDs from their result's median, how many are first repetitions (a cold start),
 * and the result holding the most.
 */
#define OUTLIER_SDS 3
/* a round holding a quarter of a benchmark's variance or more: a quieter machine helps */
#define SHARE_HINT 0.25
struct precision {
	double *w;			/* relative half-widths */
	size_t n, cap;
	size_t left_out;		/* fewer than AB_MIN_REPS_CI values, or a median of 0 */
	const struct ab_group *worst;
	double wworst;
	int whole_range;		/* the worst's interval spans its whole sample */
	size_t nout, nout_res, nout_first;	/* outliers, results with one, first reps */
	const struct ab_group *most;	/* the result with the most outliers */
	size_t nmost;
};

/* Counts g's outliers into p; out of memory, g's are left uncounted (said as none). */
static void outliers_add(struct precision *p, const struct ab_group *g)
{
	unsigned char *out = malloc(g->n);
	int first = INT_MAX;

	if (!out)
		return;
	size_t c = ab_outliers(g->v, g->n, OUTLIER_SDS, out);
	for (size_t i = 0; i < g->n; i++)
		first = g->rep[i] < first ? g->rep[i] : first;
	for (size_t i = 0; i < g->n; i++)
		p->nout_first += out[i] && g->rep[i] == first;
	p->nout += c;
	p->nout_res += c > 0;
	if (c > p->nmost) {
		p->most = g;
		p->nmost = c;
	}
	free(out);
}

/* 0, or -1 when out of memory (the line is then left out: no line beats a wrong one). */
static int precision_add(struct precision *p, const struct ab_group *g)
{
	struct ab_ci ci;
	double w;

	if (ab_median_ci_rel(g->v, g->n, 0.95, &ci, &w) < 0 || isnan(w)) {
		p->left_out++;
		return 0;
	}
	if (ab_grow(&p->w, &p->cap, p->n + 1, sizeof(*p->w), 16) < 0)
		return -1;
	p->w[p->n++] = w;
	outliers_add(p, g);
	if (!p->worst || w > p->wworst) {
		p->worst = g;
		p->wworst = w;
		p->whole_range = ci.lo == ab_min(g->v, g->n) && ci.hi == ab_max(g->v, g->n);
	}
	return 0;
}

/* The first key of config naming a CPU ("cpu", "client_cpu", ...) set to "any", in
 * buf, or NULL: such a point let the scheduler place it. */
static const char *unpinned_key(const char *config, char *buf, size_t len)
{
	for (const char *kv = config; kv && *kv; kv = strchr(kv, ';') ? strchr(kv, ';') + 1 : NULL) {
		const char *eq = strchr(kv, '='), *end = strchr(kv, ';');
		size_t klen = eq ? (size_t)(eq - kv) : 0, vlen;
		if (!eq || (end && end < eq) || klen >= len)
			continue;
		vlen = end ? (size_t)(end - eq - 1) : strlen(eq + 1);
		memcpy(buf, kv, klen);
		buf[klen] = '\0';
		if (strstr(buf, "cpu") && vlen == 3 && !strncmp(eq + 1, "any", 3))
			return buf;
	}
	return NULL;
}

static void precision_outliers(FILE *f, const struct precision *p)
{
	if (!p->nout) {
		fprintf(f, " No value beyond %d robust SDs (1.4826 MAD) of its median.", OUTLIER_SDS);
		return;
	}
	fprintf(f, " %zu value%s beyond %d robust SDs (1.4826 MAD) of %s median, kept: in %zu "
		   "result%s, %zu of them first repetitions (by chance about 1 in %zu); most in %s, ",
		p->nout, p->nout == 1 ? "" : "s", OUTLIER_SDS, p->nout == 1 ? "its" : "their",
		p->nout_res, p->nout_res == 1 ? "" : "s", p->nout_first, p->most->n, p->most->metric);
	h_md_cell(f, p->most->config[0] ? p->most->config : "(no config)");
	fprintf(f, " (%zu).", p->nmost);
}

/* What the run says of itself, for every benchmark's precision line: the load at its
 * start, the rounds apart and each benchmark's round share (the Rounds paragraph's). */
struct run_said {
	double load, target;	/* target: --precision's, 0 for none */
	int ncpu, apart;
	double share[H_BENCH_MAX];	/* by registry index; NAN: not judged */
};

/* "; a quieter machine (...)" when the run says so: busy at the start, rounds apart, or
 * a round holding SHARE_HINT of the variance between repetitions or more. */
static void quieter_hint(FILE *f, const struct run_said *rs, int b)
{
	double load = rs->load, share = rs->share[b];
	int ncpu = rs->ncpu, apart = rs->apart;
	int busy = start_busy(load, ncpu), held = share >= SHARE_HINT;	/* NAN: not held */

	if (!busy && !apart && !held)
		return;
	apart = busy ? 0 : apart;	/* the load says it first */
	fprintf(f, "; a quieter machine (");
	if (busy)
		fprintf(f, "load %.2f at the start on %d CPUs", load, ncpu);
	if (apart)
		fprintf(f, "%d round%s ran apart", apart, apart == 1 ? "" : "s");
	if (held)
		fprintf(f, "%sthe round held %.0f%% of the variance between repetitions",
			busy || apart ? "; " : "", 100 * share);
	fprintf(f, "%s)", apart || held ? ": see Rounds" : "");
}

static void precision_hints(FILE *f, const struct precision *p, const struct run_said *rs,
			    int b)
{
	char key[AB_KEY_LEN];

	if (p->wworst <= 0.05) {
		fprintf(f, " Every one is within +-5%%.\n");
		return;
	}
	fprintf(f, " To narrow them: more repetitions (--repeat above %zu", p->worst->n);
	if (p->whole_range)
		fprintf(f, ": with %zu the worst's 95%% interval is its whole sample", p->worst->n);
	fprintf(f, ") or a longer --duration");
	if (unpinned_key(p->worst->config, key, sizeof(key)))
		fprintf(f, "; pinning (the worst ran with %s=any)", key);
	quieter_hint(f, rs, b);
	fprintf(f, ".\n");
}

/* The run's precision line (harness run --precision), from plan.plan; 0: none. */
static double plan_precision(const char *dir)
{
	char path[PATH_MAX], err[256];
	struct h_plan p;

	snprintf(path, sizeof(path), "%s/plan.plan", dir);
	if (h_plan_load(&p, path, err, sizeof(err)) < 0)
		return 0;
	double target = p.precision;
	h_plan_free(&p);
	return target;
}

/* With a precision aimed at: each of bench's headline results still wider, with its width. */
static void precision_missed(FILE *f, const struct ab_results *d, const char *bench,
			     double target)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct ab_group *g = &d->g[i];
		struct ab_ci ci;
		double w;
		if (strcmp(g->bench, bench) || !h_is_headline(bench, g->metric) ||
		    ab_median_ci_rel(g->v, g->n, 0.95, &ci, &w) < 0 || !(w > target))
			continue;	/* NAN, a median of 0: no width */
		fprintf(f, "  - not within +-%.3g%%: %s, ", 100 * target, g->metric);
		h_md_cell(f, g->config[0] ? g->config : "(no config)");
		fprintf(f, ": +-%.1f%% (n %zu)\n", 100 * w, g->n);
	}
}

/* bench's line; 1 when it has one (headline results), else 0 */
static int precision_line(FILE *f, const struct ab_results *d, int b,
			  const struct run_said *rs)
{
	const char *bench = h_registry[b]->name;
	struct precision p = { 0 };
	int said = 0;

	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->g[i].bench, bench) && h_is_headline(bench, d->g[i].metric) &&
		    precision_add(&p, &d->g[i]) < 0)
			goto out;
	if (!p.n && !p.left_out)
		goto out;	/* no headline metric: nothing to say */
	fprintf(f, "- **%s**: ", bench);
	said = 1;
	if (!p.n) {
		fprintf(f, "no headline result has the %d repetitions a 95%% interval needs.\n",
			AB_MIN_REPS_CI);
		goto out;
	}
	fprintf(f, "%zu headline result%s, 95%% CI of the median within +-%.1f%% of it at the "
		   "median, +-%.1f%% at worst (%s, ", p.n, p.n == 1 ? "" : "s",
		100 * ab_median(p.w, p.n), 100 * p.wworst, p.worst->metric);
	h_md_cell(f, p.worst->config[0] ? p.worst->config : "(no config)");
	fprintf(f, ", n %zu)", p.worst->n);
	if (p.left_out)
		fprintf(f, "; %zu more with too few repetitions", p.left_out);
	fprintf(f, ".");
	precision_outliers(f, &p);
	precision_hints(f, &p, rs, b);
	if (rs->target > 0)
		precision_missed(f, d, bench, rs->target);
out:
	free(p.w);
	return said;
}

void h_precision(FILE *f, const char *dir, const struct ab_results *d)
{
	struct run_said rs = { .target = plan_precision(dir) };
	int lines = 0;

	rs.load = start_load(dir, &rs.ncpu);
	if (!d->n)
		return;
	fprintf(f, "## Precision\n\n");
	/* the method, once: which interval, and what a repetition is (harness run: --repeat 1
	 * per invocation, so the intervals span the variance between invocations), and the
	 * level one run cannot see: the host's state over the whole run, which moves every
	 * result of a benchmark alike (speedcheck precision --runs measures it) */
	fprintf(f, "Intervals: the distribution-free 95%% CI of each median (order statistics). "
		   "Under `harness run` each repetition is an invocation of its own, one window "
		   "long, so the intervals include the variance between invocations. They do "
		   "not cover a shift of the whole machine between runs (the host's other "
		   "tenants, busier for a whole run): from two runs of a host that held "
		   "still, about 83%% of one's medians lie in the other's intervals (each "
		   "median varies too), fewer where it moved, as `harness compare` counts; "
		   "compare two runs by their within-run ratios, which it lists first. A "
		   "ratio of two points of this run pairs them by round (round r runs "
		   "repetition r of each) where %d or more rounds hold both: the median of the "
		   "per-round ratios, with the distribution-free 95%% CI of that median, so "
		   "what a round did to both divides out; otherwise the ratio of medians with "
		   "a bootstrap 95%% CI.",
		AB_MIN_REPS_CI);
	if (rs.target > 0)
		fprintf(f, " The run aimed at +-%.3g%% (harness run --precision): it added "
			   "repetitions to the points wider than that, within its budget, judging "
			   "each at 97.5%% so that the 95%% stated here holds despite its looks; the "
			   "results still wider than +-%.3g%% at 95%% are listed.", 100 * rs.target,
			100 * rs.target);
	fprintf(f, "\n\n");
	/* a paragraph of its own, when there are results; each benchmark's share too */
	rs.apart = h_rounds_line(f, d, rs.share);
	/* in the report's order; only a registered benchmark has headline metrics, and
	 * walking the registry, not raw.csv's benches, keeps 200,000 groups linear */
	for (int i = 0; i < H_BENCH_MAX && h_registry[i]; i++)
		lines += precision_line(f, d, i, &rs);
	if (!lines)
		fprintf(f, "- no headline results among the records.\n");
	fprintf(f, "\n");
}
