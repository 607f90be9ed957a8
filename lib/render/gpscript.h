/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way outside text enters a gnuplot script or data file. gnuplot runs
 * shell commands from '<cmd' file names and system(), and evaluates
 * expressions: a config value, metric, unit or directory name pasted between
 * quotes could end the string and run anything as root. So every title, label
 * and key is written by ab_gp_string, and every row label of a .dat file by
 * ab_gp_label; nothing else from outside is ever written into a .gp file. A
 * number derived from outside data (a y range) is written by ab_gp_yrange,
 * which keeps it finite: gnuplot reads "inf" as an undefined name and fails.
 */
#ifndef AB_GPSCRIPT_H
#define AB_GPSCRIPT_H

#include <stdio.h>

/* s as a single-quoted gnuplot string: ' doubled (gnuplot's only escape inside
 * single quotes), control characters as '?'. */
void ab_gp_string(FILE *f, const char *s);
/* s as a double-quoted data-file label: anything outside [A-Za-z0-9_.,:;=+-]
 * becomes '_', so a label can neither end its quotes nor split a column. */
void ab_gp_label(FILE *f, const char *s);
/* The highest y range written: gnuplot's own arithmetic on a range (its ticks,
 * the mapping to pixels) overflows well before DBL_MAX, and its figure comes out
 * wrong; a value above this is no measurement anyway, and is drawn off the top. */
#define AB_GP_YMAX 1e300
/* "set yrange [0:TOP]" a little above top, the highest value a figure draws, and
 * at most AB_GP_YMAX: finite whatever the data ("[0:*]" when top is not a
 * positive finite number; "[*:0]" when it is below zero: every bar hangs down). */
void ab_gp_yrange(FILE *f, double top);

/* "set AXIStics (...)": 1, 2 and 5 of each decade between lo and hi, for a log
 * axis (nothing unless 0 < lo < hi, hi finite). */
void ab_gp_logtics(FILE *f, const char *axis, double lo, double hi);
/* The most ticks ab_gp_logtics writes (1, 2 and 5 of 100 decades and more) */
#define AB_GP_TICS_MAX 1024
/* As ab_gp_logtics, and where none of those falls in [blo, bhi] (where the data
 * are; a CDF's central half), ticks there too: 1, 2 and 5, or the band's middle,
 * the ticks too near them left out. */
void ab_gp_logtics_band(FILE *f, const char *axis, double lo, double hi, double blo,
			double bhi);
/* Values spanning more than this factor get a log y axis (ab_gp_yrange_auto). */
#define AB_GP_LOG_SPREAD 10.0
/* low: the lowest positive value drawn (a median or an interval end), top the
 * highest: a log y axis from a little below low when top > AB_GP_LOG_SPREAD x low,
 * else ab_gp_yrange(top). Either way finite. 1: the axis is log (its label must say so,
 * ab_plot_yrange), 0: linear. */
int ab_gp_yrange_auto(FILE *f, double low, double top);
/* The lines one figure can tell apart: every figure draws with these */
#define AB_GP_LINES 12
/* "set linetype 1..12": one palette of distinct colours and dash types, written
 * at the top of every script so each figure uses the same lines. */
void ab_gp_palette(FILE *f);

#endif
