// SPDX-License-Identifier: GPL-2.0
/*
 * The split of "other minus same" (us per stat()) into
 *   - the cache transfers: cpupair's cache-line round trip of the pair the
 *     other placement used (one round trip a stat(): the request's lines go
 *     to the daemon's CPU, the reply's come back);
 *   - the wake-ups crossing adds: cpupair's wake-up round trip between the two
 *     CPUs less the same-CPU one on the CPU the same placement used (a stat()
 *     served on the caller's CPU pays two context switches too), less the
 *     cache-line part;
 *   - what remains: FUSE's own path.
 * The wake-up round trip is the pipe's (the wait queues FUSE's own wake-ups
 * take) when every wait of it slept, on the pair and on the CPU alone, else
 * the futex's when that slept every time; a mix of waits that slept and waits
 * that returned at once is no wake-up cost, and gives no split. A cache-line
 * figure cpupair flags (a spinner kept off its CPU in its window, or a line above
 * half the futex round trip) is the scheduler's: the cache transfers then stay
 * inside the wake-ups' part, said so, and are drawn as 0.
 * Each part carries an interval from its medians' 95% CIs (a difference of
 * medians: the lower end less the other's upper one). A time is never below
 * zero: a part whose median is, but whose interval holds 0, is 0; a part below
 * zero beyond its interval, or parts that cannot add up to the difference within
 * their intervals, mean the model does not hold here, and the report then gives
 * the measured pieces, never a negative time as a cost.
 * cpupair's records are read from the same results by the names cpupair.h
 * gives (layering.sh refuses them retyped): a reading across benchmarks
 * belongs in a benchmark's folder, not in lib/.
 * The wake-up part is checked against the request breakdown of the same two
 * configs (brk_*, docs/breakdown.md): its wake-up steps (daemon_wake +
 * reply_wake) on other less that on same, their medians per call, like the
 * split's medians: the steps' means carry the tail of slow calls that the
 * probes make (on the VM without a cpuidle driver, means 47 us apart where the
 * medians are 18 apart, beside a split of 14). The two agree when both are
 * positive and within AGREE_FACTOR of each other either way.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/render_breakdown.h"
#include "render/reading.h"
#include "render/render.h"
#include "record/stats.h"
#include "../cpupair/cpupair.h"
#include "cputestfs.h"
#include "report_levers.h"
#include "report_pub.h"
#include "report_split.h"

#define AGREE_FACTOR 1.5	/* the split's wake-ups and the breakdown's agree within it */

static const char *const lp_same[] = { "placement=same", "daemon=single", "baseline=fuse",
				       "transport=libfuse|", "idle=poll", NULL };
static const char *const lp_other[] = { "placement=other", "daemon=single", "baseline=fuse",
					"transport=libfuse|", "idle=poll", NULL };

/* cpupair's wake-up methods, in the order the split prefers them. */
static const struct {
	const char *name, *rt, *slept;
} wm[] = { { "pipe", CP_M_PIPE, CP_M_PIPE_SLEPT }, { "futex", CP_M_FUTEX, CP_M_FUTEX_SLEPT } };

const char *ctf_split_method(const struct split *s)
{
	return s->method >= 0 ? wm[s->method].name : "none";
}

static struct est est_of(const struct ab_group *g, double scale)
{
	struct ab_ci ci;

	if (!g || !g->n || ab_median_ci(g->v, g->n, 0.95, &ci) < 0)
		return (struct est){ NAN, NAN, NAN };
	return (struct est){ ab_median(g->v, g->n) * scale, ci.lo * scale, ci.hi * scale };
}

static struct est minus(struct est x, struct est y)
{
	return (struct est){ x.v - y.v, x.lo - y.hi, x.hi - y.lo };
}

static int known(struct est e)
{
	return isfinite(e.v) && isfinite(e.lo) && isfinite(e.hi);
}

/* cpupair's group of metric for CPUs x and y (either order) under idle (NULL: as found). */
static const struct ab_group *pair_group(const struct ab_render *r, const char *x, const char *y,
					 const char *metric, const char *idle)
{
	char ka[48], kb[48], id[48];

	snprintf(id, sizeof(id), "idle=%.30s", idle ? idle : "as-found|");
	for (int k = 0; k < 2; k++) {
		snprintf(ka, sizeof(ka), CP_K_A "=%.31s", k ? y : x);
		snprintf(kb, sizeof(kb), CP_K_B "=%.31s", k ? x : y);
		const char *want[] = { ka, kb, id, NULL };
		const struct ab_group *g = ab_results_find(r->res, CP_BENCH, metric, want);
		if (g)
			return g;
	}
	return NULL;
}

static double pair_median(const struct ab_render *r, const char *x, const char *y,
			  const char *metric, const char *idle)
{
	const struct ab_group *g = pair_group(r, x, y, metric, idle);

	return g ? ab_r_median(g) : NAN;
}

/* The breakdown's steps (-1 ends them), as the split's checks add them up. */
static const int wake_steps[] = { AB_BREAKDOWN_DWAKE, AB_BREAKDOWN_RWAKE, -1 };
static const int rest_steps[] = { AB_BREAKDOWN_SUBMIT, AB_BREAKDOWN_SERVICE, AB_BREAKDOWN_RETURN,
				  -1 };

/* steps' per-call medians (us) in g's instrumented repetitions, each the median over
 * them, added; NAN when not recorded. */
static double brk_p50_of(const struct ab_render *r, const struct ab_group *g, const int *st)
{
	double sum = 0;
	char m[64];

	for (int k = 0; g && st[k] >= 0; k++) {
		snprintf(m, sizeof(m), "brk_%s_p50_ns", ab_breakdown_step_name(st[k]));
		sum += ab_breakdown_median_of(r->res, g->bench, g->config, m, "ns") / 1e3;
	}
	return g ? sum : NAN;
}

/* The wake-up steps' means per call (us) in the breakdown's bar of g; NAN when none. */
static double brk_mean_of(const struct ab_breakdown_bar *b, int n, const struct ab_group *g)
{
	for (int i = 0; g && i < n; i++)
		if (!strcmp(b[i].config, g->config))
			return b[i].step_us[AB_BREAKDOWN_DWAKE] + b[i].step_us[AB_BREAKDOWN_RWAKE];
	return NAN;
}

/* The breakdown's steps on other less same: the wake-ups as found (medians, and means)
 * and with idle polling, and the other steps as found. */
static void brk_check(struct ab_render *r, struct split *s, const struct ab_group *o,
		      const struct ab_group *m)
{
	struct ab_breakdown_bar b[AB_BREAKDOWN_BARS];
	char keys[256];
	int n = ab_breakdown_bars(r->res, r->desc, b, AB_BREAKDOWN_BARS, keys, sizeof(keys));

	s->brk_wake = brk_p50_of(r, o, wake_steps) - brk_p50_of(r, m, wake_steps);
	s->brk_rest = brk_p50_of(r, o, rest_steps) - brk_p50_of(r, m, rest_steps);
	s->brk_mean = brk_mean_of(b, n, o) - brk_mean_of(b, n, m);
	s->brk_wake_poll = brk_p50_of(r, ab_r_find(r, CTF_M_STAT, lp_other), wake_steps) -
			   brk_p50_of(r, ab_r_find(r, CTF_M_STAT, lp_same), wake_steps);
}

/* The first method whose waits slept every time on the pair and on the CPU alone. */
static int pick_method(const struct ab_render *r, struct split *s)
{
	for (int k = 0; k < 2; k++) {
		s->slept[k][0] = pair_median(r, s->a, s->b, wm[k].slept, NULL);
		s->slept[k][1] = pair_median(r, s->c, s->c, wm[k].slept, NULL);
	}
	for (int k = 0; k < 2; k++)
		if (s->slept[k][0] >= CP_SLEPT_MIN && s->slept[k][1] >= CP_SLEPT_MIN &&
		    pair_group(r, s->a, s->b, wm[k].rt, NULL) &&
		    pair_group(r, s->c, s->c, wm[k].rt, NULL))
			return k;
	return -1;
}

/* The parts from the pieces; a part below 0 within its interval is 0, beyond it the
 * model does not hold. Nor does it when the parts, each at 0 or more, cannot add up to
 * other minus same within the intervals: their lower ends add to more than its upper
 * end (a cache line dearer than the whole difference, say). Unclamped, the lower ends
 * always add to less: clamping is what can break it. */
static void parts_of(struct split *s)
{
	static const char *const name[] = { "the cache transfers", "the wake-ups crossing adds",
					    "FUSE's own path" };
	struct est crossing = minus(s->rt, s->self);	/* what crossing adds, line included */
	struct est *p[] = { &s->cache, &s->wake, &s->fuse };
	char lo[32], hi[32];

	s->cache = s->line_flagged ? (struct est){ 0, 0, 0 } : s->line;
	s->wake = minus(crossing, s->cache);
	s->fuse = minus(s->diff, crossing);
	s->holds = s->diff.v >= 0;	/* a negative difference: nothing to split */
	s->why[0] = '\0';
	for (int k = 0; k < 3; k++) {
		if (p[k]->hi < 0 && s->holds) {	/* the first part found below */
			s->holds = 0;
			snprintf(s->why, sizeof(s->why), "%s would be below zero beyond its interval",
				 name[k]);
		}
		if (p[k]->v < 0)
			p[k]->v = 0;
		if (p[k]->lo < 0)
			p[k]->lo = 0;
	}
	double lows = s->cache.lo + s->wake.lo + s->fuse.lo;
	if (s->holds && lows > s->diff.hi) {
		s->holds = 0;
		snprintf(s->why, sizeof(s->why), "its parts would not add up within their intervals: "
			 "at 0 or more each, their lower ends add to %s us, above other minus same's "
			 "upper end, %s us", ab_r_num(lo, sizeof(lo), lows),
			 ab_r_num(hi, sizeof(hi), s->diff.hi));
	}
}

/* 0: split made (or said why not); -1: other and same not both measured (as found). */
int ctf_split_of(struct ab_render *r, struct split *s)
{
	const struct ab_group *o = ab_r_find(r, CTF_M_STAT, ctf_w_other);
	const struct ab_group *m = ab_r_find(r, CTF_M_STAT, ctf_w_same);

	memset(s, 0, sizeof(*s));
	s->method = -1;
	if (!o || !m || !(ab_r_median(o) > 0) || !(ab_r_median(m) > 0))
		return -1;
	/* us per stat(): 1e6 over stat/s, the interval's ends swap */
	struct est eo = est_of(o, 1), em = est_of(m, 1);
	struct est to = { 1e6 / eo.v, 1e6 / eo.hi, 1e6 / eo.lo };
	struct est tm = { 1e6 / em.v, 1e6 / em.hi, 1e6 / em.lo };
	s->diff = minus(to, tm);
	ab_cfg_get(o->config, "client_cpu", s->a, sizeof(s->a));
	ab_cfg_get(o->config, "daemon_cpu", s->b, sizeof(s->b));
	ab_cfg_get(m->config, "client_cpu", s->c, sizeof(s->c));
	s->line = est_of(pair_group(r, s->a, s->b, CP_M_LINE, NULL), 1e-3);
	s->line_flagged = cp_line_disturbed(pair_median(r, s->a, s->b, CP_M_LINE_WAIT, NULL),
					    pair_median(r, s->a, s->b, CP_M_LINE_INVOL, NULL)) ||
			  s->line.v > CP_DESCHED_SHARE * pair_median(r, s->a, s->b, wm[1].rt, NULL);
	s->wake_poll = NAN;
	brk_check(r, s, o, m);
	s->method = pick_method(r, s);
	s->have_pair = known(s->line) && (pair_group(r, s->a, s->b, wm[0].rt, NULL) ||
					  pair_group(r, s->a, s->b, wm[1].rt, NULL));
	s->have_self = pair_group(r, s->c, s->c, wm[0].rt, NULL) ||
		       pair_group(r, s->c, s->c, wm[1].rt, NULL);
	if (!s->have_pair || !s->have_self || s->method < 0)
		return 0;
	s->rt = est_of(pair_group(r, s->a, s->b, wm[s->method].rt, NULL), 1);
	s->self = est_of(pair_group(r, s->c, s->c, wm[s->method].rt, NULL), 1);
	parts_of(s);
	s->wake_poll = pair_median(r, s->a, s->b, wm[s->method].rt, "poll") -
		       pair_median(r, s->c, s->c, wm[s->method].rt, "poll") - s->line.v;
	if (s->wake_poll < 0)
		s->wake_poll = NAN;	/* no time: said as the pieces in tables.md */
	return 0;
}

static int any_pair_records(const struct ab_render *r)
{
	for (size_t i = 0; i < r->res->n; i++)
		if (!strcmp(r->res->g[i].bench, CP_BENCH))
			return 1;
	return 0;
}

/* "V us [lo, hi]" */
static const char *est_text(char *buf, size_t len, struct est e)
{
	char v[32], lo[32], hi[32];

	snprintf(buf, len, "%s us [%s, %s]", ab_r_num(v, sizeof(v), e.v),
		 isfinite(e.lo) ? ab_r_num(lo, sizeof(lo), e.lo) : "unbounded",
		 isfinite(e.hi) ? ab_r_num(hi, sizeof(hi), e.hi) : "unbounded");	/* a 0 stat/s */
	return buf;
}

/* Why there is no split, or NULL when there is one. */
const char *ctf_no_split(const struct ab_render *r, const struct split *s, char *buf,
			  size_t len)
{
	char x[4][32];

	if (!any_pair_records(r))
		return "cpupair was not run in this run directory (it measures the pair's "
		       "cache-line and wake-up round trips)";
	if (!s->have_pair)
		return "cpupair did not measure this pair's cache-line and wake-up round trips";
	if (!s->have_self) {
		snprintf(buf, len, "cpupair did not measure the same-CPU round trip on CPU %s (its "
			 "records predate the diagonal), so what crossing adds to the wake-ups a "
			 "same-CPU call pays too cannot be told", s->c);
		return buf;
	}
	if (s->method >= 0)	/* a time below zero is no measurement: never quoted as one */
		return s->rt.v < 0 || s->self.v < 0 || s->line.v < 0 ? "cpupair recorded a round "
		       "trip below zero, which no time can be: no measurement to split" : NULL;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 2; i++)
			if (isfinite(s->slept[k][i]))
				snprintf(x[2 * k + i], sizeof(x[0]), "%.0f%%", s->slept[k][i]);
			else
				snprintf(x[2 * k + i], sizeof(x[0]), "not recorded");
	snprintf(buf, len, "neither cpupair's pipe nor its futex round trip slept on every wait "
		 "(waits that slept: pipe %s between the CPUs and %s on CPU %s alone, futex %s and "
		 "%s; %.0f%% needed), so neither is a wake-up's cost", x[0], x[1], s->c, x[2], x[3],
		 CP_SLEPT_MIN);
	return buf;
}

/* One sentence (with a space before it) checking the split's wake-ups w against the
 * breakdown's x; nothing when either is not known. poll: the idle-polling pair. */
static void check_text(FILE *f, double w, double x, int poll)
{
	char a[32], b[32];

	if (!isfinite(w) || !isfinite(x))
		return;
	fprintf(f, " %s breakdown's wake-up steps (daemon_wake and reply_wake, medians per call "
		   "in instrumented repetitions) took %s us %s per call on other than on same, which ",
		poll ? "With idle polling the" : "The", ab_r_num(a, sizeof(a), fabs(x)),
		x < 0 ? "less" : "more");
	if (w > 0 && x > 0 && w <= AGREE_FACTOR * x && x <= AGREE_FACTOR * w)
		fprintf(f, "agrees with the split's %s us (within a factor of %.1f either way).",
			ab_r_num(b, sizeof(b), w), AGREE_FACTOR);
	else
		fprintf(f, "does not agree with the split's %s us (not within a factor of %.1f "
			   "either way): the split's wake-up part%s is an estimate, to be read with "
			   "care.", ab_r_num(b, sizeof(b), w), AGREE_FACTOR,
			poll ? " with idle polling" : "");
}

/* The steps' means, where a tail of slow calls sets them apart from the medians. */
static void mean_text(FILE *f, const struct split *s)
{
	char a[32];

	if (isfinite(s->brk_mean) && isfinite(s->brk_wake) &&
	    fabs(s->brk_mean - s->brk_wake) > (AGREE_FACTOR - 1) * fabs(s->brk_wake))
		fprintf(f, " Their means are %s us apart: a tail of slow calls under the probes "
			   "lifts them, so the medians are the ones to compare.",
			ab_r_num(a, sizeof(a), s->brk_mean));
}

/* The measured pieces, when the model does not hold (a sentence's tail, the paragraph's end). */
static void pieces_text(FILE *f, const struct split *s)
{
	char a[64], b[64], c[64], d[32];

	fprintf(f, " The measured pieces: cpupair's %s round trip between CPUs %s and %s took %s, "
		   "on CPU %s alone %s, and the cache-line round trip of the pair %s.",
		wm[s->method].name, s->a, s->b, est_text(a, sizeof(a), s->rt), s->c,
		est_text(b, sizeof(b), s->self), est_text(c, sizeof(c), s->line));
	if (isfinite(s->brk_wake))
		fprintf(f, " The breakdown's wake-up steps took %s us %s per call on other than on "
			   "same (medians).", ab_r_num(d, sizeof(d), fabs(s->brk_wake)),
			s->brk_wake < 0 ? "less" : "more");
	if (isfinite(s->brk_rest) && s->brk_rest < 0)	/* why a part came out below zero */
		fprintf(f, " Its other steps (submit, service and return) took %s us less: FUSE's "
			   "own path is cheaper across CPUs here, which parts that are each a cost "
			   "cannot show.", ab_r_num(d, sizeof(d), -s->brk_rest));
	fprintf(f, "\n\n");
}

static void split_sentence(FILE *f, const struct split *s)
{
	char a[64], b[64], c[64], d[64], e[32], lo[32], hi[32];

	if (s->diff.v < 0) {	/* nothing to split: no time is spent by crossing */
		struct est less = { -s->diff.v, -s->diff.hi, -s->diff.lo };
		fprintf(f, "A stat() served on CPU %s for a caller on CPU %s took %s us less than one "
			   "served on the caller's CPU (%s), so there is no extra cost to split here.",
			s->b, s->a, ab_r_num(e, sizeof(e), less.v), est_text(a, sizeof(a), less));
		pieces_text(f, s);
		return;
	}
	if (!s->holds) {
		fprintf(f, "Other minus same: %s per stat() (CPU %s serving a caller on CPU %s). "
			   "Its split into cache transfers, wake-ups and FUSE's own path does not "
			   "hold on this machine: %s.", est_text(a, sizeof(a), s->diff), s->b, s->a,
			s->why);
		pieces_text(f, s);
		return;
	}
	fprintf(f, "Of the %s us a stat() served on CPU %s for a caller on CPU %s costs more than "
		   "one served on the caller's CPU ([%s, %s]), %s are the cache transfers "
		   "(cpupair's cache-line round trip of the pair%s), %s the wake-ups crossing adds "
		   "(its %s round trip between the CPUs less that on CPU %s alone%s; every wait "
		   "slept) and %s FUSE's own path (what remains; a part "
		   "below 0 within its interval reads 0).", ab_r_num(e, sizeof(e), s->diff.v),
		s->b, s->a, ab_r_num(lo, sizeof(lo), s->diff.lo), ab_r_num(hi, sizeof(hi), s->diff.hi),
		s->line_flagged ? "none apart" : est_text(b, sizeof(b), s->cache),
		s->line_flagged ? ", flagged: a spinner lost its CPU, so they stay inside the "
				  "wake-ups' part" : "", est_text(c, sizeof(c), s->wake),
		wm[s->method].name, s->c, s->line_flagged ? "" : " and less the cache line",
		est_text(d, sizeof(d), s->fuse));
	check_text(f, s->wake.v, s->brk_wake, 0);
	mean_text(f, s);
	if (isfinite(s->wake_poll))
		fprintf(f, " With idle polling the wake-ups crossing adds cost %s us.",
			ab_r_num(e, sizeof(e), s->wake_poll));
	check_text(f, s->wake_poll, s->brk_wake_poll, 1);
	fprintf(f, "\n\n");
}

/* The split's rows and the breakdown's beside them (tables.md). */
static void split_table(FILE *f, const struct split *s)
{
	char a[64];

	fprintf(f, "Other minus same, split (us per stat(), CPUs %s and %s, same on CPU %s; "
		   "cpupair's %s round trips; median [95%% CI]):\n\n| part | us per stat() |\n"
		   "|---|---|\n", s->a, s->b, s->c, wm[s->method].name);
	if (s->holds) {
		fprintf(f, "| cache transfers (cache-line round trip) | %s |\n", s->line_flagged ?
			"none apart (the pair's line was flagged: a spinner lost its CPU)" :
			est_text(a, sizeof(a), s->cache));
		fprintf(f, "| wake-ups crossing adds (round trip between the CPUs less on one, "
			   "less the line) | %s |\n", est_text(a, sizeof(a), s->wake));
		fprintf(f, "| FUSE's own path (what remains) | %s |\n", est_text(a, sizeof(a), s->fuse));
	} else {
		if (s->diff.v < 0)
			fprintf(f, "| nothing to split: a stat() served on the other CPU is faster | - |\n");
		else
			fprintf(f, "| the model does not hold: %s | - |\n", s->why);
		fprintf(f, "| %s round trip between the CPUs | %s |\n", wm[s->method].name,
			est_text(a, sizeof(a), s->rt));
		fprintf(f, "| %s round trip on CPU %s alone | %s |\n", wm[s->method].name, s->c,
			est_text(a, sizeof(a), s->self));
		fprintf(f, "| cache-line round trip | %s |\n", est_text(a, sizeof(a), s->line));
	}
	fprintf(f, "| other minus same | %s |\n", est_text(a, sizeof(a), s->diff));
	if (s->holds && isfinite(s->wake_poll))
		fprintf(f, "| wake-ups with idle polling (cpupair --idle poll) | %s |\n",
			ab_r_num(a, sizeof(a), s->wake_poll));
	if (isfinite(s->brk_wake))
		fprintf(f, "| breakdown's wake-up steps, other less same (daemon_wake + "
			   "reply_wake, medians, us per call) | %s |\n",
			ab_r_num(a, sizeof(a), s->brk_wake));
	if (s->holds && isfinite(s->wake_poll) && isfinite(s->brk_wake_poll))
		fprintf(f, "| breakdown's wake-up steps with idle polling, other less same | %s |\n",
			ab_r_num(a, sizeof(a), s->brk_wake_poll));
	fprintf(f, "\n");
	if (!s->holds || (!isfinite(s->brk_wake) &&
			  !(isfinite(s->wake_poll) && isfinite(s->brk_wake_poll))))
		return;
	fprintf(f, "Check:");
	check_text(f, s->wake.v, s->brk_wake, 0);
	check_text(f, s->wake_poll, s->brk_wake_poll, 1);
	fprintf(f, "\n\n");
}

void ctf_split(struct ab_render *r, int reading)
{
	struct split s;
	char buf[512], a[32];
	const char *why;

	if (ctf_split_of(r, &s) < 0)
		return;
	if ((why = ctf_no_split(r, &s, buf, sizeof(buf)))) {
		fprintf(r->out, "Other minus same: %s us per stat(). Its split into cache transfers, "
				"wake-ups and FUSE's own path cannot be given: %s.\n\n",
			ab_r_num(a, sizeof(a), s.diff.v), why);
		return;
	}
	if (reading)
		split_sentence(r->out, &s);
	else
		split_table(r->out, &s);
}
