/*
 * The option layer: one table per benchmark drives parsing and --help, and
 * the common options (docs/records.md) are handled the same way everywhere.
 */
#include "sys/opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/pin.h"

enum { C_HELP = 1000, C_VERSION, C_FORMAT, C_DURATION, C_REPEAT, C_CPUS, C_QUIET, C_CHECK,
       C_USER = 2000 };

static const struct {
	const char *name;
	int has_arg;
	int id;
	const char *arg, *help;
} common_opts[] = {
	{ "format", 1, C_FORMAT, "FMT", "output: table (people), csv or json (programs)" },
	{ "duration", 1, C_DURATION, "SEC", "seconds per repetition, " AB_STR(AB_MIN_DURATION) "..86400" },
	{ "repeat", 1, C_REPEAT, "N", "repetitions" },
	{ "cpus", 1, C_CPUS, "LIST", "use only these CPUs (Linux list: 0-3,8)" },
	{ "quiet", 0, C_QUIET, NULL, "no progress messages on stderr" },
	{ "check-options", 0, C_CHECK, NULL, "check the options and exit 0 (or 2), measure nothing" },
	{ "help", 0, C_HELP, NULL, "this help" },
	{ "version", 0, C_VERSION, NULL, "print the version" },
};

/* Is s a plain decimal number: [+-]digits[.digits][e[+-]digits]? No hex, inf, nan, spaces. */
static int is_decimal(const char *s, int fraction)
{
	size_t digits = 0;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (fraction && *s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	if (!digits)
		return 0;
	if (fraction && (*s == 'e' || *s == 'E')) {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

int ab_parse_long(const char *s, long *v)
{
	char *end;

	if (!s || !is_decimal(s, 0))
		return -1;
	errno = 0;
	*v = strtol(s, &end, 10);
	return (errno || *end) ? -1 : 0;
}

int ab_parse_double(const char *s, double *v)
{
	char *end;

	if (!s || !is_decimal(s, 1))
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	return (errno || *end || !isfinite(*v)) ? -1 : 0;
}

int ab_parse_size(const char *s, size_t *out, char *err, size_t errlen)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')	/* strtoull alone takes " 5", "+5", "-5" */
		return ab_err(err, errlen, "'%s' is not a size", s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return ab_err(err, errlen, "'%s' is not a size", s);
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end == 'i' && shift) /* accept KiB-style "Ki", "KiB" */
		end++;
	if ((*end == 'B' || *end == 'b') && shift)
		end++;
	if (*end)
		return ab_err(err, errlen, "'%s' is not a size (use e.g. 4096, 128K, 1M)", s);
	if (shift && v > (~0ull >> shift))
		return ab_err(err, errlen, "'%s' is too large", s);
	*out = (size_t)(v << shift);
	return 0;
}

int ab_parse_intlist(const char *s, struct ab_intlist *l, int min, int max, char *err, size_t errlen)
{
	const char *p = s;

	l->n = 0;
	if (!s || !*s)
		return ab_err(err, errlen, "empty list");
	while (*p) {
		char tok[64];
		size_t len = strcspn(p, ",");
		long a, b;

		if (len == 0 || len >= sizeof(tok))
			return ab_err(err, errlen, "bad list '%s': %s entry", s, len ? "too long an" : "empty");
		memcpy(tok, p, len);
		tok[len] = 0;
		char *dash = strchr(tok + 1, '-');
		if (dash) {
			*dash = 0;
			if (ab_parse_long(tok, &a) || ab_parse_long(dash + 1, &b))
				return ab_err(err, errlen, "bad list '%s': '%s-%s' is not a range", s, tok, dash + 1);
		} else if (ab_parse_long(tok, &a)) {
			return ab_err(err, errlen, "bad list '%s': '%s' is not a number", s, tok);
		} else {
			b = a;
		}
		if (a > b)
			return ab_err(err, errlen, "bad list '%s': range %ld-%ld is reversed", s, a, b);
		for (long v = a; v <= b; v++) {
			if ((min || max) && (v < min || v > max))
				return ab_err(err, errlen, "bad list '%s': %ld is outside %d..%d", s, v, min, max);
			if (l->n >= AB_INTLIST_MAX)
				return ab_err(err, errlen, "bad list '%s': more than %d values", s, AB_INTLIST_MAX);
			l->v[l->n++] = (int)v;
		}
		p += len;
		if (*p == ',') {
			p++;
			if (!*p)
				return ab_err(err, errlen, "bad list '%s': trailing comma", s);
		}
	}
	return 0;
}

static int choice_index(const char *choices, const char *s)
{
	const char *p = choices;
	size_t n = strlen(s);

	for (int i = 0; *p; i++) {
		size_t len = strcspn(p, "|");
		if (len == n && !strncmp(p, s, n))
			return i;
		p += len;
		if (*p == '|')
			p++;
	}
	return -1;
}

static void choice_name(const char *choices, int idx, char *buf, size_t len)
{
	const char *p = choices;

	for (int i = 0; *p; i++) {
		size_t l = strcspn(p, "|");
		if (i == idx) {
			snprintf(buf, len, "%.*s", (int)l, p);
			return;
		}
		p += l;
		if (*p == '|')
			p++;
	}
	snprintf(buf, len, "?");
}

/* "run: " while a harness subcommand parses, so its messages say whose option it was */
static const char *msg_prefix = "";

static void bad(const struct ab_opt *o, const char *name, const char *val, const char *why)
{
	ab_usage_error("%sbad value '%s' for --%s: %s", msg_prefix, val, o ? o->name : name, why);
}

static void set_user(const struct ab_opt *o, void *params, const char *arg)
{
	char *field = (char *)params + o->offset;
	char err[256];
	long l;
	double d;
	size_t sz;
	int idx;

	switch (o->type) {
	case AB_OPT_FLAG:
		*(int *)field = 1;
		break;
	case AB_OPT_INT:
		if (ab_parse_long(arg, &l))
			bad(o, NULL, arg, "not an integer");
		if ((o->min || o->max) && (l < o->min || l > o->max)) {
			snprintf(err, sizeof(err), "must be between %.0f and %.0f", o->min, o->max);
			bad(o, NULL, arg, err);
		}
		*(int *)field = (int)l;
		break;
	case AB_OPT_DOUBLE:
		if (ab_parse_double(arg, &d))
			bad(o, NULL, arg, "not a number");
		if ((o->min || o->max) && (d <= o->min || d > o->max)) {
			snprintf(err, sizeof(err), "must be > %g and <= %g", o->min, o->max);
			bad(o, NULL, arg, err);
		}
		*(double *)field = d;
		break;
	case AB_OPT_SIZE:
		if (ab_parse_size(arg, &sz, err, sizeof(err)))
			bad(o, NULL, arg, err);
		if ((o->min || o->max) && (sz < o->min || sz > o->max)) {
			snprintf(err, sizeof(err), "must be between %.0f and %.0f bytes", o->min, o->max);
			bad(o, NULL, arg, err);
		}
		*(size_t *)field = sz;
		break;
	case AB_OPT_STR:
		*(const char **)field = arg;
		break;
	case AB_OPT_CHOICE:
		idx = choice_index(o->choices, arg);
		if (idx < 0) {
			snprintf(err, sizeof(err), "expected %s", o->choices);
			bad(o, NULL, arg, err);
		}
		*(int *)field = idx;
		break;
	case AB_OPT_INTLIST:
		if (ab_parse_intlist(arg, (struct ab_intlist *)field, (int)o->min, (int)o->max, err,
				     sizeof(err)))
			bad(o, NULL, arg, err);
		break;
	}
}

static void default_text(const struct ab_opt *o, const void *params, char *buf, size_t len)
{
	const char *field = (const char *)params + o->offset;
	const struct ab_intlist *il;
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
		choice_name(o->choices, *(const int *)field, buf, len);
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

/* "  --name ARG   text", the text in its own column, wrapped at word boundaries;
 * a name too long for its column gets a line of its own. */
/* Where to break a word of n characters to fit room: after its last '|' or ','
 * within room, or 0 where it has none. */
static int cut(const char *w, int n, int room)
{
	for (int k = room < n ? room : n; k > 0; k--)
		if (w[k - 1] == '|' || w[k - 1] == ',')
			return k;
	return 0;
}

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

static void usage(const struct ab_prog_info *info, const struct ab_opt *opts, const void *params)
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
	for (size_t i = 0; i < AB_ARRAY_SIZE(common_opts); i++) {
		snprintf(left, sizeof(left), "--%s%s%s", common_opts[i].name,
			 common_opts[i].arg ? " " : "", common_opts[i].arg ? common_opts[i].arg : "");
		if (common_opts[i].id == C_DURATION)
			snprintf(text, sizeof(text), "%s (default %g)", common_opts[i].help,
				 info->default_duration);
		else if (common_opts[i].id == C_REPEAT)
			snprintf(text, sizeof(text), "%s (default %d)", common_opts[i].help,
				 info->default_repeat);
		else
			snprintf(text, sizeof(text), "%s", common_opts[i].help);
		help_line(left, text);
	}
	if (info->usage_extra)
		printf("\n%s\n", info->usage_extra);
	printf("\nExit codes: 0 ok, 1 measurement failed, 2 bad usage, 4 skipped (machine lacks something).\n");
}

/* getopt's table, on the caller's stack (nothing to free on --help's exit): the common
 * options (or --help alone), then opts as C_USER + index. */
#define AB_OPTS_MAX 64	/* struct ab_common's given has a bit each */
#define GETOPT_TABLE_LEN (AB_OPTS_MAX + AB_ARRAY_SIZE(common_opts) + 1)

static void getopt_table(const struct ab_opt *opts, int with_common, struct option *lo)
{
	size_t nuser = 0, n = 0;

	while (opts && opts[nuser].name)
		nuser++;
	if (nuser > AB_OPTS_MAX)
		ab_fail("option table of %zu entries: at most %d", nuser, AB_OPTS_MAX);
	for (size_t i = 0; i < AB_ARRAY_SIZE(common_opts); i++)
		if (with_common || common_opts[i].id == C_HELP)
			lo[n++] = (struct option){ common_opts[i].name, common_opts[i].has_arg ?
						  required_argument : no_argument, NULL, common_opts[i].id };
	for (size_t i = 0; i < nuser; i++)
		lo[n++] = (struct option){ opts[i].name, opts[i].type == AB_OPT_FLAG ? no_argument :
					  required_argument, NULL, C_USER + (int)i };
	lo[n] = (struct option){ 0 };
}

int ab_opt_given(const struct ab_opt *opts, const struct ab_common *common, const char *name)
{
	for (int i = 0; opts[i].name && i < AB_OPTS_MAX; i++)
		if (!strcmp(opts[i].name, name))
			return !!(common->given & (1ull << i));
	return 0;
}

int ab_parse_cmd(int argc, char **argv, const char *cmd, const char *usage_text,
		 const struct ab_opt *opts, void *params)
{
	char prefix[64], see[96];
	struct option lo[GETOPT_TABLE_LEN];
	int c;

	getopt_table(opts, 0, lo);
	snprintf(prefix, sizeof(prefix), "%s: ", cmd);
	msg_prefix = prefix;
	snprintf(see, sizeof(see), "see %s %s --help", ab_prog, cmd);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		switch (c) {
		case C_HELP:
			fputs(usage_text, stdout);
			exit(AB_EXIT_OK);
		case ':':
			ab_usage_error("%soption '%s' needs a value", prefix, argv[optind - 1]);
		case '?':
			ab_usage_error("%sunknown option '%s' (%s)", prefix, argv[optind - 1], see);
		default:
			set_user(&opts[c - C_USER], params, optarg);
		}
	}
	msg_prefix = "";
	return optind;
}

int ab_parse_args(int argc, char **argv, const struct ab_prog_info *info,
		  const struct ab_opt *opts, void *params, struct ab_common *common)
{
	char err[512];

	struct option lo[GETOPT_TABLE_LEN];

	ab_prog = info->name;
	getopt_table(opts, 1, lo);

	memset(common, 0, sizeof(*common));
	common->format = AB_FMT_TABLE;
	common->duration = info->default_duration;
	common->repeat = info->default_repeat;
	if (ab_cpuset_allowed(&common->allowed))
		ab_fail("sched_getaffinity: %s", strerror(errno));

	opterr = 0;
	optind = 1;
	int c;
	long l;
	while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		switch (c) {
		case C_HELP:
			usage(info, opts, params);
			exit(0);
		case C_VERSION:
			printf("%s (affbench) %s\n", info->name, AB_VERSION);
			exit(0);
		case C_FORMAT:
			if (ab_format_parse(optarg, &common->format))
				bad(NULL, "format", optarg, "expected table|csv|json");
			break;
		case C_DURATION:
			if (ab_parse_double(optarg, &common->duration))
				bad(NULL, "duration", optarg, "not a number of seconds");
			if (!(common->duration >= AB_MIN_DURATION))
				bad(NULL, "duration", optarg, "must be at least " AB_STR(AB_MIN_DURATION)
				    " s (shorter windows cannot be timed)");
			if (common->duration > 86400)
				bad(NULL, "duration", optarg, "must be <= 86400");
			break;
		case C_REPEAT:
			if (ab_parse_long(optarg, &l) || l < 1 || l > 100000)
				bad(NULL, "repeat", optarg, "must be an integer from 1 to 100000");
			common->repeat = (int)l;
			break;
		case C_CPUS: {
			struct ab_cpuset allowed = common->allowed;
			if (ab_cpuset_parse(&common->allowed, optarg, &allowed, err, sizeof(err)))
				ab_usage_error("bad value '%s' for --cpus: %s", optarg, err);
			common->cpus_arg = optarg;
			break;
		}
		case C_QUIET:
			common->quiet = 1;
			break;
		case C_CHECK:
			common->check_options = 1;
			break;
		case ':':
			ab_usage_error("option '%s' needs a value", argv[optind - 1]);
		case '?':
			ab_usage_error("unknown option '%s' (see --help)", argv[optind - 1]);
		default:
			set_user(&opts[c - C_USER], params, optarg);
			common->given |= 1ull << (c - C_USER);
		}
	}
	/* --cpus holds for everything the benchmark starts: threads and children inherit it. */
	if (common->cpus_arg && ab_pin_self_set(&common->allowed) < 0)
		ab_fail("cannot restrict to CPUs %s: %s", common->cpus_arg, strerror(errno));
	return optind;
}

void ab_opts_checked(const struct ab_common *common)
{
	if (common->check_options)
		exit(AB_EXIT_OK);
}
