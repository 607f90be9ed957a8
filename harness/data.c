/*
 * raw.csv -> groups of values per (bench, config, metric, unit), in the order
 * they first appear, and summary.csv from them. Only CSV is read (DESIGN.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "harness.h"
#include "record.h"
#include "stats.h"

static struct h_group *group_get(struct h_data *d, char **f)
{
	for (size_t i = d->n; i-- > 0;) {
		struct h_group *g = &d->g[i];
		if (!strcmp(g->metric, f[3]) && !strcmp(g->config, f[1]) && !strcmp(g->bench, f[0]) &&
		    !strcmp(g->unit, f[5]))
			return g;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct h_group *ng = realloc(d->g, cap * sizeof(*ng));
		if (!ng)
			return NULL;
		d->g = ng;
		d->cap = cap;
	}
	struct h_group *g = &d->g[d->n++];
	memset(g, 0, sizeof(*g));
	snprintf(g->bench, sizeof(g->bench), "%s", f[0]);
	snprintf(g->config, sizeof(g->config), "%s", f[1]);
	snprintf(g->metric, sizeof(g->metric), "%s", f[3]);
	snprintf(g->unit, sizeof(g->unit), "%s", f[5]);
	return g;
}

int h_data_load(struct h_data *d, const char *rawcsv, char *err, size_t errlen)
{
	FILE *f = fopen(rawcsv, "r");
	char line[4096];
	int lineno = 0;

	memset(d, 0, sizeof(*d));
	if (!f) {
		if (errno == ENOENT)
			return 0;
		return ab_err(err, errlen, "%s: %s", rawcsv, strerror(errno));
	}
	while (fgets(line, sizeof(line), f)) {
		char *fl[8], *end;
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || (lineno == 1 && !strncmp(line, "bench,", 6)))
			continue;
		if (ab_csv_split(line, fl, 8) != 6) {
			fclose(f);
			return ab_err(err, errlen, "%s:%d: not a bench,config,rep,metric,value,unit record",
				      rawcsv, lineno);
		}
		errno = 0;
		double v = strtod(fl[4], &end);
		if (errno || end == fl[4] || *end || !isfinite(v)) {
			fclose(f);
			return ab_err(err, errlen, "%s:%d: value '%s' is not a number", rawcsv, lineno, fl[4]);
		}
		struct h_group *g = group_get(d, fl);
		if (!g)
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
		g->rep[g->n] = atoi(fl[2]);
		g->v[g->n++] = v;
	}
	fclose(f);
	return 0;
oom:
	fclose(f);
	return ab_err(err, errlen, "%s: out of memory", rawcsv);
}

void h_data_free(struct h_data *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->g[i].v);
		free(d->g[i].rep);
	}
	free(d->g);
	memset(d, 0, sizeof(*d));
}

const char *h_cfg(const char *config, const char *key, char *buf, size_t len)
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

const struct h_group *h_find(const struct h_data *d, const char *bench, const char *metric,
			     const char *const *want)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct h_group *g = &d->g[i];
		int ok = !strcmp(g->bench, bench) && !strcmp(g->metric, metric);
		for (int k = 0; ok && want && want[k]; k++) {
			char key[64], val[128];
			const char *eq = strchr(want[k], '=');
			snprintf(key, sizeof(key), "%.*s", (int)(eq - want[k]), want[k]);
			ok = !strcmp(h_cfg(g->config, key, val, sizeof(val)), eq + 1);
		}
		if (ok)
			return g;
	}
	return NULL;
}

int h_write_summary(const struct h_data *d, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs("bench,config,metric,unit,n,median,mean,stddev,cv,min,max,ci_lo,ci_hi\n", f);
	for (size_t i = 0; i < d->n; i++) {
		const struct h_group *g = &d->g[i];
		struct ab_summary s;
		ab_summarize(g->v, g->n, &s);
		ab_csv_field(f, g->bench);
		fputc(',', f);
		ab_csv_field(f, g->config);
		fputc(',', f);
		ab_csv_field(f, g->metric);
		fputc(',', f);
		ab_csv_field(f, g->unit);
		/* %.6g keeps every digit a benchmark could mean; nan stays "nan" (n = 1 stddev) */
		fprintf(f, ",%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", s.n, s.median, s.mean,
			s.stddev, s.cv, s.min, s.max, s.ci.lo, s.ci.hi);
	}
	return fclose(f);
}
