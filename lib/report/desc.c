/*
 * What a descriptor says about a benchmark's records (render.h): a metric's
 * direction, whether a config is a baseline, which keys hold CPU numbers. The
 * harness asks these instead of knowing any benchmark or key by name.
 */
#include <string.h>

#include "report/render.h"
#include "report/results.h"

int ab_desc_in(const char *const *list, const char *key, size_t keylen)
{
	for (int i = 0; list && list[i]; i++)
		if (strlen(list[i]) == keylen && !strncmp(list[i], key, keylen))
			return 1;
	return 0;
}

int ab_desc_lower_better(const struct ab_bench_desc *d, const char *metric)
{
	for (int i = 0; d && d->metrics && d->metrics[i].name; i++)
		if (!strcmp(d->metrics[i].name, metric))
			return d->metrics[i].lower_better;
	return 0;
}

int ab_desc_is_baseline(const struct ab_bench_desc *d, const char *cfg)
{
	char v[AB_VALUE_LEN];

	if (!d || !d->baseline_key)
		return 0;
	ab_cfg_get(cfg, d->baseline_key, v, sizeof(v));
	return v[0] && ab_desc_in(d->baselines, v, strlen(v));
}

int ab_desc_is_cpu_key(const struct ab_bench_desc *d, const char *key, size_t kl)
{
	if (d && ab_desc_in(d->not_cpus, key, kl))
		return 0;
	return (kl > 4 && !strncmp(key + kl - 4, "_cpu", 4)) ||
	       (kl > 5 && !strncmp(key + kl - 5, "_cpus", 5));
}
