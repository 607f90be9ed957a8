/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where figures go in a run directory (and in compare's --out): the PNG and
 * SVG in figures/, the .gp and .dat they are drawn from in figures/src/. A .gp
 * is run in figures/src/ and draws into "..". report.md and tables.md link
 * AB_FIG_DIR "/NAME.png".
 */
#ifndef AB_PLOTDIR_H
#define AB_PLOTDIR_H

#include <stddef.h>

#define AB_FIG_DIR "figures"
#define AB_FIG_SRC_DIR "figures/src"
/*
 * Where figures are made: a private directory (0700, under $TMPDIR) whose src/
 * holds the .dat and .gp files (ab_render.dir and path point there) and whose
 * top holds whatever gnuplot draws, since gnuplot opens its outputs by name and
 * would follow a link planted in the run directory. ab_plotdir_close makes
 * dest/figures/src (refused when either is a link or not a directory), moves
 * each file there or into dest/figures (never through a link: lib/sys/outfile),
 * removes a regular file of the same name at dest's top level (an older run's
 * flat layout, now replaced) and removes the private directory: 0, or -1 when
 * a file could not be moved (each said). With replace set, a figure file of
 * dest/figures and figures/src that this plot did not write (an earlier plot's
 * figure or .dat that this one no longer draws) is removed too: only regular
 * files with a figure's name, never a link; the figure of a script that failed
 * to draw stays as it was.
 */
struct ab_plotdir {
	int fd;			/* path: where .dat and .gp go and gnuplot runs */
	int top;		/* root: where gnuplot draws (../NAME.png from path) */
	char root[1024];	/* $TMPDIR/affbench-plot.XXXXXX */
	char path[1040];	/* root/src */
	const char *dest;
	int replace;		/* set after open: the plot is dest's whole set of figures */
};
int ab_plotdir_open(struct ab_plotdir *p, const char *dest);
int ab_plotdir_close(struct ab_plotdir *p);
/* Run gnuplot in the private directory's src/ on NAME.gp for each of names (one process
 * for all; when it fails, each alone to find which); its messages are appended to
 * dest/log/gnuplot.log when dest has a log/. ok[i]: drawn, its PNG and SVG both
 * non-empty. A figure not drawn has its outputs removed from the private directory,
 * so that ab_plotdir_close leaves dest's previous version. Returns how many failed,
 * each named in a message; without gnuplot none is drawn, one message says so, and
 * that is not a failure (ab_have_gnuplot tells). */
#define AB_PLOTS_MAX 64
int ab_plots_draw(struct ab_plotdir *p, char names[][64], int n, int *ok);
int ab_have_gnuplot(void);
/* The file NAME's figure is drawn to: NAME.png or NAME.svg (NAME.png.txt, NAME.svg.txt
 * under the test hook AFFBENCH_PLOT_TEXT: the fuzz test draws thousands of plots;
 * text keeps it fast). buf. */
const char *ab_plot_output(char *buf, size_t len, const char *name, int svg);
#define AB_GNUPLOT_TIMEOUT_NS (60 * AB_NS)

#endif
