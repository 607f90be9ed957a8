/* harness compare: what compare.c shares with its overlay plots (compare_plot.c). */
#ifndef H_COMPARE_H
#define H_COMPARE_H

#include <stdio.h>

#include "report/render.h"
#include "report/results.h"

struct cmp {
	int nr;
	char **dirs;
	struct ab_results *d;	/* nr runs, d[0] the base */
	const char *out;
	const char *gate;	/* --gate FILE */
	int strict;		/* --strict: a rule that cannot be judged fails the gate */
	int sort;		/* --sort: H_SORT_* */
	struct ab_plotdir pd;	/* overlays are made here, then moved into out */
	FILE *md, *csv;
	int machines_differ;
	int judged, sig, sig_raw, tests, few, only_a, only_b, no_ratio;
	struct shortkeys {	/* per benchmark, the config keys that vary in the base */
		char bench[AB_BENCH_LEN];
		char key[16][AB_KEY_LEN];
		int n;
	} sk[16];
	int nsk;
};

/* g's group in run d (same bench, config, metric and unit), or NULL. */
const struct ab_group *h_cmp_match(const struct ab_results *d, const struct ab_group *g);

/* g's config as the values of the keys that vary among its benchmark's configs in the
 * base ("fuse/single/same/libfuse"); the terminal table's legend names the keys. */
const char *h_cmp_short_cfg(struct cmp *c, const struct ab_group *g, char *buf, size_t len);

/* Run k's label everywhere compare writes: A, B, ... Z, then #26, #27, ... */
const char *h_cmp_run_label(char *buf, size_t len, int k);

/* The trend and overlay plots, drawn into c->out, linked from compare.md; 0 or -1. */
int h_cmp_plots(struct cmp *c);

#endif
