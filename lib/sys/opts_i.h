/* SPDX-License-Identifier: GPL-2.0 */
/* The option layer's two halves, opts.c (parsing) and opts_help.c (--help):
 * the common options' table they share, and the words of a choice. */
#ifndef AB_OPTS_I_H
#define AB_OPTS_I_H

#include "sys/opts.h"

enum { C_HELP = 1000, C_VERSION, C_FORMAT, C_DURATION, C_REPEAT, C_CPUS, C_QUIET, C_CHECK, C_IDLE,
       C_USER = 2000 };

struct ab_common_opt {
	const char *name;
	int has_arg;
	int id;
	const char *arg, *help;
};
#define AB_NCOMMON_OPTS 9
extern const struct ab_common_opt ab_common_opts[AB_NCOMMON_OPTS];

/* The idx-th word (from 0) of choices "a|b|c", its length in *len; NULL past the last. */
const char *ab_choice(const char *choices, int idx, size_t *len);

/* --help: info's summary, opts with their defaults in params, the common options. */
void ab_opts_usage(const struct ab_prog_info *info, const struct ab_opt *opts, const void *params);

#endif
