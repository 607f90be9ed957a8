/*
 * The one way outside text enters a gnuplot script or data file. gnuplot runs
 * shell commands from '<cmd' file names and system(), and evaluates
 * expressions: a config value, metric, unit or directory name pasted between
 * quotes could end the string and run anything as root. So every title, label
 * and key is written by ab_gp_string, and every row label of a .dat file by
 * ab_gp_label; nothing else from outside is ever written into a .gp file.
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

#endif
