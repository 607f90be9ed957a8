// SPDX-License-Identifier: GPL-2.0
/*
 * The post's table beside ours: the first thing of a benchmark's section in
 * report.md (the descriptor's beside callback), so that a reader sees the
 * published numbers and this run's in one table before any sentence. A row
 * is what the post measured; its cells are the post's numbers as it printed
 * them, then this run's median or ratio. These helpers write the cells; the
 * descriptor chooses the rows, since each post has its own layout.
 */
#include <math.h>
#include <stdio.h>

#include "render/beside.h"
#include "render/render.h"

void ab_r_beside_head(struct ab_render *r, const char *corner, const char *const *cols)
{
	fprintf(r->out, "| %s |", corner);
	for (int i = 0; cols[i]; i++)
		fprintf(r->out, " %s |", cols[i]);
	fprintf(r->out, "\n|---|");
	for (int i = 0; cols[i]; i++)
		fprintf(r->out, "---|");
	fputc('\n', r->out);
}

void ab_r_beside_row(struct ab_render *r, const char *label)
{
	fprintf(r->out, "| %s |", label);
}

/* An empty cell says why (never a bare "-"): "not measured" here. */
void ab_r_cell_text(struct ab_render *r, const char *text)
{
	fprintf(r->out, " %s |", text && *text ? text : "not measured");
}

void ab_r_cell_not_in_post(struct ab_render *r)
{
	fprintf(r->out, " not in the post |");
}

/* As the post printed it: the number's own text from published.tsv. */
void ab_r_cell_pub(struct ab_render *r, const char *post, const char *key)
{
	const char *t = ab_pub_text(post, key);

	if (*t)
		ab_r_cell_text(r, t);
	else
		ab_r_cell_not_in_post(r);
}

/* A ratio of two published numbers, in this run's ratio notation (1.93x). */
void ab_r_cell_pub_ratio(struct ab_render *r, const char *post, const char *num, const char *den)
{
	double a = ab_pub(post, num), b = ab_pub(post, den);
	char n[32];

	if (!isfinite(a) || !isfinite(b) || b == 0) {
		ab_r_cell_not_in_post(r);
		return;
	}
	fprintf(r->out, " %s |", ab_r_x(n, sizeof(n), a / b));
}

void ab_r_cell_median(struct ab_render *r, const struct ab_group *g)
{
	char n[32];

	ab_r_cell_text(r, g ? ab_r_num(n, sizeof(n), ab_r_median(g)) : NULL);
}

const char *ab_r_ratio_brief(char *buf, size_t len, enum ab_verdict v, double q,
			     const struct ab_ci *ci)
{
	char e[32], lo[32], hi[32];

	if (v == AB_V_NONE)
		snprintf(buf, len, "not measured");
	else if (v == AB_V_FEW)
		snprintf(buf, len, "%s (n < %d)", ab_r_x(e, sizeof(e), q), AB_MIN_REPS_CI);
	else
		snprintf(buf, len, "%s [%s, %s]%s", ab_r_x(e, sizeof(e), q),
			 ab_r_num(lo, sizeof(lo), ci->lo), ab_r_num(hi, sizeof(hi), ci->hi), ab_r_star(v));
	return buf;
}

void ab_r_cell_ratio(struct ab_render *r, const struct ab_group *a, const struct ab_group *b,
		     int paired)
{
	struct ab_ci ci;
	double q = NAN;
	char buf[128];
	enum ab_verdict v = paired ? ab_r_paired(a, b, &q, &ci) : ab_r_ratio(a, b, &q, &ci);

	ab_r_cell_text(r, ab_r_ratio_brief(buf, sizeof(buf), v, q, &ci));
}

void ab_r_beside_row_end(struct ab_render *r)
{
	fputc('\n', r->out);
}

/* Under the table: whose numbers the post's are, and what a bracket is. */
void ab_r_beside_note(struct ab_render *r, const char *post)
{
	fprintf(r->out, "\nThe post: %s. This run: medians; a ratio's bracket is its 95%% CI, "
			"* where it excludes 1.\n\n", ab_pub_text(post, "source"));
}
