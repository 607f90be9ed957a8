// SPDX-License-Identifier: GPL-2.0
/*
 * What a descriptor says about a benchmark's records (desc.h): a metric's
 * direction, whether a config is a baseline, which keys hold CPU numbers. The
 * harness asks these instead of knowing any benchmark or key by name.
 */
#include <stdio.h>
#include <string.h>

#include "render/desc.h"
#include "record/results.h"

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

/* A tail percentile or max of a latency histogram (record/histio.h): "<stem>_p90_<unit>"
 * of a listed "<stem>_p50_<unit>". */
static int hist_metric(const struct ab_bench_desc *d, const char *metric)
{
	static const char *const tails[] = { "_p90_", "_p999_", "_max_" };
	char p50[AB_METRIC_LEN];

	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		const char *t = strstr(metric, tails[i]);
		if (!t)
			continue;
		snprintf(p50, sizeof(p50), "%.*s_p50_%s", (int)(t - metric), metric,
			 t + strlen(tails[i]));
		for (int k = 0; d->metrics && d->metrics[k].name; k++)
			if (!strcmp(d->metrics[k].name, p50))
				return 1;
	}
	return 0;
}

int ab_desc_has_metric(const struct ab_bench_desc *d, const char *metric)
{
	for (int i = 0; d && d->metrics && d->metrics[i].name; i++)
		if (!strcmp(d->metrics[i].name, metric))
			return 1;
	return d && (!strncmp(metric, "mon_", 4) || hist_metric(d, metric));
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

const char *ab_desc_absent_as(const struct ab_bench_desc *d, const char *key, size_t kl)
{
	char k[AB_KEY_LEN];

	for (int i = 0; d && d->absent_as && d->absent_as[i].key; i++)
		if (strlen(d->absent_as[i].key) == kl && !strncmp(d->absent_as[i].key, key, kl))
			return d->absent_as[i].value;
	if (kl >= sizeof(k))
		return NULL;
	snprintf(k, sizeof(k), "%.*s", (int)kl, key);
	return ab_cfg_absent_as(k);
}

/* Does cfg hold key (kl bytes) at all, with any value? */
static int has_key(const char *cfg, const char *key, size_t kl)
{
	for (const char *p = cfg; *p; p += strcspn(p, ";") + !!p[strcspn(p, ";")])
		if (!strncmp(p, key, kl) && (p[kl] == '=' || p[kl] == ';' || !p[kl]))
			return 1;
	return 0;
}

int ab_desc_cfg_matches(const struct ab_bench_desc *d, const char *cfg, const char *kv)
{
	size_t kl = strcspn(kv, "=");
	const char *dflt;

	if (ab_cfg_matches(cfg, kv))
		return 1;
	if (!kv[kl] || has_key(cfg, kv, kl) || !(dflt = ab_desc_absent_as(d, kv, kl)))
		return 0;
	return !strcmp(dflt, kv + kl + 1);
}
