// SPDX-License-Identifier: GPL-2.0
/* Readings as whole sentences from verdicts (see reading.h). */
#include "render/reading.h"
#include "render/render.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ab_r_addf(char *buf, size_t len, const char *fmt, ...)
{
	size_t u = strlen(buf);
	va_list ap;

	if (u + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + u, len - u, fmt, ap);
	va_end(ap);
}

static const char *pct_text(char *t, size_t len, double q)
{
	snprintf(t, len, "%+.1f%%", 100 * (q - 1));
	return t;
}

/* "0.846x that of readers on it", "3.2% higher than that of single" */
static void estimate(char *buf, size_t len, const struct ab_claim *c, double q)
{
	char t[48];

	if (!c->pct)
		ab_r_x(t, sizeof(t), q);
	else if (fabs(q - 1) < 0.0005)
		snprintf(t, sizeof(t), "the same as");
	else
		snprintf(t, sizeof(t), "%.1f%% %s than", 100 * fabs(q - 1), q > 1 ? "higher" : "lower");
	ab_r_addf(buf, len, "%s that of %s", t, c->base);
}

const char *ab_r_sentence(char *buf, size_t len, const struct ab_claim *c, enum ab_verdict v,
			  double ratio, const struct ab_ci *ci)
{
	char lo[32], hi[32];
	const char *(*fmt)(char *, size_t, double) = c->pct ? pct_text : ab_r_x;

	buf[0] = '\0';
	if (v == AB_V_NONE || !isfinite(ratio)) {
		snprintf(buf, len, "The %s of %s was not compared with that of %s: not both were "
				   "measured in this run.", c->quantity, c->subject, c->base);
		return buf;
	}
	ab_r_addf(buf, len, "The %s of %s is ", c->quantity, c->subject);
	estimate(buf, len, c, ratio);
	if (v == AB_V_FEW) {
		ab_r_addf(buf, len, "; with fewer than %d repetitions a side, that cannot be judged.",
		    AB_MIN_REPS_CI);
		return buf;
	}
	ab_r_addf(buf, len, " (95%% CI [%s, %s]); the difference is %ssignificant.",
	    fmt(lo, sizeof(lo), ci->lo), fmt(hi, sizeof(hi), ci->hi), v == AB_V_SAME ? "not " : "");
	return buf;
}

/* "1, 2 and 4" of the labels whose verdict is w; how many; *one: the only one is "1". */
static int list(char *out, size_t len, const enum ab_verdict *v, char label[][32], int n,
		enum ab_verdict w, int *one)
{
	int k = 0, m = 0;

	out[0] = '\0';
	*one = 0;
	for (int i = 0; i < n; i++)
		m += v[i] == w;
	for (int i = 0; i < n; i++) {
		if (v[i] != w)
			continue;
		ab_r_addf(out, len, "%s%s", k ? (k == m - 1 ? " and " : ", ") : "", label[i]);
		*one = m == 1 && !strcmp(label[i], "1");
		k++;
	}
	return m;
}

const char *ab_r_sweep(char *buf, size_t len, const struct ab_sweep *s, const enum ab_verdict *v,
		       char label[][32], int n)
{
	static const enum ab_verdict order[] = { AB_V_UP, AB_V_DOWN, AB_V_SAME, AB_V_FEW };
	const char *verb[] = { s->up, s->down, s->same, "could not be judged" };
	char part[4][512];
	int cnt[4], one[4], parts = 0, done = 0;

	for (int k = 0; k < 4; k++) {
		cnt[k] = list(part[k], sizeof(part[k]), v, label, n, order[k], &one[k]);
		parts += cnt[k] > 0;
	}
	buf[0] = '\0';
	if (!parts) {
		snprintf(buf, len, "%s was not compared: not measured in this run.", s->subject);
		return buf;
	}
	ab_r_addf(buf, len, "%s", s->subject);
	for (int k = 0; k < 4; k++) {
		if (!cnt[k])
			continue;
		done++;
		ab_r_addf(buf, len, "%s%s at %s", done == 1 ? " " : done < parts ? ", " :
			    parts > 2 ? ", and " : " and ", verb[k], part[k]);
		/* the unit once, after the first list: "at 8 and 16 processes, ... at 1 and 2" */
		if (done == 1)
			ab_r_addf(buf, len, " %s", one[k] ? s->unit1 : s->unitn);
		if (order[k] == AB_V_FEW)
			ab_r_addf(buf, len, " (fewer than %d repetitions)", AB_MIN_REPS_CI);
	}
	ab_r_addf(buf, len, ".");
	return buf;
}
