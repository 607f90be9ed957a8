/*
 * What the three parts of "where the time goes" share, inside lib/report:
 * render_brk.c builds the bars (ab_brkr_bars) and loads them with their label
 * keys (ab_brkr_set_load); render_brk_text.c writes the sentences and the
 * table; render_brk_plot.c the stacked-bar figures.
 */
#ifndef AB_RENDER_BRK_I_H
#define AB_RENDER_BRK_I_H

#include <stddef.h>

#include "report/reading.h"
#include "report/render_breakdown.h"

#define NKEYS 16		/* label keys kept per benchmark */


/* The bars of one benchmark and their label keys, split. */
struct brk_set {
	struct ab_brk_bar b[AB_BRK_BARS];
	int n;
	char keys[256];		/* label keys, ':'-joined */
	char key[NKEYS][AB_KEY_LEN];
	int nk;
};

/* Append to the string in buf, truncating at len (report/reading.h). */
#define ab_brkr_add ab_r_addf
/* The bars of r's benchmark into s, with their label keys one by one. */
void ab_brkr_set_load(struct brk_set *s, const struct ab_render *r);

#endif
