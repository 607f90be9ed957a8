// SPDX-License-Identifier: GPL-2.0
/*
 * One invocation of one point: the benchmark in its own process group under a
 * watchdog, its CSV records checked against the record grammar (a benchmark's
 * output is not trusted either) and appended to raw.csv, its stderr in the
 * point's log. A failed, skipped or interrupted point's records are cut back
 * out of raw.csv: a failed measurement is never written as a number.
 *
 * The watchdog: at the block's timeout SIGTERM (and SIGCONT, so a stopped
 * benchmark can restore its knobs), 5 s later SIGKILL, and a benchmark that
 * still has not exited after that (stuck in the kernel, uninterruptible) is
 * given up: the point fails, the sweep goes on, its pid is reaped later if it
 * ever ends.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "run.h"
#include "sys/barrier.h"
#include "sys/parse.h"
#include "sys/proc.h"
#include "record/histio.h"
#include "record/record.h"

#define KILL_AFTER_TERM_S 5.0
#define GIVE_UP_AFTER_KILL_S 10.0	/* scaled by the machine's slowness */
#define LINE_MAX_BYTES 8192

struct inv {
	struct h_point_run *pr;
	pid_t pid;
	int fd;			/* the benchmark's stdout */
	FILE *log;
	char buf[LINE_MAX_BYTES];
	size_t have;
	int records, eof, exited, status, write_err;
	int killed, given_up;
	double start, term_at, kill_at, linger_at;	/* 0: not yet */
};

static void last_log_line(const char *log, char *buf, size_t len)
{
	FILE *f = ab_infile_open(log, AB_INFILE_MAX_BYTES, NULL, 0);
	char line[512];

	snprintf(buf, len, "no message (see %.300s)", log);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0])
			snprintf(buf, len, "%s", line);
	}
	fclose(f);
}

/* Remove "<word><sep>" from the start of s, if it is there. */
static void drop_prefix(char *s, const char *word, const char *sep)
{
	size_t w = strlen(word), n = strlen(sep);

	if (!strncmp(s, word, w) && !strncmp(s + w, sep, n))
		memmove(s, s + w + n, strlen(s + w + n) + 1);
}

/* Does the block keep this metric? A block that measures one thing on the side
 * (fdget's spawn block also times a pread) must not pool it with the main block. */
static int wanted(const struct h_block *b, const char *metric)
{
	for (int i = 0; i < b->nmetrics; i++)
		if (!strcmp(b->metrics[i], metric))
			return 1;
	return b->nmetrics == 0;
}

/* A "hist," line (record/histio.h) into hist.csv, checked like a record, rep rewritten. */
static void take_hist(struct inv *v, char *line)
{
	char *f[10], rep[16];
	uint64_t lo, hi, n;

	const char *why = ab_csv_split(line, f, 10) != 9 ? "not 9 CSV fields" :
			  ab_hist_row_check(f + 1, &lo, &hi, &n);
	if (why) {
		fprintf(v->log, "harness: ignored a bad histogram row (%s)\n", why);
		return;
	}
	if (!v->pr->hist)
		return;
	snprintf(rep, sizeof(rep), "%d", strcmp(f[3], "0") ? v->pr->rep : 0);
	const char *row[8] = { f[1], f[2], rep, f[4], f[5], f[6], f[7], f[8] };
	v->write_err = h_csv_row(v->pr->hist, 8, row);
}

/* One line of the benchmark's stdout into raw.csv, rep rewritten to the harness's
 * repetition (rep 0, a benchmark's per-invocation summary, stays 0). */
static void take_record(struct inv *v, char *line)
{
	const struct h_block *b = v->pr->pt->blk;
	char *f[7], rep[16];

	line[strcspn(line, "\r")] = '\0';
	if (!line[0] || !strncmp(line, "bench,config,rep,", 17) || v->write_err)
		return;
	if (!strncmp(line, "hist,", 5)) {
		take_hist(v, line);
		return;
	}
	const char *why = ab_csv_split(line, f, 7) != 6 ? "not 6 CSV fields" :
			  ab_record_check(f[0], f[1], f[2], f[3], f[4], f[5]);
	if (why) {
		fprintf(v->log, "harness: ignored a bad record (%s)\n", why);
		return;
	}
	if (!wanted(b, f[3]))
		return;
	snprintf(rep, sizeof(rep), "%d", strcmp(f[2], "0") ? v->pr->rep : 0);
	const char *row[6] = { f[0], f[1], rep, f[3], f[4], f[5] };
	v->write_err = h_csv_row(v->pr->raw, 6, row);
	v->records += !v->write_err;
	double x;	/* what --precision judges by (precision.c); without it, only raw.csv */
	if (v->pr->got && strcmp(f[2], "0") && !ab_parse_decimal(f[4], &x))
		ab_results_add(v->pr->got, f[0], f[1], v->pr->rep, f[3], x, f[5]);
}

static void read_output(struct inv *v)
{
	struct pollfd p = { .fd = v->fd, .events = POLLIN };

	if (poll(&p, 1, 100) <= 0)
		return;
	ssize_t n = read(v->fd, v->buf + v->have, sizeof(v->buf) - 1 - v->have);
	if (n <= 0) {
		v->eof = 1;
		return;
	}
	v->have += (size_t)n;
	v->buf[v->have] = '\0';
	char *s = v->buf, *nl;
	while ((nl = strchr(s, '\n'))) {
		*nl = '\0';
		take_record(v, s);
		s = nl + 1;
	}
	v->have -= (size_t)(s - v->buf);
	memmove(v->buf, s, v->have);
	if (v->have == sizeof(v->buf) - 1) {
		fprintf(v->log, "harness: dropped an over-long line\n");
		v->have = 0;
	}
}

/* One step of the watchdog: forward a stop, time out, kill, give up. */
static void watchdog(struct inv *v)
{
	double t = ab_now_s();

	if ((ab_interrupted && !v->term_at) || (!v->term_at && t > v->start + v->pr->pt->blk->timeout)) {
		if (!ab_interrupted) {
			fprintf(v->log, "harness: watchdog: no exit after %.0f s, sending SIGTERM\n",
				v->pr->pt->blk->timeout);
			v->killed = 1;
		}
		/* the benchmark restores its knobs on SIGTERM; SIGCONT lets a stopped one do it */
		kill(-v->pid, ab_interrupted == SIGINT ? SIGINT : SIGTERM);
		kill(-v->pid, SIGCONT);
		v->term_at = t;
	}
	if (v->exited && !v->eof) {	/* a leftover child holds stdout: give it 2 s */
		if (!v->linger_at)
			v->linger_at = t + 2;
		else if (t > v->linger_at) {
			kill(-v->pid, SIGKILL);
			v->eof = 1;
		}
	}
	if (!v->exited && v->term_at && !v->kill_at && t > v->term_at + KILL_AFTER_TERM_S) {
		kill(-v->pid, SIGKILL);
		v->kill_at = t;
	}
	if (!v->exited && v->kill_at &&
	    t > v->kill_at + (double)ab_scaled_ns((uint64_t)(GIVE_UP_AFTER_KILL_S * 1e9)) / 1e9) {
		fprintf(v->log, "harness: pid %d survives SIGKILL (uninterruptible sleep): given up, "
			"the sweep goes on\n", (int)v->pid);
		v->given_up = 1;
	}
}

static void supervise(struct inv *v)
{
	while ((!v->exited || !v->eof) && !v->given_up) {
		watchdog(v);
		if (!v->eof)
			read_output(v);
		else
			ab_sleep_ns(50 * 1000000ull);
		if (!v->exited && waitpid(v->pid, &v->status, WNOHANG) == v->pid)
			v->exited = 1;
	}
	if (v->have && !v->given_up) {
		v->buf[v->have] = '\0';
		take_record(v, v->buf);
	}
	close(v->fd);
	kill(-v->pid, SIGKILL);	/* nothing of this point may outlive it (no-op when all exited) */
}

static enum h_outcome judge(struct inv *v, const char *logp, char *reason, size_t rlen)
{
	int st = v->status;

	if (v->write_err) {
		snprintf(reason, rlen, "writing %s failed: %s", v->pr->raw->path, strerror(v->write_err));
		return H_FAIL;
	}
	if (v->given_up) {
		snprintf(reason, rlen, "watchdog: pid %d stuck in the kernel after SIGKILL, given up",
			 (int)v->pid);
		return H_FAIL;
	}
	v->pr->exit_code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	if (v->killed) {
		snprintf(reason, rlen, "watchdog: killed after %.0f s (timeout)", v->pr->pt->blk->timeout);
		return H_FAIL;
	}
	if (WIFSIGNALED(st)) {
		snprintf(reason, rlen, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
		return H_FAIL;
	}
	if (v->pr->exit_code == AB_EXIT_OK && v->records > 0)
		return H_OK;
	if (v->pr->exit_code == AB_EXIT_OK) {
		snprintf(reason, rlen, "exit 0 but no records on stdout");
		return H_FAIL;
	}
	last_log_line(logp, reason, rlen);
	/* "cputestfs: skipped: no X" is said as "no X": the bench and outcome are columns */
	drop_prefix(reason, v->pr->pt->blk->bench, ": ");
	drop_prefix(reason, "skipped", ": ");
	return v->pr->exit_code == AB_EXIT_SKIP ? H_SKIP : H_FAIL;
}

/* Does the invocation change the idle policy (--idle other than as-found)? Only such a
 * benchmark is handed the machine lock: nothing else it starts can then keep it. */
static int changes_idle(char **argv)
{
	for (int i = 1; argv[i]; i++) {
		if (!strcmp(argv[i], "--idle") && argv[i + 1])
			return strcmp(argv[i + 1], "as-found") != 0;
		if (!strncmp(argv[i], "--idle=", 7))
			return strcmp(argv[i] + 7, "as-found") != 0;
	}
	return 0;
}

/* ---- processes given up: reaped if they ever end ---- */

static pid_t abandoned[64];

static void abandon(pid_t pid)
{
	for (size_t i = 0; i < AB_ARRAY_SIZE(abandoned); i++)
		if (!abandoned[i]) {
			abandoned[i] = pid;
			return;
		}
}

void h_reap_abandoned(void)
{
	for (size_t i = 0; i < AB_ARRAY_SIZE(abandoned); i++)
		if (abandoned[i] && waitpid(abandoned[i], NULL, WNOHANG) == abandoned[i])
			abandoned[i] = 0;
}

enum h_outcome h_point_run(struct h_point_run *pr, const char *logp, char **argv, char *reason,
			   size_t rlen)
{
	struct inv v = { .pr = pr, .fd = -1 };

	pr->exit_code = -1;
	v.log = h_log_open(pr->dir, logp, 1);
	if (!v.log) {
		snprintf(reason, rlen, "cannot create %.300s: %s", logp, strerror(errno));
		return H_FAIL;
	}
	fprintf(v.log, "harness: rep %d:", pr->rep);
	for (int i = 0; argv[i]; i++)
		fprintf(v.log, " %s", argv[i]);
	fputc('\n', v.log);
	fflush(v.log);
	off_t raw_start = h_csv_size(pr->raw);	/* a point that fails is cut back to here */
	off_t hist_start = pr->hist ? h_csv_size(pr->hist) : -1;
	ab_slowness_fresh(H_SLOWNESS_MAX_AGE_NS);	/* a probe due now is not the point's time */
	v.start = ab_now_s();
	/* own process group: the watchdog kills the benchmark and its daemons together;
	 * if the harness dies, the benchmark gets SIGTERM and restores its knobs */
	const struct h_spawn how = { .pipe_to = 1, .other = fileno(v.log), .deathsig = SIGTERM,
				     /* histograms too, as "hist," lines (record/histio.h) */
				     .env = pr->hist ? AB_HIST_ENV "=1" : NULL,
				     /* its --idle holds the machine through ours */
				     .with_lock = changes_idle(argv) };
	v.pid = h_spawn(argv, &how, &v.fd);
	if (v.pid < 0) {
		snprintf(reason, rlen, "starting %s: %s", argv[0], strerror(errno));
		fclose(v.log);
		return H_FAIL;
	}
	supervise(&v);
	if (v.given_up)
		abandon(v.pid);
	enum h_outcome o = judge(&v, logp, reason, rlen);
	fprintf(v.log, "harness: %s after %.2f s, exit %d, %d records\n", o == H_OK ? "ok" :
		o == H_SKIP ? "skipped" : "FAILED", ab_now_s() - v.start, pr->exit_code, v.records);
	pr->write_failed = v.write_err != 0;
	if ((o != H_OK || ab_interrupted) && raw_start >= 0 && h_csv_size(pr->raw) > raw_start) {
		if (ftruncate(pr->raw->fd, raw_start))
			fprintf(v.log, "harness: cannot cut this point's records from raw.csv: %s\n",
				strerror(errno));
		else
			fprintf(v.log, "harness: dropped this point's %d records from raw.csv\n", v.records);
	}
	if ((o != H_OK || ab_interrupted) && hist_start >= 0 && h_csv_size(pr->hist) > hist_start &&
	    ftruncate(pr->hist->fd, hist_start))
		fprintf(v.log, "harness: cannot cut this point's rows from hist.csv: %s\n",
			strerror(errno));
	pr->seconds = ab_now_s() - v.start;
	fclose(v.log);
	return o;
}
