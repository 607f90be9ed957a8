/*
 * What moves cputestfs's ratios. The levers table: other/same, none/same,
 * uring/libfuse at each idle policy and --daemon-wait swept, beside the
 * server's CPU per request and the CPUs' idle share. The split of "other
 * minus same" (us per stat()) into
 *   - the cache transfers: cpupair's cache-line round trip of the pair the
 *     other placement used (one round trip a stat(): the request's lines go
 *     to the daemon's CPU, the reply's come back);
 *   - the wake-ups: cpupair's futex wake-up round trip of that pair (two
 *     wake-ups, as a stat() served elsewhere pays) less its cache-line part,
 *     and with idle polling when cpupair ran with --idle poll;
 *   - what remains: FUSE's own path.
 * cpupair's records are read by its name from the same results: a reading
 * across benchmarks belongs in a benchmark's folder, not in lib/.
 * The wake-up part is checked against the request breakdown of the same two
 * configs (brk_*, instrumented repetitions, docs/breakdown.md): its wake-up
 * steps' mean time per call (daemon_wake + reply_wake) on other less that on
 * same, as found and with idle polling. The two agree when both are positive
 * and within AGREE_FACTOR of each other either way; without brk records
 * nothing is said.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/gpscript.h"
#include "report/levers.h"
#include "report/render_breakdown.h"
#include "report/reading.h"
#include "cputestfs.h"
#include "desc_levers.h"
#include "desc_pub.h"

#define PAIR_BENCH "cpupair"
#define PAIR_LINE "line_rt_ns"
#define PAIR_FUTEX "futex_rt_us"
#define AGREE_FACTOR 1.5	/* the split's wake-ups and the breakdown's agree within it */

static const char *const lp_same[] = { "placement=same", "daemon=single", "baseline=fuse",
				       "transport=libfuse|", "idle=poll", NULL };
static const char *const lp_other[] = { "placement=other", "daemon=single", "baseline=fuse",
					"transport=libfuse|", "idle=poll", NULL };
static const char *const d_same[] = { "placement=same", "daemon=single", "baseline=fuse",
				      "transport=dev", NULL };
static const char *const d_other[] = { "placement=other", "daemon=single", "baseline=fuse",
				       "transport=dev", NULL };
static const char *const u_none[] = { "placement=none", "daemon=percpu", "baseline=fuse",
				      "transport=uring", "uring_cpu=queue|", NULL };

static const struct ab_lever_ratio ratios[] = {
	{ "other/same (libfuse)", ctf_w_other, ctf_w_same },
	{ "none/same (libfuse)", ctf_w_none, ctf_w_same },
	{ "other/same (dev)", d_other, d_same },
	{ "uring/libfuse (none)", u_none, ctf_w_none },
};
static const struct ab_lever_key keys[] = { { "idle", "as-found" }, { "daemon_wait", "block" } };
static const struct ab_levers levers = { CTF_M_STAT, CTF_M_SCPU, ratios, 4, keys, 2 };

struct split {
	double diff, cache, wake, wake_poll, fuse;	/* us per stat() */
	double brk_wake, brk_wake_poll;	/* the breakdown's wake-up steps, other less same (us
					 * per call); NAN: not recorded on both sides */
	char a[32], b[32];				/* the pair: client and daemon CPU */
	int have_pair;					/* cpupair measured the pair */
};

/* metric of cpupair for the pair (either order) under idle (NULL: as found). */
static double pair_value(const struct ab_render *r, const struct split *s, const char *metric,
			 const char *idle)
{
	char x[48], y[48], id[48];

	snprintf(id, sizeof(id), "idle=%.30s", idle ? idle : "as-found|");
	for (int k = 0; k < 2; k++) {
		snprintf(x, sizeof(x), "cpu_a=%.31s", k ? s->b : s->a);
		snprintf(y, sizeof(y), "cpu_b=%.31s", k ? s->a : s->b);
		const char *want[] = { x, y, id, NULL };
		const struct ab_group *g = ab_results_find(r->res, PAIR_BENCH, metric, want);
		if (g)
			return ab_r_median(g);
	}
	return NAN;
}

/* The wake-up steps' mean time per call (us) in the breakdown of g's config; NAN when
 * its instrumented repetitions recorded none. */
static double brk_wake_of(const struct ab_breakdown_bar *b, int n, const struct ab_group *g)
{
	for (int i = 0; g && i < n; i++)
		if (!strcmp(b[i].config, g->config))
			return b[i].step_us[AB_BREAKDOWN_DWAKE] + b[i].step_us[AB_BREAKDOWN_RWAKE];
	return NAN;
}

/* The breakdown's wake-up steps on other less same: as found and with idle polling
 * (the stat() records' configs, so the same points the split reads). */
static void brk_check(struct ab_render *r, struct split *s, const struct ab_group *o,
		      const struct ab_group *m)
{
	struct ab_breakdown_bar b[AB_BREAKDOWN_BARS];
	char keys[256];
	int n = ab_breakdown_bars(r->res, r->desc, b, AB_BREAKDOWN_BARS, keys, sizeof(keys));

	s->brk_wake = brk_wake_of(b, n, o) - brk_wake_of(b, n, m);
	s->brk_wake_poll = brk_wake_of(b, n, ab_r_find(r, CTF_M_STAT, lp_other)) -
			   brk_wake_of(b, n, ab_r_find(r, CTF_M_STAT, lp_same));
}

/* Do the split's wake-ups (w) and the breakdown's (x) agree (both positive, within
 * AGREE_FACTOR either way)? */
static int agree(double w, double x)
{
	return w > 0 && x > 0 && w <= AGREE_FACTOR * x && x <= AGREE_FACTOR * w;
}

/* 0: split made; -1: other and same not both measured (as found). */
static int split_of(struct ab_render *r, struct split *s)
{
	const struct ab_group *o = ab_r_find(r, CTF_M_STAT, ctf_w_other);
	const struct ab_group *m = ab_r_find(r, CTF_M_STAT, ctf_w_same);

	memset(s, 0, sizeof(*s));
	if (!o || !m || !(ab_r_median(o) > 0) || !(ab_r_median(m) > 0))
		return -1;
	s->diff = 1e6 / ab_r_median(o) - 1e6 / ab_r_median(m);
	ab_cfg_get(o->config, "client_cpu", s->a, sizeof(s->a));
	ab_cfg_get(o->config, "daemon_cpu", s->b, sizeof(s->b));
	double line = pair_value(r, s, PAIR_LINE, NULL) / 1000;
	double futex = pair_value(r, s, PAIR_FUTEX, NULL);
	s->have_pair = isfinite(line) && isfinite(futex);
	s->cache = line;
	s->wake = futex - line;
	s->wake_poll = pair_value(r, s, PAIR_FUTEX, "poll") - line;
	s->fuse = s->diff - s->cache - s->wake;
	brk_check(r, s, o, m);
	return 0;
}

static int any_pair_records(const struct ab_render *r)
{
	for (size_t i = 0; i < r->res->n; i++)
		if (!strcmp(r->res->g[i].bench, PAIR_BENCH))
			return 1;
	return 0;
}

/* One sentence (with a space before it) checking the split's wake-ups w against the
 * breakdown's x; nothing when either is not known. poll: the idle-polling pair. */
static void check_text(FILE *f, double w, double x, int poll)
{
	char a[32], b[32];

	if (!isfinite(w) || !isfinite(x))
		return;
	fprintf(f, " %s breakdown's wake-up steps (daemon_wake and reply_wake, instrumented "
		   "repetitions) took %s us %s per call on other than on same, which ",
		poll ? "With idle polling the" : "The", ab_r_num(a, sizeof(a), fabs(x)),
		x < 0 ? "less" : "more");
	if (agree(w, x))
		fprintf(f, "agrees with the split's %s us (within a factor of %.1f either way).",
			ab_r_num(b, sizeof(b), w), AGREE_FACTOR);
	else
		fprintf(f, "does not agree with the split's %s us (not within a factor of %.1f "
			   "either way): the split's wake-up part%s is an estimate, to be read with "
			   "care.", ab_r_num(b, sizeof(b), w), AGREE_FACTOR,
			poll ? " with idle polling" : "");
}

/* The split's rows and the breakdown's beside them (tables.md). */
static void split_table(FILE *f, const struct split *s)
{
	char a[32], b[32], c[32], d[32];

	fprintf(f, "Other minus same, split (us per stat(), CPUs %s and %s; cpupair's round "
		   "trips of that pair):\n\n| part | us per stat() |\n|---|---|\n"
		   "| cache transfers (cache-line round trip) | %s |\n"
		   "| wake-ups (futex round trip less its cache line) | %s |\n"
		   "| FUSE's own path (what remains) | %s |\n| other minus same | %s |\n",
		s->a, s->b, ab_r_num(a, sizeof(a), s->cache), ab_r_num(b, sizeof(b), s->wake),
		ab_r_num(c, sizeof(c), s->fuse), ab_r_num(d, sizeof(d), s->diff));
	if (isfinite(s->wake_poll))
		fprintf(f, "| wake-ups with idle polling (cpupair --idle poll) | %s |\n",
			ab_r_num(a, sizeof(a), s->wake_poll));
	if (isfinite(s->brk_wake))
		fprintf(f, "| breakdown's wake-up steps, other less same (daemon_wake + "
			   "reply_wake, us per call) | %s |\n", ab_r_num(a, sizeof(a), s->brk_wake));
	if (isfinite(s->wake_poll) && isfinite(s->brk_wake_poll))
		fprintf(f, "| breakdown's wake-up steps with idle polling, other less same | %s |\n",
			ab_r_num(a, sizeof(a), s->brk_wake_poll));
	fprintf(f, "\n");
	if (!isfinite(s->brk_wake) && !(isfinite(s->wake_poll) && isfinite(s->brk_wake_poll)))
		return;
	fprintf(f, "Check:");
	check_text(f, s->wake, s->brk_wake, 0);
	check_text(f, s->wake_poll, s->brk_wake_poll, 1);
	fprintf(f, "\n\n");
}

static void split_text(struct ab_render *r, const struct split *s, int reading)
{
	FILE *f = r->out;
	char a[32], b[32], c[32], d[32], e[32];

	if (!s->have_pair) {
		fprintf(f, "Other minus same: %s us per stat(). Its split into cache transfers, "
			   "wake-ups and FUSE's own path cannot be given: %s.\n\n",
			ab_r_num(a, sizeof(a), s->diff), any_pair_records(r) ?
			"cpupair did not measure this pair's cache-line and futex round trips" :
			"cpupair was not run in this run directory (it measures the pair's "
			"cache-line and wake-up round trips)");
		return;
	}
	if (!reading) {
		split_table(f, s);
		return;
	}
	fprintf(f, "Of the %s us a stat() served on CPU %s for a caller on CPU %s costs more than "
		   "one served on the caller's CPU, %s us are the cache transfers (cpupair's "
		   "cache-line round trip of the pair), %s us the wake-ups (its futex round trip "
		   "less that) and %s us FUSE's own path.", ab_r_num(a, sizeof(a), s->diff), s->b,
		s->a, ab_r_num(b, sizeof(b), s->cache), ab_r_num(c, sizeof(c), s->wake),
		ab_r_num(d, sizeof(d), s->fuse));
	check_text(f, s->wake, s->brk_wake, 0);
	if (isfinite(s->wake_poll))
		fprintf(f, " With idle polling the wake-ups cost %s us.",
			ab_r_num(e, sizeof(e), s->wake_poll));
	check_text(f, s->wake_poll, s->brk_wake_poll, 1);
	fprintf(f, "\n\n");
}

void ctf_levers(struct ab_render *r, int reading)
{
	struct split s;

	ab_levers_table(r, &levers, reading);
	if (split_of(r, &s) == 0)
		split_text(r, &s, reading);
}

int ctf_ratios(struct ab_render *r, struct ab_named_ratio *out, int max)
{
	return ab_levers_ratios(r, &levers, out, max);
}

void ctf_levers_plot(struct ab_render *r)
{
	static const char *const parts[] = { "cache transfers", "wake-ups", "FUSE's own path" };
	struct split s;

	if (split_of(r, &s) < 0 || !s.have_pair)
		return;
	FILE *d = ab_plot_file(r, "cputestfs_split.dat");
	if (!d)
		return;
	fprintf(d, "# part: cache wake fuse, us per stat()\n\"other - same\" %.6g %.6g %.6g\n",
		s.cache, s.wake, s.fuse);
	ab_plot_file_close(r, d, "cputestfs_split.dat");
	FILE *f = ab_plot_begin(r);
	if (!f)
		return;
	/* a stacked bar: its top is the sum of the parts that are above 0 */
	double top = 0;
	for (int k = 0; k < 3; k++) {
		double v = k == 0 ? s.cache : k == 1 ? s.wake : s.fuse;
		top += isfinite(v) && v > 0 ? v : 0;
	}
	ab_plot_set(f, "title", "cputestfs: other minus same, split (us per stat())");
	ab_plot_set(f, "xlabel", "libfuse, one daemon thread, the idle policy as found");
	ab_plot_set(f, "ylabel", "us per stat()");
	fprintf(f, "set yrange [0:%.6g]\n", top > 0 ? top * 1.1 : 1);
	fprintf(f, "set style data histograms\nset style histogram rowstacked\n"
		   "set style fill solid 0.7 border -1\nset boxwidth 0.5\n"
		   "set key outside right top vertical noenhanced\n"
		   "set key title 'bars: parts of the difference of medians' noenhanced\nplot ");
	for (int k = 0; k < 3; k++) {
		fprintf(f, "%s'cputestfs_split.dat' using %d%s title ", k ? ", " : "", 2 + k,
			k ? "" : ":xtic(1)");
		ab_gp_string(f, parts[k]);
	}
	fprintf(f, "\n");
	/* the key beside the bar: the title is centred on the plot area, which the key
	 * pushes left, so the figure is wide enough for both */
	ab_plot_end(r, f, "cputestfs_split", 760, 480);
}
