// SPDX-License-Identifier: GPL-2.0
/*
 * Which of cpupair's records its heatmaps draw, and where (report.c draws them).
 * A record's places in topology order (pos_a, pos_b) and its CPUs come from a
 * file anyone may send: each is read whole, in plain digits, below AB_MAX_CPUS,
 * or the record is refused; a place past the heatmap's AB_HEAT_MAX is counted,
 * never drawn. A record that could mean two things is refused too, with its
 * raw.csv line and the line it contradicts: a place another record gave another
 * CPU, a CPU another record put at another place, two CPUs at one place (or one
 * CPU at two), or a second value for one cell. The matrix is as large as the
 * largest place drawn, of a or of b, so every cell written lies inside it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "render/render_heat.h"
#include "sys/common.h"
#include "sys/cpuset.h"
#include "cpupair.h"

#define NOT_GIVEN (-1)
#define NOT_A_NUMBER (-2)
#define REFUSED_SAID 4	/* refused records named one by one per heatmap; then a count */

struct cp_cells {
	int cpu[AB_HEAT_MAX], place[AB_MAX_CPUS];	/* each place's CPU, each CPU's place */
	const struct ab_group *by_place[AB_HEAT_MAX], *by_cpu[AB_MAX_CPUS];	/* who said so */
	int refused, beyond;
	char fig[64];
};

struct cp_cells *cp_cells_new(void)
{
	return calloc(1, sizeof(struct cp_cells));
}

void cp_cells_start(struct cp_cells *c, const char *fig)
{
	memset(c->cpu, -1, sizeof(c->cpu));
	memset(c->place, -1, sizeof(c->place));
	c->refused = c->beyond = 0;
	snprintf(c->fig, sizeof(c->fig), "%s", fig);
}

/* The number under key: plain digits below AB_MAX_CPUS, one spelling per number (no
 * sign, no leading zero, read whole); NOT_GIVEN, or NOT_A_NUMBER for anything else. */
static int whole(const char *config, const char *key)
{
	char buf[AB_VALUE_LEN];
	const char *p = ab_cfg_get(config, key, buf, sizeof(buf));
	long v = 0;

	if (!*p)
		return NOT_GIVEN;
	if (p[0] == '0' && p[1])
		return NOT_A_NUMBER;
	for (; *p; p++)
		if (*p < '0' || *p > '9' || (v = 10 * v + (*p - '0')) >= AB_MAX_CPUS)
			return NOT_A_NUMBER;
	return (int)v;
}

/* "raw.csv:LINE" of a record read from a file, or "a record" made in memory. */
static const char *where(const struct ab_group *g, char *buf, size_t len)
{
	if (g->line)
		snprintf(buf, len, "raw.csv:%zu", g->line);
	else
		snprintf(buf, len, "a record");
	return buf;
}

static void refuse(struct cp_cells *c, const struct ab_group *g, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One line per refused record, the first few; the rest counted (cp_cells_end). */
static void refuse(struct cp_cells *c, const struct ab_group *g, const char *fmt, ...)
{
	char why[160], at[48];
	va_list ap;

	if (c->refused++ >= REFUSED_SAID)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	ab_msg("plot: %s: %s: %s; not drawn", c->fig, where(g, at, sizeof(at)), why);
}

/* Does a record's CPU at pos contradict an earlier record (refused: 1)? */
static int contradicts(struct cp_cells *c, const struct ab_group *g, int pos, int cpu)
{
	char at[48];

	if (c->cpu[pos] >= 0 && c->cpu[pos] != cpu) {
		refuse(c, g, "CPU %d at place %d, where %s has CPU %d", cpu, pos,
		       where(c->by_place[pos], at, sizeof(at)), c->cpu[pos]);
		return 1;
	}
	if (c->place[cpu] >= 0 && c->place[cpu] != pos) {
		refuse(c, g, "CPU %d at place %d, where %s has it at place %d", cpu, pos,
		       where(c->by_cpu[cpu], at, sizeof(at)), c->place[cpu]);
		return 1;
	}
	return 0;
}

static void place(struct cp_cells *c, const struct ab_group *g, int pos, int cpu)
{
	if (c->cpu[pos] < 0) {
		c->cpu[pos] = cpu;
		c->place[cpu] = pos;
		c->by_place[pos] = g;
		c->by_cpu[cpu] = g;
	}
}

int cp_cells_place(struct cp_cells *c, const struct ab_group *g, int *pa, int *pb)
{
	static const char *const keys[] = { CP_K_POS_A, CP_K_POS_B, CP_K_A, CP_K_B };
	int v[4];

	for (int k = 0; k < 4; k++)
		if ((v[k] = whole(g->config, keys[k])) == NOT_GIVEN)
			return -1;	/* not a pair's record: no place in the matrix */
	for (int k = 0; k < 4; k++)
		if (v[k] == NOT_A_NUMBER) {
			char buf[AB_VALUE_LEN];
			const char *val = ab_cfg_get(g->config, keys[k], buf, sizeof(buf));
			refuse(c, g, "%s=%.24s%s is not a number 0..%d in plain digits", keys[k],
			       val, strlen(val) > 24 ? "..." : "", AB_MAX_CPUS - 1);
			return -1;
		}
	if ((v[0] == v[1]) != (v[2] == v[3])) {
		refuse(c, g, "places %d and %d for CPUs %d and %d", v[0], v[1], v[2], v[3]);
		return -1;
	}
	if (v[0] >= AB_HEAT_MAX || v[1] >= AB_HEAT_MAX) {
		c->beyond++;
		return -1;
	}
	if (contradicts(c, g, v[0], v[2]) || contradicts(c, g, v[1], v[3]))
		return -1;
	place(c, g, v[0], v[2]);
	place(c, g, v[1], v[3]);
	*pa = v[0];
	*pb = v[1];
	return 0;
}

int cp_cells_draw(struct cp_cells *c, const struct ab_group *const *take, size_t n,
		  struct ab_heat *h)
{
	const struct ab_group **cell = calloc((size_t)h->n * (size_t)h->n, sizeof(*cell));

	if (!cell)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *cfg = take[i]->config;
		int pa = whole(cfg, CP_K_POS_A), pb = whole(cfg, CP_K_POS_B);
		if (pa < 0 || pa >= h->n || pb < 0 || pb >= h->n)
			continue;	/* cp_cells_place took it: never */
		size_t at = (size_t)pa * (size_t)h->n + (size_t)pb;
		if (cell[at]) {
			char first[48];
			refuse(c, take[i], "a second value for CPUs %d and %d, after %s's",
			       c->cpu[pa], c->cpu[pb], where(cell[at], first, sizeof(first)));
			continue;
		}
		cell[at] = take[i];
		h->v[at] = ab_r_median(take[i]);
	}
	for (int p = 0; p < h->n; p++)
		h->label[p] = c->cpu[p];
	free(cell);
	return 0;
}

void cp_cells_end(struct cp_cells *c)
{
	if (c->refused > REFUSED_SAID)
		ab_msg("plot: %s: %d more record%s not drawn, as those above", c->fig,
		       c->refused - REFUSED_SAID, c->refused - REFUSED_SAID == 1 ? "" : "s");
	if (c->beyond)
		ab_msg("plot: %s: %d record%s at places past %d not drawn: a heatmap shows the "
		       "first %d CPUs in topology order", c->fig, c->beyond,
		       c->beyond == 1 ? "" : "s", AB_HEAT_MAX - 1, AB_HEAT_MAX);
}
