// SPDX-License-Identifier: GPL-2.0
/*
 * --help of a benchmark: its options from its table with their defaults, then
 * the common options, wrapped to 79 columns. The common options' table lives
 * here, with their help texts: opts.c parses by it and calls down to print it.
 */
#include <stdio.h>
#include <string.h>

#include "sys/common.h"
#include "sys/opts.h"
#include "sys/opts_i.h"

/* A count other than opts_i.h's AB_NCOMMON_OPTS does not compile. */
const struct ab_common_opt ab_common_opts[] = {
	{ "format", 1, C_FORMAT, "FMT", "table|csv|json: output for people (table) or programs "
	  "(default table)" },
	{ "duration", 1, C_DURATION, "SEC", "seconds each window is timed, "
	  AB_STR(AB_MIN_DURATION) "..86400:" },
	{ "repeat", 1, C_REPEAT, "N", "repetitions" },
	{ "cpus", 1, C_CPUS, "LIST", "use only these CPUs (Linux list: 0-3,8; default: every CPU "
	  "the process may run on)" },
	{ "quiet", 0, C_QUIET, NULL, "no progress messages on stderr" },
	{ "idle", 1, C_IDLE, "POLICY", AB_IDLE_CHOICES ": how idle CPUs wait while measuring: "
	  "as found (the default); poll: a PM QoS limit of 0, so the cpuidle governor picks "
	  "polling only; max-latency:US: no idle state slower to leave than US us (both need "
	  "a cpuidle driver); haltpoll:NS: guest halt polling of NS ns (needs the haltpoll "
	  "driver); busy: a SCHED_IDLE spinner on each allowed CPU (acts anywhere; it burns "
	  "the idle CPU time)" },
	{ "check-options", 0, C_CHECK, NULL, "check the options and exit 0 (or 2), measure nothing" },
	{ "help", 0, C_HELP, NULL, "this help" },
	{ "version", 0, C_VERSION, NULL, "print the version" },
};

const char *ab_choice(const char *choices, int idx, size_t *len)
{
	for (int i = 0; *choices; i++) {
		*len = strcspn(choices, "|");
		if (i == idx)
			return choices;
		choices += *len + (choices[*len] == '|');
	}
	return NULL;
}

static void default_text(const struct ab_opt *o, const void *params, char *buf, size_t len)
{
	const char *field = (const char *)params + o->offset;
	const struct ab_intlist *il;
	const char *c;
	size_t off;

	buf[0] = 0;
	switch (o->type) {
	case AB_OPT_INT:	/* outside its range: "not given", and the help says what then */
		if (!((o->min || o->max) && (*(const int *)field < o->min || *(const int *)field > o->max)))
			snprintf(buf, len, "%d", *(const int *)field);
		break;
	case AB_OPT_DOUBLE:
		snprintf(buf, len, "%g", *(const double *)field);
		break;
	case AB_OPT_SIZE:
		if (!((o->min || o->max) && (*(const size_t *)field < o->min ||
					      *(const size_t *)field > o->max)))
			snprintf(buf, len, "%zu", *(const size_t *)field);
		break;
	case AB_OPT_STR:
		if (*(const char *const *)field)
			snprintf(buf, len, "%s", *(const char *const *)field);
		break;
	case AB_OPT_CHOICE:
		c = ab_choice(o->choices, *(const int *)field, &off);
		snprintf(buf, len, "%.*s", c ? (int)off : 1, c ? c : "?");
		break;
	case AB_OPT_INTLIST:
		il = (const struct ab_intlist *)field;
		off = 0;
		for (int i = 0; i < il->n && off < len; i++)
			off += snprintf(buf + off, len - off, "%s%d", i ? "," : "", il->v[i]);
		break;
	case AB_OPT_FLAG:
		break;
	}
}

#define HELP_COL 31	/* where the text of an option starts */
#define HELP_WIDTH 79

/* Where to break a word of n characters to fit room: after its last '|' or ','
 * within room, or 0 where it has none. */
static int cut(const char *w, int n, int room)
{
	for (int k = room < n ? room : n; k > 0; k--)
		if (w[k - 1] == '|' || w[k - 1] == ',')
			return k;
	return 0;
}

/* "  --name ARG   text", the text in its own column, wrapped at word boundaries;
 * a name too long for its column gets a line of its own. */
static void help_line(const char *left, const char *text)
{
	int col = printf("  %s", left), first = 1;

	if (col >= HELP_COL)	/* no room left for a space before the text */
		col = printf("\n%*s", HELP_COL, "") - 1;
	else
		col += printf("%*s", HELP_COL - col, "");
	for (const char *w = text + strspn(text, " "); *w; w += strspn(w, " ")) {
		int n = (int)strcspn(w, " ");
		if (!first && col + 1 + n > HELP_WIDTH)
			col = printf("\n%*s", HELP_COL, "") - 1;
		else if (!first)
			col += printf(" ");
		/* a word too long for the column (a|b|c, a,b,c) is broken after a '|' or ',' */
		for (int k; col + n > HELP_WIDTH && (k = cut(w, n, HELP_WIDTH - col)) > 0;) {
			printf("%.*s\n%*s", k, w, HELP_COL, "");
			col = HELP_COL;
			w += k;
			n -= k;
		}
		col += printf("%.*s", n, w);
		w += n;
		first = 0;
	}
	putchar('\n');
}

void ab_opts_usage(const struct ab_prog_info *info, const struct ab_opt *opts, const void *params)
{
	char def[256], left[64], text[1024];

	printf("Usage: %s [options]\n%s\n\nOptions:\n", info->name, info->summary);
	for (const struct ab_opt *o = opts; o && o->name; o++) {
		const char *arg = o->type == AB_OPT_FLAG ? NULL : o->arg ? o->arg :
				  o->type == AB_OPT_CHOICE ? o->choices : "VAL";
		snprintf(left, sizeof(left), "--%s%s%s", o->name, arg ? " " : "", arg ? arg : "");
		default_text(o, params, def, sizeof(def));
		snprintf(text, sizeof(text), "%s%s%s%s", o->help, def[0] ? " (default " : "", def,
			 def[0] ? ")" : "");
		help_line(left, text);
	}
	printf("\nCommon options:\n");
	for (size_t i = 0; i < AB_NCOMMON_OPTS; i++) {
		const struct ab_common_opt *co = &ab_common_opts[i];
		snprintf(left, sizeof(left), "--%s%s%s", co->name, co->arg ? " " : "", co->arg ? co->arg : "");
		if (co->id == C_DURATION)	/* defined here once: the program says what a window is */
			snprintf(text, sizeof(text), "%s %s (default %g)", co->help,
				 info->duration_per ? info->duration_per : "one window per point of "
				 "the sweep in each repetition, after a warm-up", info->default_duration);
		else if (co->id == C_REPEAT)
			snprintf(text, sizeof(text), "%s (default %d)", co->help, info->default_repeat);
		else
			snprintf(text, sizeof(text), "%s", co->help);
		help_line(left, text);
	}
	if (info->usage_extra)
		printf("\n%s\n", info->usage_extra);
	printf("\nExit codes: 0 ok, 1 measurement failed, 2 bad usage, "
	       "4 skipped (machine lacks something).\n");
}
