// SPDX-License-Identifier: GPL-2.0
/* Escaping for gnuplot scripts and data files (see gpscript.h). */
#include "render/gpscript.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record/stats.h"

void ab_gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\'')
			fputs("''", f);
		else
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
	fputc('\'', f);
}

void ab_gp_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		char c = *s;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 (c && strchr("_.,:;=+-", c));
		fputc(ok ? c : '_', f);
	}
	fputc('"', f);
}

void ab_gp_yrange(FILE *f, double top)
{
	/* a panel before may have set a log axis */
	fputs("unset logscale y\nset ytics autofreq\nset format y '%g'\n", f);
	if (isfinite(top) && top < 0) {	/* every bar below zero: [0:*] would hold none */
		fputs("set yrange [*:0]\n", f);
		return;
	}
	if (!(top > 0) || !isfinite(top)) {
		fputs("set yrange [0:*]\n", f);
		return;
	}
	/* room above the highest bar; 1.7e308 * 1.08 is inf, which gnuplot fails on */
	fprintf(f, "set yrange [0:%.6g]\n", fmin(top * 1.08, AB_GP_YMAX));
}

/* 1, 2 and 5 of each decade in [lo, hi] (every third, the decades alone, when every is 3)
 * into t[*n], at most max. */
static void tics_125(double lo, double hi, int every, double *t, int *n, int max)
{
	/* from the decade at or below lo, but no lower than DBL_MIN's: below it (a denormal
	 * lo) pow() underflows to 0, and 0 * 10 would never pass hi */
	for (double d = pow(10, floor(log10(fmax(lo, DBL_MIN)))); d <= hi; d *= 10)
		for (int k = 0; k < 3; k += every) {
			double v = d * (k == 0 ? 1 : k == 1 ? 2 : 5);
			if (v >= lo && v <= hi && *n < max)
				t[(*n)++] = v;
		}
}

static void tics_write(FILE *f, const char *axis, const double *t, int n)
{
	fprintf(f, "set %stics (", axis);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%.6g", i ? ", " : "", t[i]);
	fputs(")\n", f);
}

/* 1, 2, 5 in each decade: gnuplot labels only the decades, two or three here; past
 * 2.5 decades the decades alone, or "100k200k" labels run together on a panel */
static int tics_every(double lo, double hi)
{
	return log10(hi / lo) > 2.5 ? 3 : 1;
}

void ab_gp_logtics(FILE *f, const char *axis, double lo, double hi)
{
	double t[AB_GP_TICS_MAX];
	int n = 0;

	if (!(lo > 0) || !(hi > lo) || !isfinite(hi))
		return;
	tics_125(lo, hi, tics_every(lo, hi), t, &n, AB_GP_TICS_MAX);
	tics_write(f, axis, t, n);
}

void ab_gp_logtics_band(FILE *f, const char *axis, double lo, double hi, double blo, double bhi)
{
	double t[AB_GP_TICS_MAX], in[AB_GP_TICS_MAX], gap;
	int n = 0, ni = 0, k = 0;

	if (!(lo > 0) || !(hi > lo) || !isfinite(hi))
		return;
	blo = fmax(blo, lo), bhi = fmin(bhi, hi);
	tics_125(lo, hi, tics_every(lo, hi), t, &n, AB_GP_TICS_MAX);
	for (int i = 0; i < n; i++)
		ni += t[i] >= blo && t[i] <= bhi;
	if (ni || !(bhi >= blo)) {
		tics_write(f, axis, t, n);
		return;
	}
	/* no tick where the data are (30k-90k on an axis to 18M labelled from 100k): the
	 * 1, 2, 5 inside the band, else its middle to one digit; the ticks too near them
	 * (labels that would run together) give way */
	tics_125(blo, bhi, 1, in, &ni, AB_GP_TICS_MAX / 2);
	if (!ni) {
		double mid = sqrt(blo * bhi), d = pow(10, floor(log10(mid)));
		in[ni++] = round(mid / d) * d;
	}
	gap = fmax(0.25, 0.12 * log10(hi / lo));
	for (int i = 0; i < n; i++) {
		int near = 0;
		for (int j = 0; j < ni; j++)
			near |= fabs(log10(t[i] / in[j])) < gap;
		if (!near)
			t[k++] = t[i];
	}
	for (int j = 0; j < ni && k < AB_GP_TICS_MAX; j++)
		t[k++] = in[j];
	qsort(t, (size_t)k, sizeof(t[0]), ab_cmp_double);
	tics_write(f, axis, t, k);
}

int ab_gp_yrange_auto(FILE *f, double low, double top)
{
	if (!(low > 0) || !isfinite(low) || !(top > low * AB_GP_LOG_SPREAD) || !isfinite(top) ||
	    top > AB_GP_YMAX) {
		ab_gp_yrange(f, top);
		return 0;
	}
	/* a linear axis would flatten everything near low against zero */
	double lo = low / 1.25, hi = top * 1.25;
	fprintf(f, "set logscale y\nset yrange [%.6g:%.6g]\n", lo, hi);
	ab_gp_logtics(f, "y", lo, hi);
	return 1;
}

/* Twelve colours far apart in hue and lightness (Paul Tol's "muted" and
 * "bright" sets), each with its own dash type: a line stays told apart from
 * the other eleven in colour, in grey print and to a colour-blind reader. */
static const char *const palette[AB_GP_LINES] = {
	"#0077bb", "#ee7733", "#009988", "#cc3311", "#33bbee", "#ee3377",
	"#000000", "#aa4499", "#999933", "#882255", "#44aa99", "#ddaa33",
};

void ab_gp_palette(FILE *f)
{
	/* linetypes outlive "reset", so once at the top holds for both terminals */
	for (int i = 0; i < AB_GP_LINES; i++)
		fprintf(f, "set linetype %d lc rgb '%s' lw 1.5 dt %d pt %d\n", i + 1, palette[i],
			i % 5 + 1, i + 1);
	fprintf(f, "set linetype cycle %d\n", AB_GP_LINES);
}
