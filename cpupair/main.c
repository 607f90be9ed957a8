// SPDX-License-Identifier: GPL-2.0
/*
 * cpupair: what a handoff between two CPUs costs, for every ordered pair of
 * the CPUs allowed (or a sample): the cache-line round trip (two threads
 * ping-pong one line by spinning: the floor of any handoff), and the wake-up
 * round trips through a futex and through a pipe (each side sleeps until the
 * other wakes it, as FUSE's requests and replies do). It reproduces no post:
 * core-to-core latency tools draw the same cache-line matrix; this one puts the
 * wake-ups beside it, in topology order and summarised per placement class.
 *
 * What to vary: --pairs, --method, --duration (per pair and method), --cpus.
 * The diagonal (one CPU with itself) is measured for the wake-ups only: a
 * same-CPU handoff pays two context switches too, which cputestfs's split
 * subtracts; spinning on one CPU against itself cannot hand anything over.
 * Each wake-up round trip records the share of its waits that slept (the
 * sides' voluntary switches, read at the window's edges): below CP_SLEPT_MIN
 * it is a mix, not a wake-up's cost. On a VM a vCPU the host
 * preempts stalls its partner's spin, which shows up as a slow pair.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats/cpumon.h"
#include "knob/idle.h"
#include "sys/common.h"
#include "sys/opts.h"
#include "record/record.h"
#include "render/render.h"
#include "record/results.h"
#include "cpupair.h"

struct cp_settings {
	const char *pairs, *method;
};

static struct cp_settings set = { .pairs = "classes", .method = "line,futex,pipe" };

static const struct ab_opt opts[] = {
	AB_OPT(struct cp_settings, pairs, "pairs", AB_OPT_STR, "all|classes|N",
	       "ordered CPU pairs: every one, the last of each class (smt, llc, cross-llc, cross-node) "
	       "and its reverse, or N spread over the matrix (the same pairs on every run)"),
	AB_OPT(struct cp_settings, method, "method", AB_OPT_STR, "LIST",
	       "line (cache-line round trip, ns), futex, pipe (wake-up round trips, us)"),
	AB_OPT_END,
};

static const struct ab_prog_info info = {
	.name = CP_BENCH,
	.summary = "round trips between two CPUs: a cache line (ns), a futex and a pipe wake-up (us)",
	.usage_extra = "The diagonal (a CPU with itself) is measured for futex and pipe only.\n"
		       "With the 20 ms default,\n"
		       "one repetition of --pairs all --method line on 64 CPUs (4032 pairs) takes\n"
		       "about 100 s (--repeat 1 for one pass); on bigger machines sample with\n"
		       "--pairs N.",
	.default_duration = 0.02,
	.default_repeat = 3,
	.duration_per = "one window per pair and method in each repetition, after a warm-up of a "
			"quarter of it",
};

/* A round trip measured in ns, in its metric's unit (cp_metrics: ns or us). */
static double in_unit(double ns, enum cp_method m)
{
	return strcmp(cp_metrics[m].unit, "us") ? ns : ns * 1e-3;
}

/* The pairs selected, then the diagonal of their CPUs (one CPU with itself, for the
 * wake-ups a same-CPU handoff pays: futex and pipe only). */
static long pairs_of(const struct ab_common *c, enum cp_pairs_mode mode, long n,
		     struct cp_pair **pairs, long *ndiag, int *cache_known)
{
	struct cp_pair *diag;
	struct ab_topo t;
	char err[512];
	long np;

	if (ab_topo_load(&t, NULL, &c->allowed, err, sizeof(err)) < 0)
		ab_fail("topology: %s", err);
	if (ab_cpuset_count(&t.cpus) < 2)
		ab_skip("cpupair needs two CPUs; %d allowed and online (--cpus, the cpuset)",
			ab_cpuset_count(&t.cpus));
	np = cp_pairs_select(&t, mode, n, pairs, err, sizeof(err));
	*cache_known = cp_cache_known(NULL, &t);
	ab_topo_free(&t);
	if (np < 0)
		ab_fail("pairs: %s", err);
	if ((*ndiag = cp_pairs_diagonal(*pairs, np, &diag)) < 0 ||
	    !(*pairs = realloc(*pairs, sizeof(**pairs) * (size_t)(np + *ndiag))))
		ab_fail("pairs: out of memory");
	memcpy(*pairs + np, diag, sizeof(*diag) * (size_t)*ndiag);
	free(diag);
	return np;
}

/*
 * What the pair's two CPUs did in the futex window (mon_*, per round trip): did
 * the sleeping side's CPU go idle, into which state (docs/records.md). Only the
 * futex's: one pair's config holds one window's counts, and the line method
 * never sleeps. Only for sweeps of at most CP_MON_PAIRS pairs: some 30 records
 * a pair would take a 64-CPU matrix's raw.csv past what the harness reads.
 */
#define CP_MON_PAIRS 64

static struct ab_cpumon *pair_mon(const struct cp_pair *p, long np)
{
	struct ab_cpuset s;

	if (np > CP_MON_PAIRS)
		return NULL;
	ab_cpuset_zero(&s);
	ab_cpuset_set(&s, p->a);
	ab_cpuset_set(&s, p->b);
	return ab_cpumon_new(&s);
}

/* How disturbed a window was, to keep the least: its wait, else its switches. */
static double disturbance(const struct cp_result *res)
{
	return isnan(res->wait_pct) ? (double)res->invol : res->wait_pct;
}

/*
 * One measurement of method m on p. A cache-line round trip is measured again, up
 * to CP_LINE_TRIES windows, while the window was disturbed (cp_line_disturbed: its
 * spinners waited for their CPUs): that time is the scheduler's, not the line's;
 * past them the least disturbed window is kept, its wait and switches recorded
 * beside it (the report flags the pair). 1: res holds a round trip; 0: it failed.
 */
static int measure_one(const struct cp_pair *p, enum cp_method m, const struct ab_common *c,
		       struct ab_cpumon *mon, struct cp_result *res, int *failed)
{
	struct cp_result best = { 0 };
	char why[256];

	for (int t = 1; t <= (m == CP_LINE ? CP_LINE_TRIES : 1); t++) {
		if (cp_measure(p, m, c->duration, mon, res, why, sizeof(why)) < 0) {
			ab_msg("%s: %s", cp_method_name(m), why);
			(*failed)++;
			return 0;
		}
		if (t == 1 || disturbance(res) < disturbance(&best))
			best = *res;
		if (!res->switches_known || !cp_line_disturbed(res->wait_pct, (double)res->invol))
			break;
	}
	*res = best;
	return 1;
}

/* A cache line's window: its spinners' switches, and their wait where known. */
static void record_disturbance(struct ab_out *out, const struct ab_config *cfg, int rep,
			       const struct cp_result *res)
{
	const struct ab_metric_desc *s = &cp_metrics[CP_LINE_INVOL], *w = &cp_metrics[CP_LINE_WAIT];

	ab_record(out, cfg, rep, s->name, (double)res->invol, s->unit);
	if (!isnan(res->wait_pct))
		ab_record(out, cfg, rep, w->name, res->wait_pct, w->unit);
}

/* One repetition of every pair and method; the number of failed ones. */
static int sweep(struct ab_out *out, const struct ab_common *common, const struct cp_pair *pairs,
		 long np, long ndiag, int cache_known, unsigned methods, int rep)
{
	int failed = 0;

	for (long i = 0; i < np + ndiag; i++) {
		const struct cp_pair *p = &pairs[i];
		struct ab_config cfg;

		ab_config_init(&cfg);
		ab_config_set(&cfg, CP_K_A, "%d", p->a);
		ab_config_set(&cfg, CP_K_B, "%d", p->b);
		ab_config_set(&cfg, CP_K_POS_A, "%d", p->pa);
		ab_config_set(&cfg, CP_K_POS_B, "%d", p->pb);
		ab_config_set(&cfg, CP_K_CLASS, "%s", cp_class_name(p, cache_known));
		for (int m = 0; m < CP_NMETHOD; m++) {
			struct cp_result res;
			if (!(methods & (1u << m)) || (p->a == p->b && m == CP_LINE))
				continue;
			struct ab_cpumon *mon = m == CP_FUTEX ? pair_mon(p, np) : NULL;
			if (!measure_one(p, (enum cp_method)m, common, mon, &res, &failed)) {
				ab_cpumon_free(mon);
				continue;
			}
			int sm = cp_meth[m].slept;
			ab_record(out, &cfg, rep, cp_metrics[m].name, in_unit(res.rt_ns, m),
				  cp_metrics[m].unit);
			if (sm >= 0 && isfinite(res.slept_pct))
				ab_record(out, &cfg, rep, cp_metrics[sm].name, res.slept_pct,
					  cp_metrics[sm].unit);
			if (m == CP_LINE && res.switches_known)
				record_disturbance(out, &cfg, rep, &res);
			ab_cpumon_record(mon, out, &cfg, rep, 1e9 / res.rt_ns);
			ab_cpumon_free(mon);
		}
	}
	return failed;
}

int main(int argc, char **argv)
{
	struct ab_common common;
	struct ab_results kept;
	struct ab_out out;
	enum cp_pairs_mode mode;
	struct cp_pair *pairs;
	unsigned methods;
	long n = 0, np, ndiag;
	char err[256];
	int failed = 0, cache_known;

	ab_parse_args(argc, argv, &info, opts, &set, &common);
	if (cp_pairs_parse(set.pairs, &mode, &n, err, sizeof(err)) < 0 ||
	    cp_methods_parse(set.method, &methods, err, sizeof(err)) < 0)
		ab_usage_error("%s", err);
	ab_opts_checked(&common);
	ab_idle_apply(&common.idle);

	np = pairs_of(&common, mode, n, &pairs, &ndiag, &cache_known);
	if (!(methods & (1u << CP_FUTEX | 1u << CP_PIPE)))
		ndiag = 0;	/* the diagonal is the wake-ups' alone */
	if (!common.quiet)
		ab_msg("%ld ordered pairs (--pairs %s) and %ld CPUs with themselves (futex and "
		       "pipe), %g s each per method%s%s", np, set.pairs, ndiag, common.duration,
		       np > CP_MON_PAIRS ? "; no CPU monitor (mon_*) past 64 pairs" : "",
		       cache_known ? "" : "; no cache topology in sysfs: classes but smt and "
		       "cross-node are unknown");
	ab_results_init(&kept);
	ab_out_init(&out, stdout, &common, CP_BENCH);
	out.keep = &kept;
	for (int rep = 1; rep <= common.repeat; rep++)
		failed += sweep(&out, &common, pairs, np, ndiag, cache_known, methods, rep);
	free(pairs);
	int rc = ab_out_tables(&out, &ab_desc_cpupair);
	ab_results_free(&kept);
	return rc || failed ? AB_EXIT_FAIL : AB_EXIT_OK;
}
