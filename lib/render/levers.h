/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What moves a ratio: a table of each lever a run swept (a config key whose
 * value differs from its default, e.g. an idle policy or how a server waits)
 * beside what it costs, and a sentence naming the cheapest lever that closes
 * most of the gap. Generic: the benchmark names its ratios and its lever keys.
 */
#ifndef AB_LEVERS_H
#define AB_LEVERS_H

struct ab_render;
struct ab_named_ratio;

/* A ratio people read: median of subject / median of base (each a want list, as
 * ab_r_find takes it, without the lever keys). Its gap is 1 - ratio. */
struct ab_lever_ratio {
	const char *name;		/* "other/same (libfuse)" */
	const char *const *subject, *const *base;
};
/* A lever: a config key and its default value (records without the key hold it). */
struct ab_lever_key {
	const char *key, *dflt;
};
struct ab_levers {
	const char *metric;		/* what the ratios divide ("stat_per_s") */
	const char *cost;		/* the server's CPU per request metric, or NULL */
	const struct ab_lever_ratio *ratio;
	int nratio;
	const struct ab_lever_key *key;
	int nkey;
};
/* The levers table (and, when sentence, the cheapest lever's sentence) to r->out;
 * nothing when no lever was swept. 1: printed, 0: not. */
int ab_levers_table(struct ab_render *r, const struct ab_levers *l, int sentence);

/* Each of l's ratios as found (every lever key at its default), the groups found in
 * r->res, into out (at most max); how many have both sides (a descriptor's ratios). */
int ab_levers_ratios(struct ab_render *r, const struct ab_levers *l, struct ab_named_ratio *out,
		     int max);

#endif
