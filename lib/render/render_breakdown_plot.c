// SPDX-License-Identifier: GPL-2.0
/*
 * "Where the time goes" as figures (render_breakdown.h): a stacked bar per
 * configuration, each step's mean per call, as a .dat and a .gp in the run
 * directory; split into a few figures by one label key when there are too many
 * bars to read. The bars come from render_breakdown.c.
 */
#include "render/render_breakdown_i.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/gpscript.h"
#include "render/render.h"
#include "render/render_plot.h"
#include "render/desc.h"

#define SPLIT_ABOVE 16		/* more bars than this: one figure per value of a key */
#define MAX_FIGS 6

/* ---- the stacked bars ---- */

/*
 * The label key to split the bars by, or -1: 2 to MAX_FIGS values; among the keys
 * whose largest figure holds at most SPLIT_ABOVE bars, the one with the fewest
 * figures (ddpar's mode); else the one with the smallest largest figure (ddpar's N).
 */
static int split_key(const struct breakdown_set *s, char vals[][AB_VALUE_LEN], int *nv)
{
	int best = -1, bestn = 0, bestmax = 0;

	for (int k = 0; k < s->nk; k++) {
		char v[MAX_FIGS + 1][AB_VALUE_LEN];
		int n = 0, cnt[MAX_FIGS + 1] = { 0 }, most = 0;
		for (int i = 0; i < s->n && n <= MAX_FIGS; i++) {
			char x[AB_VALUE_LEN];
			int j;
			ab_cfg_get(s->b[i].config, s->key[k], x, sizeof(x));
			for (j = 0; j < n && strcmp(v[j], x); j++)
				;
			if (j == n && n <= MAX_FIGS)
				snprintf(v[n++], AB_VALUE_LEN, "%s", x);
			if (j < n)
				most = ++cnt[j] > most ? cnt[j] : most;
		}
		if (n < 2 || n > MAX_FIGS)
			continue;
		int fits = most <= SPLIT_ABOVE, best_fits = bestmax <= SPLIT_ABOVE;
		if (best < 0 || (fits && (!best_fits || n < bestn)) ||
		    (!fits && !best_fits && most < bestmax)) {
			best = k;
			bestn = n;
			bestmax = most;
			memcpy(vals, v, sizeof(v[0]) * (size_t)n);
		}
	}
	*nv = bestn;
	return best;
}

/* Field f of a ':'-joined list into buf ("" past the end). */
static const char *field(char *buf, size_t len, const char *list, int f)
{
	for (; f > 0 && list; f--)
		list = (list = strchr(list, ':')) ? list + 1 : NULL;
	snprintf(buf, len, "%.*s", list ? (int)strcspn(list, ":") : 0, list ? list : "");
	return buf;
}

/* s's label fields (and keys) that vary among the bars of in[]: a key the same for
 * every bar of a figure (the key it was split by) is said once, in the title. */
static unsigned varying_fields(const struct breakdown_set *s, const int *in, int nin)
{
	unsigned mask = 0;

	for (int f = 0; f < 32; f++)
		for (int i = 1; i < nin; i++) {
			char a[AB_BREAKDOWN_LABEL], b[AB_BREAKDOWN_LABEL];
			if (strcmp(field(a, sizeof(a), s->b[in[0]].label, f),
				   field(b, sizeof(b), s->b[in[i]].label, f)))
				mask |= 1u << f;
		}
	return mask ? mask : ~0u;	/* one bar: its whole label */
}

/* The fields of list in mask, ':'-joined, into buf. */
static const char *pick(char *buf, size_t len, const char *list, unsigned mask)
{
	char v[AB_BREAKDOWN_LABEL];

	buf[0] = '\0';
	for (int f = 0; f < 32 && field(v, sizeof(v), list, f)[0]; f++)
		if (mask & (1u << f))
			ab_r_addf(buf, len, "%s%s", buf[0] ? ":" : "", v);
	return buf;
}

/* Lines below the bars: a tick label of n characters slanted by 30 degrees reaches
 * about 4 px (half of 8) down a character, a line is about 15 px, and the x label
 * needs two more. */
static int bmargin(int n)
{
	int m = 3 + (n * 4 + 14) / 15;

	return m > 7 ? m : 7;
}

static void one_plot(struct ab_render *r, const struct breakdown_set *s, int sk, const char *sv,
		     const char *name)
{
	char file[96], title[256];
	double top = 0;
	int nb = 0;

	snprintf(file, sizeof(file), "%s.dat", name);
	FILE *d = ab_plot_file(r, file);
	if (!d)
		return;
	fprintf(d, "# %s, then the mean us per call of submit daemon_wake service reply_wake "
		   "return, then the call\n", s->keys[0] ? s->keys : "config");
	int in[AB_BREAKDOWN_BARS], nin = 0;
	char label[AB_BREAKDOWN_LABEL], keys[sizeof(s->keys)];
	for (int i = 0; i < s->n; i++) {
		char v[AB_VALUE_LEN];
		if (sk < 0 || !strcmp(ab_cfg_get(s->b[i].config, s->key[sk], v, sizeof(v)), sv))
			in[nin++] = i;
	}
	unsigned mask = varying_fields(s, in, nin);
	int longest = 0;	/* characters of the longest tick label */
	for (int j = 0; j < nin; j++) {
		int i = in[j];
		ab_gp_label(d, pick(label, sizeof(label), s->b[i].label, mask));
		longest = (int)strlen(label) > longest ? (int)strlen(label) : longest;
		for (int k = 0; k < AB_BREAKDOWN_NSTEP; k++)	/* every step: a bar has all */
			fprintf(d, " %.6g", s->b[i].step_us[k]);
		fprintf(d, " %.6g\n", s->b[i].call_us);
		top = fmax(top, isfinite(s->b[i].call_us) ? s->b[i].call_us : 0);
		nb++;
	}
	ab_plot_file_close(r, d, file);
	if (!nb)	/* gnuplot fails on a histogram with no point: no figure */
		return;
	FILE *f = ab_plot_begin(r);
	if (!f)
		return;
	snprintf(title, sizeof(title), "%s: where the time goes, mean per call by step",
		 r->desc->name);
	if (sk >= 0)
		ab_r_addf(title, sizeof(title), " (%s=%s)", s->key[sk], sv);
	ab_plot_set(f, "title", title);
	ab_plot_set(f, "ylabel", "us per call");
	pick(keys, sizeof(keys), s->keys, mask);
	ab_plot_set(f, "xlabel", keys[0] ? keys : "configuration");
	ab_gp_yrange(f, top);
	fprintf(f, "set style data histograms\nset style histogram rowstacked\n"
		   "set style fill solid 0.7 border -1\nset boxwidth 0.7\n"
		   "set key outside right top vertical noenhanced\n"
		   "set xtics nomirror noenhanced rotate by 30 right\nset bmargin %d\n"
		   "set lmargin 16\n",	/* the first label, slanted left, stays inside */
		bmargin(longest));
	ab_plot_set(f, "key title", "bars: step means");
	fprintf(f, "plot ");
	/* a call without all its steps is no bar (ab_breakdown_bars): no column is all nan,
	 * which gnuplot refuses ("No valid points in histogram") */
	for (int k = 0; k < AB_BREAKDOWN_NSTEP; k++) {
		fprintf(f, "%s'%s' using %d%s title ", k ? ", " : "", file, 2 + k, k ? "" : ":xtic(1)");
		ab_gp_string(f, ab_breakdown_step_names[k]);
	}
	fprintf(f, "\n");
	/* wide enough for the title (about 8 px a character) and the key beside the bars */
	int width = 400 + 70 * nb, need = 8 * (int)strlen(title) + 80;
	ab_plot_end(r, f, name, width > need ? width : need, 400 + 15 * bmargin(longest));
}

void ab_breakdown_plots(struct ab_render *r)
{
	struct breakdown_set *s = ab_breakdown_set_load(r);
	char vals[MAX_FIGS + 1][AB_VALUE_LEN], name[64];
	int nv = 0;

	if (!s)
		return;
	int sk = s->n > SPLIT_ABOVE ? split_key(s, vals, &nv) : -1;
	if (sk < 0) {
		snprintf(name, sizeof(name), "%.40s_brk", r->desc->name);
		one_plot(r, s, -1, NULL, name);
	} else {
		for (int i = 0; i < nv; i++) {
			snprintf(name, sizeof(name), "%.40s_brk%d", r->desc->name, i + 1);
			one_plot(r, s, sk, vals[i], name);
		}
	}
	free(s);
}
