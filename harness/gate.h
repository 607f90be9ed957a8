/*
 * The regression gate of harness compare --gate FILE: rules, one a line,
 *   BENCH METRIC [KEY=VALUE ...] max-regression|max-drop|max-rise N%
 * each judged over every config of BENCH's METRIC that holds all KEY=VALUE,
 * new run against the base: a rule is violated when a config's ratio new/base
 * is worse than N% (max-regression: a drop for a metric where higher is
 * better, a rise for one its descriptor marks lower_better; max-drop and
 * max-rise say the direction themselves) and the two-sided
 * bootstrap p-value of "the ratio is the threshold", Holm-corrected over the k
 * configs the rule judged in that run, is at most 0.05 (with one config: the
 * whole 95% CI beyond the threshold). It cannot be judged when a pair has fewer
 * than AB_MIN_REPS_CI repetitions a side or nothing matches.
 */
#ifndef H_GATE_H
#define H_GATE_H

#include "report/results.h"

#define H_EXIT_GATE 3		/* a rule violated (or, with --strict, not judged) */
#define H_GATE_RULES 256
#define H_GATE_FILTERS 8

struct h_gate_rule {
	int line;
	char bench[AB_BENCH_LEN], metric[AB_METRIC_LEN];
	char filter[H_GATE_FILTERS][AB_KEY_LEN + AB_VALUE_LEN + 1];
	int nfilter;
	int rise;		/* 1: a rise is worse (max-rise, or max-regression of a
				 * lower-is-better metric), 0: a drop is */
	double pct;		/* the threshold in percent */
	char text[256];		/* the rule as written, whitespace squeezed, for messages */
};

struct h_gate {
	const char *file;
	int n;
	struct h_gate_rule r[H_GATE_RULES];
};

/* Read and check FILE (sys/infile.h: a regular file, bounded); a bad line exits 2
 * with FILE:LINE and what is wrong. */
void h_gate_load(struct h_gate *g, const char *file);

/*
 * Judge every rule for each run d[1..nr-1] against d[0], names as written in
 * dirs. One line on stdout per violated or unjudged rule and run, a summary on
 * stderr. 0, or H_EXIT_GATE when a rule was violated (or, strict, not judged).
 */
int h_gate_judge(const struct h_gate *g, const struct ab_results *d, char *const *dirs, int nr,
		 int strict);

#endif
