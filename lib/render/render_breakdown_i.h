/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the three parts of "where the time goes" share, inside lib/render:
 * render_breakdown.c builds the bars (ab_breakdown_bars) and loads them with their label
 * keys (ab_breakdown_set_load); render_breakdown_text.c writes the sentences and the
 * table; render_breakdown_plot.c the stacked-bar figures.
 */
#ifndef AB_RENDER_BREAKDOWN_I_H
#define AB_RENDER_BREAKDOWN_I_H

#include <stddef.h>

#include "render/reading.h"
#include "render/render_breakdown.h"

#define NKEYS 16		/* label keys kept per benchmark */


/* The bars of one benchmark and their label keys, split. */
struct breakdown_set {
	struct ab_breakdown_bar b[AB_BREAKDOWN_BARS];
	int n;
	char keys[256];		/* label keys, ':'-joined */
	char key[NKEYS][AB_KEY_LEN];
	int nk;
};

/* The bars of r's benchmark, with their label keys one by one, in a set to free; NULL
 * when there are none (or no memory). */
struct breakdown_set *ab_breakdown_set_load(const struct ab_render *r);

#endif
