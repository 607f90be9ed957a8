// SPDX-License-Identifier: GPL-2.0
/* The result model: groups, their index and their strings (see results.h). */
#include "record/results.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sys/grow.h"
#include "sys/idle_policy.h"
#include "sys/parse.h"
#include "record/hindex.h"
#include "record/results_i.h"

#define CHUNK 65536		/* the strings' arena grows by this much */

/* Interned strings: an arena of chunks (a string never moves) and a hash set of them. */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	char s[];
};

struct ab_strings {
	struct chunk *chunks;
	const char **set;	/* open addressing, NULL = empty */
	size_t n, nslot;
};

void ab_results_init(struct ab_results *r)
{
	memset(r, 0, sizeof(*r));
}

static void strings_free(struct ab_strings *t)
{
	if (!t)
		return;
	for (struct chunk *c = t->chunks, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(t->set);
	free(t);
}

void ab_results_free(struct ab_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->g[i].cap) {	/* not in the packed arrays */
			free(r->g[i].v);
			free(r->g[i].rep);
		}
	free(r->g);
	free(r->slot);
	free(r->pool_v);
	free(r->pool_rep);
	strings_free(r->str);
	memset(r, 0, sizeof(*r));
}

/* ---- the grammar ---- */

static int charset(const char *s, const char *extra, size_t maxlen)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr(extra, *s)))
			return 0;
	return n > 0 && n < maxlen;
}

static int lower_word(const char *s, const char *extra, size_t maxlen)
{
	return *s >= 'a' && *s <= 'z' && charset(s, extra, maxlen);
}

/* Keys strictly increasing: a config has one spelling (lkp parse sorts and refuses repeats). */
static const char *config_check(const char *c)
{
	char prev[AB_KEY_LEN] = "";

	if (strlen(c) >= AB_CONFIG_LEN)
		return "config too long";
	while (*c) {
		char key[AB_KEY_LEN], val[AB_VALUE_LEN];
		size_t kl = strcspn(c, "=;");
		if (c[kl] != '=' || kl == 0 || kl >= sizeof(key))
			return "config is not key=value;...";
		memcpy(key, c, kl);
		key[kl] = '\0';
		size_t vl = strcspn(c + kl + 1, ";");
		if (vl == 0 || vl >= sizeof(val))
			return "config value empty or too long";
		memcpy(val, c + kl + 1, vl);
		val[vl] = '\0';
		if (!lower_word(key, "_", sizeof(key)))
			return "config key has characters outside [a-z0-9_]";
		if (!charset(val, "_.,:+-", sizeof(val)))
			return "config value has characters outside [A-Za-z0-9_.,:+-]";
		if (prev[0] && strcmp(prev, key) >= 0)
			return "config keys are not sorted, or one is repeated";
		memcpy(prev, key, kl + 1);
		c += kl + 1 + vl;
		if (*c == ';' && !*++c)
			return "config ends in ';'";
	}
	return NULL;
}

const char *ab_record_check(const char *bench, const char *config, const char *rep,
			    const char *metric, const char *value, const char *unit)
{
	double v;

	if (!lower_word(bench, "_-", AB_BENCH_LEN))
		return "bench is not a short name of [a-z0-9_-]";
	const char *why = config_check(config);
	if (why)
		return why;
	if (strspn(rep, "0123456789") != strlen(rep) || !*rep || strlen(rep) > 7 ||
	    strtol(rep, NULL, 10) > AB_REP_MAX)
		return "rep is not a whole number in 0..1000000";
	if (!(((*metric >= 'a' && *metric <= 'z') || (*metric >= 'A' && *metric <= 'Z')) &&
	      charset(metric, "_", AB_METRIC_LEN)))
		return "metric is not a short name of [A-Za-z0-9_]";
	if (strlen(value) > 40 || ab_parse_decimal(value, &v))
		return "value is not a finite decimal number";
	if (!charset(unit, "%/_.^-", AB_UNIT_LEN))
		return "unit is not a short word of [A-Za-z0-9%/_.^-]";
	return NULL;
}

/* ---- interned strings ---- */

static const char **set_slot(const struct ab_strings *t, const char *s)
{
	size_t mask = t->nslot - 1;

	for (size_t i = ab_hash_str(AB_HASH_INIT, s) & mask;; i = (i + 1) & mask)
		if (!t->set[i] || !strcmp(t->set[i], s))
			return &t->set[i];
}

/* Keep the set at most three quarters full. 0 or -1. */
static int set_grow(struct ab_strings *t)
{
	if (t->nslot && 4 * (t->n + 1) <= 3 * t->nslot)
		return 0;
	size_t nslot = t->nslot ? 2 * t->nslot : 256, oldn = t->nslot;
	const char **old = t->set;
	if (!(t->set = calloc(nslot, sizeof(*t->set)))) {
		t->set = old;
		return -1;
	}
	t->nslot = nslot;
	for (size_t i = 0; i < oldn; i++)
		if (old[i])
			*set_slot(t, old[i]) = old[i];
	free(old);
	return 0;
}

static char *arena_copy(struct ab_strings *t, const char *s)
{
	size_t len = strlen(s) + 1;
	struct chunk *c = t->chunks;

	if (!c || c->cap - c->used < len) {
		size_t cap = len > CHUNK ? len : CHUNK;
		if (!(c = malloc(sizeof(*c) + cap)))
			return NULL;
		c->next = t->chunks;
		c->used = 0;
		c->cap = cap;
		t->chunks = c;
	}
	char *p = memcpy(c->s + c->used, s, len);
	c->used += len;
	return p;
}

const char *ab_results_intern(struct ab_results *r, const char *s)
{
	if (!r->str && !(r->str = calloc(1, sizeof(*r->str))))
		return NULL;
	struct ab_strings *t = r->str;
	if (set_grow(t) < 0)
		return NULL;
	const char **slot = set_slot(t, s);
	if (!*slot) {
		if (!(*slot = arena_copy(t, s)))
			return NULL;
		t->n++;
	}
	return *slot;
}

/* ---- the hash index ---- */

static uint64_t hash_key(const char *bench, const char *config, const char *metric,
			 const char *unit)
{
	return ab_hash_str(ab_hash_str(ab_hash_str(ab_hash_str(AB_HASH_INIT, bench), config), metric),
			   unit);
}

static int same(const struct ab_group *g, const char *bench, const char *config,
		const char *metric, const char *unit)
{
	return !strcmp(g->metric, metric) && !strcmp(g->config, config) &&
	       !strcmp(g->bench, bench) && !strcmp(g->unit, unit);
}

/* The slot holding the group, or the empty slot where it would go. */
static uint32_t *slot_of(const struct ab_results *r, const char *bench, const char *config,
			 const char *metric, const char *unit)
{
	size_t mask = r->nslot - 1;

	for (size_t i = hash_key(bench, config, metric, unit) & mask;; i = (i + 1) & mask) {
		uint32_t k = r->slot[i];
		if (!k || same(&r->g[k - 1], bench, config, metric, unit))
			return &r->slot[i];
	}
}

/* Keep the index at most three quarters full. 0 or -1 (ENOMEM). */
static int index_grow(struct ab_results *r)
{
	if (r->n >= UINT32_MAX - 1)
		return -1;
	if (r->nslot && 4 * (r->n + 1) <= 3 * r->nslot)
		return 0;
	size_t nslot = r->nslot ? 2 * r->nslot : 256;
	uint32_t *old = r->slot;
	size_t oldn = r->nslot;
	r->slot = calloc(nslot, sizeof(*r->slot));
	if (!r->slot) {
		r->slot = old;
		return -1;
	}
	r->nslot = nslot;
	for (size_t i = 0; i < oldn; i++)
		if (old[i]) {
			const struct ab_group *g = &r->g[old[i] - 1];
			*slot_of(r, g->bench, g->config, g->metric, g->unit) = old[i];
		}
	free(old);
	return 0;
}

const struct ab_group *ab_results_get(const struct ab_results *r, const char *bench,
				      const char *config, const char *metric, const char *unit)
{
	if (!r->nslot)
		return NULL;
	uint32_t k = *slot_of(r, bench, config, metric, unit);
	return k ? &r->g[k - 1] : NULL;
}

struct ab_group *ab_results_group_new(struct ab_results *r, const char *bench,
				      const char *config, const char *metric, const char *unit)
{
	const char *b = ab_results_intern(r, bench), *c = ab_results_intern(r, config);
	const char *m = ab_results_intern(r, metric), *u = ab_results_intern(r, unit);

	if (!b || !c || !m || !u || index_grow(r) < 0)
		return NULL;
	if (ab_grow(&r->g, &r->cap, r->n + 1, sizeof(*r->g), 64) < 0)
		return NULL;
	struct ab_group *g = &r->g[r->n++];
	*g = (struct ab_group){ .bench = b, .config = c, .metric = m, .unit = u };
	*slot_of(r, b, c, m, u) = (uint32_t)r->n;
	return g;
}

/* Room for one more value: the group's own arrays, doubled (copied out of the packed ones). */
static int group_grow(struct ab_group *g)
{
	if (g->n < g->cap)
		return 0;
	size_t cap = g->n < 2 ? 4 : 2 * g->n;
	double *nv = malloc(cap * sizeof(*nv));
	int *nr = malloc(cap * sizeof(*nr));
	if (!nv || !nr) {
		free(nv);
		free(nr);
		return -1;
	}
	if (g->n) {
		memcpy(nv, g->v, g->n * sizeof(*nv));
		memcpy(nr, g->rep, g->n * sizeof(*nr));
	}
	if (g->cap) {
		free(g->v);
		free(g->rep);
	}
	g->v = nv;
	g->rep = nr;
	g->cap = cap;
	return 0;
}

int ab_results_add(struct ab_results *r, const char *bench, const char *config, int rep,
		   const char *metric, double value, const char *unit)
{
	if (strlen(bench) >= AB_BENCH_LEN || strlen(config) >= AB_CONFIG_LEN ||
	    strlen(metric) >= AB_METRIC_LEN || strlen(unit) >= AB_UNIT_LEN || !isfinite(value)) {
		errno = EINVAL;
		return -1;
	}
	struct ab_group *g = (struct ab_group *)ab_results_get(r, bench, config, metric, unit);
	if ((!g && !(g = ab_results_group_new(r, bench, config, metric, unit))) || group_grow(g)) {
		errno = ENOMEM;
		return -1;
	}
	g->rep[g->n] = rep;
	g->v[g->n++] = value;
	return 0;
}

/* ---- lookups ---- */

const char *ab_cfg_get(const char *config, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p = config;

	buf[0] = '\0';
	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t vl = strcspn(p + kl + 1, ";");
			snprintf(buf, len, "%.*s", (int)vl, p + kl + 1);
			return buf;
		}
		p = strchr(p, ';');
		if (p)
			p++;
	}
	return buf;
}

const char *ab_cfg_absent_as(const char *key)
{
	return !strcmp(key, AB_IDLE_KEY) ? "as-found" : NULL;
}

int ab_cfg_matches(const char *config, const char *kv)
{
	char key[AB_KEY_LEN], val[AB_VALUE_LEN];
	const char *eq = strchr(kv, '=');

	if (!eq || (size_t)(eq - kv) >= sizeof(key))
		return 0;
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	size_t vl = strlen(eq + 1);
	int or_absent = vl && eq[vl] == '|';	/* "key=value|" */
	ab_cfg_get(config, key, val, sizeof(val));
	if (or_absent)
		return !val[0] || (strlen(val) == vl - 1 && !strncmp(val, eq + 1, vl - 1));
	const char *dflt = val[0] ? NULL : ab_cfg_absent_as(key);
	return !strcmp(val, eq + 1) || (dflt && !strcmp(dflt, eq + 1));
}

const struct ab_group *ab_results_find(const struct ab_results *r, const char *bench,
				       const char *metric, const char *const *want)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct ab_group *g = &r->g[i];
		int ok = !strcmp(g->bench, bench) && !strcmp(g->metric, metric);
		for (int k = 0; ok && want && want[k]; k++)
			ok = ab_cfg_matches(g->config, want[k]);
		if (ok)
			return g;
	}
	return NULL;
}
