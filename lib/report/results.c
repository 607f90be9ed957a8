/* The result model and the raw.csv loader (see results.h). */
#include "report/results.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/infile.h"
#include "report/record.h"

#define BAD_ROWS_SHOWN 20

void ab_results_init(struct ab_results *r)
{
	memset(r, 0, sizeof(*r));
}

void ab_results_free(struct ab_results *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->g[i].v);
		free(r->g[i].rep);
	}
	free(r->g);
	free(r->slot);
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

static const char *config_check(const char *c)
{
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
		c += kl + 1 + vl;
		if (*c == ';' && !*++c)
			return "config ends in ';'";
	}
	return NULL;
}

const char *ab_record_check(const char *bench, const char *config, const char *rep,
			    const char *metric, const char *value, const char *unit)
{
	char *end;

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
	errno = 0;
	double v = strtod(value, &end);
	if (!*value || *end || errno == ERANGE || !isfinite(v) || strlen(value) > 40)
		return "value is not a finite number";
	if (!charset(unit, "%/_.^-", AB_UNIT_LEN))
		return "unit is not a short word of [A-Za-z0-9%/_.^-]";
	return NULL;
}

/* ---- the hash index ---- */

static uint64_t hash_key(const char *bench, const char *config, const char *metric,
			 const char *unit)
{
	const char *parts[] = { bench, config, metric, unit };
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (size_t p = 0; p < AB_ARRAY_SIZE(parts); p++) {
		for (const unsigned char *s = (const unsigned char *)parts[p]; *s; s++)
			h = (h ^ *s) * 1099511628211ull;
		h = (h ^ 0x1f) * 1099511628211ull;	/* field separator */
	}
	return h;
}

static int same(const struct ab_group *g, const char *bench, const char *config,
		const char *metric, const char *unit)
{
	return !strcmp(g->metric, metric) && !strcmp(g->config, config) &&
	       !strcmp(g->bench, bench) && !strcmp(g->unit, unit);
}

/* The slot holding the group, or the empty slot where it would go. */
static size_t *slot_of(const struct ab_results *r, const char *bench, const char *config,
		       const char *metric, const char *unit)
{
	size_t mask = r->nslot - 1;

	for (size_t i = hash_key(bench, config, metric, unit) & mask;; i = (i + 1) & mask) {
		size_t k = r->slot[i];
		if (!k || same(&r->g[k - 1], bench, config, metric, unit))
			return &r->slot[i];
	}
}

/* Keep the index at most half full. 0 or -1 (ENOMEM). */
static int index_grow(struct ab_results *r)
{
	if (r->nslot && 2 * (r->n + 1) <= r->nslot)
		return 0;
	size_t nslot = r->nslot ? 2 * r->nslot : 256;
	size_t *old = r->slot, oldn = r->nslot;
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
	size_t k = *slot_of(r, bench, config, metric, unit);
	return k ? &r->g[k - 1] : NULL;
}

static struct ab_group *group_new(struct ab_results *r, const char *bench, const char *config,
				  const char *metric, const char *unit)
{
	if (index_grow(r) < 0)
		return NULL;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct ab_group *ng = realloc(r->g, cap * sizeof(*ng));
		if (!ng)
			return NULL;
		r->g = ng;
		r->cap = cap;
	}
	struct ab_group *g = &r->g[r->n++];
	memset(g, 0, sizeof(*g));
	snprintf(g->bench, sizeof(g->bench), "%s", bench);
	snprintf(g->config, sizeof(g->config), "%s", config);
	snprintf(g->metric, sizeof(g->metric), "%s", metric);
	snprintf(g->unit, sizeof(g->unit), "%s", unit);
	*slot_of(r, bench, config, metric, unit) = r->n;
	return g;
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
	if (!g && !(g = group_new(r, bench, config, metric, unit)))
		goto oom;
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 8;
		double *nv = realloc(g->v, cap * sizeof(*nv));
		if (!nv)
			goto oom;
		g->v = nv;
		int *nr = realloc(g->rep, cap * sizeof(*nr));
		if (!nr)
			goto oom;
		g->rep = nr;
		g->cap = cap;
	}
	g->rep[g->n] = rep;
	g->v[g->n++] = value;
	return 0;
oom:
	errno = ENOMEM;
	return -1;
}

/* ---- raw.csv ---- */

static void bad_row(struct ab_results *r, FILE *report, const char *path, size_t lineno,
		    const char *why)
{
	if (report && r->bad < BAD_ROWS_SHOWN)
		fprintf(report, "%s: %s:%zu: skipped a bad row: %s\n", ab_prog, path, lineno, why);
	r->bad++;
}

/* One line: 0 added or refused (counted), -1 out of memory. */
static int load_line(struct ab_results *r, char *line, size_t len, const char *path,
		     size_t lineno, FILE *report)
{
	char *f[7];

	if (strlen(line) != len)
		return bad_row(r, report, path, lineno, "it holds a NUL byte"), 0;
	line[strcspn(line, "\r\n")] = '\0';
	if (!line[0] || (lineno == 1 && !strcmp(line, "bench,config,rep,metric,value,unit")))
		return 0;
	if (ab_csv_split(line, f, 7) != 6)
		return bad_row(r, report, path, lineno, "not 6 CSV fields"), 0;
	const char *why = ab_record_check(f[0], f[1], f[2], f[3], f[4], f[5]);
	if (why)
		return bad_row(r, report, path, lineno, why), 0;
	return ab_results_add(r, f[0], f[1], atoi(f[2]), f[3], strtod(f[4], NULL), f[5]);
}

int ab_results_load_csv(struct ab_results *r, const char *path, FILE *report, char *err,
			size_t errlen)
{
	/* raw.csv may come from anyone: a regular file within bounds, or refused (sys/infile.h) */
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_BYTES, err, errlen);
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int rc = 0;

	if (!f) {
		if (errno == ENOENT)
			return 0;
		errno = EINVAL;	/* the file itself is refused, not a row */
		return -1;
	}
	while ((len = ab_infile_line(f, &line, &cap)) >= 0)
		if (load_line(r, line, (size_t)len, path, ++lineno, report) < 0) {
			rc = ab_err(err, errlen, "%s: out of memory", path);
			errno = ENOMEM;
			break;
		}
	if (len == -2) {
		rc = ab_err(err, errlen, "%s:%zu: a line over the %d-byte limit: not a raw.csv of "
			    "affbench (docs/records.md)", path, lineno + 1, AB_INFILE_MAX_LINE);
		errno = EINVAL;
	} else if (rc == 0 && ferror(f)) {
		rc = ab_err(err, errlen, "%s: read error: %s", path, strerror(errno));
		errno = EIO;
	}
	if (report && r->bad > BAD_ROWS_SHOWN)
		fprintf(report, "%s: %s: %zu bad rows skipped in all\n", ab_prog, path, r->bad);
	free(line);
	fclose(f);
	return rc;
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
	return !strcmp(val, eq + 1);
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
