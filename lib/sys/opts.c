// SPDX-License-Identifier: GPL-2.0
/*
 * The option layer: one table per benchmark drives parsing and --help, and
 * the common options (docs/records.md) are handled the same way everywhere.
 */
#include "sys/opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/pin.h"
#include "sys/opts_i.h"

static int choice_index(const char *choices, const char *s)
{
	const char *c;
	size_t len;

	for (int i = 0; (c = ab_choice(choices, i, &len)); i++)
		if (len == strlen(s) && !strncmp(c, s, len))
			return i;
	return -1;
}

/* "run: " while a harness subcommand parses, so its messages say whose option it was */
static const char *msg_prefix = "";

/* The one place bad values are worded: the value is cut (ab_cut), the reason kept. */
static void bad(const struct ab_opt *o, const char *name, const char *val, const char *why)
{
	char cut[AB_CUT_LEN + 4];

	ab_usage_error("%sbad value '%s' for --%s: %s", msg_prefix, ab_cut(val, cut),
		       o ? o->name : name, why);
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

/* getopt's table, on the caller's stack (nothing to free on --help's exit): the common
 * options (or --help alone), then opts as C_USER + index. */
#define AB_OPTS_MAX 64	/* struct ab_common's given has a bit each */
#define GETOPT_TABLE_LEN (AB_OPTS_MAX + AB_NCOMMON_OPTS + 1)

static void getopt_table(const struct ab_opt *opts, int with_common, struct option *lo)
{
	size_t nuser = 0, n = 0;

	while (opts && opts[nuser].name)
		nuser++;
	if (nuser > AB_OPTS_MAX)
		ab_fail("option table of %zu entries: at most %d", nuser, AB_OPTS_MAX);
	for (const struct ab_common_opt *co = ab_common_opts; co < ab_common_opts + AB_NCOMMON_OPTS; co++)
		if (with_common || co->id == C_HELP)
			lo[n++] = (struct option){ co->name, co->has_arg ? required_argument : no_argument,
						   NULL, co->id };
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

void ab_parse_args(int argc, char **argv, const struct ab_prog_info *info,
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
			ab_opts_usage(info, opts, params);
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
				bad(NULL, "cpus", optarg, err);
			common->cpus_arg = optarg;
			break;
		}
		case C_QUIET:
			common->quiet = 1;
			break;
		case C_IDLE:
			if (ab_idle_parse(optarg, &common->idle, err, sizeof(err)) < 0)
				bad(NULL, "idle", optarg, err);
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
	if (optind < argc)
		ab_usage_error("unexpected argument '%s' (see --help)", argv[optind]);
	/* --cpus holds for everything the benchmark starts: threads and children inherit it. */
	if (common->cpus_arg && ab_pin_self_set(&common->allowed) < 0)
		ab_fail("cannot restrict to CPUs %s: %s", common->cpus_arg, strerror(errno));
}

void ab_opts_checked(const struct ab_common *common)
{
	if (common->check_options)
		exit(AB_EXIT_OK);
}

int ab_format_parse(const char *s, enum ab_format *f)
{
	int i = s ? choice_index("table|csv|json", s) : -1;	/* enum ab_format's order */

	if (i < 0) {
		errno = EINVAL;
		return -1;
	}
	*f = (enum ab_format)i;
	return 0;
}
