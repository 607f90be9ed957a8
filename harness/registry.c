// SPDX-License-Identifier: GPL-2.0
/* The registry: every benchmark's descriptor, from registry.def. */
#include "harness.h"

#define AB_BENCH(name) extern const struct ab_bench_desc ab_desc_##name;
#include "registry.def"
#undef AB_BENCH

const struct ab_bench_desc *const h_registry[] = {
#define AB_BENCH(name) &ab_desc_##name,
#include "registry.def"
#include "render/desc.h"
#undef AB_BENCH
	NULL
};

const struct ab_bench_desc *h_desc(const char *bench)
{
	for (int i = 0; h_registry[i]; i++)
		if (!strcmp(h_registry[i]->name, bench))
			return h_registry[i];
	return NULL;
}
