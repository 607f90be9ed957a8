/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Heatmaps (render_heat.c). A heatmap: an n x n matrix (e.g. one value per pair
 * of CPUs), rows and columns in the caller's order, each row or column named by
 * a number (a CPU, -1 for none). n is at most AB_HEAT_MAX, so a matrix built from records read
 * from elsewhere stays bounded (2 MiB of doubles).
 */
#ifndef AB_RENDER_HEAT_H
#define AB_RENDER_HEAT_H

struct ab_render;

#define AB_HEAT_MAX 512
struct ab_heat {
	int n;
	int *label;	/* n numbers naming the rows and columns, -1: none */
	double *v;	/* n * n, v[row * n + column], NAN: not measured */
	double cbmax;	/* the colour scale's top (it starts at 0); NAN: the largest cell */
	const char *diag;	/* the key's word for the marked diagonal; NULL: not marked */
};
/* All NAN, labels -1: 0, or -1 (n outside 1..AB_HEAT_MAX, out of memory). */
int ab_heat_init(struct ab_heat *h, int n);
void ab_heat_free(struct ab_heat *h);
/* NAME.dat and NAME.gp drawing h "with image", row 0 at the top; title and labels
 * escaped. Nothing when no cell holds a number. 1: made, 0: not. */
int ab_heat_plot(struct ab_render *r, const struct ab_heat *h, const char *name, const char *title,
		 const char *xlabel, const char *ylabel, const char *cblabel);

#endif
