/* harness compare: what compare.c shares with its labels (compare_label.c) and plots (compare_plot.c). */
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
	int subsampled;		/* ratios with a side past AB_BOOT_MAX_N values */
	struct shortkeys {	/* per benchmark, the config keys that vary in the base */
		char bench[AB_BENCH_LEN];
		char key[16][AB_KEY_LEN];
		int n;
	} sk[16];
	int nsk;
};

/* The terminal table fits 100 columns: configs as the values of the keys that vary
 * ("fuse/single/same/libfuse"), a legend per benchmark names those keys. */
#define TERM_ROW "%-9.9s %-24.24s %-19.19s %-4.4s %9.9s %9.9s %s\n"
#define TERM_RATIO_W 20	/* 80 columns before the ratio */

/* g's group in run d (same bench, config, metric and unit), or NULL. */
const struct ab_group *h_cmp_match(const struct ab_results *d, const struct ab_group *g);

/* g's config as the values of the keys that vary among its benchmark's configs in the
 * base ("fuse/single/same/libfuse"); the terminal table's legend names the keys. */
const char *h_cmp_short_cfg(struct cmp *c, const struct ab_group *g, char *buf, size_t len);

/* Run k's label everywhere compare writes: A, B, ... Z, then #26, #27, ... */
const char *h_cmp_run_label(char *buf, size_t len, int k);

/* s cut to w columns with a '~' where it was cut (s is changed). */
char *h_cmp_term_cut(char *s, size_t w);
/* compare.md's config cell: "daemon=single, placement=none", the keys that vary. */
void h_cmp_md_cfg(FILE *f, struct cmp *c, const struct ab_group *g);
/* The terminal's legends: each benchmark's varying keys, and "run B: DIR" within 100 columns. */
void h_cmp_term_legend(struct cmp *c);
void h_cmp_run_legend(struct cmp *c, int k);

/* The trend and overlay plots, drawn into c->out, linked from compare.md; 0 or -1. */
int h_cmp_plots(struct cmp *c);

#endif
