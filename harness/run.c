/*
 * harness run: expand a plan, run every point once per repetition with the
 * repetitions interleaved (rep 1 of every point, then rep 2, ...) so slow
 * drift of the machine does not bias one configuration, and write the run
 * directory as the records arrive. One invocation per point and repetition:
 *   bin/<bench> --format csv --repeat 1 --duration D --quiet --<axis> <value> ... <extra>
 * Each invocation runs in its own process group under a watchdog; a failed
 * point is written to failures.csv (never as a number) and the sweep goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "fusemnt.h"
#include "harness.h"
#include "knob.h"
#include "pin.h"
#include "record.h"

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

struct run {
	char out[2048];		/* run directory; shorter than PATH_MAX so "out/file" fits */
	struct h_plan plan;
	int repeat;
	FILE *raw, *runs, *fail;
	char *done;		/* [rep * npoints + point]: already run (resume) */
	int tty;
	const char *journal, *workdir;
	double t0;		/* start of the sweep, seconds */
	int n_ok, n_fail, n_skip;
};

static double now_s(void)
{
	return ab_now_ns() / 1e9;
}

static const char *program_of(const struct h_block *b, char *buf, size_t len)
{
	if (b->program[0])
		return b->program;
	snprintf(buf, len, "%s/%s", h_self_dir(), b->bench);
	return buf;
}

/* ---- machine.txt ---- */

static void last_log_line(const char *log, char *buf, size_t len)
{
	FILE *f = fopen(log, "r");
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

static void cat_first_line(FILE *f, const char *label, const char *path)
{
	char buf[512];
	if (h_read_line(path, buf, sizeof(buf)) == 0)
		fprintf(f, "%-14s %s\n", label, buf);
	else
		fprintf(f, "%-14s (unavailable: %s)\n", label, path);
}

/* The knobs affbench may change, as "knob before|after PATH = VALUE" lines (report.c
 * warns when a before and an after line differ): rq_affinity of every disk, FUSE's
 * enable_uring, and the smp_affinity_list of the IRQs sqrtio discovered (irqs: "36,37"). */
static void write_knobs(FILE *f, const char *when, const char *irqs)
{
	FILE *ls = popen("ls /sys/block 2>/dev/null", "r");
	char dev[256], path[512], val[256];

	if (ls) {
		while (fgets(dev, sizeof(dev), ls)) {
			dev[strcspn(dev, "\n")] = '\0';
			snprintf(path, sizeof(path), "/sys/block/%s/queue/rq_affinity", dev);
			if (h_read_line(path, val, sizeof(val)) == 0)
				fprintf(f, "knob %-6s %s = %s\n", when, path, val);
		}
		pclose(ls);
	}
	if (h_read_line("/sys/module/fuse/parameters/enable_uring", val, sizeof(val)) == 0)
		fprintf(f, "knob %-6s %s = %s\n", when, "/sys/module/fuse/parameters/enable_uring", val);
	for (const char *s = irqs; s && *s; s += strcspn(s, ","), s += *s == ',') {
		int n = (int)strcspn(s, ",");
		if (n == 0 || n > 16 || (int)strspn(s, "0123456789") != n)
			continue;	/* named lines (no /proc/irq/N) have no affinity to record */
		snprintf(path, sizeof(path), "/proc/irq/%.*s/smp_affinity_list", n, s);
		if (h_read_line(path, val, sizeof(val)) == 0)
			fprintf(f, "knob %-6s %s = %s\n", when, path, val);
	}
}

/* The IRQ list machine.txt recorded for sqrtio ("" if none): the after-run knob lines
 * need it, also when a resumed run did not discover anything itself. */
static void machine_irqs(const char *out, char *buf, size_t len)
{
	char path[PATH_MAX], line[1024];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/machine.txt", out);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "sqrtio_irqs ", 12))
			continue;
		char *v = line + 12 + strspn(line + 12, " ");
		v[strcspn(v, "\n")] = '\0';
		size_t have = strlen(buf);
		snprintf(buf + have, len - have, "%s%s", have ? "," : "", v);
	}
	fclose(f);
}

/*
 * machine.txt names the device and IRQ(s) sqrtio measures: run the block's program
 * with its extra arguments (--file, --device, --cpus pick the target) and --discover,
 * and copy its key=value lines as "sqrtio_KEY VALUE". Bounded by a timeout so a hung
 * device cannot hold up the run; its stderr goes to log/sqrtio-discover.log.
 */
#define H_DISCOVER_TIMEOUT_S 20
static void discover_sqrtio(FILE *f, const char *out, const struct h_block *b, char *irqs,
			    size_t irqlen)
{
	static char discover[] = "--discover";
	char prog[PATH_MAX], logp[PATH_MAX], line[1024];
	char *argv[H_ARGS_MAX + 3];
	int n = 0, pfd[2], st = 0;

	argv[n++] = (char *)program_of(b, prog, sizeof(prog));
	for (int e = 0; e < b->nextra; e++)
		argv[n++] = b->extra[e];
	argv[n++] = discover;
	argv[n] = NULL;
	snprintf(logp, sizeof(logp), "%s/log/sqrtio-discover.log", out);
	if (pipe2(pfd, O_CLOEXEC)) {
		fprintf(f, "%-14s (failed: pipe: %s)\n", "sqrtio", strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(f, "%-14s (failed: fork: %s)\n", "sqrtio", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (pid == 0) {
		int lf = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(pfd[1], 1);
		if (lf >= 0)
			dup2(lf, 2);
		execv(argv[0], argv);
		fprintf(stderr, "harness: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(pfd[1]);
	char text[8192];
	size_t have = 0;
	double deadline = now_s() + H_DISCOVER_TIMEOUT_S;
	int timed_out = 0;
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		if (now_s() > deadline) {
			kill(-pid, SIGKILL);
			timed_out = 1;
			break;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		ssize_t r = read(pfd[0], text + have, sizeof(text) - 1 - have);
		if (r <= 0 || (have += r) == sizeof(text) - 1)
			break;
	}
	close(pfd[0]);
	text[have] = '\0';
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(l, '=');
		size_t klen = strspn(l, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (!eq || eq - l != (long)klen || klen == 0 || klen > 40)
			continue;
		*eq = '\0';
		char label[64];
		snprintf(label, sizeof(label), "sqrtio_%s", l);
		fprintf(f, "%-14s %s\n", label, eq + 1);
		if (!strcmp(l, "irqs")) {
			size_t used = strlen(irqs);
			snprintf(irqs + used, irqlen - used, "%s%s", used ? "," : "", eq + 1);
		}
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (timed_out) {
		fprintf(f, "%-14s (failed: no answer in %d s; see %s)\n", "sqrtio", H_DISCOVER_TIMEOUT_S,
			logp);
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		last_log_line(logp, line, sizeof(line));
		fprintf(f, "%-14s (discovery failed, exit %d: %s)\n", "sqrtio",
			WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), line);
	}
}

static void write_machine(const char *out, const struct h_plan *plan)
{
	char path[PATH_MAX], buf[512], irqs[512] = "";
	struct utsname u;
	struct ab_cpuset allowed;
	FILE *f, *p;

	snprintf(path, sizeof(path), "%s/machine.txt", out);
	f = fopen(path, "w");
	if (!f) {
		ab_msg("%s: %s", path, strerror(errno));
		return;
	}
	time_t t = time(NULL);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z", localtime(&t));
	fprintf(f, "%-14s %s\n", "date", buf);
	if (uname(&u) == 0)
		fprintf(f, "%-14s %s %s %s %s\n", "kernel", u.sysname, u.release, u.version, u.machine);
	gethostname(buf, sizeof(buf));
	fprintf(f, "%-14s %s\n", "host", buf);
	if ((p = popen("grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2-", "r"))) {
		if (fgets(buf, sizeof(buf), p)) {
			buf[strcspn(buf, "\n")] = '\0';
			fprintf(f, "%-14s%s\n", "cpu_model", buf);
		}
		pclose(p);
	}
	if (ab_cpuset_allowed(&allowed) == 0 && ab_cpuset_format(&allowed, buf, sizeof(buf)) >= 0)
		fprintf(f, "%-14s %s (%d)\n", "allowed_cpus", buf, ab_cpuset_count(&allowed));
	cat_first_line(f, "online_cpus", "/sys/devices/system/cpu/online");
	cat_first_line(f, "numa_nodes", "/sys/devices/system/node/online");
	cat_first_line(f, "smt_active", "/sys/devices/system/cpu/smt/active");
	cat_first_line(f, "governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	cat_first_line(f, "loadavg", "/proc/loadavg");
	/* topology: one line per CPU (core, package, LLC sharing) */
	if ((p = popen("for c in /sys/devices/system/cpu/cpu[0-9]*; do n=${c##*/cpu}; "
		       "printf 'topology cpu%s core=%s package=%s smt_siblings=%s llc=%s\\n' $n "
		       "\"$(cat $c/topology/core_id 2>/dev/null)\" "
		       "\"$(cat $c/topology/physical_package_id 2>/dev/null)\" "
		       "\"$(cat $c/topology/thread_siblings_list 2>/dev/null)\" "
		       "\"$(cat $(ls -d $c/cache/index* 2>/dev/null | tail -1)/shared_cpu_list 2>/dev/null)\"; "
		       "done", "r"))) {
		while (fgets(buf, sizeof(buf), p))
			fputs(buf, f);
		pclose(p);
	}
	if ((p = popen("cd /sys/devices/system/cpu/vulnerabilities 2>/dev/null && grep -H . * | "
		       "sed 's/^/mitigation /'", "r"))) {
		while (fgets(buf, sizeof(buf), p))
			fputs(buf, f);
		pclose(p);
	}
	if ((p = popen("pkg-config --modversion fuse3 2>/dev/null || fusermount3 -V 2>&1", "r"))) {
		if (fgets(buf, sizeof(buf), p)) {
			buf[strcspn(buf, "\n")] = '\0';
			fprintf(f, "%-14s %s\n", "libfuse", buf);
		}
		pclose(p);
	}
	/* once per distinct sqrtio target: blocks with the same extra arguments share it */
	for (int i = 0; i < plan->nblocks; i++) {
		const struct h_block *b = &plan->blocks[i];
		int seen = 0;
		if (strcmp(b->bench, "sqrtio"))
			continue;
		for (int j = 0; j < i && !seen; j++) {
			const struct h_block *o = &plan->blocks[j];
			seen = !strcmp(o->bench, "sqrtio") && !strcmp(o->program, b->program) &&
			       o->nextra == b->nextra;
			for (int e = 0; seen && e < b->nextra; e++)
				seen = !strcmp(o->extra[e], b->extra[e]);
		}
		if (!seen) {
			fflush(f);
			discover_sqrtio(f, out, b, irqs, sizeof(irqs));
		}
	}
	write_knobs(f, "before", irqs);
	fclose(f);
}

/* Knob values after the run: before rendering, so report.md can warn about a knob
 * that was not put back. */
static void finish_knobs(const char *out)
{
	char path[PATH_MAX], irqs[512];
	FILE *f;

	machine_irqs(out, irqs, sizeof(irqs));
	snprintf(path, sizeof(path), "%s/machine.txt", out);
	if (!(f = fopen(path, "a")))
		return;
	write_knobs(f, "after", irqs);
	cat_first_line(f, "loadavg_after", "/proc/loadavg");
	fclose(f);
}

/* CPU time of reaped children so far: benchmarks, gnuplot and shells alike. */
static double children_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* CPU of the helpers the harness itself runs (gnuplot, machine.txt's shells), not the benchmarks'. */
static double helpers_cpu;

/* The harness's own CPU time: itself plus its helpers. */
static void finish_machine(const char *out, double wall)
{
	char path[PATH_MAX];
	struct rusage ru;
	FILE *f;

	snprintf(path, sizeof(path), "%s/machine.txt", out);
	if (!(f = fopen(path, "a")))
		return;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		double cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6 + helpers_cpu;
		fprintf(f, "%-14s %.3f s of %.1f s wall (%.2f%%)\n", "harness_cpu", cpu, wall,
			wall > 0 ? 100 * cpu / wall : 0);
	}
	fclose(f);
}

/* ---- one invocation ---- */

/* One CSV line from the benchmark: rewrite rep to the harness's repetition (rep 0,
 * a benchmark's summary records, stays 0) and append. */
/* Does the block keep this metric? A block that measures one thing on the side
 * (fdget's spawn block also times a pread) must not pool it with the main block. */
static int wanted(const struct h_block *b, const char *metric)
{
	for (int i = 0; i < b->nmetrics; i++)
		if (!strcmp(b->metrics[i], metric))
			return 1;
	return b->nmetrics == 0;
}

static int take_record(struct run *r, const struct h_block *b, char *line, int rep, FILE *log)
{
	char *f[8], copy[4096];

	line[strcspn(line, "\r")] = '\0';
	if (!line[0] || !strncmp(line, "bench,config,rep,", 17))
		return 0;
	snprintf(copy, sizeof(copy), "%s", line);
	if (ab_csv_split(copy, f, 8) != 6) {
		fprintf(log, "harness: ignored a malformed record: %s\n", line);
		return 0;
	}
	if (!wanted(b, f[3]))
		return 0;
	for (int i = 0; i < 6; i++) {
		if (i)
			fputc(',', r->raw);
		if (i == 2 && strcmp(f[2], "0"))
			fprintf(r->raw, "%d", rep);
		else if (i == 2)	/* rep 0: the benchmark's own per-invocation summary, kept apart */
			fputs("0", r->raw);
		else
			ab_csv_field(r->raw, f[i]);
	}
	fputc('\n', r->raw);
	fflush(r->raw);
	return 1;
}

enum outcome { OUT_OK, OUT_FAIL, OUT_SKIP };

static enum outcome run_point(struct run *r, int pi, int rep, int *exit_code, char *reason,
			      size_t rlen)
{
	struct h_point *pt = &r->plan.points[pi];
	char prog[PATH_MAX], dur[32], logp[PATH_MAX];
	char *argv[8 + 2 * H_AXES_MAX + H_ARGS_MAX + 1];
	int pfd[2], st = 0, records = 0, killed = 0;

	/* point and repetition in the name: a resume with another --repeat cannot overwrite */
	snprintf(logp, sizeof(logp), "%s/log/%s-p%d-r%d.log", r->out, pt->blk->bench, pi + 1, rep);
	h_point_argv(pt, program_of(pt->blk, prog, sizeof(prog)), argv, AB_ARRAY_SIZE(argv), dur,
		     sizeof(dur));
	FILE *log = fopen(logp, "w");
	if (!log) {
		snprintf(reason, rlen, "cannot create %.300s: %s", logp, strerror(errno));
		*exit_code = -1;
		return OUT_FAIL;
	}
	fprintf(log, "harness: rep %d:", rep);
	for (int i = 0; argv[i]; i++)
		fprintf(log, " %s", argv[i]);
	fputc('\n', log);
	fflush(log);
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(reason, rlen, "pipe: %s", strerror(errno));
		fclose(log);
		*exit_code = -1;
		return OUT_FAIL;
	}
	/* where this point's records start: a point that fails is cut back out */
	fflush(r->raw);
	off_t raw_start = lseek(fileno(r->raw), 0, SEEK_END);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(reason, rlen, "fork: %s", strerror(errno));
		fclose(log);
		close(pfd[0]);
		close(pfd[1]);
		*exit_code = -1;
		return OUT_FAIL;
	}
	if (pid == 0) {
		/* own process group: the watchdog kills the benchmark and its daemons together;
		 * if the harness dies, the benchmark gets SIGTERM and restores its knobs */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)	/* the harness died before prctl: nobody will read us */
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		int dn = open("/dev/null", O_RDONLY);
		if (dn >= 0)
			dup2(dn, 0);
		dup2(pfd[1], 1);
		dup2(fileno(log), 2);
		execv(argv[0], argv);
		fprintf(stderr, "harness: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(pfd[1]);

	double start = now_s(), deadline = start + pt->blk->timeout, kill_at = 0;
	char buf[8192];
	size_t have = 0;
	int eof = 0, exited = 0, fwd = 0;
	while (!exited || !eof) {
		double t = now_s();
		if (stop_sig && !fwd) {
			/* the user stopped the sweep: the benchmark restores on SIGINT/SIGTERM itself */
			kill(-pid, stop_sig == SIGHUP ? SIGTERM : stop_sig);
			kill(-pid, SIGCONT);	/* a stopped benchmark must run to restore its knobs */
			fwd = 1;
			kill_at = t + 5;
		}
		if (!killed && t > deadline) {
			fprintf(log, "harness: watchdog: no exit after %.0f s, sending SIGTERM\n",
				pt->blk->timeout);
			kill(-pid, SIGTERM);
			/* a stopped process would hold SIGTERM pending until the SIGKILL below and
			 * never restore its knobs: let it run its handler now */
			kill(-pid, SIGCONT);
			killed = 1;
			kill_at = t + 5;
		}
		if (exited && !eof && !kill_at)
			kill_at = t + 2;	/* a leftover child holds stdout: give it 2 s */
		if (kill_at && t > kill_at) {
			kill(-pid, SIGKILL);
			if (exited && !eof)
				break;
			kill_at = t + 5;
		}
		if (!eof) {
			struct pollfd p = { .fd = pfd[0], .events = POLLIN };
			if (poll(&p, 1, 100) > 0) {
				ssize_t n = read(pfd[0], buf + have, sizeof(buf) - 1 - have);
				if (n <= 0) {
					eof = 1;
				} else {
					have += n;
					buf[have] = '\0';
					char *s = buf, *nl;
					while ((nl = strchr(s, '\n'))) {
						*nl = '\0';
						records += take_record(r, pt->blk, s, rep, log);
						s = nl + 1;
					}
					have -= s - buf;
					memmove(buf, s, have);
					if (have == sizeof(buf) - 1) {
						fprintf(log, "harness: dropped an over-long line\n");
						have = 0;
					}
				}
			}
		} else {
			struct timespec ts = { 0, 50 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		if (!exited) {
			pid_t w = waitpid(pid, &st, WNOHANG);
			if (w == pid)
				exited = 1;
		}
	}
	if (have) {
		buf[have] = '\0';
		records += take_record(r, pt->blk, buf, rep, log);
	}
	close(pfd[0]);
	kill(-pid, SIGKILL);	/* nothing of this point may outlive it (no-op when all exited) */

	enum outcome o;
	if (killed) {
		*exit_code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
		snprintf(reason, rlen, "watchdog: killed after %.0f s (timeout)", pt->blk->timeout);
		o = OUT_FAIL;
	} else if (WIFSIGNALED(st)) {
		*exit_code = 128 + WTERMSIG(st);
		snprintf(reason, rlen, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
		o = OUT_FAIL;
	} else {
		*exit_code = WEXITSTATUS(st);
		if (*exit_code == AB_EXIT_OK && records > 0) {
			o = OUT_OK;
		} else if (*exit_code == AB_EXIT_OK) {
			snprintf(reason, rlen, "exit 0 but no records on stdout");
			o = OUT_FAIL;
		} else {
			last_log_line(logp, reason, rlen);
			o = *exit_code == AB_EXIT_SKIP ? OUT_SKIP : OUT_FAIL;
		}
	}
	fprintf(log, "harness: %s after %.2f s, exit %d, %d records\n",
		o == OUT_OK ? "ok" : o == OUT_SKIP ? "skipped" : "FAILED", now_s() - start, *exit_code,
		records);
	if ((o != OUT_OK || stop_sig) && raw_start >= 0 && records > 0) {
		/* records of a failed, skipped or interrupted invocation are not results: a
		 * failed measurement is never written as a number (--resume runs it again) */
		fflush(r->raw);
		if (ftruncate(fileno(r->raw), raw_start))
			fprintf(log, "harness: cannot cut the failed point's %d records from raw.csv: %s\n",
				records, strerror(errno));
		else
			fprintf(log, "harness: dropped this point's %d records from raw.csv\n", records);
		fseek(r->raw, 0, SEEK_END);
	}
	if (o == OUT_FAIL) {
		/* a killed benchmark could not restore: replay its journal, remove its mounts */
		fflush(log);
		h_restore(r->journal, r->workdir, log);
	}
	fclose(log);
	pt->blk->seen_s += now_s() - start;
	pt->blk->seen_n++;
	return o;
}

/* ---- the sweep ---- */

static double eta(const struct run *r, int from_rep, int from_pt)
{
	double s = 0;
	for (int rep = from_rep; rep < r->repeat; rep++)
		for (int i = rep == from_rep ? from_pt : 0; i < r->plan.npoints; i++) {
			if (r->done[rep * r->plan.npoints + i])
				continue;
			const struct h_block *b = r->plan.points[i].blk;
			s += b->seen_n ? b->seen_s / b->seen_n : b->estimate;
		}
	return s;
}

static void progress(struct run *r, int ndone, int total, int rep, int pi, const char *state)
{
	char el[32], et[32];
	const struct h_point *pt = &r->plan.points[pi];

	h_fmt_dur(now_s() - r->t0, el, sizeof(el));
	h_fmt_dur(eta(r, rep, pi), et, sizeof(et));
	fprintf(stderr, "%s[%d/%d] rep %d/%d %s %s %s  elapsed %s  ETA %s%s", r->tty ? "\r\033[K" : "",
		ndone, total, rep + 1, r->repeat, pt->blk->bench, pt->label, state, el, et,
		r->tty ? "" : "\n");
}

static void csv_row(FILE *f, int n, ...)
{
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		ab_csv_field(f, va_arg(ap, const char *));
	}
	va_end(ap);
	fputc('\n', f);
	fflush(f);
}

static FILE *open_append(const char *out, const char *name, const char *header)
{
	char path[PATH_MAX];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", out, name);
	int fresh = stat(path, &sb) != 0 || sb.st_size == 0;
	FILE *f = fopen(path, "a");
	if (f && fresh && header) {
		fputs(header, f);
		fflush(f);
	}
	return f;
}

/* Resume: mark what runs.csv says is done; cut raw.csv back to the end of the last
 * finished invocation so a half-written point is run again, not counted twice. */
static int load_resume(struct run *r, char *err, size_t errlen)
{
	char path[PATH_MAX], line[1024];
	long keep = 0;

	snprintf(path, sizeof(path), "%s/runs.csv", r->out);
	FILE *f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *fl[10];
			line[strcspn(line, "\n")] = '\0';
			if (!strncmp(line, "bench,", 6) || ab_csv_split(line, fl, 10) < 7)
				continue;
			int pi = atoi(fl[1]), rep = atoi(fl[2]) - 1;
			if (pi >= 0 && pi < r->plan.npoints && rep >= 0 && rep < r->repeat &&
			    !strcmp(r->plan.points[pi].blk->bench, fl[0]))
				r->done[rep * r->plan.npoints + pi] = 1;
			keep = atol(fl[6]);
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/raw.csv", r->out);
	struct stat sb;
	if (stat(path, &sb) == 0 && sb.st_size > keep && truncate(path, keep))
		return ab_err(err, errlen, "%s: cannot truncate: %s", path, strerror(errno));
	return 0;
}

static const char run_usage[] =
	"usage: harness run [--plan NAME|FILE] [--quick] [--repeat N] [--out DIR] [--resume DIR] [--dry-run]\n"
	"Runs every point of a plan once per repetition, repetitions interleaved, and\n"
	"writes DIR/{machine.txt,raw.csv,runs.csv,failures.csv,summary.csv,tables.md,report.md,log/,plots}.\n"
	"  --plan NAME|FILE  harness/plans/NAME.plan or a file (default: default, or quick)\n"
	"  --quick           the quick plan (under 2 minutes), 3 repetitions unless --repeat\n"
	"  --repeat N        repetitions per point (default: the plan's, else 5)\n"
	"  --out DIR         run directory (default results/<YYYY-MM-DD-HHMMSS>-<host>)\n"
	"  --resume DIR      continue an interrupted run in DIR (its plan and repeat)\n"
	"  --dry-run         list the invocations and the ETA, run nothing\n"
	"Exit 0 when the sweep finished (failed points are in failures.csv), 2 bad usage,\n"
	"130 when interrupted (continue with --resume DIR).\n";

int cmd_run(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "plan", required_argument, NULL, 'p' }, { "quick", no_argument, NULL, 'q' },
		{ "repeat", required_argument, NULL, 'r' }, { "out", required_argument, NULL, 'o' },
		{ "resume", required_argument, NULL, 'R' }, { "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *plan_arg = NULL, *out_arg = NULL, *resume = NULL;
	int quick = 0, repeat = 0, dry = 0, c;
	char err[1024], path[PATH_MAX];
	static struct run r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': plan_arg = optarg; break;
		case 'q': quick = 1; break;
		case 'o': out_arg = optarg; break;
		case 'R': resume = optarg; break;
		case 'n': dry = 1; break;
		case 'r': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 1000)
				ab_usage_error("run: --repeat '%s': want a whole number in 1..1000", optarg);
			repeat = (int)v;
			break;
		}
		case 'h': fputs(run_usage, stdout); return AB_EXIT_OK;
		default:
			ab_usage_error("run: bad option '%s' (see harness run --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		ab_usage_error("run: unexpected argument '%s'", argv[optind]);
	if (resume && out_arg)
		ab_usage_error("run: --resume DIR already names the run directory; drop --out");

	memset(&r, 0, sizeof(r));
	if (strlen(resume ? resume : out_arg ? out_arg : "") >= sizeof(r.out) - 64)
		ab_usage_error("run: run directory name too long (at most %zu characters)",
			       sizeof(r.out) - 64);
	if (resume) {
		snprintf(r.out, sizeof(r.out), "%s", resume);
		snprintf(path, sizeof(path), "%s/plan.plan", resume);
		if (access(path, R_OK))
			ab_usage_error("run: --resume '%s': no plan.plan there (not a run directory?)", resume);
	} else {
		if (h_plan_find(plan_arg ? plan_arg : quick ? "quick" : "default", path, sizeof(path), err,
				sizeof(err)))
			ab_usage_error("run: %s", err);
	}
	if (h_plan_load(&r.plan, path, err, sizeof(err)))
		ab_usage_error("run: %s", err);
	r.repeat = repeat ? repeat : r.plan.repeat ? r.plan.repeat : quick ? 3 : 5;
	if (resume && !repeat)
		r.repeat = r.plan.repeat ? r.plan.repeat : 5;
	for (int i = 0; i < r.plan.nblocks; i++) {
		char prog[PATH_MAX];
		const char *pg = program_of(&r.plan.blocks[i], prog, sizeof(prog));
		if (access(pg, X_OK))
			ab_msg("warning: %s: %s (its points will fail; run make)", pg, strerror(errno));
	}
	r.done = calloc((size_t)r.plan.npoints * r.repeat, 1);
	if (!r.done)
		ab_fail("run: out of memory");
	int total = r.plan.npoints * r.repeat;

	if (dry) {
		char prog[PATH_MAX], dur[32], et[32];
		char *av[8 + 2 * H_AXES_MAX + H_ARGS_MAX + 1];
		printf("plan %s: %d points x %d repetitions = %d invocations\n", r.plan.path,
		       r.plan.npoints, r.repeat, total);
		for (int rep = 0; rep < r.repeat; rep++)
			for (int i = 0; i < r.plan.npoints; i++) {
				struct h_point *pt = &r.plan.points[i];
				h_point_argv(pt, program_of(pt->blk, prog, sizeof(prog)), av,
					     AB_ARRAY_SIZE(av), dur, sizeof(dur));
				printf("rep %d point %d:", rep + 1, i);
				for (int k = 0; av[k]; k++)
					printf(" %s", av[k]);
				putchar('\n');
			}
		h_fmt_dur(eta(&r, 0, 0), et, sizeof(et));
		printf("ETA %s\n", et);
		return AB_EXIT_OK;
	}

	if (!resume) {
		if (out_arg) {
			snprintf(r.out, sizeof(r.out), "%s", out_arg);
		} else {
			char host[128] = "host", date[64];
			time_t t = time(NULL);
			gethostname(host, sizeof(host));
			host[sizeof(host) - 1] = '\0';
			strftime(date, sizeof(date), "%Y-%m-%d-%H%M%S", localtime(&t));
			snprintf(r.out, sizeof(r.out), "results/%s-%s", date, host);
		}
	}
	snprintf(path, sizeof(path), "%s/log", r.out);
	if (h_mkdirs(path))
		ab_fail("run: cannot create %s: %s", path, strerror(errno));
	r.journal = ab_knob_default_journal();
	r.workdir = ab_workdir();
	/* leftovers of an earlier crash would disturb the first points, and machine.txt's
	 * "before" knob values must be the machine's own, not what a killed run left */
	h_restore(r.journal, r.workdir, stderr);
	if (resume) {
		if (load_resume(&r, err, sizeof(err)))
			ab_fail("run: %s", err);
	} else {
		/* the resolved plan travels with the run, so --resume and readers see what ran */
		snprintf(path, sizeof(path), "%s/plan.plan", r.out);
		FILE *pf = fopen(path, "w"), *src = fopen(r.plan.path, "r");
		if (!pf || !src)
			ab_fail("run: cannot copy plan %s to %s: %s", r.plan.path, path, strerror(errno));
		fprintf(pf, "# copied from %s by harness run\nrepeat %d\n", r.plan.path, r.repeat);
		char line[4096];
		int blk = -1;
		while (fgets(line, sizeof(line), src)) {
			const char *w = line + strspn(line, " \t");
			if (!strncmp(w, "bench", 5))
				blk++;
			if (!strncmp(w, "repeat", 6))
				continue;
			if (!strncmp(w, "program", 7) && blk >= 0)	/* resolved: the copy lives elsewhere */
				fprintf(pf, "program %s\n", r.plan.blocks[blk].program);
			else
				fputs(line, pf);
		}
		fclose(src);
		fclose(pf);
		double c0 = children_cpu();
		write_machine(r.out, &r.plan);
		helpers_cpu += children_cpu() - c0;
	}

	r.raw = open_append(r.out, "raw.csv", "bench,config,rep,metric,value,unit\n");
	r.runs = open_append(r.out, "runs.csv", "bench,point,rep,status,exit,seconds,raw_bytes,label\n");
	r.fail = open_append(r.out, "failures.csv", "bench,config,rep,exit,reason\n");
	if (!r.raw || !r.runs || !r.fail)
		ab_fail("run: cannot write in %s: %s", r.out, strerror(errno));

	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	r.tty = isatty(2);
	r.t0 = now_s();
	ab_msg("run: %s, %d points x %d repetitions -> %s", r.plan.path, r.plan.npoints, r.repeat, r.out);

	int ndone = 0;
	for (int i = 0; i < total; i++)
		ndone += r.done[i];
	for (int rep = 0; rep < r.repeat && !stop_sig; rep++) {
		for (int pi = 0; pi < r.plan.npoints && !stop_sig; pi++) {
			if (r.done[rep * r.plan.npoints + pi])
				continue;
			struct h_point *pt = &r.plan.points[pi];
			int code = 0;
			char reason[512] = "", secs[32], num[3][24], bytes[32];
			progress(&r, ndone, total, rep, pi, "...");
			double t = now_s();
			enum outcome o = run_point(&r, pi, rep + 1, &code, reason, sizeof(reason));
			if (stop_sig)	/* interrupted mid-point: it runs again on --resume */
				break;
			r.done[rep * r.plan.npoints + pi] = 1;
			ndone++;
			snprintf(secs, sizeof(secs), "%.2f", now_s() - t);
			snprintf(num[0], sizeof(num[0]), "%d", pi);
			snprintf(num[1], sizeof(num[1]), "%d", rep + 1);
			snprintf(num[2], sizeof(num[2]), "%d", code);
			snprintf(bytes, sizeof(bytes), "%ld", ftell(r.raw));
			if (o != OUT_OK) {
				char why[600];
				snprintf(why, sizeof(why), "%s%s", o == OUT_SKIP ? "skipped: " : "", reason);
				csv_row(r.fail, 5, pt->blk->bench, pt->label, num[1], num[2], why);
				if (r.tty)
					fputs("\r\033[K", stderr);
				ab_msg("%s %s rep %d %s: %s", pt->blk->bench, pt->label, rep + 1,
				       o == OUT_SKIP ? "skipped" : "FAILED", reason);
			}
			csv_row(r.runs, 8, pt->blk->bench, num[0], num[1],
				o == OUT_OK ? "ok" : o == OUT_SKIP ? "skipped" : "failed", num[2], secs, bytes,
				pt->label);
			*(o == OUT_OK ? &r.n_ok : o == OUT_SKIP ? &r.n_skip : &r.n_fail) += 1;
		}
	}
	if (r.tty)
		fputs("\r\033[K", stderr);
	fclose(r.raw);
	fclose(r.runs);
	fclose(r.fail);
	double wall = now_s() - r.t0;
	char el[32];
	h_fmt_dur(wall, el, sizeof(el));
	ab_msg("run: %d ok, %d failed, %d skipped in %s", r.n_ok, r.n_fail, r.n_skip, el);
	if (stop_sig)
		h_restore(r.journal, r.workdir, stderr);
	finish_knobs(r.out);
	double c0 = children_cpu();
	int rc = h_render(r.out, 0);
	helpers_cpu += children_cpu() - c0;
	finish_machine(r.out, now_s() - r.t0);
	h_plan_free(&r.plan);
	free(r.done);
	if (stop_sig) {
		ab_msg("run: interrupted; continue with: harness run --resume %s", r.out);
		return 130;
	}
	if (rc)
		ab_msg("run: could not write every output in %s", r.out);
	printf("%s\n", r.out);
	return AB_EXIT_OK;
}
