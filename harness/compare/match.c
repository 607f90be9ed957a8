// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare's matching of a config across runs (compare.h). CPU numbers
 * (h_cfg_is_cpu_numbers) stay in every config: within a run, two configs that
 * differ only in them are two configs, never one group of both's repetitions
 * (two pairs of 3 repetitions are not one config of 6). Across runs a config
 * matches the same config, CPUs included; failing that, the one config of the
 * other run that differs from it in CPU numbers only, when each run has
 * exactly one such. So a placement that one machine made on CPUs 0 and 1 and
 * another on CPUs 2 and 3 compares, as a kernel developer comparing two
 * machines expects; of several pairs measured on each side only the same CPUs
 * compare, since which of the other's pairs would be "the same" is unknowable.
 */
#include <stdlib.h>
#include <string.h>

#include "record/hindex.h"
#include "compare.h"

/* Per run: its groups by (bench, config without CPU numbers, metric, unit). */
struct cmp_bare {
	struct ab_hindex x;
	char **cfg;	/* per group: its config without CPU numbers; a group whose config
			 * is the one before's (interned: the same pointer) shares it */
};

/* config without the CPU numbers (h_cfg_is_cpu_numbers) into out. */
static void bare_config(const char *bench, const char *in, char *out, size_t len)
{
	char tmp[AB_CONFIG_LEN], *save = NULL;
	size_t o = 0;

	snprintf(tmp, sizeof(tmp), "%s", in);
	out[0] = '\0';
	for (char *kv = strtok_r(tmp, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');
		size_t kl = eq ? (size_t)(eq - kv) : strlen(kv);
		if (!h_cfg_is_cpu_numbers(bench, kv, kl))
			o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%s", o ? ";" : "",
					      kv);
	}
}

static uint64_t bare_hash(const struct ab_group *g, const char *bare)
{
	uint64_t h = ab_hash_str(ab_hash_str(AB_HASH_INIT, g->bench), bare);

	return ab_hash_str(ab_hash_str(h, g->metric), g->unit);
}

int h_cmp_index(struct cmp *c)
{
	c->bare = calloc((size_t)c->nr, sizeof(*c->bare));
	if (!c->bare)
		return -1;
	for (int k = 0; k < c->nr; k++) {
		const struct ab_results *d = &c->d[k];
		struct cmp_bare *b = &c->bare[k];
		b->cfg = calloc(d->n ? d->n : 1, sizeof(*b->cfg));
		if (!b->cfg)
			return -1;
		for (size_t i = 0; i < d->n; i++) {
			const struct ab_group *g = &d->g[i];
			char bare[AB_CONFIG_LEN];
			if (i && g->config == d->g[i - 1].config) {
				b->cfg[i] = b->cfg[i - 1];
			} else {
				bare_config(g->bench, g->config, bare, sizeof(bare));
				if (!(b->cfg[i] = strdup(bare)))
					return -1;
			}
			if (ab_hindex_add(&b->x, bare_hash(g, b->cfg[i]), i) < 0)
				return -1;
		}
	}
	return 0;
}

void h_cmp_index_free(struct cmp *c)
{
	for (int k = 0; c->bare && k < c->nr; k++) {
		struct cmp_bare *b = &c->bare[k];
		for (size_t i = 0; b->cfg && i < c->d[k].n; i++)
			if (!i || b->cfg[i] != b->cfg[i - 1])
				free(b->cfg[i]);
		free(b->cfg);
		ab_hindex_free(&b->x);
	}
	free(c->bare);
	c->bare = NULL;
}

/* How many groups of run k hold g's bench, metric and unit and the config bare without
 * CPU numbers (0, 1, or 2 for more); the first in *one. */
static int bare_count(const struct cmp *c, int k, const struct ab_group *g, const char *bare,
		      const struct ab_group **one)
{
	const struct cmp_bare *b = &c->bare[k];
	uint64_t h = bare_hash(g, bare);
	size_t pos = 0, e;
	int n = 0;

	while (n < 2 && (e = ab_hindex_next(&b->x, h, &pos))) {
		const struct ab_group *o = &c->d[k].g[e - 1];
		if (!strcmp(o->bench, g->bench) && !strcmp(o->metric, g->metric) &&
		    !strcmp(o->unit, g->unit) && !strcmp(b->cfg[e - 1], bare) && !n++)
			*one = o;
	}
	return n;
}

const struct ab_group *h_cmp_match(const struct cmp *c, int from, const struct ab_group *g, int to)
{
	const struct ab_group *b = ab_results_get(&c->d[to], g->bench, g->config, g->metric,
						  g->unit);
	const struct ab_group *self = NULL, *other = NULL;

	if (b || !c->bare)
		return b;
	const char *bare = h_cmp_bare(c, from, g);
	if (bare_count(c, from, g, bare, &self) != 1 || bare_count(c, to, g, bare, &other) != 1)
		return NULL;	/* none, or several pairs a side: only the same CPUs compare */
	return other;
}

const char *h_cmp_bare(const struct cmp *c, int k, const struct ab_group *g)
{
	return c->bare ? c->bare[k].cfg[g - c->d[k].g] : g->config;
}

int h_cmp_cpus_tell_apart(const struct cmp *c, const char *bench)
{
	const struct ab_group *one;

	for (size_t i = 0; c->bare && i < c->d[0].n; i++) {
		const struct ab_group *g = &c->d[0].g[i];
		if (!strcmp(g->bench, bench) && bare_count(c, 0, g, c->bare[0].cfg[i], &one) > 1)
			return 1;
	}
	return 0;
}
