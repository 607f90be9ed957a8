// SPDX-License-Identifier: GPL-2.0
/*
 * A run's plan before its first point: loaded (--resume's copy, or found by
 * name or as a file), its programs checked, and copied into the run directory
 * as plan.plan, or its repeat line changed for --resume --repeat N.
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

/* Load the run's plan: --resume's copy, or found by name. 0, or -1 after a message. */
int h_run_plan(struct h_run_opts *o, struct h_plan *plan, char *path, size_t len)
{
	char err[1024];
	int rc;

	if (o->resume) {
		/* it runs as us: only a directory of ours or root's, read and written through
		 * the descriptor it was checked on (trust.c) */
		const char *via = o->via = h_resume_trust(o->resume);
		h_inputs_check("run", via);	/* links, FIFOs, devices: refused first */
		snprintf(path, len, "%s/plan.plan", o->resume);
		FILE *f = h_resume_fopen("plan.plan", AB_INFILE_MAX_SMALL, err, sizeof(err));
		if (!f && errno == ENOENT) {
			ab_msg("run: bad value '%s' for --resume: no plan.plan there (not a run directory?)",
			       o->resume);
			return -1;
		}
		if (!f)
			ab_usage_error("run: --resume %s refused: %s", o->resume, err);
		rc = h_plan_load_file(plan, f, path, err, sizeof(err));
		fclose(f);
	} else {
		rc = h_plan_find(o->plan ? o->plan : o->quick ? "quick" : "default", path, len, err,
				 sizeof(err));
		if (rc == 0)
			rc = h_plan_load(plan, path, err, sizeof(err));
	}
	if (rc < 0)
		ab_msg("run: %s", err);
	return rc;
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

/*
 * plan.plan anew in dir: head, then src's lines but those of keys, so that head's
 * are the ones. Read as any input from elsewhere (sys/infile.h: a FIFO or a link planted
 * as plan.plan is refused, never waited on), written to a new name and renamed in
 * (sys/outfile.h: nothing planted beside it, plan.plan.new say, is opened). 0, or -1
 * after a message; a read error leaves the old plan.plan as it was.
 */
/* Is line's first word one of keys (NULL-terminated)? */
static int keyed(const char *line, const char *const *keys)
{
	const char *w = line + strspn(line, " \t");
	size_t n = strcspn(w, " \t");

	for (; *keys; keys++)
		if (strlen(*keys) == n && !strncmp(w, *keys, n))
			return 1;
	return 0;
}

static int write_plan(FILE *src, const char *shown, const char *dir, const char *head,
		      const char *const *keys)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct ab_outfile o;
	FILE *dst = ab_outfile_open(&o, dir, "plan.plan");

	if (!dst) {
		fclose(src);
		return -1;
	}
	fputs(head, dst);
	while ((n = ab_infile_line(src, &line, &cap)) != -1) {
		if (n >= 0 && !keyed(line, keys))
			fprintf(dst, "%s\n", line);
	}
	int bad = ferror(src) ? errno : 0;
	free(line);
	fclose(src);
	if (bad) {	/* never renamed in: the old plan.plan stays */
		fclose(dst);
		unlinkat(o.dirfd, o.tmp, 0);
		close(o.dirfd);
		ab_msg("run: cannot read %s: %s", shown, strerror(bad));
		return -1;
	}
	return ab_outfile_close(&o);
}

/* The plan travels with the run, so --resume and readers see what ran. */
int h_run_copy_plan(const struct h_plan *plan, int repeat, const char *out)
{
	char err[PATH_MAX + 128], head[PATH_MAX + 64];
	FILE *src = ab_infile_open(plan->path, AB_INFILE_MAX_SMALL, err, sizeof(err));

	if (!src) {
		ab_msg("run: %s", err);
		return -1;
	}
	static const char *const keys[] = { "repeat", "precision", "budget", NULL };
	int n = snprintf(head, sizeof(head), "# copied from %s by harness run\nrepeat %d\n",
			 plan->path, repeat);
	if (plan->precision > 0 && n > 0 && (size_t)n < sizeof(head))	/* %.15g: read back as is */
		n += snprintf(head + n, sizeof(head) - (size_t)n, "precision %.15g%%\n",
			      100 * plan->precision);
	if (plan->budget > 0 && n > 0 && (size_t)n < sizeof(head))
		snprintf(head + n, sizeof(head) - (size_t)n, "budget %.15g\n", plan->budget);
	return write_plan(src, plan->path, out, head, keys);
}

/* --resume DIR --repeat N: plan.plan says what ran, so its repeat line changes with a note. */
int h_run_record_repeat(const char *dir, const char *name, int from, int to)
{
	char path[PATH_MAX], err[PATH_MAX + 128], head[128];

	snprintf(path, sizeof(path), "%s/plan.plan", name);
	FILE *src = h_resume_fopen("plan.plan", AB_INFILE_MAX_SMALL, err, sizeof(err));
	if (!src) {
		ab_msg("run: %s", err);
		return -1;
	}
	snprintf(head, sizeof(head), "# repeat %d until harness run --resume --repeat %d\n"
		 "repeat %d\n", from, to, to);
	static const char *const keys[] = { "repeat", NULL };
	if (write_plan(src, path, dir, head, keys) < 0)
		return -1;
	ab_msg("run: %s: repeat %d -> %d (--repeat)", path, from, to);
	return 0;
}
