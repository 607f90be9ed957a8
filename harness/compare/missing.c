// SPDX-License-Identifier: GPL-2.0
/*
 * harness compare: why a result is in one run only (the other's runs.csv: a failed
 * or skipped point, or a config its plan did not have).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/infile.h"
#include "compare.h"

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
	const struct ab_group *a = *(const struct ab_group *const *)pa;
	const struct ab_group *b = *(const struct ab_group *const *)pb;
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
