// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare's labels (compare.h): configs shortened to the keys that vary
 * within their benchmark, for the terminal table (values, with a legend) and
 * compare.md (key=value), run labels A, B, ..., and the terminal's legends, all
 * within 100 columns. Directory names are outside text: escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "record/hindex.h"
#include "compare.h"

/* A key of a benchmark's configs, while they are scanned once. */
struct keyseen {
	char key[AB_KEY_LEN];
	char v0[AB_VALUE_LEN];	/* its value in the first config ("" if absent there) */
	size_t last, count;	/* the last config (1-based) holding it; how many do */
	int varies;
};

struct keytab {
	struct keyseen *k;	/* in order of first appearance */
	size_t n, cap;
	struct ab_hindex idx;	/* by key */
};

/* key (n bytes, n < AB_KEY_LEN) in t, added when new. */
static struct keyseen *key_find(struct keytab *t, const char *key, size_t n)
{
	char name[AB_KEY_LEN];
	size_t pos = 0, e;

	snprintf(name, sizeof(name), "%.*s", (int)n, key);
	uint64_t h = ab_hash_str(AB_HASH_INIT, name);
	while ((e = ab_hindex_next(&t->idx, h, &pos)))
		if (!strcmp(t->k[e - 1].key, name))
			return &t->k[e - 1];
	if (ab_grow(&t->k, &t->cap, t->n + 1, sizeof(*t->k), 32) < 0 ||
	    ab_hindex_add(&t->idx, h, t->n) < 0)
		ab_fail("compare: out of memory");
	struct keyseen *k = &t->k[t->n++];
	*k = (struct keyseen){ 0 };
	memcpy(k->key, name, sizeof(name));
	return k;
}

/*
 * One pass over the bench's configs in d: a key varies when some config's value
 * (ab_cfg_get's: the first, "" when absent) differs from the first config's.
 * Each key keeps that first value and whether another was seen, so 200,000
 * configs take one scan, not one per key and config. CPU numbers only with cpus.
 */
static void varying_keys(const struct ab_results *d, const char *bench, struct shortkeys *s,
			 int cpus)
{
	struct keytab t = { 0 };
	size_t nc = 0;

	for (size_t i = 0; i < d->n; i++) {
		if (strcmp(d->g[i].bench, bench))
			continue;
		nc++;
		for (const char *kv = d->g[i].config; *kv; kv += strcspn(kv, ";") + !!kv[strcspn(kv, ";")]) {
			size_t len = strcspn(kv, ";"), kl = strcspn(kv, "=;");
			if (kl == len || kl >= AB_KEY_LEN)	/* no value: ab_cfg_get never finds it */
				continue;
			struct keyseen *k = key_find(&t, kv, kl);
			if (k->last == nc)	/* the config's first k= is its value */
				continue;
			char v[AB_VALUE_LEN];
			snprintf(v, sizeof(v), "%.*s", (int)(len - kl - 1), kv + kl + 1);
			if (!k->count && nc == 1)
				memcpy(k->v0, v, sizeof(v));
			k->varies |= strcmp(v, k->v0) != 0;
			k->last = nc;
			k->count++;
		}
	}
	for (size_t i = 0; i < t.n && s->n < 16; i++)	/* absent somewhere: "" there */
		if ((t.k[i].varies || (t.k[i].count < nc && t.k[i].v0[0])) &&
		    (cpus || !h_cfg_is_cpu_numbers(bench, t.k[i].key, strlen(t.k[i].key))))
			snprintf(s->key[s->n++], sizeof(s->key[0]), "%s", t.k[i].key);
	free(t.k);
	ab_hindex_free(&t.idx);
}

static const struct shortkeys *short_keys(struct cmp *c, const char *bench)
{
	for (int i = 0; i < c->nsk; i++)
		if (!strcmp(c->sk[i].bench, bench))
			return &c->sk[i];
	if (c->nsk == (int)AB_ARRAY_SIZE(c->sk))
		return NULL;
	struct shortkeys *s = &c->sk[c->nsk++];
	memset(s, 0, sizeof(*s));
	snprintf(s->bench, sizeof(s->bench), "%s", bench);
	/* every key any of bench's configs holds; CPU numbers only where they tell two
	 * configs apart (elsewhere they follow a key that is shown, the placement) */
	varying_keys(&c->d[0], bench, s, h_cmp_cpus_tell_apart(c, bench));
	return s;
}

const char *h_cmp_short_cfg(struct cmp *c, const struct ab_group *g, char *buf, size_t len)
{
	const struct shortkeys *s = short_keys(c, g->bench);
	char v[AB_VALUE_LEN];
	size_t o = 0;

	if (!s || !s->n)
		return snprintf(buf, len, "%s", s ? "-" : g->config), buf;
	buf[0] = '\0';
	for (int k = 0; k < s->n; k++)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", k ? "/" : "",
				      ab_cfg_get(g->config, s->key[k], v, sizeof(v))[0] ? v : "-");
	return buf;
}

/* compare.md's config cell: "daemon=single, placement=none", the keys that vary within the
 * benchmark, so a row stays readable; compare.csv keeps the whole config. */
/* Is key one of the benchmark's varying keys (s)? */
static int short_key(const char *key, void *ctx)
{
	const struct shortkeys *s = ctx;

	for (int k = 0; k < s->n; k++)
		if (!strcmp(s->key[k], key))
			return 1;
	return 0;
}

void h_cmp_md_cfg(FILE *f, struct cmp *c, const struct ab_group *g)
{
	const struct shortkeys *s = short_keys(c, g->bench);

	if (s)
		h_md_cfg_label(f, g->config, short_key, (void *)s);
	else
		h_md_cell(f, g->config);
}

void h_cmp_term_legend(struct cmp *c)
{
	int told[AB_ARRAY_SIZE(c->sk)] = { 0 };

	for (size_t i = 0; i < c->d[0].n; i++) {
		const struct shortkeys *s = short_keys(c, c->d[0].g[i].bench);
		if (!s || told[s - c->sk]++)
			continue;
		printf("%s configs:", s->bench);
		for (int k = 0; k < s->n; k++)
			printf("%s%s", k ? "/" : " ", s->key[k]);
		printf("%s\n", s->n ? "" : " (one)");
	}
}

void h_cmp_keys_md(FILE *f, struct cmp *c, const char *bench)
{
	const struct shortkeys *s = short_keys(c, bench);

	if (!s || !s->n) {
		fputs(s ? "(one config)" : "the whole config", f);
		return;
	}
	for (int k = 0; k < s->n; k++)
		fprintf(f, "%s%s", k ? "/" : "", s->key[k]);
}

/* A, B, ... Z, then #26, #27, ...: the run's label in the terminal table. */
const char *h_cmp_run_label(char *buf, size_t len, int k)
{
	if (k < 26)
		snprintf(buf, len, "%c", 'A' + k);
	else
		snprintf(buf, len, "#%d", k);
	return buf;
}

/* "run B: DIR", within 100 columns: a longer DIR keeps its end (compare.md has it whole). */
void h_cmp_run_legend(struct cmp *c, int k)
{
	char l[16], *esc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&esc, &len);

	if (f) {
		h_md_cell(f, c->dirs[k]);	/* outside text: escaped */
		fclose(f);
	}
	int room = 100 - (int)strlen("run : ") - (int)strlen(h_cmp_run_label(l, sizeof(l), k));
	if (!esc || (int)len <= room)
		printf("run %s: %s\n", l, esc ? esc : "?");
	else {
		const char *tail = esc + len - (size_t)(room - 3);
		while ((*tail & 0xc0) == 0x80)	/* not inside a UTF-8 character */
			tail++;
		printf("run %s: ...%s\n", l, tail);
	}
	free(esc);
}
