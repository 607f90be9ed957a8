/*
 * report.md's "what the CPUs did" table for any benchmark that wrote the CPU
 * monitor's records (mon_*, lib/kstats/cpumon.h): per config, the medians per
 * operation of the counters that tell a wake-up across CPUs from one on the
 * same CPU (context switches, rescheduling and function-call IPIs, idle
 * entries, the benchmark's own migrations) and the idle share of each CPU.
 * Rows are labelled by the config keys that vary, so the table stays narrow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sys/common.h"
#include "report/render.h"
#include "report/results.h"
#include "report/stats.h"

#define MON_ROWS 64

static const struct {
	const char *metric, *head;
} cols[] = {
	{ "mon_ctxsw_per_op", "switches/op" },
	{ "mon_task_migrations_per_op", "migrations/op" },
	{ "mon_res_per_op", "resched IPIs/op" },
	{ "mon_cal_per_op", "call IPIs/op" },
	{ "mon_idle_entries_per_op", "idle entries/op" },
	{ "mon_irq_per_op", "IRQs/op" },
	{ "mon_cpu0_idle_pct", "CPU 0 idle %" },
	{ "mon_cpu1_idle_pct", "CPU 1 idle %" },
};

/* Does key take more than one value among the configs? */
static int varies(char cfg[][AB_CONFIG_LEN], int n, const char *key)
{
	char a[AB_VALUE_LEN], b[AB_VALUE_LEN];

	ab_cfg_get(cfg[0], key, a, sizeof(a));
	for (int i = 1; i < n; i++)
		if (strcmp(ab_cfg_get(cfg[i], key, b, sizeof(b)), a))
			return 1;
	return 0;
}

/* "placement=other, transport=dev": the varying keys of cfg, CPU numbers left out. */
static void label(FILE *f, char cfg[][AB_CONFIG_LEN], int n, int row)
{
	char copy[AB_CONFIG_LEN], *save = NULL;
	int first = 1;

	snprintf(copy, sizeof(copy), "%s", cfg[row]);
	for (char *kv = strtok_r(copy, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (strstr(kv, "_cpu") || !varies(cfg, n, kv))
			continue;
		fprintf(f, "%s%s=", first ? "" : ", ", kv);
		h_md_cell(f, eq + 1);
		first = 0;
	}
	if (first)
		fputs("(one config)", f);
}

void h_monitor_table(FILE *f, const char *bench, const struct ab_results *d)
{
	static char cfg[MON_ROWS][AB_CONFIG_LEN];
	int n = 0, have[AB_ARRAY_SIZE(cols)] = { 0 };

	for (size_t i = 0; i < d->n && n < MON_ROWS; i++) {
		const struct ab_group *g = &d->g[i];
		if (strcmp(g->bench, bench) || strcmp(g->metric, cols[0].metric))
			continue;
		snprintf(cfg[n++], sizeof(cfg[0]), "%s", g->config);
	}
	if (!n)
		return;
	for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++)
		for (int r = 0; r < n && !have[c]; r++)
			have[c] = ab_results_get(d, bench, cfg[r], cols[c].metric, "1/op") ||
				  ab_results_get(d, bench, cfg[r], cols[c].metric, "%");
	fprintf(f, "What the CPUs did in %s's measured windows (medians over repetitions, per "
		   "operation; from the kernel's counters, read outside the timed window; "
		   "machine-wide on the allowed CPUs):\n\n| config |", bench);
	for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++)
		if (have[c])
			fprintf(f, " %s |", cols[c].head);
	fputs("\n|---|", f);
	for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++)
		if (have[c])
			fputs("---:|", f);
	fputc('\n', f);
	for (int r = 0; r < n; r++) {
		fputs("| ", f);
		label(f, cfg, n, r);
		fputs(" |", f);
		for (size_t c = 0; c < AB_ARRAY_SIZE(cols); c++) {
			if (!have[c])
				continue;
			const struct ab_group *g = ab_results_get(d, bench, cfg[r], cols[c].metric, "1/op");
			if (!g)
				g = ab_results_get(d, bench, cfg[r], cols[c].metric, "%");
			if (g)
				fprintf(f, " %.3g |", ab_median(g->v, g->n));
			else
				fputs(" not measured |", f);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}
