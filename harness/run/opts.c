/*
 * harness run's command line and plan: options checked with one line naming
 * the bad value (exit 2), the plan found by name (harness/plans/NAME.plan, a
 * benchmark's NAME/NAME.plan, the installed share directory) or as a file,
 * and the resolved plan copied into the run directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/opts.h"
#include "run.h"

static const char run_usage[] =
	"usage: harness run [--plan NAME|FILE] [--quick] [--repeat N] [--out DIR] [--resume DIR]\n"
	"                   [--machine-note TEXT] [--dry-run] [--no-wait]\n"
	"Runs every point of a plan once per repetition, repetitions interleaved, and writes\n"
	"DIR/{machine.txt,raw.csv,hist.csv,runs.csv,failures.csv,summary.csv,tables.md,report.md,\n"
	"log/,plots}.\n"
	"  --plan NAME|FILE     a plan by name (harness run --plan list shows them) or a file\n"
	"  --quick              the quick plan (under 2 minutes), 3 repetitions unless --repeat\n"
	"  --repeat N           repetitions per point, 1..1000 (default: the plan's, else 5)\n"
	"  --out DIR            run directory (default results/<YYYY-MM-DD-HHMMSS>-<host>)\n"
	"  --resume DIR         continue an interrupted run in DIR with its own plan.plan;\n"
	"                       --plan, --quick and --machine-note are refused with it, and\n"
	"                       --repeat N (at least the run's) is recorded in DIR/plan.plan;\n"
	"                       DIR and its files must be root's or yours, writable by no one else\n"
	"  --machine-note TEXT  a line said first in machine.txt and report.md (e.g. that the\n"
	"                       machine is emulated); printable text, at most 200 characters\n"
	"  --dry-run            list the invocations and the ETA, run nothing\n"
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
	AB_OPT(struct h_run_opts, note, "machine-note", AB_OPT_STR, "TEXT", "a line for machine.txt"),
	AB_OPT(struct h_run_opts, no_wait, "no-wait", AB_OPT_FLAG, NULL, "do not wait for the machine"),
	AB_OPT_END,
};

/* --resume runs DIR's own plan: an option that would change it is refused, not ignored. */
static void resume_conflicts(const struct h_run_opts *o)
{
	const char *bad = o->plan ? "--plan" : o->quick ? "--quick" : o->note ? "--machine-note" :
			  o->out ? "--out" : NULL;

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
	if (o.plan && !strcmp(o.plan, "list")) {	/* a plan file named list: --plan ./list */
		h_plan_list(stdout);
		return fflush(stdout) ? AB_EXIT_FAIL : AB_EXIT_OK;
	}
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
		h_resume_trust(o->resume);	/* it runs as us: only a directory of ours or root's */
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

/* The plan travels with the run, so --resume and readers see what ran. */
int h_run_copy_plan(const struct h_plan *plan, int repeat, const char *out)
{
	char err[PATH_MAX + 128], *line = NULL;
	size_t cap = 0;
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
		if (strncmp(w, "repeat", 6))
			fprintf(pf, "%s\n", line);
	}
	free(line);
	fclose(src);
	return ab_outfile_close(&o);
}

/*
 * --resume DIR --repeat N: plan.plan says what ran, so its repeat line changes with
 * a note. Read as any input from elsewhere (sys/infile.h: a FIFO or a link planted
 * as plan.plan is refused, never waited on), written to a new name and renamed in
 * (sys/outfile.h: nothing planted beside it, plan.plan.new say, is opened).
 */
int h_run_record_repeat(const char *dir, int from, int to)
{
	char path[PATH_MAX], err[PATH_MAX + 128], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct ab_outfile o;

	snprintf(path, sizeof(path), "%s/plan.plan", dir);
	FILE *src = ab_infile_open(path, AB_INFILE_MAX_SMALL, err, sizeof(err));
	if (!src) {
		ab_msg("run: %s", err);
		return -1;
	}
	FILE *dst = ab_outfile_open(&o, dir, "plan.plan");
	if (!dst) {
		fclose(src);
		return -1;
	}
	/* as h_run_copy_plan: one repeat line, first; the plan's own are dropped */
	fprintf(dst, "# repeat %d until harness run --resume --repeat %d\nrepeat %d\n", from, to, to);
	while ((n = ab_infile_line(src, &line, &cap)) != -1) {
		const char *w = line + strspn(line, " \t");
		if (n >= 0 && (strncmp(w, "repeat", 6) || (w[6] && !strchr(" \t", w[6]))))
			fprintf(dst, "%s\n", line);
	}
	int bad = ferror(src) ? errno : 0;
	free(line);
	fclose(src);
	if (bad) {	/* never renamed in: the old plan.plan stays */
		fclose(dst);
		unlinkat(o.dirfd, o.tmp, 0);
		close(o.dirfd);
		ab_msg("run: cannot read %s: %s", path, strerror(bad));
		return -1;
	}
	if (ab_outfile_close(&o) < 0)
		return -1;
	ab_msg("run: %s: repeat %d -> %d (--repeat)", path, from, to);
	return 0;
}
