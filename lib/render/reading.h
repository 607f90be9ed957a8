/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Readings: whole sentences built from verdicts (render.h's ab_r_ratio and
 * ab_r_paired), one template for every descriptor, so that every outcome
 * reads as correct English: significant, not significant, too few repetitions
 * to judge, not measured, and for a sweep zero counts and a single point.
 */
#ifndef AB_READING_H
#define AB_READING_H

#include <stddef.h>

#include "render/render.h"

/* One comparison: "The QUANTITY of SUBJECT is EST that of BASE ..." */
struct ab_claim {
	const char *quantity;	/* "IO rate" */
	const char *subject;	/* "readers off the IRQ CPU" */
	const char *base;	/* "readers on it" */
	int pct;		/* 1: say the change in percent ("3.2% higher than"); 0: "0.85x" */
};
/* The sentence for verdict v of ratio subject/base with ci (as ab_r_ratio gives them),
 * ending with a full stop. */
/* Append printf-style to the string in buf (len bytes), cut at its end. */
__attribute__((format(printf, 3, 4)))
void ab_r_addf(char *buf, size_t len, const char *fmt, ...);

const char *ab_r_sentence(char *buf, size_t len, const struct ab_claim *c, enum ab_verdict v,
			  double ratio, const struct ab_ci *ci);

/* One comparison repeated over the points of a sweep (e.g. process counts). */
struct ab_sweep {
	const char *subject;		/* "clone_fd" */
	const char *up, *down;		/* "was significantly faster", "was significantly slower" */
	const char *same;		/* "made no significant difference" */
	const char *unit1, *unitn;	/* "process", "processes" */
};
/* "clone_fd was significantly faster at 8 and 16 processes, made no significant
 * difference at 1, 2 and 4, and could not be judged at 32 (fewer than 6
 * repetitions)." from the verdict v[i] at each point label[i] (AB_V_NONE points are
 * left out); "clone_fd was not compared: not measured in this run." when none. */
const char *ab_r_sweep(char *buf, size_t len, const struct ab_sweep *s, const enum ab_verdict *v,
		       char label[][32], int n);

#endif
