/*
 * Outputs of a run directory, all regenerated from raw.csv (plus machine.txt,
 * plan.plan and failures.csv when present): summary.csv, tables.md in the
 * seeds' layouts with the seeds' published numbers beside ours, gnuplot
 * .dat/.gp/.png/.svg, and report.md whose sentences are computed from the data.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "harness.h"
#include "gpscript.h"
#include "record.h"
#include "stats.h"

#define W(...) fprintf(f, __VA_ARGS__)

static double med(const struct ab_group *g)
{
	return g ? ab_median(g->v, g->n) : NAN;
}

/*
 * Paired ratio a/b for results measured side by side in one invocation (fdget
 * runs single and idle-thread back to back): the median of the per-repetition
 * ratios with its order-statistic CI, which cancels the drift between
 * invocations. Falls back to the unpaired ratio of medians when fewer than 3
 * repetitions pair up.
 */
static int ratio(const struct ab_group *a, const struct ab_group *b, double *r, struct ab_ci *ci);
static int paired_ratio(const struct ab_group *a, const struct ab_group *b, double *r, struct ab_ci *ci)
{
	double q[256];
	size_t n = 0;

	for (size_t i = 0; a && b && i < a->n && n < AB_ARRAY_SIZE(q); i++)
		for (size_t j = 0; j < b->n; j++)
			if (a->rep[i] == b->rep[j] && a->rep[i] > 0 && b->v[j] > 0) {
				q[n++] = a->v[i] / b->v[j];
				break;
			}
	if (n < 3 || ab_median_ci(q, n, 0.95, ci))
		return ratio(a, b, r, ci);
	*r = ab_median(q, n);
	return 0;
}

/* Ratio of medians a/b with its bootstrap 95% CI; 0 or -1 when either is missing. */
static int ratio(const struct ab_group *a, const struct ab_group *b, double *r, struct ab_ci *ci)
{
	if (!a || !b || !a->n || !b->n || ab_ratio_ci(a->v, a->n, b->v, b->n, 0.95, ci))
		return -1;
	*r = med(a) / med(b);
	return 0;
}

static const char *sig_word(const struct ab_ci *ci)
{
	return ci->lo > 1 || ci->hi < 1 ? "significant (95% CI excludes 1)"
					 : "not significant (95% CI includes 1)";
}

/* The same verdict for a ratio shown as a change in percent. */
static const char *sig_word_pct(const struct ab_ci *ci)
{
	return ci->lo > 1 || ci->hi < 1 ? "significant (95% CI excludes 0%)"
					 : "not significant (95% CI includes 0%)";
}

/* "1.92x [1.71, 2.10] 95% CI, significant" or "n/a" */
static const char *ratio_str(const struct ab_group *a, const struct ab_group *b, char *buf,
			     size_t len)
{
	double r;
	struct ab_ci ci;
	if (ratio(a, b, &r, &ci))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.3gx [%.3g, %.3g] 95%% CI, %s", r, ci.lo, ci.hi,
			 ci.lo > 1 || ci.hi < 1 ? "significant" : "not significant");
	return buf;
}

static const char *ci_str(const struct ab_group *g, char *buf, size_t len)
{
	struct ab_summary s;
	if (!g || !g->n) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	ab_summarize(g->v, g->n, &s);
	snprintf(buf, len, "[%.4g, %.4g]%s n=%zu CV %.1f%%", s.ci.lo, s.ci.hi,
		 s.ci.level < 0.95 ? " (<95%, few reps)" : "", s.n, isnan(s.cv) ? 0 : 100 * s.cv);
	return buf;
}

/* Distinct values of key among groups of bench/metric (data order). */
static int distinct(const struct ab_results *d, const char *bench, const char *metric, const char *key,
		    char vals[][32], int max)
{
	int n = 0;
	for (size_t i = 0; i < d->n; i++) {
		char v[128];
		if (strcmp(d->g[i].bench, bench) || strcmp(d->g[i].metric, metric))
			continue;
		if (!ab_cfg_get(d->g[i].config, key, v, sizeof(v))[0])
			continue;
		int k;
		for (k = 0; k < n && strcmp(vals[k], v); k++)
			;
		if (k == n && n < max)
			snprintf(vals[n++], 32, "%.31s", v);
	}
	return n;
}

static int cmp_num(const void *a, const void *b)
{
	double x = atof(a), y = atof(b);
	return (x > y) - (x < y);
}

/* A grid of groups for a clustered bar chart or a table: rows x columns. */
#define MROWS 24
#define MCOLS 8
struct grid {
	int nr, nc;
	char rows[MROWS][32], cols[MCOLS][32];
	const struct ab_group *g[MROWS][MCOLS];
};

static void grid_fill(struct grid *m, const struct ab_results *d, const char *bench, const char *metric,
		      const char *rkey, const char *ckey, const char *fixed1)
{
	for (int r = 0; r < m->nr; r++)
		for (int c = 0; c < m->nc; c++) {
			char a[64], b[64];
			snprintf(a, sizeof(a), "%s=%s", rkey, m->rows[r]);
			snprintf(b, sizeof(b), "%s=%s", ckey, m->cols[c]);
			const char *want[] = { a, b, fixed1, NULL };
			m->g[r][c] = ab_results_find(d, bench, metric, want);
		}
}

/*
 * Drop the rows and columns without any data. Values that exist only outside
 * the fixed filter (e.g. daemon=none of the kernel baseline) make empty
 * columns, and gnuplot refuses an all-NaN histogram. Positions move: only for
 * grids read by name afterwards.
 */
static void grid_prune(struct grid *m)
{
	struct grid o = *m;

	m->nr = m->nc = 0;
	memset(m->g, 0, sizeof(m->g));
	for (int c = 0; c < o.nc; c++) {
		int any = 0;
		for (int r = 0; r < o.nr; r++)
			any |= o.g[r][c] != NULL;
		if (any)
			memcpy(m->cols[m->nc++], o.cols[c], sizeof(o.cols[c]));
	}
	for (int r = 0; r < o.nr; r++) {
		int any = 0;
		for (int c = 0; c < o.nc; c++)
			any |= o.g[r][c] != NULL;
		if (!any)
			continue;
		memcpy(m->rows[m->nr], o.rows[r], sizeof(o.rows[r]));
		for (int c = 0, k = 0; c < o.nc; c++) {
			int keep = 0;
			for (int rr = 0; rr < o.nr; rr++)
				keep |= o.g[rr][c] != NULL;
			if (keep)
				m->g[m->nr][k++] = o.g[r][c];
		}
		m->nr++;
	}
}

/* A grid as a markdown table: medians, with their 95% CI when with_ci ("-" where missing). */
static void grid_md(FILE *f, const struct grid *m, const char *corner, int with_ci)
{
	W("| %s |", corner);
	for (int c = 0; c < m->nc; c++)
		W(" %s |", m->cols[c]);
	W("\n|---|");
	for (int c = 0; c < m->nc; c++)
		W("---|");
	W("\n");
	for (int r = 0; r < m->nr; r++) {
		W("| %s |", m->rows[r]);
		for (int c = 0; c < m->nc; c++) {
			const struct ab_group *g = m->g[r][c];
			struct ab_summary s;
			if (!g) {
				W(" - |");
			} else if (with_ci) {
				ab_summarize(g->v, g->n, &s);
				W(" %.0f [%.0f, %.0f] |", s.median, s.ci.lo, s.ci.hi);
			} else {
				W(" %.2f |", med(g));
			}
		}
		W("\n");
	}
	W("\n");
}

static void grid_dat(const struct grid *m, const char *dir, const char *name)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	W("# row");
	for (int c = 0; c < m->nc; c++)
		W(" %s_median %s_ci_lo %s_ci_hi", m->cols[c], m->cols[c], m->cols[c]);
	W("\n");
	for (int r = 0; r < m->nr; r++) {
		ab_gp_label(f, m->rows[r]);
		for (int c = 0; c < m->nc; c++) {
			struct ab_summary s;
			if (m->g[r][c]) {
				ab_summarize(m->g[r][c]->v, m->g[r][c]->n, &s);
				W(" %.6g %.6g %.6g", s.median, s.ci.lo, s.ci.hi);
			} else {
				W(" NaN NaN NaN");
			}
		}
		W("\n");
	}
	fclose(f);
}

/* gnuplot commands drawing a grid's .dat as clustered bars with CI error bars */
static void gp_bars(FILE *f, const struct grid *m, const char *dat, const char *title,
		    const char *ylabel, const char *prefix)
{
	W("set title ");
	ab_gp_string(f, title);
	W("\nset ylabel ");
	ab_gp_string(f, ylabel);
	W("\nset yrange [0:*]\n");
	W("set style data histograms\nset style histogram errorbars gap 1 lw 1\n");
	W("set style fill solid 0.6 border -1\nset key top left noenhanced\nset xtics nomirror\n");
	W("plot ");
	for (int c = 0; c < m->nc; c++) {
		char key[96];
		snprintf(key, sizeof(key), "%s%s", prefix, m->cols[c]);
		W("%s'%s' using %d:%d:%d%s title ", c ? ", " : "", dat, 2 + 3 * c, 3 + 3 * c,
		  4 + 3 * c, c ? "" : ":xtic(1)");
		ab_gp_string(f, key);
	}
	W("\n");
}

/* Open NAME.gp; the caller writes the plot commands between gp_open and gp_close,
 * which draw the same figure to PNG and then SVG. */
static FILE *gp_open(const char *dir, const char *name, char *body, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s.gp", dir, name);
	FILE *f = fopen(path, "w");
	if (f)
		W("# regenerate with: gnuplot %s.gp (in this directory)\nset encoding utf8\nset grid ytics\n",
		  name);
	(void)body;
	(void)len;
	return f;
}

static int have_pngcairo = -1;

static void gp_close(FILE *f, const char *dir, const char *name, const char *body, int w, int h)
{
	if (have_pngcairo < 0) {
		char *av[] = { "gnuplot", "-e", "set terminal pngcairo", NULL };
		have_pngcairo = h_spawn_wait(NULL, av, NULL) == 0;
	}
	W("set terminal %s size %d,%d\nset output '%s.png'\n%s", have_pngcairo ? "pngcairo" : "png", w,
	  h, name, body);
	W("set terminal svg size %d,%d\nset output '%s.svg'\n%s", w, h, name, body);
	fclose(f);
	char gp[PATH_MAX];
	snprintf(gp, sizeof(gp), "%s.gp", name);
	char *av[] = { "gnuplot", gp, NULL };
	char log[PATH_MAX];
	snprintf(log, sizeof(log), "%s/log/gnuplot.log", dir);
	int rc = h_spawn_wait(dir, av, access(log, F_OK) == 0 || h_mkdirs(dir) == 0 ? log : NULL);
	if (rc)
		ab_msg("plot: gnuplot %s/%s.gp exited %d (see %s)", dir, name, rc, log);
}

/* Text of a plot body, built with a memstream so it can be written twice (PNG, SVG). */
struct body {
	char *buf;
	size_t len;
	FILE *f;
};
static FILE *body_open(struct body *b)
{
	b->buf = NULL;
	b->f = open_memstream(&b->buf, &b->len);
	return b->f;
}
static void body_done(struct body *b, const char *dir, const char *name, int w, int h)
{
	fclose(b->f);
	FILE *f = gp_open(dir, name, NULL, 0);
	if (f)
		gp_close(f, dir, name, b->buf, w, h);
	free(b->buf);
}

/* ---- per benchmark ---- */

struct ctx {
	const char *dir;
	const struct ab_results *d;
	FILE *t;		/* tables.md */
	FILE *r;		/* report body */
	int figures;
};

static void do_cputestfs(struct ctx *x)
{
	const struct ab_results *d = x->d;
	FILE *f = x->t;
	const char *fuse = "baseline=fuse";
	const char *w_none[] = { "placement=none", "daemon=single", fuse, NULL };
	const char *w_same[] = { "placement=same", "daemon=single", fuse, NULL };
	const struct ab_group *none = ab_results_find(d, "cputestfs", "stat_per_s", w_none);
	const struct ab_group *same = ab_results_find(d, "cputestfs", "stat_per_s", w_same);
	char b1[160], b2[160];

	if (!ab_results_find(d, "cputestfs", "stat_per_s", NULL))
		return;
	W("## cputestfs: stat() on FUSE, same CPU vs other CPU (seed 000)\n\n```\n");
	const char *const *ws[] = { w_none, w_same };
	const char *hdr[] = { "without", "with" };
	for (int i = 0; i < 2; i++) {
		const struct ab_group *st = ab_results_find(d, "cputestfs", "stat_per_s", ws[i]);
		W("#### %s cpu affinity ####\n\n", hdr[i]);
		if (!st) {
			W("(not measured)\n\n");
			continue;
		}
		W("same  cpu (%%) %8.2f\n", med(ab_results_find(d, "cputestfs", "same_cpu_pct", ws[i])));
		W("other cpu (%%) %8.2f\n", med(ab_results_find(d, "cputestfs", "other_cpu_pct", ws[i])));
		W("----------------------\nstat calls/s  %.2f   %s\n\n", med(st), ci_str(st, b1, sizeof(b1)));
	}
	W("```\n\n");
	double r;
	struct ab_ci ci;
	W("- with / without cpu affinity (daemon single): %s\n", ratio_str(same, none, b1, sizeof(b1)));
	W("- seed 000: AMD Phenom 9850, 2012: 23025 -> 44334 stat/s (1.9x); Athlon X2 6400+, 2012: "
	  "12164 -> 55164 stat/s (4.5x); ");
	if (!ratio(same, none, &r, &ci))
		W("this machine: %.0f -> %.0f stat/s (%.2fx [%.2f, %.2f])\n\n", med(none), med(same), r,
		  ci.lo, ci.hi);
	else
		W("this machine: n/a\n\n");

	/* placement x daemon (FUSE), then the baselines at each placement */
	struct grid m = { 0 };
	m.nr = distinct(d, "cputestfs", "stat_per_s", "placement", m.rows, MROWS);
	m.nc = distinct(d, "cputestfs", "stat_per_s", "daemon", m.cols, MCOLS);
	grid_fill(&m, d, "cputestfs", "stat_per_s", "placement", "daemon", fuse);
	grid_prune(&m);
	W("stat() calls/s (median [95%% CI]) by placement and daemon mode:\n\n");
	grid_md(f, &m, "placement", 1);
	struct grid bl = { 0 };
	bl.nr = distinct(d, "cputestfs", "stat_per_s", "placement", bl.rows, MROWS);
	bl.nc = distinct(d, "cputestfs", "stat_per_s", "baseline", bl.cols, MCOLS);
	grid_fill(&bl, d, "cputestfs", "stat_per_s", "placement", "baseline", NULL);
	if (bl.nc > 1) {
		W("Baselines (stat/s, median; fuse = daemon single):\n\n| placement |");
		for (int c = 0; c < bl.nc; c++)
			W(" %s |", bl.cols[c]);
		W("\n|---|");
		for (int c = 0; c < bl.nc; c++)
			W("---|");
		W("\n");
		for (int rr = 0; rr < bl.nr; rr++) {
			W("| %s |", bl.rows[rr]);
			for (int c = 0; c < bl.nc; c++) {
				char pl[64], ba[64];
				snprintf(pl, sizeof(pl), "placement=%s", bl.rows[rr]);
				snprintf(ba, sizeof(ba), "baseline=%s", bl.cols[c]);
				const char *w[] = { pl, ba, strcmp(bl.cols[c], "fuse") ? NULL : "daemon=single",
						    NULL };
				const struct ab_group *g = ab_results_find(d, "cputestfs", "stat_per_s", w);
				if (g)
					W(" %.0f |", med(g));
				else
					W(" - |");
			}
			W("\n");
		}
		W("\n");
	}
	grid_dat(&m, x->dir, "cputestfs");
	struct body b;
	gp_bars(body_open(&b), &m, "cputestfs.dat", "cputestfs: stat() calls/s on FUSE", "stat/s", "daemon ");
	body_done(&b, x->dir, "cputestfs", 900, 500);

	/* the reading */
	f = x->r;
	W("## cputestfs (seed 000): does serving a FUSE request on the caller's CPU help?\n\n");
	if (!ratio(same, none, &r, &ci)) {
		W("same vs none (daemon single): %.2fx [%.2f, %.2f] 95%% CI, %s: ", r, ci.lo, ci.hi,
		  sig_word(&ci));
		if (ci.lo > 1)
			W("pinning client and daemon to one CPU made stat() %.0f%% faster (%.0f -> %.0f stat/s). ",
			  100 * (r - 1), med(none), med(same));
		else if (ci.hi < 1)
			W("pinning to one CPU made stat() %.0f%% slower on this machine. ", 100 * (1 - r));
		else
			W("no effect of pinning could be shown. ");
		W("The seed saw 1.9x (Phenom) and 4.5x (Athlon X2).");
		const struct ab_group *pct = ab_results_find(d, "cputestfs", "same_cpu_pct", w_none);
		if (pct)
			W(" Unpinned, %.1f%% of requests were served on the caller's CPU (seed: 0%% and 3.1%%).",
			  med(pct));
		W("\n\n");
	} else {
		W("placement none and same (daemon single) were not both measured.\n\n");
	}
	W("![cputestfs](cputestfs.png)\n\n");
	(void)b2;
}

static double to_ms(const struct ab_group *g, double v)
{
	const char *u = g->unit;
	if (!strcmp(u, "ns") || strstr(g->metric, "_ns"))
		return v / 1e6;
	if (!strcmp(u, "us") || strstr(g->metric, "_us"))
		return v / 1e3;
	if (!strcmp(u, "s"))
		return v * 1e3;
	return v;
}

/* The time/req metric: the seed's spinlock time per request when the benchmark measured
 * it (not all zero), else kernel time, else the daemon's or the caller's time per request. */
static const char *timereq_metric(const struct ab_results *d)
{
	static const char *const pref[] = { "spin_us_per_req", "kernel_us_per_req", "per_req",
					    "lat_p50", "latency_p50" };
	for (size_t p = 0; p < AB_ARRAY_SIZE(pref); p++)
		for (size_t i = 0; i < d->n; i++)
			if (!strcmp(d->g[i].bench, "ddpar") && strstr(d->g[i].metric, pref[p]) &&
			    ab_max(d->g[i].v, d->g[i].n) > 0)
				return d->g[i].metric;
	return NULL;
}

static const char *machine_val(const char *dir, const char *label, char *buf, size_t len);

static void do_ddpar(struct ctx *x)
{
	int any_sig = 0;
	static const struct {
		int n;
		double w[2], r[2], t[2];
	} seed[] = {
		{ 4, { 633, 606 }, { 1171, 1059 }, { 0.025, 0.00685 } },
		{ 8, { 583.2, 561.6 }, { 1626, 1677 }, { 0.174, 0.0071 } },
		{ 16, { 436, 640.6 }, { 1014, 2240.6 }, { 0.9825, 0.0115 } },
		{ 32, { 500.5, 718.1 }, { 807.6, 2512.9 }, { 2.4965, 0.0315 } },
		{ 64, { 440.7, 1276.8 }, { 985.8, 2870.3 }, { 4.8335, 0.071 } },
		{ 128, { 526.2, 2343.4 }, { 1355, 2996.5 }, { 5.972, 0.1812 } },
	};
	const struct ab_results *d = x->d;
	FILE *f = x->t;
	static const char *const modes[] = { "write", "read" };
	static const char *const metrics[] = { "write_MB_per_s", "read_MB_per_s" };
	char procs[MROWS][32], buf[200];
	int np = 0;

	for (int m = 0; m < 2; m++) {
		char tmp[MROWS][32];
		int n = distinct(d, "ddpar", metrics[m], "procs", tmp, MROWS);
		for (int i = 0; i < n; i++) {
			int k;
			for (k = 0; k < np && strcmp(procs[k], tmp[i]); k++)
				;
			if (k == np && np < MROWS)
				strcpy(procs[np++], tmp[i]);
		}
	}
	if (!np)
		return;
	qsort(procs, np, sizeof(procs[0]), cmp_num);
	W("## ddpar: parallel dd on one FUSE mount, without / with clone_fd (seed 001)\n\n");
	FILE *rf = x->r;
	fprintf(rf, "## ddpar (seed 001): do cloned /dev/fuse fds help parallel IO?\n\n");
	const char *tm = timereq_metric(d);
	for (int m = 0; m < 2; m++) {
		char mw[32];
		snprintf(mw, sizeof(mw), "mode=%s", modes[m]);
		W("```\n%d) %s single mount\n", m + 1, m ? "Reading from" : "Writes to");
		W("dd processes throughput(without clone_fd) throughput(with clone_fd)  with/without [95%% CI]"
		  "        seed 2015 (288 CPUs) without / with\nin parallel\n");
		char data[PATH_MAX];
		snprintf(data, sizeof(data), "%s/ddpar_%s.dat", x->dir, modes[m]);
		FILE *dat = fopen(data, "w");
		if (dat)
			fprintf(dat, "# procs off_median off_lo off_hi on_median on_lo on_hi\n");
		int sig_up = 0, sig_down = 0, shown = 0;
		const struct ab_group *lo_off = NULL, *lo_on = NULL;
		for (int i = 0; i < np; i++) {
			char pw[48];
			snprintf(pw, sizeof(pw), "procs=%.31s", procs[i]);
			const char *woff[] = { mw, pw, "clone_fd=off", NULL };
			const char *won[] = { mw, pw, "clone_fd=on", NULL };
			const struct ab_group *off = ab_results_find(d, "ddpar", metrics[m], woff);
			const struct ab_group *on = ab_results_find(d, "ddpar", metrics[m], won);
			if (!off && !on)
				continue;
			shown++;
			lo_off = off;
			lo_on = on;
			double r;
			struct ab_ci ci;
			W("%-4s %14.1f MB/s %24.1f MB/s   ", procs[i], med(off), med(on));
			if (!ratio(on, off, &r, &ci)) {
				W("%.2fx [%.2f, %.2f]%s", r, ci.lo, ci.hi, ci.lo > 1 || ci.hi < 1 ? " *" : "  ");
				sig_up += ci.lo > 1;
				sig_down += ci.hi < 1;
			} else {
				W("%-20s", "n/a");
			}
			for (size_t s = 0; s < AB_ARRAY_SIZE(seed); s++)
				if (seed[s].n == atoi(procs[i]))
					W("   %g / %g Mb/s", m ? seed[s].r[0] : seed[s].w[0],
					  m ? seed[s].r[1] : seed[s].w[1]);
			W("\n");
			if (dat) {
				struct ab_summary a, b;
				ab_summarize(off ? off->v : NULL, off ? off->n : 0, &a);
				ab_summarize(on ? on->v : NULL, on ? on->n : 0, &b);
				fprintf(dat, "%s %.6g %.6g %.6g %.6g %.6g %.6g\n", procs[i], a.median, a.ci.lo,
					a.ci.hi, b.median, b.ci.lo, b.ci.hi);
			}
		}
		W("```\n(* = 95%% CI of the ratio excludes 1)\n\n");
		if (dat)
			fclose(dat);
		any_sig |= sig_up || sig_down;
		if (shown) {
			fprintf(rf, "%s: clone_fd was significantly faster at %d and slower at %d of %d process counts",
				modes[m], sig_up, sig_down, shown);
			fprintf(rf, "; at the largest N: %s.\n\n", ratio_str(lo_on, lo_off, buf, sizeof(buf)));
		}
	}
	char cpus[64];
	const char *paren = strchr(machine_val(x->dir, "allowed_cpus", cpus, sizeof(cpus)), '(');
	int ncpu = paren ? atoi(paren + 1) : 0;
	fprintf(rf, "The seed (8 nodes, 288 CPUs) saw clone_fd win only from 16 processes up "
		    "(writes 526 -> 2343 Mb/s at 128)");
	if (!any_sig && ncpu > 0 && ncpu <= 4)	/* a reading, only where the data give no effect */
		fprintf(rf, "; with %d CPUs here there is little lock contention for it to remove", ncpu);
	fprintf(rf, ".\n\n");
	struct body b;
	FILE *g = body_open(&b);
	fprintf(g, "set multiplot layout 1,2\nset logscale x 2\nset xlabel 'dd processes (N)'\n"
		   "set ylabel 'MB/s'\nset yrange [0:*]\nset key top left noenhanced\nset offsets graph 0.05, graph 0.05\n");
	for (int m = 0; m < 2; m++)
		fprintf(g, "set title 'ddpar %s'\nplot 'ddpar_%s.dat' using 1:2:3:4 with yerrorlines title "
			   "'without clone\\_fd', '' using 1:5:6:7 with yerrorlines title 'with clone\\_fd'\n",
			modes[m], modes[m]);
	fprintf(g, "unset multiplot\n");
	body_done(&b, x->dir, "ddpar", 1100, 450);
	fprintf(rf, "![ddpar](ddpar.png)\n\n");

	if (tm) {
		W("```\ndd processes Time/req(without clone_fd) Time/req(with clone_fd)   (%s, writes)"
		  "   seed: spinlock time/req without / with\nin parallel\n", tm);
		char data[PATH_MAX];
		snprintf(data, sizeof(data), "%s/ddpar_timereq.dat", x->dir);
		FILE *dat = fopen(data, "w");
		for (int i = 0; i < np; i++) {
			char pw[48];
			snprintf(pw, sizeof(pw), "procs=%.31s", procs[i]);
			const char *woff[] = { "mode=write", pw, "clone_fd=off", NULL };
			const char *won[] = { "mode=write", pw, "clone_fd=on", NULL };
			const struct ab_group *off = ab_results_find(d, "ddpar", tm, woff);
			const struct ab_group *on = ab_results_find(d, "ddpar", tm, won);
			if (!off && !on)
				continue;
			double a = off ? to_ms(off, med(off)) : NAN, c = on ? to_ms(on, med(on)) : NAN;
			W("%-4s %12.4g ms %26.4g ms", procs[i], a, c);
			for (size_t s = 0; s < AB_ARRAY_SIZE(seed); s++)
				if (seed[s].n == atoi(procs[i]))
					W("   %g / %g ms", seed[s].t[0], seed[s].t[1]);
			W("\n");
			if (dat)
				fprintf(dat, "%s %.6g %.6g\n", procs[i], a, c);
		}
		W("```\n\n");
		if (dat)
			fclose(dat);
		g = body_open(&b);
		fprintf(g, "set logscale x 2\nset xlabel 'dd processes (N)'\nset ylabel 'ms per request (%s)'\n"
			   "set title 'ddpar: time per request (writes)'\nset key top left noenhanced\n"
			   "plot 'ddpar_timereq.dat' using 1:2 with linespoints title 'without clone\\_fd', "
			   "'' using 1:3 with linespoints title 'with clone\\_fd'\n", tm);
		body_done(&b, x->dir, "ddpar_timereq", 900, 500);
		fprintf(rf, "Time per request here is `%s` (the seed measured kernel spinlock time per request).\n\n"
			    "![ddpar time/req](ddpar_timereq.png)\n\n", tm);
	}
}

static void do_sqrtio(struct ctx *x)
{
	static const struct {
		int rq, local;
		double sq, io;
	} seed[] = { { 0, 1, 66.616, 12.312 }, { 1, 1, 66.616, 12.314 }, { 0, 0, 61.929, 11.911 },
		     { 1, 0, 64.386, 12.026 } };
	const struct ab_results *d = x->d;
	FILE *f = x->t;
	char buf[200], rqs[8][32];
	int nrq = distinct(d, "sqrtio", "sqrt_M_per_s", "rq", rqs, 8);

	if (!nrq)
		return;
	qsort(rqs, nrq, sizeof(rqs[0]), cmp_num);
	W("## sqrtio: sqrt + O_DIRECT reads, rq_affinity and IRQ placement (seed 004)\n\n```\n");
	struct grid gs = { 0 }, gi = { 0 };
	for (int i = 0; i < nrq; i++) {
		strcpy(gs.rows[gs.nr++], rqs[i]);
		strcpy(gi.rows[gi.nr++], rqs[i]);
	}
	for (int l = 1; l >= 0; l--) {
		snprintf(gs.cols[gs.nc++], 32, "%d", l);
		snprintf(gi.cols[gi.nc++], 32, "%d", l);
	}
	grid_fill(&gs, d, "sqrtio", "sqrt_M_per_s", "rq", "local", NULL);
	grid_fill(&gi, d, "sqrtio", "ios_K_per_s", "rq", "local", NULL);
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < nrq; i++) {
			const struct ab_group *s = gs.g[i][l], *io = gi.g[i][l];
			if (!s && !io)
				continue;
			W("rq=%s local=%s  %10.3f (M sqrt/sec) %8.3f (K ios/sec)", rqs[i], gs.cols[l], med(s),
			  med(io));
			for (size_t k = 0; k < AB_ARRAY_SIZE(seed); k++)
				if (seed[k].rq == atoi(rqs[i]) && seed[k].local == atoi(gs.cols[l]))
					W("   seed 2008 (4-way IA64): %.3f / %.3f", seed[k].sq, seed[k].io);
			W("\n");
		}
	W("```\n\n");
	FILE *rf = x->r;
	fprintf(rf, "## sqrtio (seed 004): rq_affinity and readers on / off the IRQ CPU\n\n");
	for (int i = 0; i < nrq; i++) {
		W("- rq=%s, local=0 vs local=1: sqrt %s; ", rqs[i], ratio_str(gs.g[i][1], gs.g[i][0], buf, sizeof(buf)));
		W("IO %s\n", ratio_str(gi.g[i][1], gi.g[i][0], buf, sizeof(buf)));
		double r;
		struct ab_ci ci;
		if (!ratio(gi.g[i][1], gi.g[i][0], &r, &ci))
			fprintf(rf, "- rq=%s: readers off the IRQ CPU reach %.3gx the IO rate of readers on it "
				    "[%.3g, %.3g], %s.\n", rqs[i], r, ci.lo, ci.hi, sig_word(&ci));
	}
	int r0 = -1, r1 = -1;
	for (int i = 0; i < nrq; i++) {
		if (!strcmp(rqs[i], "0"))
			r0 = i;
		if (!strcmp(rqs[i], "1"))
			r1 = i;
	}
	if (r0 >= 0 && r1 >= 0) {
		double r;
		struct ab_ci ci;
		W("- local=0, rq=1 vs rq=0: sqrt %s; ", ratio_str(gs.g[r1][1], gs.g[r0][1], buf, sizeof(buf)));
		W("IO %s\n", ratio_str(gi.g[r1][1], gi.g[r0][1], buf, sizeof(buf)));
		W("- seed 004: with readers off the IRQ CPU, rq_affinity=1 gave +4%% sqrt (61.929 -> 64.386) "
		  "and +1%% IO (11.911 -> 12.026); on it, no difference\n\n");
		if (!ratio(gs.g[r1][1], gs.g[r0][1], &r, &ci))
			fprintf(rf, "- readers off the IRQ CPU, rq_affinity 1 vs 0: sqrt work %+.1f%% [%+.1f, %+.1f], %s "
				    "(seed: +4%%).\n", 100 * (r - 1), 100 * (ci.lo - 1), 100 * (ci.hi - 1),
				sig_word_pct(&ci));
		if (!ratio(gi.g[r1][1], gi.g[r0][1], &r, &ci))
			fprintf(rf, "- readers off the IRQ CPU, rq_affinity 1 vs 0: IO rate %+.1f%% [%+.1f, %+.1f], %s "
				    "(seed: +1%%).\n", 100 * (r - 1), 100 * (ci.lo - 1), 100 * (ci.hi - 1),
				sig_word_pct(&ci));
	}
	fprintf(rf, "\n![sqrtio](sqrtio.png)\n\n");
	W("\n");
	grid_dat(&gs, x->dir, "sqrtio_sqrt");
	grid_dat(&gi, x->dir, "sqrtio_io");
	struct body b;
	FILE *g = body_open(&b);
	fprintf(g, "set multiplot layout 1,2\nset xlabel 'rq\\_affinity'\n");
	gp_bars(g, &gs, "sqrtio_sqrt.dat", "sqrt work", "M sqrt/s", "local=");
	gp_bars(g, &gi, "sqrtio_io.dat", "4 KiB O\\_DIRECT reads", "K ios/s", "local=");
	fprintf(g, "unset multiplot\n");
	body_done(&b, x->dir, "sqrtio", 1100, 450);
}

static void do_fdget(struct ctx *x)
{
	const struct ab_results *d = x->d;
	FILE *f = x->t, *rf = x->r;
	struct grid m = { 0 };

	m.nr = distinct(d, "fdget", "ns_per_op", "op", m.rows, MROWS);
	m.nc = distinct(d, "fdget", "ns_per_op", "mode", m.cols, MCOLS);
	if (m.nr) {
		grid_fill(&m, d, "fdget", "ns_per_op", "op", "mode", NULL);
		int cs = -1, ci_ = -1;
		for (int c = 0; c < m.nc; c++) {
			if (!strcmp(m.cols[c], "single"))
				cs = c;
			if (!strcmp(m.cols[c], "idle-thread"))
				ci_ = c;
		}
		W("## fdget: fd syscall cost, single- vs multi-threaded (seed 003)\n\n```\n");
		W("%-8s %12s %16s %8s   %s\n", "op", "single ns/op", "idle-thread ns/op", "+%", "95% CI of +%");
		fprintf(rf, "## fdget (seed 003): what does a second (idle) thread cost each fd syscall?\n\n");
		for (int r = 0; r < m.nr; r++) {
			const struct ab_group *s = cs >= 0 ? m.g[r][cs] : NULL, *t = ci_ >= 0 ? m.g[r][ci_] : NULL;
			double q;
			struct ab_ci ci;
			W("%-8s %12.2f %16.2f ", m.rows[r], med(s), med(t));
			if (!paired_ratio(t, s, &q, &ci)) {
				W("%+7.1f%%   [%+.1f%%, %+.1f%%]%s\n", 100 * (q - 1), 100 * (ci.lo - 1),
				  100 * (ci.hi - 1), ci.lo > 1 || ci.hi < 1 ? " *" : "");
				fprintf(rf, "- %s: idle-thread vs single %+.1f%% [%+.1f%%, %+.1f%%] (%.2f -> %.2f ns/op), %s.\n",
					m.rows[r], 100 * (q - 1), 100 * (ci.lo - 1), 100 * (ci.hi - 1), med(s),
					med(t), sig_word_pct(&ci));
			} else {
				W("%8s\n", "n/a");
			}
		}
		W("```\n(* = CI excludes 0)\n\nns/op by op and mode (median):\n\n");
		grid_md(f, &m, "op", 0);
		grid_dat(&m, x->dir, "fdget");
		struct body b;
		gp_bars(body_open(&b), &m, "fdget.dat", "fdget: ns per fd syscall", "ns/op", "");
		body_done(&b, x->dir, "fdget", 1000, 500);
		fprintf(rf, "\n![fdget](fdget.png)\n\n");
	}
	int spawn = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct ab_group *g = &d->g[i];
		if (strcmp(g->bench, "fdget") || strcmp(g->metric, "us_per_spawn"))
			continue;
		char b1[120];
		if (!spawn++) {
			if (!m.nr)
				W("## fdget: process start-up (seed 003)\n\n");
			W("Process start-up (us_per_spawn):\n\n");
		}
		W("- %s: %.1f us %s\n", g->config, med(g), ci_str(g, b1, sizeof(b1)));
		fprintf(rf, "- start-up, %s: %.1f us per spawn.\n", g->config, med(g));
	}
	if (spawn) {
		/* the seed's question: what one thread adds to a start, and how sure */
		const char *w0[] = { "op=spawn", "mode=single", NULL }, *w1[] = { "op=spawn", "mode=idle-thread", NULL };
		const struct ab_group *g0 = ab_results_find(d, "fdget", "us_per_spawn", w0);
		const struct ab_group *g1 = ab_results_find(d, "fdget", "us_per_spawn", w1);
		double r;
		struct ab_ci ci;
		if (g0 && g1 && !ratio(g1, g0, &r, &ci)) {
			W("- one thread adds %.0f us per start: %+.1f%% [%+.1f%%, %+.1f%%] 95%% CI\n",
			  med(g1) - med(g0), 100 * (r - 1), 100 * (ci.lo - 1), 100 * (ci.hi - 1));
			fprintf(rf, "- start-up with one thread vs without: %+.0f us per start, %+.1f%% "
				    "[%+.1f%%, %+.1f%%], %s (seed: about +100 us).\n", med(g1) - med(g0),
				100 * (r - 1), 100 * (ci.lo - 1), 100 * (ci.hi - 1), sig_word_pct(&ci));
		}
		W("- seed 003 (2016): `xfs_io -c quit` x1000: -M (one extra thread) added 0.1 s, about 100 us "
		  "per start; generic/132 took 17 s without and 20 s with -M (+18%%)\n\n");
		fprintf(rf, "\nThe seed: an extra thread added about 100 us per xfs_io start and +18%% to an "
			    "fd-heavy test.\n\n");
	}
}

/* Every bench not handled above still gets a generic table. */
static void do_generic(struct ctx *x)
{
	FILE *f = x->t;
	const struct ab_results *d = x->d;
	char b1[160];
	W("## All results (median, 95%% CI of the median, n, CV)\n\n| bench | config | metric | median | unit | CI / n / CV |\n|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < d->n; i++) {
		const struct ab_group *g = &d->g[i];
		W("| %s | %s | %s | %.6g | %s | %s |\n", g->bench, g->config, g->metric, med(g), g->unit,
		  ci_str(g, b1, sizeof(b1)));
	}
	W("\n");
}

/* machine.txt line value by label (its last occurrence), "" if absent */
static const char *machine_val(const char *dir, const char *label, char *buf, size_t len)
{
	char path[PATH_MAX], line[1024];
	size_t ll = strlen(label);
	snprintf(path, sizeof(path), "%s/machine.txt", dir);
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, label, ll) && line[ll] == ' ') {
			char *v = line + ll;
			v += strspn(v, " ");
			v[strcspn(v, "\n")] = '\0';
			snprintf(buf, len, "%s", v);	/* the last wins: a resumed run appends */
		}
	fclose(f);
	return buf;
}

static void warnings(struct ctx *x, FILE *f)
{
	const struct ab_results *d = x->d;
	char buf[512], path[PATH_MAX];
	int nw = 0;

	W("## Warnings\n\n");
	machine_val(x->dir, "governor", buf, sizeof(buf));
	if (buf[0] && strncmp(buf, "(unavailable", 12) && strcmp(buf, "performance")) {
		W("- CPU frequency governor is '%s', not 'performance': clock changes add noise. "
		  "Hint: `cpupower frequency-set -g performance` for the run.\n", buf);
		nw++;
	}
	machine_val(x->dir, "loadavg", buf, sizeof(buf));
	machine_val(x->dir, "allowed_cpus", path, sizeof(path));
	double load = atof(buf);
	const char *paren = strchr(path, '(');
	int ncpu = paren ? atoi(paren + 1) : 1;
	if (buf[0] && load > 0.5 * (ncpu > 0 ? ncpu : 1)) {
		W("- load average %.2f at start on %d CPUs: other work competed with the benchmarks. "
		  "Hint: stop other programs and re-run.\n", load, ncpu);
		nw++;
	}
	/* Noise is judged on the headline metrics: a CV of a near-zero share (0% same CPU)
	 * or of a count says nothing about how far to trust a result. */
	static const char *const headline[] = { "stat_per_s", "write_MB_per_s", "read_MB_per_s",
						"sqrt_M_per_s", "ios_K_per_s", "ns_per_op", "us_per_spawn" };
	int noisy = 0, few = 0, nhead = 0;
	const struct ab_group *worst = NULL;
	double wcv = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct ab_group *g = &d->g[i];
		double cv = ab_cv(g->v, g->n);
		int head = 0;
		for (size_t k = 0; k < AB_ARRAY_SIZE(headline); k++)
			head |= !strcmp(g->metric, headline[k]);
		if (!head)
			continue;
		nhead++;
		struct ab_ci ci;
		if (g->n < 6 || (ab_median_ci(g->v, g->n, 0.95, &ci) == 0 && ci.level < 0.95))
			few++;
		if (!isnan(cv) && fabs(cv) > 0.05) {
			noisy++;
			if (fabs(cv) > wcv) {
				wcv = fabs(cv);
				worst = g;
			}
		}
	}
	if (noisy) {
		W("- %d of %d headline results have a CV above 5%% (worst: %s %s %s, CV %.1f%%). "
		  "Hint: a quieter machine, longer --duration or more --repeat.\n", noisy, nhead, worst->bench,
		  worst->config, worst->metric, 100 * wcv);
		nw++;
	}
	if (few) {
		W("- %d headline results have fewer than 6 repetitions: the CI of their median is [min, max] "
		  "and covers less than 95%%. Hint: --repeat 6 or more.\n", few);
		nw++;
	}
	struct h_plan p;
	char err[256];
	snprintf(path, sizeof(path), "%s/plan.plan", x->dir);
	if (access(path, R_OK) == 0 && h_plan_load(&p, path, err, sizeof(err)) == 0) {
		for (int i = 0; i < p.nblocks; i++)
			if (p.blocks[i].duration < 1) {
				W("- %s ran %.2g s per point: start-up and warm-up weigh in on runs this short. "
				  "Hint: the default plan (1 s or more per point).\n", p.blocks[i].bench,
				  p.blocks[i].duration);
				nw++;
				break;
			}
		h_plan_free(&p);
	}
	/* a knob that differs before and after the run was not restored */
	snprintf(path, sizeof(path), "%s/machine.txt", x->dir);
	FILE *m = fopen(path, "r");
	if (m) {
		char line[1024], before[64][200];
		int nb = 0;
		while (fgets(line, sizeof(line), m)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strncmp(line, "knob before ", 12) && nb < 64)
				snprintf(before[nb++], 200, "%.199s", line + 12);
			else if (!strncmp(line, "knob after  ", 12)) {
				int k;
				for (k = 0; k < nb && strcmp(before[k], line + 12); k++)
					;
				if (k == nb) {
					W("- knob not as before the run: %s. Hint: `bin/harness restore`.\n", line + 12);
					nw++;
				}
			}
		}
		fclose(m);
	}
	if (!nw)
		W("- none\n");
	W("\n");
}

static void failures(struct ctx *x, FILE *f)
{
	char path[PATH_MAX], line[2048];
	snprintf(path, sizeof(path), "%s/failures.csv", x->dir);
	FILE *in = fopen(path, "r");
	int n = 0;
	if (!in)
		return;
	while (fgets(line, sizeof(line), in)) {
		char *fl[6];
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "bench,", 6) || ab_csv_split(line, fl, 6) != 5)
			continue;
		if (!n++)
			W("## Failed and skipped points\n\n| bench | config | rep | exit | reason |\n|---|---|---|---|---|\n");
		W("| %s | %s | %s | %s | %s |\n", fl[0], fl[1], fl[2], fl[3], fl[4]);
	}
	fclose(in);
	if (n)
		W("\nA failed point is never written as a number; see log/ for each one's stderr.\n\n");
}

int h_render(const char *dir, int quiet)
{
	char path[PATH_MAX], err[512], buf[512];
	struct ab_results d;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/raw.csv", dir);
	if (h_data_load(&d, path, err, sizeof(err))) {
		ab_msg("plot: %s", err);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	if (h_write_summary(&d, path)) {
		ab_msg("plot: %s: %s", path, strerror(errno));
		rc = -1;
	}
	char *rbody = NULL;
	size_t rlen;
	struct ctx x = { .dir = dir, .d = &d };
	snprintf(path, sizeof(path), "%s/tables.md", dir);
	x.t = fopen(path, "w");
	x.r = open_memstream(&rbody, &rlen);
	if (!x.t || !x.r) {
		ab_msg("plot: %s: %s", path, strerror(errno));
		ab_results_free(&d);
		return -1;
	}
	fprintf(x.t, "# affbench tables: %s\n\nMedians of the repetitions; ratios are medians' ratios with "
		     "bootstrap 95%% CIs.\n\n", dir);
	do_cputestfs(&x);
	do_ddpar(&x);
	do_sqrtio(&x);
	do_fdget(&x);
	do_generic(&x);
	if (fclose(x.t))
		rc = -1;
	fclose(x.r);

	snprintf(path, sizeof(path), "%s/report.md", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		ab_msg("plot: %s: %s", path, strerror(errno));
		free(rbody);
		ab_results_free(&d);
		return -1;
	}
	W("# affbench report\n\nRun directory: `%s`\n\n", dir);
	static const char *const labels[] = { "date", "host", "kernel", "cpu_model", "allowed_cpus",
					      "governor", "libfuse", "harness_cpu" };
	for (size_t i = 0; i < AB_ARRAY_SIZE(labels); i++)
		if (machine_val(dir, labels[i], buf, sizeof(buf))[0])
			W("- %s: %s\n", labels[i], buf);
	W("\n");
	warnings(&x, f);
	if (!d.n)
		W("No records in raw.csv: nothing was measured.\n\n");
	fputs(rbody ? rbody : "", f);
	failures(&x, f);
	W("## Files\n\n- `tables.md`: the seeds' layouts with their published numbers, and every result\n"
	  "- `summary.csv`: per bench, config and metric: n, median, mean, stddev, CV, min, max, 95%% CI\n"
	  "- `raw.csv`: every record; `failures.csv`: failed and skipped points; `log/`: each run's stderr\n"
	  "- `machine.txt`: the machine and its knobs before and after\n"
	  "- regenerate with `bin/harness plot %s`\n", dir);
	if (fclose(f))
		rc = -1;
	free(rbody);
	ab_results_free(&d);
	if (!quiet)
		ab_msg("report: %s/report.md, tables: %s/tables.md", dir, dir);
	return rc;
}

static const char plot_usage[] =
	"usage: harness plot DIR\n"
	"Regenerates DIR/summary.csv, tables.md, the gnuplot .dat/.gp/.png/.svg files and\n"
	"report.md from DIR/raw.csv alone (machine.txt, plan.plan, failures.csv are used when present).\n";

int cmd_plot(int argc, char **argv)
{
	char path[PATH_MAX];

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(plot_usage, stdout);
		return AB_EXIT_OK;
	}
	if (argc != 2 || argv[1][0] == '-')
		ab_usage_error("plot: want exactly one run directory (harness plot DIR)");
	snprintf(path, sizeof(path), "%s/raw.csv", argv[1]);
	if (access(path, R_OK))
		ab_usage_error("plot: '%s': no readable raw.csv there", argv[1]);
	if (strlen(argv[1]) > PATH_MAX - 64)
		ab_usage_error("plot: '%s': path too long", argv[1]);
	return h_render(argv[1], 0) ? AB_EXIT_FAIL : AB_EXIT_OK;
}
