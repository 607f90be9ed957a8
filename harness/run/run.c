// SPDX-License-Identifier: GPL-2.0
/*
 * harness run: expand a plan, run every point once per repetition with the
 * repetitions interleaved (rep 1 of every point, then rep 2, ...) so slow
 * drift of the machine does not bias one configuration, and write the run
 * directory as the records arrive (invoke.c runs one invocation, files.c
 * keeps raw.csv, runs.csv and failures.csv valid, machine.c writes
 * machine.txt). A failed point is recorded as a failure and the sweep goes on;
 * each invocation's wall time is learned (timings.c) and corrects the ETA;
 * a failed write (a full disk) stops the run with exit 1, leaving every file
 * valid up to the last finished point.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/common.h"
#include "fuse/fusemnt.h"
#include "run_i.h"
#include "../report/report.h"
#include "knob/knob.h"
#include "record/histio.h"
#include "sys/barrier.h"

/* CPU seconds of who: RUSAGE_SELF, or RUSAGE_CHILDREN (those reaped so far). */
static double cpu_of(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru) < 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The harness's own CPU time, itself plus its helpers (gnuplot, discoveries). */
static void harness_cpu(struct run *r)
{
	char path[PATH_MAX];
	double wall = ab_now_s() - r->t0, cpu = cpu_of(RUSAGE_SELF) + r->helpers_cpu;

	snprintf(path, sizeof(path), "%s/machine.txt", r->out);
	FILE *f = h_log_open(r->out, path, 0);
	if (!f)
		return;
	fprintf(f, "%-14s %.3f s of %.1f s wall (%.2f%%)\n", "harness_cpu", cpu, wall,
		wall > 0 ? 100 * cpu / wall : 0);
	fclose(f);
}

/* ---- one point and its rows in runs.csv / failures.csv ---- */

static void record_outcome(struct run *r, int pi, int rep, enum h_outcome o,
			   const struct h_point_run *pr, const char *reason)
{
	const struct h_point *pt = &r->plan.points[pi];
	char num[3][24], secs[32], bytes[32], why[600], named[1200];

	snprintf(num[0], sizeof(num[0]), "%d", pi);
	snprintf(num[1], sizeof(num[1]), "%d", rep + 1);
	snprintf(num[2], sizeof(num[2]), "%d", pr->exit_code);
	snprintf(secs, sizeof(secs), "%.2f", pr->seconds);
	snprintf(bytes, sizeof(bytes), "%lld", (long long)h_csv_size(&r->raw));
	if (o != H_OK) {
		snprintf(why, sizeof(why), "%s%s", o == H_SKIP ? "skipped: " : "", reason);
		/* a resumed run's paths as its user named them (sys/common.h) */
		const char *f[] = { pt->blk->bench, pt->label, num[1], num[2],
				    ab_unalias(named, sizeof(named), why) };
		r->write_failed |= h_csv_row(&r->fail, 5, f) != 0;
		if (r->tty)
			fputs("\r\033[K", stderr);
		ab_msg("%s %s rep %d %s: %s", pt->blk->bench, pt->label, rep + 1,
		       o == H_SKIP ? "skipped" : "FAILED", reason);
	}
	const char *f[] = { pt->blk->bench, num[0], num[1],
			    o == H_OK ? "ok" : o == H_SKIP ? "skipped" : "failed", num[2], secs, bytes,
			    pt->label };
	r->write_failed |= h_csv_row(&r->runs, 8, f) != 0;
	*(o == H_OK ? &r->n_ok : o == H_SKIP ? &r->n_skip : &r->n_fail) += 1;
}

static enum h_outcome run_point(struct run *r, int pi, int rep, struct h_point_run *pr,
				char *reason, size_t rlen)
{
	struct h_point *pt = &r->plan.points[pi];
	char prog[PATH_MAX], dur[32], logp[PATH_MAX];
	char *argv[H_ARGV_MAX];
	struct ab_results got;

	ab_results_init(&got);
	*pr = (struct h_point_run){ .dir = r->out, .pt = pt, .rep = rep + 1, .raw = &r->raw,
				     .hist = &r->hist, .got = r->prec.got ? &got : NULL };
	/* point and repetition in the name: a resume with another --repeat cannot overwrite;
	 * the point numbered as in runs.csv and --dry-run (from 0), the repetition from 1 */
	snprintf(logp, sizeof(logp), "%s/log/%s-p%d-r%d.log", r->out, pt->blk->bench, pi, rep + 1);
	h_point_argv(pt, rep + 1, h_program_of(pt->blk, prog, sizeof(prog)), argv, AB_ARRAY_SIZE(argv),
		     dur, sizeof(dur));
	enum h_outcome o = h_point_run(pr, logp, argv, reason, rlen);
	r->write_failed |= pr->write_failed;
	if (o == H_OK && !ab_interrupted && pr->got)	/* as raw.csv keeps them */
		h_prec_take(&r->prec, pi, &got);
	ab_results_free(&got);
	if (o == H_FAIL) {	/* a killed benchmark could not restore: replay, remove mounts */
		FILE *log = h_log_open(r->out, logp, 0);
		h_restore(r->journal, r->workdir, log);
		if (log)
			fclose(log);
	}
	h_reap_abandoned();
	return o;
}

/* Repetition rep (from 0) of point pi, recorded: 0, or -1 when the run must stop. */
static int one(struct run *r, int pi, int rep)
{
	struct h_point_run pr;
	char reason[512] = "";
	enum h_outcome o = run_point(r, pi, rep, &pr, reason, sizeof(reason));

	if (ab_interrupted || r->write_failed)	/* runs again on --resume */
		return -1;
	record_outcome(r, pi, rep, o, &pr, reason);
	h_took(r, pi, rep, o, pr.seconds);
	return 0;
}

/* --precision's rounds (precision.c): running one more. */
static int one_more(void *ctx, int pi, int rep, const char *round)
{
	struct run *r = ctx;

	r->round = round;
	h_progress(r, 0, 0, rep - 1, pi);
	return ab_interrupted || r->write_failed ? -1 : one(r, pi, rep - 1);
}

static void sweep(struct run *r)
{
	int total = r->plan.npoints * r->repeat, ndone = 0;

	for (int i = 0; i < total; i++)
		ndone += r->done[i];
	for (int rep = 0; rep < r->repeat && !ab_interrupted && !r->write_failed; rep++)
		for (int pi = 0; pi < r->plan.npoints && !ab_interrupted && !r->write_failed; pi++) {
			if (r->done[(size_t)rep * r->plan.npoints + pi])
				continue;
			h_progress(r, ndone, total, rep, pi);
			if (one(r, pi, rep) < 0)
				break;
			r->done[(size_t)rep * r->plan.npoints + pi] = 1;
			ndone++;
		}
	if (r->prec.target > 0 && !ab_interrupted && !r->write_failed) {
		const struct h_prec_ops ops = { r, h_est_more, one_more };
		if (!r->prec.budget)	/* none given: as long again as the plan's repetitions */
			r->prec.budget = 2 * (ab_now_s() - r->t0);
		h_prec_report(&r->prec, h_prec_rounds(&r->prec, r->t0, &ops));
	}
	if (r->tty)
		fputs("\r\033[K", stderr);
}

/* ---- setting up ---- */

static void default_out(struct run *r)
{
	char host[128] = "host", date[64];
	time_t t = time(NULL);

	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	for (char *c = host; *c; c++)	/* a hostname is outside text: keep it a plain name */
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_", *c))
			*c = '_';
	strftime(date, sizeof(date), "%Y-%m-%d-%H%M%S", localtime(&t));
	snprintf(r->out, sizeof(r->out), "results/%s-%s", date, host);
}

static void open_files(struct run *r)
{
	if (h_csv_open(&r->raw, r->out, "raw.csv", "bench,config,rep,metric,value,unit\n") < 0 ||
	    h_csv_open(&r->runs, r->out, "runs.csv",
		       "bench,point,rep,status,exit,seconds,raw_bytes,label\n") < 0 ||
	    h_csv_open(&r->fail, r->out, "failures.csv", "bench,config,rep,exit,reason\n") < 0 ||
	    h_csv_open(&r->hist, r->out, "hist.csv", AB_HIST_HEADER) < 0)
		ab_fail("run: cannot write in %s: %s", r->shown, strerror(errno));
}

/* After the sweep: restore, knobs after, outputs, the harness's CPU. Exit code. */
static int finish(struct run *r)
{
	char el[32];

	h_csv_close(&r->raw);
	h_csv_close(&r->runs);
	h_csv_close(&r->fail);
	h_csv_close(&r->hist);
	h_fmt_dur(ab_now_s() - r->t0, el, sizeof(el));
	ab_msg("run: %d ok, %d failed, %d skipped in %s", r->n_ok, r->n_fail, r->n_skip, el);
	if (ab_interrupted || r->write_failed)
		h_restore(r->journal, r->workdir, stderr);
	int rc = h_machine_knobs(r->out, "after");
	double c0 = cpu_of(RUSAGE_CHILDREN);
	rc |= h_render(r->out, r->shown, 0);
	r->helpers_cpu += cpu_of(RUSAGE_CHILDREN) - c0;
	harness_cpu(r);
	if (r->write_failed) {
		ab_msg("run: a write in %s failed (is the disk full?); the files hold every point "
		       "finished before it: continue with: harness run --resume %s", r->shown,
		       r->shown);
		return AB_EXIT_FAIL;
	}
	if (ab_interrupted) {
		ab_msg("run: interrupted; continue with: harness run --resume %s", r->shown);
		return 130;
	}
	if (rc)
		ab_msg("run: could not write every output in %s", r->shown);
	printf("%s\n", r->shown);
	return rc ? AB_EXIT_FAIL : AB_EXIT_OK;
}

/*
 * The machine first (a run that waits or gives up has created nothing), then
 * the run directory, held for the run's life. A directory is locked only under
 * the machine lock, and without waiting: no two runs wait for each other.
 */
static void take_locks(struct run *r, const struct h_run_opts *o, int *dirfd, int *machinefd)
{
	char path[PATH_MAX];

	*machinefd = h_machine_lock(r->shown, o->no_wait);
	if (!o->resume && h_mkdirs(r->out))
		ab_fail("run: cannot create %s: %s", r->shown, strerror(errno));
	*dirfd = h_dir_lock(r->out, r->shown, o->resume != NULL);
	snprintf(path, sizeof(path), "%s/log", r->out);
	if (h_mkdirs(path))
		ab_fail("run: cannot create %s: %s", path, strerror(errno));
	struct stat st;	/* a directory from elsewhere: its log/ must not lead out of it */
	if (lstat(path, &st) || !S_ISDIR(st.st_mode))
		ab_usage_error("run: %s/log: a symbolic link or not a directory: logs are never "
			       "written through a link", r->shown);
}

static void free_run(struct run *r)
{
	h_plan_free(&r->plan);
	h_timings_free(&r->timings);
	free(r->done);
	free(r->est);
	free(r->bench_of);
	free(r->took);
	free(r->took_est);
	h_prec_free(&r->prec);
}

int h_run(struct h_run_opts *o)
{
	static struct run r;
	char err[1024], path[PATH_MAX];
	int dirfd, machinefd;

	memset(&r, 0, sizeof(r));
	if (h_run_plan(o, &r.plan, path, sizeof(path)) < 0)
		return AB_EXIT_USAGE;
	r.repeat = o->repeat ? o->repeat : r.plan.repeat ? r.plan.repeat : o->quick ? 3 : 5;
	if (o->resume && o->repeat && o->repeat < r.plan.repeat)
		ab_usage_error("run: bad value '%d' for --repeat: --resume %s goes on with its %d "
			       "repetitions, or more; not fewer", o->repeat, o->resume, r.plan.repeat);
	r.plan.precision = o->precision ? o->precision : r.plan.precision;
	r.plan.budget = o->budget ? o->budget : r.plan.budget;
	if (r.plan.budget && !r.plan.precision)
		ab_usage_error("run: a budget (%g s) without a precision: --budget bounds the "
			       "repetitions --precision P adds; give both, or neither", r.plan.budget);
	if (h_prec_init(&r.prec, &r.plan, r.repeat) < 0)
		ab_fail("run: out of memory");
	h_run_check_programs(&r.plan);
	if (h_plan_dups(&r.plan, err, sizeof(err)) < 0)	/* before anything runs */
		ab_usage_error("run: %s", err);
	if (h_plan_check(&r.plan, err, sizeof(err)) < 0)	/* before anything runs, --dry-run too */
		ab_usage_error("run: %s", err);
	r.done = calloc((size_t)r.plan.npoints * (size_t)r.repeat, 1);
	if (!r.done)
		ab_fail("run: out of memory");
	if (o->resume)	/* reached through the descriptor of what was checked (trust.c) */
		snprintf(r.out, sizeof(r.out), "%s", o->via);
	else if (o->out)
		snprintf(r.out, sizeof(r.out), "%s", o->out);
	else
		default_out(&r);
	snprintf(r.shown, sizeof(r.shown), "%s", o->resume ? o->resume : r.out);
	h_out_check(r.out, r.shown, o->resume != NULL);	/* --dry-run says so too */
	h_estimates(&r);
	if (o->dry) {	/* resumed: only what is left (reads the run, takes nothing) */
		struct h_resume rs = { r.plan.npoints, r.repeat, r.done, r.plan.precision > 0 };
		if (o->resume && h_resume_load(&rs, r.shown, err, sizeof(err)) < 0)
			ab_usage_error("run: %s", err);
		h_dry_run(&r, o->resume != NULL);
		free_run(&r);
		return AB_EXIT_OK;
	}
	take_locks(&r, o, &dirfd, &machinefd);
	r.journal = ab_knob_default_journal();
	r.workdir = ab_workdir();
	/* leftovers of an earlier crash would disturb the first points, and machine.txt's
	 * "before" knob values must be the machine's own, not what a killed run left;
	 * under the machine lock, so no live run's knobs are undone */
	h_restore(r.journal, r.workdir, stderr);
	if (o->resume) {
		struct h_resume rs = { r.plan.npoints, r.repeat, r.done, r.plan.precision > 0 };
		if (h_resume_load(&rs, r.shown, err, sizeof(err)) < 0 ||
		    (r.prec.got && h_prec_resume(&r.prec, err, sizeof(err)) < 0))
			ab_usage_error("run: %s", err);
		if (r.repeat != r.plan.repeat &&
		    h_run_record_repeat(r.out, r.shown, r.plan.repeat, r.repeat) < 0)
			ab_fail("run: --repeat %d not recorded in %s/plan.plan: nothing ran", r.repeat,
				r.shown);
	} else {
		double c0 = cpu_of(RUSAGE_CHILDREN);
		if (h_run_copy_plan(&r.plan, r.repeat, r.out) < 0 ||
		    h_machine_write(r.out, &r.plan, o->note) < 0)
			ab_fail("run: cannot write in %s: %s", r.shown, strerror(errno));
		r.helpers_cpu += cpu_of(RUSAGE_CHILDREN) - c0;
	}
	open_files(&r);
	ab_catch_signals();
	r.tty = isatty(2);
	r.t0 = ab_now_s();
	char np[32], nr[32], et[32];
	h_fmt_dur(h_eta(&r, 0, 0), et, sizeof(et));
	ab_msg("run: %s, %s x %s -> %s (estimated %s)", r.plan.path,
	       h_plural(np, sizeof(np), r.plan.npoints, "point"),
	       h_plural(nr, sizeof(nr), r.repeat, "repetition"), r.shown, et);
	h_prec_plan_line(&r, stderr);
	sweep(&r);
	int rc = finish(&r);
	h_lock_release(machinefd);
	h_lock_release(dirfd);
	free_run(&r);
	return rc;
}
