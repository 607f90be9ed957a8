// SPDX-License-Identifier: GPL-2.0
/*
 * harness run's command line: options checked with one line naming the bad
 * value (exit 2), then the run itself (run.c), which loads the plan
 * (prepare.c). Nothing here is called back.
 */
#include <stdio.h>
#include <string.h>

#include "sys/common.h"
#include "sys/opts.h"
#include "run.h"

static const char run_usage[] =
	"usage: harness run [--plan NAME|FILE] [--quick] [--repeat N] [--out DIR] [--resume DIR]\n"
	"                   [--precision P%] [--budget DURATION] [--machine-note TEXT] [--dry-run]\n"
	"                   [--no-wait]\n"
	"Runs every point of a plan once per repetition, repetitions interleaved, and writes\n"
	"DIR/{plan.plan,machine.txt,raw.csv,hist.csv,runs.csv,failures.csv,results.json,summary.csv,\n"
	"tables.md,report.md,log/,figures/} (results/README.md lists every file).\n"
	"  --plan NAME|FILE     a plan by name (harness run --plan list shows them) or a file\n"
	"                       (default: the plan named default)\n"
	"  --quick              the quick plan (under 2 minutes), 3 repetitions unless --repeat;\n"
	"                       refused with --plan\n"
	"  --repeat N           repetitions per point, 1..1000 (default: the plan's, else 5)\n"
	"  --out DIR            run directory (default results/<YYYY-MM-DD-HHMMSS>-<host>)\n"
	"  --resume DIR         continue an interrupted run in DIR with its own plan.plan;\n"
	"                       --plan, --quick and --machine-note are refused with it, and\n"
	"                       --repeat N (at least the run's) is recorded in DIR/plan.plan;\n"
	"                       DIR and its files must be root's or yours, writable by no one else\n"
	"                       (default: none, a new run in --out's DIR)\n"
	"  --precision P%       after the repetitions, add more to each point whose headline\n"
	"                       interval (judged at 97.5%, so that report.md's 95% holds\n"
	"                       despite the looks) is wider than +-P% of its median, those\n"
	"                       that narrow it most per second first (learned timings),\n"
	"                       interleaved, up to 8x --repeat a point (default: the plan's\n"
	"                       precision line, else none)\n"
	"  --budget DURATION    with --precision: stop adding when the run would pass DURATION\n"
	"                       (seconds, or 90s, 15m, 2h) from its first point (default: the\n"
	"                       plan's budget line, else as long again as the repetitions took)\n"
	"  --machine-note TEXT  a line said first in machine.txt and report.md (e.g. that the\n"
	"                       machine is emulated); printable text, at most 200 characters\n"
	"                       (default: none)\n"
	"  --dry-run            list the invocations and the ETA, run nothing; with --resume,\n"
	"                       only those left to run\n"
	"  --no-wait            exit 2 instead of waiting while another run measures\n"
	"DIR must be new or empty, and one run at a time holds it (DIR/run.lock); a run\n"
	"that measures also holds the machine (/run/affbench.lock) and waits for it.\n"
	"Exit 0 when the sweep finished (failed points are in failures.csv), 1 when a write\n"
	"failed (the files stay valid), 2 bad usage, 130 when interrupted (--resume DIR goes on).\n";

/* A name for a run directory or a note: no control characters, no leading '-'. */
static int printable(const char *s, size_t max)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return n > 0 && n <= max;
}

static const struct ab_opt run_opts[] = {
	AB_OPT(struct h_run_opts, plan, "plan", AB_OPT_STR, "NAME|FILE", "the plan"),
	AB_OPT(struct h_run_opts, quick, "quick", AB_OPT_FLAG, NULL, "the quick plan"),
	AB_OPT(struct h_run_opts, repeat, "repeat", AB_OPT_INT, "N", "repetitions", .min = 1, .max = 1000),
	AB_OPT(struct h_run_opts, out, "out", AB_OPT_STR, "DIR", "run directory"),
	AB_OPT(struct h_run_opts, resume, "resume", AB_OPT_STR, "DIR", "continue the run in DIR"),
	AB_OPT(struct h_run_opts, dry, "dry-run", AB_OPT_FLAG, NULL, "run nothing"),
	AB_OPT(struct h_run_opts, precision_arg, "precision", AB_OPT_STR, "P%", "headline width aimed at"),
	AB_OPT(struct h_run_opts, budget_arg, "budget", AB_OPT_STR, "DURATION", "the most time"),
	AB_OPT(struct h_run_opts, note, "machine-note", AB_OPT_STR, "TEXT", "a line for machine.txt"),
	AB_OPT(struct h_run_opts, no_wait, "no-wait", AB_OPT_FLAG, NULL, "do not wait for the machine"),
	AB_OPT_END,
};

/* --resume runs DIR's own plan: an option that would change it is refused, not ignored. */
static void resume_conflicts(const struct h_run_opts *o)
{
	const char *bad = o->plan ? "--plan" : o->quick ? "--quick" : o->note ? "--machine-note" :
			  o->out ? "--out" : o->precision_arg ? "--precision" :
			  o->budget_arg ? "--budget" : NULL;

	if (o->resume && bad)
		ab_usage_error("run: %s contradicts --resume %s, which goes on with that run's own "
			       "plan.plan and machine.txt; drop %s, or start a new run with --out",
			       bad, o->resume, bad);
}

int cmd_run(int argc, char **argv)
{
	struct h_run_opts o = { 0 };
	int first = ab_parse_cmd(argc, argv, "run", run_usage, run_opts, &o);

	if (first < argc)
		ab_usage_error("run: unexpected argument '%s'", argv[first]);
	resume_conflicts(&o);
	if (o.quick && o.plan)	/* --quick is a plan too: one would be ignored */
		ab_usage_error("run: --quick (the quick plan) contradicts --plan %s; drop one, and give "
			       "--repeat N for fewer repetitions", o.plan);
	if (o.plan && !strcmp(o.plan, "list")) {	/* a plan file named list: --plan ./list */
		h_plan_list(stdout);
		return fflush(stdout) ? AB_EXIT_FAIL : AB_EXIT_OK;
	}
	const char *dir = o.resume ? o.resume : o.out;
	if (dir && (!printable(dir, 1900) || dir[0] == '-'))
		ab_usage_error("run: bad value for %s: a directory name of 1 to 1900 printable "
			       "characters, not starting with '-'", o.resume ? "--resume" : "--out");
	if (o.precision_arg && h_parse_precision(o.precision_arg, &o.precision) < 0)
		ab_usage_error("run: bad value '%s' for --precision: a percentage in (0, 100), as 5 "
			       "or 5%%", o.precision_arg);
	if (o.budget_arg && h_parse_budget(o.budget_arg, &o.budget) < 0)
		ab_usage_error("run: bad value '%s' for --budget: seconds, or a number with s, m or "
			       "h, from 1 s to 7 days", o.budget_arg);
	if (o.note && !printable(o.note, 200))
		ab_usage_error("run: bad value for --machine-note: 1 to 200 printable characters");
	return h_run(&o);
}
