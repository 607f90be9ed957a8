// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare's configs made comparable across runs: keys added after a
 * run was recorded are given their defaults (the descriptors' key_defaults: a
 * reference recorded before uring_cpu existed still matches a run that
 * writes uring_cpu=queue). CPU numbers stay (match.c matches across them).
 * compare.md says which keys were defaulted, and why a result is in one run
 * only (the other's runs.csv: a failed or skipped point, or a config its plan
 * did not have).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/infile.h"
#include "compare.h"
#include "render/desc.h"

#define MAXDEFAULTS 8	/* key defaults of a descriptor that compare applies */

/* Does config hold key, with any value, empty included? */
static int has_key(const char *config, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = config; *p; p += strcspn(p, ";") + !!p[strcspn(p, ";")])
		if (!strncmp(p, key, kl) && (p[kl] == '=' || p[kl] == ';' || !p[kl]))
			return 1;
	return 0;
}

/* kv ("KEY=VALUE") inserted into out (o bytes used, len its size) before the first key
 * that sorts after it, as records keep their keys; the new length (o: no room). */
static size_t insert_kv(char *out, size_t o, size_t len, const char *kv)
{
	char tmp[AB_CONFIG_LEN];
	size_t kl = strcspn(kv, "=");
	const char *p = out;
	int n;

	while (*p && strncmp(p, kv, kl) <= 0)
		p += strcspn(p, ";") + !!p[strcspn(p, ";")];
	if (*p)		/* before p's key */
		n = snprintf(tmp, sizeof(tmp), "%.*s%s;%s", (int)(p - out), out, kv, p);
	else
		n = snprintf(tmp, sizeof(tmp), "%s%s%s", out, o ? ";" : "", kv);
	if (n < 0 || (size_t)n >= sizeof(tmp) || (size_t)n >= len)
		return o;	/* no room: matched as it is */
	memcpy(out, tmp, (size_t)n + 1);
	return (size_t)n;
}

/* config with the keys added since it was recorded (the descriptor's key_defaults) at
 * their defaults; each one added is counted in added[], by its index in key_defaults. */
static void norm_config(const char *bench, const char *in, char *out, size_t len, int *added)
{
	const struct ab_bench_desc *d = h_desc(bench);
	char v[AB_VALUE_LEN];
	size_t o = (size_t)snprintf(out, len, "%s", in);

	if (o >= len)
		return;
	for (int i = 0; d && d->key_defaults && d->key_defaults[i].key && i < MAXDEFAULTS; i++) {
		const struct ab_key_default *k = &d->key_defaults[i];
		char kv[AB_KEY_LEN + AB_VALUE_LEN + 1];
		if ((k->when && !ab_cfg_matches(in, k->when)) ||
		    ab_cfg_get(in, k->key, v, sizeof(v))[0] || has_key(in, k->key))
			continue;	/* the key is there (or the config is not one it is for) */
		snprintf(kv, sizeof(kv), "%s=%s", k->key, k->value);
		o = insert_kv(out, o, len, kv);
		added[i]++;
	}
}

/* Count the keys a run's config lacked and was given (norm_config), for compare.md. */
static void defaults_seen(struct cmp *c, const char *bench, const int *added)
{
	const struct ab_bench_desc *d = h_desc(bench);

	for (int i = 0; i < MAXDEFAULTS; i++) {
		if (!added[i])
			continue;
		int j = 0;
		const struct ab_key_default *k = &d->key_defaults[i], *o;
		while (j < c->ndef && (o = c->def[j].kd, strcmp(o->key, k->key) ||
				       strcmp(o->value, k->value) || strcmp(o->since, k->since)))
			j++;	/* the same key of two benchmarks: one sentence */
		if (j == c->ndef) {
			if (c->ndef == (int)AB_ARRAY_SIZE(c->def))
				continue;
			c->def[c->ndef++] = (struct key_defaulted){ .kd = k };
		}
		c->def[j].results += added[i];
	}
}

/* The run with keys added later at their defaults. A run with none is taken as it is
 * (*in is moved into *out), so a run is never held twice. 0, or -1 out of memory. */
int h_cmp_normalize(struct cmp *c, struct ab_results *in, struct ab_results *out)
{
	size_t i = 0;

	for (char cfg[AB_CONFIG_LEN]; i < in->n; i++) {
		int added[MAXDEFAULTS] = { 0 };
		norm_config(in->g[i].bench, in->g[i].config, cfg, sizeof(cfg), added);
		if (strcmp(cfg, in->g[i].config))
			break;
	}
	if (i == in->n) {
		*out = *in;
		ab_results_init(in);
		return 0;
	}
	ab_results_init(out);
	for (size_t i = 0; i < in->n; i++) {
		const struct ab_group *g = &in->g[i];
		char cfg[AB_CONFIG_LEN];
		int added[MAXDEFAULTS] = { 0 };
		norm_config(g->bench, g->config, cfg, sizeof(cfg), added);
		defaults_seen(c, g->bench, added);
		for (size_t k = 0; k < g->n; k++)
			if (ab_results_add(out, g->bench, cfg, g->rep[k], g->metric, g->v[k], g->unit) < 0)
				return -1;
	}
	return 0;
}

/* compare.md's sentence on the configs matched through a key's default. */
void h_cmp_defaults_said(struct cmp *c)
{
	for (int j = 0; j < c->ndef; j++) {
		const struct ab_key_default *k = c->def[j].kd;
		fprintf(c->md, "%d results of configs without %s (recorded before it existed) were "
			       "matched as %s=%s (the default since %s)%s%s.\n", c->def[j].results,
			k->key, k->key, k->value, k->since, k->when ? ", those with " : "",
			k->when ? k->when : "");
	}
}

/* runs.csv of run k (bench,point,rep,status,...) into c->pts[k]: its points not ok, by
 * benchmark. Outside text, bounded like every reader; a bad line is only not counted. */
static void read_points(struct cmp *c, int k)
{
	struct run_points *p = &c->pts[k];
	char path[PATH_MAX], err[512], *line = NULL;
	size_t cap = 0;
	ssize_t len;

	p->known = 1;	/* read once, found or not */
	snprintf(path, sizeof(path), "%s/runs.csv", c->dirs[k]);
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_BYTES, err, sizeof(err));
	if (!f) {
		p->known = -1;
		return;
	}
	while ((len = ab_infile_line(f, &line, &cap)) != -1) {
		char bench[AB_BENCH_LEN];
		size_t bl = len < 0 ? 0 : strcspn(line, ",\n");
		const char *st = line;
		for (int i = 0; i < 3 && st; i++)
			st = (st = strchr(st, ',')) ? st + 1 : NULL;
		if (!bl || bl >= sizeof(bench) || !st || !strncmp(st, "ok,", 3) ||
		    !strncmp(line, "bench,", 6))
			continue;
		snprintf(bench, sizeof(bench), "%.*s", (int)bl, line);
		int j = 0;
		while (j < p->nb && strcmp(p->bench[j], bench))
			j++;
		if (j == p->nb && p->nb < (int)AB_ARRAY_SIZE(p->bench))
			snprintf(p->bench[p->nb++], sizeof(p->bench[0]), "%s", bench);
		if (j < p->nb)
			p->notok[j]++;
	}
	if (ferror(f))
		p->known = -1;
	free(line);
	fclose(f);
}

static int by_bench_config(const void *pa, const void *pb)
{
	const struct ab_group *a = *(const struct ab_group *const *)pa, *b = *(const struct ab_group *const *)pb;
	int d = strcmp(a->bench, b->bench);

	return d ? d : strcmp(a->config, b->config);
}

/* Did run k record anything in g's bench and config? Its groups sorted once, then halved. */
static int ran_config(struct cmp *c, int k, const struct ab_group *g)
{
	if (!c->cfgs && !(c->cfgs = calloc((size_t)c->nr, sizeof(*c->cfgs))))
		ab_fail("compare: out of memory");
	struct cfg_set *s = &c->cfgs[k];
	if (!s->g && c->d[k].n) {
		if (!(s->g = malloc(c->d[k].n * sizeof(*s->g))))
			ab_fail("compare: out of memory");
		for (size_t i = 0; i < c->d[k].n; i++)
			s->g[s->n++] = &c->d[k].g[i];
		qsort(s->g, s->n, sizeof(*s->g), by_bench_config);
	}
	return s->n && bsearch(&g, s->g, s->n, sizeof(*s->g), by_bench_config) != NULL;
}

int h_cmp_why_missing(struct cmp *c, int k, const struct ab_group *g)
{
	const char *bench = g->bench;

	if (ran_config(c, k, g))
		return H_WHY_METRIC;
	if (!c->pts) {
		c->pts = calloc((size_t)c->nr, sizeof(*c->pts));
		if (!c->pts)
			ab_fail("compare: out of memory");
	}
	if (!c->pts[k].known)
		read_points(c, k);
	if (c->pts[k].known < 0)
		return H_WHY_UNKNOWN;
	for (int j = 0; j < c->pts[k].nb; j++)
		if (!strcmp(c->pts[k].bench[j], bench) && c->pts[k].notok[j])
			return H_WHY_FAILED;
	return H_WHY_PLAN;
}

void h_cmp_why_said(FILE *md, const int *why, const char *run)
{
	static const char *const what[] = {
		[H_WHY_PLAN] = "from configs %s's plan did not have (none of their benchmark's "
			       "points failed or was skipped there)",
		[H_WHY_FAILED] = "from benchmarks with failed or skipped points in %s "
				 "(its runs.csv, failures.csv)",
		[H_WHY_UNKNOWN] = "from configs %s lacks for a reason unknown (no readable runs.csv)",
		[H_WHY_METRIC] = "of metrics %s did not record in configs it ran: its machine lacks "
				 "what they need (a cpuidle driver's idle states, a tracepoint, a PMU; "
				 "its log/ names it), not another plan",
	};
	const char *sep = ": ";

	for (int i = 0; i < H_WHY_N; i++) {
		if (!why[i])
			continue;
		fprintf(md, "%s%d ", sep, why[i]);
		fprintf(md, what[i], run);
		sep = ", ";
	}
	fputs(". ", md);
}
