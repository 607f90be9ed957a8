// SPDX-License-Identifier: GPL-2.0
/*
 * Heatmaps: an n x n matrix of medians drawn by gnuplot "with image", one
 * pixel per cell, row 0 at the top as a matrix is read. The matrix comes from
 * records, which come from files anyone may send: its size is bounded by
 * AB_HEAT_MAX, only numbers are written into the .dat and the axis ticks, and
 * every text goes through ab_plot_set (lib/render/gpscript.h). The colour
 * scale starts at 0 (two matrices of one scale read alike; a narrow spread is
 * no black against yellow), its key names the unit, its top colour is not the
 * white of a cell not measured, and the key says both what white is and what
 * the marked diagonal holds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/gpscript.h"
#include "render/render_heat.h"
#include "render/render.h"
#include "render/render_plot.h"

int ab_heat_init(struct ab_heat *h, int n)
{
	memset(h, 0, sizeof(*h));
	if (n < 1 || n > AB_HEAT_MAX)
		return -1;
	h->v = malloc(sizeof(*h->v) * (size_t)n * (size_t)n);
	h->label = malloc(sizeof(*h->label) * (size_t)n);
	if (!h->v || !h->label) {
		ab_heat_free(h);
		return -1;
	}
	h->n = n;
	for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
		h->v[i] = NAN;
	for (int i = 0; i < n; i++)
		h->label[i] = -1;
	h->cbmax = NAN;
	return 0;
}

void ab_heat_free(struct ab_heat *h)
{
	free(h->v);
	free(h->label);
	memset(h, 0, sizeof(*h));
}

/* NAME.dat: "column row value" per cell, a blank line after each row (gnuplot's
 * grid format); cells not measured are NaN, drawn as the background. */
static int heat_dat(struct ab_render *r, const struct ab_heat *h, const char *dat)
{
	size_t cells = (size_t)h->n * (size_t)h->n, i;

	for (i = 0; i < cells && !isfinite(h->v[i]); i++)
		;
	FILE *f = i < cells ? ab_plot_file(r, dat) : NULL;	/* a blank matrix: no file */
	if (!f)
		return 0;
	fprintf(f, "# column row value (NaN: not measured)\n");
	for (int y = 0; y < h->n; y++) {
		for (int x = 0; x < h->n; x++) {
			double v = h->v[(size_t)y * (size_t)h->n + (size_t)x];
			if (isfinite(v))
				fprintf(f, "%d %d %.6g\n", x, y, v);
			else
				fprintf(f, "%d %d NaN\n", x, y);
		}
		fprintf(f, "\n");
	}
	ab_plot_file_close(r, f, dat);
	return 1;
}

/* Ticks named by the labels (numbers) when they fit, else gnuplot's own. */
static void heat_tics(FILE *f, const struct ab_heat *h, const char *axis)
{
	if (h->n > 32) {
		fprintf(f, "set %s autofreq\n", axis);
		return;
	}
	fprintf(f, "set %s (", axis);
	for (int i = 0; i < h->n; i++)
		if (h->label[i] >= 0)
			fprintf(f, "%s\"%d\" %d", i ? ", " : "", h->label[i], i);
		else
			fprintf(f, "%s\"\" %d", i ? ", " : "", i);
	fprintf(f, ")\n");
}

/* The colour scale's top: h->cbmax, else the largest cell; 1 when nothing is above 0. */
static double heat_top(const struct ab_heat *h)
{
	double top = 0;

	if (isfinite(h->cbmax) && h->cbmax > 0)
		return h->cbmax;
	for (size_t i = 0; i < (size_t)h->n * (size_t)h->n; i++)
		if (isfinite(h->v[i]) && h->v[i] > top)
			top = h->v[i];
	return top > 0 ? top : 1;
}

/* The key's entries: white cells, and the diagonal marked by a circle on each cell. */
static void heat_plot_line(FILE *f, const struct ab_heat *h, const char *dat)
{
	if (h->diag) {
		fprintf(f, "$diag << EOD\n");
		for (int i = 0; i < h->n; i++)
			fprintf(f, "%d %d\n", i, i);
		fprintf(f, "EOD\n");
	}
	fprintf(f, "plot '%s' using 1:2:3 with image notitle, NaN with boxes fs empty "
		   "lc rgb '#000000' title 'white: not measured'", dat);
	if (h->diag) {
		fprintf(f, ", $diag using 1:2 with points pt 6 ps 1.5 lc rgb '#cc3311' title ");
		ab_gp_string(f, h->diag);
	}
	fprintf(f, "\n");
}

int ab_heat_plot(struct ab_render *r, const struct ab_heat *h, const char *name, const char *title,
		 const char *xlabel, const char *ylabel, const char *cblabel)
{
	char dat[96];
	int px = 360 + 16 * (h->n < 40 ? h->n : 40);

	if (!r->dir || h->n < 1)
		return 0;
	snprintf(dat, sizeof(dat), "%s.dat", name);
	if (!heat_dat(r, h, dat))
		return 0;
	FILE *f = ab_plot_begin(r);
	if (!f)
		return 0;
	ab_plot_set(f, "title", title);
	ab_plot_set(f, "xlabel", xlabel);
	ab_plot_set(f, "ylabel", ylabel);
	ab_plot_set(f, "cblabel", cblabel);
	fprintf(f, "unset grid\nset size ratio -1\nset tics out nomirror\n"
		   "set key below center vertical Left reverse samplen 2 noenhanced\n"
		   "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\nset cbrange [0:%.6g]\n"
		   "set colorbox\nset palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', "
		   "3 '#5ec962', 4 '#fde725')\nset xtics rotate by -90\n", h->n - 1, h->n - 1,
		heat_top(h));
	heat_tics(f, h, "xtics");
	heat_tics(f, h, "ytics");
	heat_plot_line(f, h, dat);
	/* wide enough for the title too: about 8 px a character, centred on the square;
	 * the key below takes a few lines */
	int need = 8 * (int)strlen(title) + 80;
	ab_plot_end(r, f, name, px + 320 > need ? px + 320 : need, px + 60);
	return 1;
}
