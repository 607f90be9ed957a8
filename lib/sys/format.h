/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output format of the common --format option (sys/opts.h), which the
 * records (record/record.h) are written in. Here, below both, so that the
 * option layer needs nothing from report/.
 */
#ifndef AB_FORMAT_H
#define AB_FORMAT_H

enum ab_format { AB_FMT_TABLE, AB_FMT_CSV, AB_FMT_JSON };
/* "table", "csv" or "json" into *f (sys/opts.c): 0, or -1 with errno EINVAL. */
int ab_format_parse(const char *s, enum ab_format *f);

#endif
