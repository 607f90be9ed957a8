/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One option layer for every benchmark: one table drives parsing and --help
 * (perf bench's options[], libfuse's fuse_opt with offsetof). The common
 * options (docs/records.md) come for free:
 *   --help --version --format table|csv|json --duration SEC --repeat N
 *   --cpus LIST --quiet --idle POLICY --check-options
 * Bad input: one line naming the option and the value, exit 2.
 */
#ifndef AB_OPTS_H
#define AB_OPTS_H

#include <stddef.h>

#include "sys/cpuset.h"
#include "sys/idle_policy.h"
#include "sys/parse.h"
#include "sys/format.h"

enum ab_opt_type {
	AB_OPT_FLAG,		/* int, set to 1; no argument */
	AB_OPT_INT,		/* int within [min, max] */
	AB_OPT_DOUBLE,		/* double within (min, max]: duration-like, must be > min */
	AB_OPT_SIZE,		/* size_t with K/M/G suffixes (powers of 1024), within [min, max] */
	AB_OPT_STR,		/* const char * */
	AB_OPT_CHOICE,		/* int index into choices ("a|b|c") */
	AB_OPT_INTLIST,		/* struct ab_intlist: "1,2,4" or "1-8" ranges, each in [min, max] */
};

/*
 * Every option table, the four benchmarks' and the harness's, is written with
 * AB_OPT and ends with AB_OPT_END:
 *   AB_OPT(struct ctf_settings, clients, "clients", AB_OPT_INT, "N", "client processes",
 *          .min = 1, .max = AB_MAX_CPUS),
 * The trailing designated initialisers (.min, .max, .choices) are optional.
 */
#define AB_OPT(params, field, name_, type_, arg_, help_, ...)                             \
	{ .name = (name_), .type = (type_), .offset = offsetof(params, field), .arg = (arg_), \
	  .help = (help_), __VA_ARGS__ }
#define AB_OPT_END { .name = NULL }

struct ab_opt {
	const char *name;	/* long name without "--" */
	enum ab_opt_type type;
	size_t offset;		/* offsetof(params struct, field) */
	const char *arg;	/* argument name for --help ("N", "LIST") */
	const char *help;
	double min, max;	/* for numbers; 0, 0 = unbounded */
	const char *choices;	/* for AB_OPT_CHOICE: "single|multi|clone_fd" */
};

struct ab_common {
	enum ab_format format;
	double duration;	/* seconds per repetition */
	int repeat;
	struct ab_cpuset allowed;	/* sched_getaffinity narrowed by --cpus */
	const char *cpus_arg;	/* --cpus as given, or NULL */
	int quiet;
	unsigned long long given;	/* bit i: opts[i] was on the command line (ab_opt_given) */
	int check_options;	/* --check-options: see ab_opts_checked */
	struct ab_idle idle;	/* --idle; applied by knob/idle.h's ab_idle_apply, its
				 * key added to every record by record/record.h's writer */
};

struct ab_prog_info {
	const char *name;	/* the program's name, as its --help and messages give it */
	const char *summary;	/* one line: what it measures */
	const char *usage_extra;	/* paragraph after the options, may be NULL */
	double default_duration;
	int default_repeat;
	/* what one --duration times, said once in its help line (NULL: one window per
	 * point of the sweep in each repetition, after a warm-up) */
	const char *duration_per;
};

/*
 * Parse argv. Fills *common and the params struct through opts (a table ended
 * by AB_OPT_END). --help / --version print and exit 0; bad input
 * prints one line and exits 2, as does an operand (benchmarks take none).
 */
void ab_parse_args(int argc, char **argv, const struct ab_prog_info *info,
		   const struct ab_opt *opts, void *params, struct ab_common *common);

/*
 * Was option name on the command line? For combinations that mean nothing:
 * "--baseline pipe --transport dev" is refused, the default transport is not.
 */
int ab_opt_given(const struct ab_opt *opts, const struct ab_common *common, const char *name);

/*
 * A harness subcommand's options: opts alone, no common options. usage is
 * printed by --help (exit 0); bad input prints one line starting with cmd
 * ("run: bad value ...") and exits 2. Returns the index of the first operand.
 */
int ab_parse_cmd(int argc, char **argv, const char *cmd, const char *usage,
		 const struct ab_opt *opts, void *params);

/*
 * --check-options (the harness checks a plan's points with it before the first
 * one runs): exit 0 here when it was given. A benchmark calls this once, after
 * its last check of the options and before it touches the machine, so a bad
 * option or combination exits 2 with its one line and a good one measures nothing.
 * Right after it, the benchmark applies --idle: ab_idle_apply(&common.idle)
 * (knob/idle.h), so --check-options never touches the machine's idle settings.
 */
void ab_opts_checked(const struct ab_common *common);

#endif
