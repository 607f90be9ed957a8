/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The split of cputestfs's other minus same, shared by its sentence and table
 * (report_split.c) and its stacked bar (report_split_plot.c).
 */
#ifndef CTF_REPORT_SPLIT_H
#define CTF_REPORT_SPLIT_H

#include "render/render.h"

struct est {
	double v, lo, hi;	/* a median (or a difference of them) and its interval */
};

struct split {
	struct est diff, cache, wake, fuse;	/* us per stat() */
	struct est rt, self, line;		/* the measured pieces (us) */
	double wake_poll;			/* the wake-ups with idle polling, NAN: none */
	double brk_wake, brk_wake_poll;	/* the breakdown's wake-up steps, other less same (us
					 * per call, medians); NAN: not recorded on both sides */
	double brk_mean;		/* the same of their means, as found */
	double brk_rest;		/* its other steps' medians, other less same, as found */
	double slept[2][2];		/* per method: % of waits that slept, pair and CPU alone */
	char a[32], b[32], c[32];	/* client and daemon CPU of other; the CPU of same */
	int method;			/* wm[] used; -1: none slept every time */
	int have_pair;			/* cpupair measured the pair's line and a round trip */
	int have_self;			/* ... and the same-CPU round trip */
	int holds;			/* every part at or above 0 within its interval */
	int line_flagged;		/* a spinner lost its CPU: no cache part apart */
	char why[192];			/* why the model does not hold (its first clause) */
};

/* The split of r's records into s: 0, or -1 when cputestfs has no other and same to split. */
int ctf_split_of(struct ab_render *r, struct split *s);
/* Why there is no split (in buf, or a constant), or NULL when there is one. */
const char *ctf_no_split(const struct ab_render *r, const struct split *s, char *buf, size_t len);
/* The cpupair method the split took its wake-ups from ("pipe", "futex"). */
const char *ctf_split_method(const struct split *s);

#endif
