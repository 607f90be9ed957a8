// SPDX-License-Identifier: GPL-2.0
/*
 * results.json: one machine-readable document per run (docs/results.schema.json),
 * as fio and hyperfine write: the machine (machine.txt's facts, structured), the
 * plan, and per point its config and metrics (median, interval, n, unit), plus
 * the points that failed or were skipped. Written with every report, and by
 * `harness export DIR` for runs made before it existed.
 *
 * An interval is called a 95% CI only when it is one: with fewer than
 * AB_MIN_REPS_CI repetitions it is the min-max range, and "interval" says so.
 * Numbers that do not exist (a CV of one value) are null, never NaN.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "record/hindex.h"
#include "record/record.h"
#include "render/render.h"
#include "record/stats.h"
#include "sys/common.h"
#include "sys/infile.h"

#define SCHEMA "affbench-results/1"

static void num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fputs("null", f);
}

static void key(FILE *f, int *first, const char *k)
{
	fputs(*first ? "" : ",", f);
	*first = 0;
	ab_json_string(f, k);
	fputc(':', f);
}

/* "k=v;k=v" as an object of strings. */
static void config(FILE *f, const char *cfg)
{
	char copy[AB_CONFIG_LEN], *save = NULL;
	int first = 1;

	snprintf(copy, sizeof(copy), "%s", cfg);
	fputc('{', f);
	for (char *kv = strtok_r(copy, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			continue;
		*eq = '\0';
		key(f, &first, kv);
		ab_json_string(f, eq + 1);
	}
	fputc('}', f);
}

/* ---- the plan ---- */

static void plan(FILE *f, const char *dir)
{
	char path[PATH_MAX], err[256], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int first = 1;

	snprintf(path, sizeof(path), "%s/plan.plan", dir);
	FILE *in = ab_infile_open(path, AB_INFILE_MAX_SMALL, err, sizeof(err));
	fputs(",\"plan\":", f);
	if (!in) {
		fputs("null", f);
		return;
	}
	fputs("{\"lines\":[", f);
	while ((n = ab_infile_line(in, &line, &cap)) != -1) {
		if (n < 0 || !line[0] || line[0] == '#')
			continue;
		fputs(first ? "" : ",", f);
		first = 0;
		ab_json_string(f, line);
	}
	fputs("]}", f);
	fclose(in);
	free(line);
}

/* ---- points ---- */

static void metric(FILE *f, const struct ab_group *g)
{
	struct ab_summary s;
	int ci = g->n >= AB_MIN_REPS_CI;

	ab_summarize(g->v, g->n, &s);
	ab_json_string(f, g->metric);
	fputs(":{\"unit\":", f);
	ab_json_string(f, g->unit);
	fprintf(f, ",\"n\":%zu,\"median\":", s.n);
	num(f, s.median);
	fputs(",\"interval\":{\"kind\":", f);
	fputs(ci ? "\"ci95_median\"" : "\"min_max\"", f);
	fputs(",\"lo\":", f);
	num(f, ci ? s.ci.lo : s.min);
	fputs(",\"hi\":", f);
	num(f, ci ? s.ci.hi : s.max);
	fputs("},\"mean\":", f);
	num(f, s.mean);
	fputs(",\"stddev\":", f);
	num(f, s.stddev);
	fputs(",\"cv\":", f);
	num(f, s.cv);
	fputs(",\"min\":", f);
	num(f, s.min);
	fputs(",\"max\":", f);
	num(f, s.max);
	fputc('}', f);
}

static int same_point(const struct ab_group *a, const struct ab_group *b)
{
	return !strcmp(a->config, b->config) && !strcmp(a->bench, b->bench);
}

static int same_metric(const struct ab_group *a, const struct ab_group *b)
{
	return !strcmp(a->metric, b->metric) && same_point(a, b);
}

/*
 * The points: each group's next group of the same (bench, config) in d's order
 * (SIZE_MAX: its last), and whether it heads its point. A metric a point has
 * under two units (never written by affbench) keeps its first: the later group
 * is left out of the chain. Hash lookups, so 200,000 configs take a moment, not
 * minutes. 0, or -1 out of memory.
 */
static int chain(const struct ab_results *d, size_t *next, char *head)
{
	struct ab_hindex pts = { 0 }, mets = { 0 };
	size_t *tail = malloc((d->n ? d->n : 1) * sizeof(*tail));
	int rc = tail ? 0 : -1;

	for (size_t i = 0; !rc && i < d->n; i++) {
		const struct ab_group *g = &d->g[i];
		uint64_t hp = ab_hash_str(ab_hash_str(AB_HASH_INIT, g->bench), g->config);
		uint64_t hm = ab_hash_str(hp, g->metric);
		size_t pos = 0, e;

		next[i] = SIZE_MAX;
		head[i] = 0;
		while ((e = ab_hindex_next(&mets, hm, &pos)) && !same_metric(&d->g[e - 1], g))
			;
		if (e)
			continue;	/* the point has this metric already */
		if ((rc = ab_hindex_add(&mets, hm, i)) < 0)
			break;
		pos = 0;
		while ((e = ab_hindex_next(&pts, hp, &pos)) && !same_point(&d->g[e - 1], g))
			;
		if (e) {
			next[tail[e - 1]] = i;
			tail[e - 1] = i;
		} else {
			head[i] = 1;
			tail[i] = i;
			rc = ab_hindex_add(&pts, hp, i);
		}
	}
	ab_hindex_free(&pts);
	ab_hindex_free(&mets);
	free(tail);
	return rc;
}

/* One object per (bench, config), its metrics in the order they first appear. */
static void points(FILE *f, const struct ab_results *d, const size_t *next, const char *head)
{
	int first = 1;

	fputs(",\"points\":[", f);
	for (size_t i = 0; i < d->n; i++) {
		if (!head[i])
			continue;
		const struct ab_group *g = &d->g[i];
		fputs(first ? "{" : ",{", f);
		first = 0;
		fputs("\"bench\":", f);
		ab_json_string(f, g->bench);
		fputs(",\"config\":", f);
		config(f, g->config);
		fputs(",\"metrics\":{", f);
		for (size_t j = i; j != SIZE_MAX; j = next[j]) {
			fputs(j == i ? "" : ",", f);
			metric(f, &d->g[j]);
		}
		fputs("}}", f);
	}
	fputc(']', f);
}

/* failures.csv: bench,config,rep,exit,reason; a reason "skipped: ..." or exit 4 is a skip. */
static void failures(FILE *f, const char *dir)
{
	char path[PATH_MAX], err[256], *line = NULL, *fld[8];
	size_t cap = 0;
	ssize_t n;
	int first = 1, header = 1;

	snprintf(path, sizeof(path), "%s/failures.csv", dir);
	FILE *in = ab_infile_open(path, AB_INFILE_MAX_BYTES, err, sizeof(err));
	fputs(",\"failures\":[", f);
	while (in && (n = ab_infile_line(in, &line, &cap)) != -1) {
		if (n < 0 || header-- > 0 || ab_csv_split(line, fld, 8) != 5 ||
		    ab_record_check(fld[0], fld[1], fld[2], "x", "0", "x"))
			continue;	/* a row that breaks the grammar is not ours */
		int skip = atoi(fld[3]) == AB_EXIT_SKIP || !strncmp(fld[4], "skipped", 7);
		fputs(first ? "{" : ",{", f);
		first = 0;
		fputs("\"bench\":", f);
		ab_json_string(f, fld[0]);
		fputs(",\"config\":", f);
		config(f, fld[1]);
		fprintf(f, ",\"rep\":%d,\"exit\":%d,\"status\":\"%s\",\"reason\":", atoi(fld[2]),
			atoi(fld[3]), skip ? "skipped" : "failed");
		ab_json_string(f, fld[4]);
		fputc('}', f);
	}
	fputc(']', f);
	if (in)
		fclose(in);
	free(line);
}

int h_write_json(const struct ab_results *d, const char *dir)
{
	struct ab_outfile o;
	size_t *next = malloc((d->n ? d->n : 1) * sizeof(*next));
	char *head = malloc(d->n ? d->n : 1);
	FILE *f = NULL;
	int rc = -1;

	if (!next || !head || chain(d, next, head) < 0)
		ab_msg("%s/results.json: out of memory", dir);
	else if ((f = ab_outfile_open(&o, dir, "results.json"))) {
		fprintf(f, "{\"schema\":\"%s\",\"affbench_version\":\"%s\",", SCHEMA, AB_VERSION);
		h_json_machine(f, dir);
		plan(f, dir);
		points(f, d, next, head);
		failures(f, dir);
		fprintf(f, ",\"rejected_rows\":%zu}\n", d->bad);
		rc = ab_outfile_close(&o);
	}
	free(next);
	free(head);
	return rc;
}

static const char export_usage[] =
	"usage: harness export DIR\n"
	"Writes DIR/results.json (docs/results.schema.json) from DIR's raw.csv, machine.txt,\n"
	"plan.plan and failures.csv, for runs made before every report wrote it. Always valid\n"
	"UTF-8, each key once (a machine.txt label given twice keeps its last line, said on\n"
	"stderr). A repetition written twice in raw.csv refuses it: exit 2; a raw.csv without one\n"
	"valid record: exit 1, with the count of rows rejected.\n";

int cmd_export(int argc, char **argv)
{
	const char *dir = h_dir_arg("export", argc, argv, export_usage);
	char path[PATH_MAX], err[512];
	struct ab_results d;

	if (!dir)
		return AB_EXIT_OK;
	snprintf(path, sizeof(path), "%s/raw.csv", dir);
	if (h_data_load(&d, path, err, sizeof(err)) < 0)
		ab_usage_error("export: %s", err);
	if (h_data_none(&d, "export", path)) {
		ab_results_free(&d);
		return AB_EXIT_FAIL;
	}
	int rc = h_write_json(&d, dir);
	ab_results_free(&d);
	if (rc == 0)
		ab_msg("export: %s/results.json", dir);
	return rc ? AB_EXIT_FAIL : AB_EXIT_OK;
}
