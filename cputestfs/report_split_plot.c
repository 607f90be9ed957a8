// SPDX-License-Identifier: GPL-2.0
/*
 * cputestfs's split as a figure (cputestfs_split.png): the three parts of
 * other minus same stacked in one bar, drawn exactly as the sentence gives
 * them, anything below zero below zero; where the model does not hold, the
 * measured pieces side by side instead (report_split.c computes both).
 */
#include <stdio.h>

#include "render/gpscript.h"
#include "render/render.h"
#include "render/render_plot.h"
#include "report_levers.h"
#include "report_split.h"

/* The bars: the three parts stacked when the model holds, else the measured pieces side
 * by side; *lo, *hi: the range they cover, 0 included. */
static int plot_dat(struct ab_render *r, const struct split *s, double *lo, double *hi)
{
	FILE *d = ab_plot_file(r, "cputestfs_split.dat");
	double v[4];
	int n;

	if (!d)
		return -1;
	if (s->holds) {
		fprintf(d, "# part: cache wake fuse, us per stat()\n\"other - same\" %.6g %.6g %.6g\n",
			s->cache.v, s->wake.v, s->fuse.v);
		v[0] = s->cache.v + s->wake.v + s->fuse.v;
		n = 1;
	} else {
		fprintf(d, "# measured piece, us\n\"other - same (per stat())\" %.6g\n"
			   "\"%s round trip, CPUs %.8s and %.8s\" %.6g\n\"%s round trip, CPU %.8s alone\" "
			   "%.6g\n\"cache-line round trip\" %.6g\n", s->diff.v, ctf_split_method(s),
			s->a, s->b, s->rt.v, ctf_split_method(s), s->c, s->self.v, s->line.v);
		v[0] = s->diff.v, v[1] = s->rt.v, v[2] = s->self.v, v[3] = s->line.v;
		n = 4;
	}
	ab_plot_file_close(r, d, "cputestfs_split.dat");
	*lo = *hi = 0;
	for (int k = 0; k < n; k++) {
		*lo = v[k] < *lo ? v[k] : *lo;
		*hi = v[k] > *hi ? v[k] : *hi;
	}
	return 0;
}

void ctf_split_plot(struct ab_render *r)
{
	static const char *const parts[] = { "cache transfers", "wake-ups crossing adds",
					     "FUSE's own path" };
	struct split s;
	char buf[512];
	double lo, hi;

	if (ctf_split_of(r, &s) < 0 || ctf_no_split(r, &s, buf, sizeof(buf)) || plot_dat(r, &s, &lo, &hi))
		return;
	FILE *f = ab_plot_begin(r);
	if (!f)
		return;
	double pad = (hi - lo) * 0.1 > 0 ? (hi - lo) * 0.1 : 1;
	ab_plot_set(f, "title", s.holds ? "cputestfs: other minus same, split (us per stat())" :
			"cputestfs: the split does not hold here; the measured pieces (us)");
	ab_plot_set(f, "xlabel", "libfuse, one daemon thread, the idle policy as found");
	ab_plot_set(f, "ylabel", s.holds ? "us per stat()" : "us");
	/* every bar inside, below zero drawn below zero */
	fprintf(f, "set yrange [%.6g:%.6g]\nset xzeroaxis lt -1\n", lo < 0 ? lo - pad : 0, hi + pad);
	fprintf(f, "set style fill solid 0.7 border -1\nset boxwidth 0.5\n"
		   "set key outside right top vertical noenhanced\n");
	if (!s.holds) {
		fprintf(f, "set key off\nset xtics rotate by -20 noenhanced\nplot "
			   "'cputestfs_split.dat' using 0:2:xtic(1) with boxes notitle\n");
		ab_plot_end(r, f, "cputestfs_split", 760, 480);
		return;
	}
	fprintf(f, "set style data histograms\nset style histogram rowstacked\n"
		   "set key title 'bars: parts of the difference of medians' noenhanced\nplot ");
	for (int k = 0; k < 3; k++) {
		fprintf(f, "%s'cputestfs_split.dat' using %d%s title ", k ? ", " : "", 2 + k,
			k ? "" : ":xtic(1)");
		ab_gp_string(f, parts[k]);
	}
	fprintf(f, "\n");
	/* the key beside the bar: the title is centred on the plot area, which the key
	 * pushes left, so the figure is wide enough for both */
	ab_plot_end(r, f, "cputestfs_split", 760, 480);
}
