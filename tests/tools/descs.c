// SPDX-License-Identifier: GPL-2.0
/*
 * The registry's descriptors as data, for scripts that must list what the
 * benchmarks record (contrib/lkp/lists.sh): one line per metric, tab-separated,
 *   BENCH  METRIC  UNIT  lower|higher  headline|-
 * in the registry's order and each descriptor's. It links the harness's
 * registry.o and every <bench>/report*.c, as the harness does.
 */
#include <stdio.h>
#include <string.h>

#include "render/desc.h"

extern const struct ab_bench_desc *const h_registry[];

static int is_headline(const struct ab_bench_desc *d, const char *metric)
{
	for (const char *const *h = d->headline; h && *h; h++)
		if (!strcmp(*h, metric))
			return 1;
	return 0;
}

int main(void)
{
	for (int i = 0; h_registry[i]; i++) {
		const struct ab_bench_desc *d = h_registry[i];

		for (const struct ab_metric_desc *m = d->metrics; m && m->name; m++)
			printf("%s\t%s\t%s\t%s\t%s\n", d->name, m->name, m->unit,
			       m->lower_better ? "lower" : "higher",
			       is_headline(d, m->name) ? "headline" : "-");
	}
	return fflush(stdout) ? 1 : 0;
}
