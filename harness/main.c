// SPDX-License-Identifier: GPL-2.0
/*
 * harness: sweep plans over the affbench benchmarks, write a run directory
 * (raw.csv, summary.csv, tables.md, plots, report.md), regenerate it from
 * raw.csv, compare runs, and restore what a killed run left behind.
 */
#include <stdio.h>
#include <string.h>

#include "sys/common.h"
#include "harness.h"
#include "run/run.h"
#include "report/report.h"
#include "compare/compare.h"

static const char usage[] =
	"usage: harness COMMAND [OPTIONS]   (harness COMMAND --help for details)\n"
	"  run      run a plan and write results/<date>-<host>/\n"
	"  report   regenerate summary, tables, figures and report from DIR/raw.csv\n"
	"  plot     the same as report (its older name)\n"
	"  compare  ratios with 95% CIs between run directories\n"
	"  export   write DIR/results.json, one JSON document for the run\n"
	"  restore  replay the knob journal and remove stale FUSE mounts\n";

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "run", cmd_run },
		{ "report", cmd_report },
		{ "plot", cmd_report },	/* report's name before it wrote more than plots */
		{ "compare", cmd_compare },
		{ "export", cmd_export },
		{ "restore", cmd_restore },
	};

	ab_prog = "harness";
	if (argc < 2)
		ab_usage_error("missing command (run, report, compare, export, restore; see --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, stdout);
		return AB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("harness %s\n", AB_VERSION);
		return AB_EXIT_OK;
	}
	for (size_t i = 0; i < AB_ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	ab_usage_error("unknown command '%s' (run, report, compare, export, restore)", argv[1]);
}
