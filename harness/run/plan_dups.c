// SPDX-License-Identifier: GPL-2.0
/*
 * A point measured by two blocks of one plan: both would write the same
 * repetitions of the same config, and raw.csv refuses a repetition written
 * twice, so the run would measure everything and then not plot. It is caught
 * before the first point (and in --dry-run): exit 2 with one line naming the
 * point and both blocks.
 *
 * Two points are one when they pass a benchmark the same options: the axes'
 * and extra's --NAME VALUE pairs (--NAME=VALUE split), in any order, without
 * the harness's own (--duration: two durations measure the same config) and
 * without an option at the value a record leaves out (--idle as-found, and a
 * descriptor's absent_as such as --daemon-wait block; option names are keys
 * with '-' for '_'). Only the benchmark knows the rest of its defaults, so a
 * default that it writes, given in one block and left out in another
 * (--transport libfuse), is not caught here.
 */
#include <stdlib.h>
#include <string.h>

#include "record/hindex.h"
#include "sys/common.h"
#include "run.h"
#include "render/desc.h"

#define UNITS (H_AXES_MAX + H_ARGS_MAX)

struct unit {
	char name[64];
	const char *val;
	size_t vlen;
};

static int unit_cmp(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->vlen != y->vlen)
		return x->vlen < y->vlen ? -1 : 1;
	return strncmp(x->val, y->val, x->vlen);
}

/* --NAME as a key: without the dashes, '-' as '_'. */
static void key_of(char *out, size_t len, const char *opt, size_t n)
{
	snprintf(out, len, "%.*s", (int)n, opt);
	for (char *p = out; *p; p++)
		if (*p == '-')
			*p = '_';
}

/* Add --NAME VALUE (val may be NULL: a flag) unless it is at the value records leave out. */
static void add_unit(const struct h_block *b, struct unit *u, int *n, const char *name,
		     size_t nl, const char *val, size_t vl)
{
	struct unit *x = &u[*n];

	if (*n == UNITS)
		return;
	key_of(x->name, sizeof(x->name), name, nl);
	const char *dflt = ab_desc_absent_as(h_desc(b->bench), x->name, strlen(x->name));
	if (val && dflt && strlen(dflt) == vl && !strncmp(dflt, val, vl))
		return;
	x->val = val ? val : "";
	x->vlen = val ? vl : 0;
	(*n)++;
}

/* The point's options in one form: sorted "name=value" units, '\n' between them. */
static char *canon(const struct h_point *pt)
{
	const struct h_block *b = pt->blk;
	struct unit u[UNITS];
	int n = 0;

	for (int a = 0; a < b->naxes; a++) {
		const char *v = b->axes[a].vals[pt->idx[a]];
		add_unit(b, u, &n, b->axes[a].name, strlen(b->axes[a].name), v, strlen(v));
	}
	for (int e = 0; e < b->nextra; e++) {
		const char *w = b->extra[e];
		if (strncmp(w, "--", 2))
			continue;	/* a value, taken with its option below */
		const char *eq = strchr(w, '='), *next = e + 1 < b->nextra ? b->extra[e + 1] : NULL;
		if (eq)
			add_unit(b, u, &n, w + 2, (size_t)(eq - w - 2), eq + 1, strlen(eq + 1));
		else if (next && strncmp(next, "--", 2))
			add_unit(b, u, &n, w + 2, strlen(w + 2), next, strlen(next));
		else
			add_unit(b, u, &n, w + 2, strlen(w + 2), NULL, 0);
	}
	qsort(u, (size_t)n, sizeof(u[0]), unit_cmp);
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(u[i].name) + u[i].vlen + 2;
	char *s = malloc(len), *o = s;
	for (int i = 0; s && i < n; i++)
		o += sprintf(o, "%s=%.*s\n", u[i].name, (int)u[i].vlen, u[i].val);
	if (s)
		*o = '\0';
	return s;
}

static int said(const struct h_plan *p, const struct h_point *a, const struct h_point *b,
		char *err, size_t errlen)
{
	return ab_err(err, errlen, "%s:%d: %s%s%s%s measures again the point %s%s%s%s of the "
		      "block at line %d: both would record the same repetitions; measure it in one "
		      "block", p->path, b->blk->line, b->blk->bench, b->label[0] ? " (" : "",
		      b->label, b->label[0] ? ")" : "", a->blk->bench, a->label[0] ? " (" : "",
		      a->label, a->label[0] ? ")" : "", a->blk->line);
}

int h_plan_dups(const struct h_plan *p, char *err, size_t errlen)
{
	struct ab_hindex x = { 0 };
	char **c = calloc((size_t)p->npoints + 1, sizeof(*c));
	int rc = c ? 0 : ab_err(err, errlen, "out of memory");

	for (int i = 0; !rc && i < p->npoints; i++) {
		const struct h_point *pt = &p->points[i];
		if (!(c[i] = canon(pt)))
			rc = ab_err(err, errlen, "out of memory");
		uint64_t h = ab_hash_str(AB_HASH_INIT, pt->blk->bench);
		h = c[i] ? ab_hash_str(h, c[i]) : 0;
		size_t pos = 0, e;
		while (!rc && (e = ab_hindex_next(&x, h, &pos))) {
			const struct h_point *o = &p->points[e - 1];
			/* within a block every point differs (an axis's values are distinct) */
			if (o->blk != pt->blk && !strcmp(o->blk->bench, pt->blk->bench) &&
			    !strcmp(c[e - 1], c[i]))
				rc = said(p, o, pt, err, errlen);
		}
		if (!rc && ab_hindex_add(&x, h, (size_t)i) < 0)
			rc = ab_err(err, errlen, "out of memory");
	}
	for (int i = 0; c && i < p->npoints; i++)
		free(c[i]);
	free(c);
	ab_hindex_free(&x);
	return rc;
}
