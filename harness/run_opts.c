/*
 * harness run's command line and plan: options checked with one line naming
 * the bad value (exit 2), the plan found by name (harness/plans/NAME.plan, a
 * benchmark's NAME/NAME.plan, the installed share directory) or as a file,
 * and the resolved plan copied into the run directory.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "harness.h"

static const char run_usage[] =
	"usage: harness run [--plan NAME|FILE] [--quick] [--repeat N] [--out DIR] [--resume DIR]\n"
	"                   [--machine-note TEXT] [--dry-run]\n"
	"Runs every point of a plan once per repetition, repetitions interleaved, and writes\n"
	"DIR/{machine.txt,raw.csv,runs.csv,failures.csv,summary.csv,tables.md,report.md,log/,plots}.\n"
	"  --plan NAME|FILE     a plan by name (harness run --plan list shows them) or a file\n"
	"  --quick              the quick plan (under 2 minutes), 3 repetitions unless --repeat\n"
	"  --repeat N           repetitions per point, 1..1000 (default: the plan's, else 5)\n"
	"  --out DIR            run directory (default results/<YYYY-MM-DD-HHMMSS>-<host>)\n"
	"  --resume DIR         continue an interrupted run in DIR (its plan and repeat)\n"
	"  --machine-note TEXT  a line said first in machine.txt and report.md (e.g. that the\n"
	"                       machine is emulated); printable text, at most 200 characters\n"
	"  --dry-run            list the invocations and the ETA, run nothing\n"
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

static void parse_repeat(struct h_run_opts *o, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v < 1 || v > 1000)
		ab_usage_error("run: bad value '%s' for --repeat: want a whole number in 1..1000", arg);
	o->repeat = (int)v;
}

int cmd_run(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "plan", required_argument, NULL, 'p' }, { "quick", no_argument, NULL, 'q' },
		{ "repeat", required_argument, NULL, 'r' }, { "out", required_argument, NULL, 'o' },
		{ "resume", required_argument, NULL, 'R' }, { "dry-run", no_argument, NULL, 'n' },
		{ "machine-note", required_argument, NULL, 'N' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct h_run_opts o = { 0 };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o.plan = optarg; break;
		case 'q': o.quick = 1; break;
		case 'o': o.out = optarg; break;
		case 'R': o.resume = optarg; break;
		case 'n': o.dry = 1; break;
		case 'N': o.note = optarg; break;
		case 'r': parse_repeat(&o, optarg); break;
		case 'h': fputs(run_usage, stdout); return AB_EXIT_OK;
		default:
			ab_usage_error("run: bad option '%s' (see harness run --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		ab_usage_error("run: unexpected argument '%s'", argv[optind]);
	if (o.plan && !strcmp(o.plan, "list")) {	/* a plan file named list: --plan ./list */
		h_plan_list(stdout);
		return fflush(stdout) ? AB_EXIT_FAIL : AB_EXIT_OK;
	}
	if (o.resume && o.out)
		ab_usage_error("run: --resume DIR already names the run directory; drop --out");
	const char *dir = o.resume ? o.resume : o.out;
	if (dir && (!printable(dir, 1900) || dir[0] == '-'))
		ab_usage_error("run: bad value for %s: a directory name of 1 to 1900 printable "
			       "characters, not starting with '-'", o.resume ? "--resume" : "--out");
	if (o.note && !printable(o.note, 200))
		ab_usage_error("run: bad value for --machine-note: 1 to 200 printable characters");
	return h_run(&o);
}

/* Load the run's plan: --resume's copy, or found by name. 0, or -1 after a message. */
int h_run_plan(struct h_run_opts *o, struct h_plan *plan, char *path, size_t len)
{
	char err[1024];

	if (o->resume) {
		h_inputs_check("run", o->resume);	/* links, FIFOs, devices: refused before anything */
		snprintf(path, len, "%s/plan.plan", o->resume);
		if (access(path, R_OK)) {
			ab_msg("run: bad value '%s' for --resume: no plan.plan there (not a run directory?)",
			       o->resume);
			return -1;
		}
	} else if (h_plan_find(o->plan ? o->plan : o->quick ? "quick" : "default", path, len, err,
			       sizeof(err)) < 0) {
		ab_msg("run: %s", err);
		return -1;
	}
	if (h_plan_load(plan, path, err, sizeof(err)) < 0) {
		ab_msg("run: %s", err);
		return -1;
	}
	return 0;
}

void h_run_check_programs(const struct h_plan *plan)
{
	for (int i = 0; i < plan->nblocks; i++) {
		char prog[PATH_MAX];
		const char *pg = h_program_of(&plan->blocks[i], prog, sizeof(prog));
		if (access(pg, X_OK))
			ab_msg("warning: %s: %s (its points will fail; run make)", pg, strerror(errno));
	}
}

/* The resolved plan travels with the run, so --resume and readers see what ran. */
int h_run_copy_plan(const struct h_plan *plan, int repeat, const char *out)
{
	char err[PATH_MAX + 128], *line = NULL;
	size_t cap = 0;
	int blk = -1;
	struct ab_outfile o;

	FILE *src = ab_infile_open(plan->path, AB_INFILE_MAX_SMALL, err, sizeof(err));
	if (!src) {
		ab_msg("run: %s", err);
		return -1;
	}
	FILE *pf = ab_outfile_open(&o, out, "plan.plan");
	if (!pf) {
		fclose(src);
		return -1;
	}
	fprintf(pf, "# copied from %s by harness run\nrepeat %d\n", plan->path, repeat);
	while (ab_infile_line(src, &line, &cap) >= 0) {
		const char *w = line + strspn(line, " \t");
		if (!strncmp(w, "bench", 5))
			blk++;
		if (!strncmp(w, "repeat", 6))
			continue;
		if (!strncmp(w, "program", 7) && blk >= 0)	/* resolved: the copy lives elsewhere */
			fprintf(pf, "program %s\n", plan->blocks[blk].program);
		else
			fprintf(pf, "%s\n", line);
	}
	free(line);
	fclose(src);
	return ab_outfile_close(&o);
}
