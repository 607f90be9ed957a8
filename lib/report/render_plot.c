/*
 * Grids and plots of the renderer (see render.h). Every .gp file is written
 * here, with titles, labels and keys through lib/gpscript's escaper, and run
 * by gnuplot with no shell in between. gnuplot opens its output files by name
 * and follows links, so it never draws in the run directory (which may come
 * from elsewhere): the .dat and .gp files are written, and drawn, in a private
 * directory, and each file is then moved into the run directory by
 * lib/sys/outfile, which replaces a link planted under its name.
 */
#include "report/render.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "report/gpscript.h"
#include "sys/outfile.h"
#include "sys/proc.h"

#define GNUPLOT_TIMEOUT_NS (60 * AB_NS)

/* ---- grids ---- */

static int holds(const char *config, const char *const *fixed)
{
	for (int k = 0; fixed && fixed[k]; k++)
		if (!ab_cfg_matches(config, fixed[k]))
			return 0;
	return 1;
}

static void grid_drop_empty(struct ab_grid *m)
{
	struct ab_grid o = *m;
	int keepc[AB_GRID_COLS] = { 0 };

	m->nr = m->nc = 0;
	for (int c = 0; c < o.nc; c++)
		for (int r = 0; r < o.nr; r++)
			keepc[c] |= o.g[r][c] != NULL;
	for (int c = 0; c < o.nc; c++)
		if (keepc[c])
			memcpy(m->cols[m->nc++], o.cols[c], sizeof(o.cols[c]));
	for (int r = 0; r < o.nr; r++) {
		int any = 0, k = 0;
		for (int c = 0; c < o.nc; c++)
			any |= o.g[r][c] != NULL;
		if (!any)
			continue;
		memcpy(m->rows[m->nr], o.rows[r], sizeof(o.rows[r]));
		for (int c = 0; c < o.nc; c++)
			if (keepc[c])
				m->g[m->nr][k++] = o.g[r][c];
		m->nr++;
	}
}

void ab_grid_build(struct ab_render *r, struct ab_grid *m, const char *metric, const char *rkey,
		   const char *ckey, const char *const *fixed)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->rkey, sizeof(m->rkey), "%.31s", rkey);
	m->nr = ab_r_distinct(r, metric, rkey, m->rows, AB_GRID_ROWS);
	m->nc = ab_r_distinct(r, metric, ckey, m->cols, AB_GRID_COLS);
	for (size_t i = 0; i < r->res->n; i++) {
		const struct ab_group *g = &r->res->g[i];
		char rv[AB_VALUE_LEN], cv[AB_VALUE_LEN];
		if (strcmp(g->bench, r->desc->name) || strcmp(g->metric, metric) ||
		    !holds(g->config, fixed))
			continue;
		ab_cfg_get(g->config, rkey, rv, sizeof(rv));
		ab_cfg_get(g->config, ckey, cv, sizeof(cv));
		for (int a = 0; a < m->nr; a++)
			for (int c = 0; c < m->nc; c++)
				if (!m->g[a][c] && !strcmp(m->rows[a], rv) && !strcmp(m->cols[c], cv))
					m->g[a][c] = g;
	}
	grid_drop_empty(m);
}

const char *ab_interval_label(size_t n)
{
	return n >= AB_MIN_REPS_CI ? "95% CI" : AB_MINMAX_LABEL;
}

const char *ab_grid_interval(const struct ab_grid *m)
{
	int few = 0, ci = 0;

	for (int a = 0; a < m->nr; a++)
		for (int c = 0; c < m->nc; c++)
			if (m->g[a][c] && m->g[a][c]->n >= AB_MIN_REPS_CI)
				ci = 1;
			else if (m->g[a][c])
				few = 1;
	if (few && ci)
		return "95% CI; ~ = " AB_MINMAX_LABEL;
	return few ? AB_MINMAX_LABEL : "95% CI";
}

void ab_grid_md(struct ab_render *r, const struct ab_grid *m, const char *corner, int with_ci)
{
	FILE *f = r->out;
	int mixed = strchr(ab_grid_interval(m), '~') != NULL;

	fprintf(f, "| %s |", corner);
	for (int c = 0; c < m->nc; c++)
		fprintf(f, " %s |", m->cols[c]);
	fprintf(f, "\n|---|");
	for (int c = 0; c < m->nc; c++)
		fprintf(f, "---|");
	fprintf(f, "\n");
	for (int a = 0; a < m->nr; a++) {
		fprintf(f, "| %s |", m->rows[a]);
		for (int c = 0; c < m->nc; c++) {
			const struct ab_group *g = m->g[a][c];
			struct ab_summary s;
			if (!g) {
				fprintf(f, " - |");
			} else if (with_ci) {
				char a[32], b[32], c[32];
				ab_summarize(g->v, g->n, &s);
				fprintf(f, " %s [%s, %s]%s |", ab_r_num(a, sizeof(a), s.median),
					ab_r_num(b, sizeof(b), s.ci.lo), ab_r_num(c, sizeof(c), s.ci.hi),
					mixed && g->n < AB_MIN_REPS_CI ? " ~" : "");
			} else {
				char a[32];
				fprintf(f, " %s |", ab_r_num(a, sizeof(a), ab_r_median(g)));
			}
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

static FILE *open_in(struct ab_render *r, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	FILE *f = fopen(path, "we");
	if (!f) {
		ab_msg("plot: %s: %s", path, strerror(errno));
		r->failed = 1;
	}
	return f;
}

static void close_in(struct ab_render *r, FILE *f, const char *name)
{
	if (ferror(f) | fclose(f)) {
		ab_msg("plot: writing %s/%s failed: %s", r->dir, name, strerror(errno));
		r->failed = 1;
	}
}

FILE *ab_plot_file(struct ab_render *r, const char *name)
{
	return r->dir ? open_in(r, name) : NULL;
}

void ab_plot_file_close(struct ab_render *r, FILE *f, const char *name)
{
	close_in(r, f, name);
}

void ab_grid_dat(struct ab_render *r, const struct ab_grid *m, const char *name)
{
	char file[96];

	snprintf(file, sizeof(file), "%s.dat", name);
	FILE *f = r->dir ? open_in(r, file) : NULL;
	if (!f)
		return;
	fprintf(f, "# row, then median ci_lo ci_hi per column:");
	for (int c = 0; c < m->nc; c++)
		fprintf(f, " %s", m->cols[c]);
	fprintf(f, "\n");
	for (int a = 0; a < m->nr; a++) {
		char *end;
		double x = strtod(m->rows[a], &end);
		if (end != m->rows[a] && !*end && isfinite(x))
			fprintf(f, "%s", m->rows[a]);	/* a number: an x value, not a label */
		else
			ab_gp_label(f, m->rows[a]);
		for (int c = 0; c < m->nc; c++) {
			struct ab_summary s;
			if (m->g[a][c]) {
				ab_summarize(m->g[a][c]->v, m->g[a][c]->n, &s);
				fprintf(f, " %.6g %.6g %.6g", s.median, s.ci.lo, s.ci.hi);
			} else {
				fprintf(f, " NaN NaN NaN");
			}
		}
		fprintf(f, "\n");
	}
	close_in(r, f, file);
}

/* ---- plots ---- */

struct plot_body {
	char *buf;
	size_t len;
};
static struct plot_body body;	/* one plot at a time */

FILE *ab_plot_begin(struct ab_render *r)
{
	(void)r;
	free(body.buf);
	body.buf = NULL;
	return open_memstream(&body.buf, &body.len);
}

void ab_plot_set(FILE *f, const char *keyword, const char *text)
{
	fprintf(f, "set %s ", keyword);
	ab_gp_string(f, text);
	fputs(" noenhanced\n", f);	/* an underscore is an underscore, not a subscript */
}

/* The key says what the error bars are. */
static void plot_key_title(FILE *f, const struct ab_grid *m)
{
	char t[96];

	snprintf(t, sizeof(t), "bars: %s", ab_grid_interval(m));
	ab_plot_set(f, "key title", t);
}

void ab_plot_bars(FILE *f, const struct ab_grid *m, const char *dat, const char *title,
		  const char *ylabel, const char *key_prefix)
{
	ab_plot_set(f, "title", title);
	ab_plot_set(f, "ylabel", ylabel);
	ab_plot_yrange(f, m);
	fprintf(f, "set style data histograms\n"
		   "set style histogram errorbars gap 1 lw 1\nset style fill solid 0.6 border -1\n"
		   "set key outside right top vertical noenhanced\nset xtics nomirror noenhanced\n");
	plot_key_title(f, m);
	fprintf(f, "plot ");
	for (int c = 0; c < m->nc; c++) {
		char key[96];
		snprintf(key, sizeof(key), "%s%s", key_prefix, m->cols[c]);
		fprintf(f, "%s'%s' using %d:%d:%d%s title ", c ? ", " : "", dat, 2 + 3 * c, 3 + 3 * c,
			4 + 3 * c, c ? "" : ":xtic(1)");
		ab_gp_string(f, key);
	}
	fprintf(f, "\n");
}

static int have_pngcairo(void)
{
	static int have = -1;

	if (have < 0) {
		char *av[] = { "gnuplot", "-e", "set terminal pngcairo", NULL };
		have = ab_run(NULL, av, NULL, GNUPLOT_TIMEOUT_NS) == 0;
	}
	return have;
}

void ab_plot_yrange(FILE *f, const struct ab_grid *m)
{
	double top = 0;

	for (int a = 0; a < m->nr; a++)
		for (int c = 0; c < m->nc; c++) {
			struct ab_summary s;
			if (!m->g[a][c] || !m->g[a][c]->n)
				continue;
			ab_summarize(m->g[a][c]->v, m->g[a][c]->n, &s);
			top = fmax(top, fmax(isfinite(s.median) ? s.median : 0, isfinite(s.ci.hi) ? s.ci.hi : 0));
		}
	ab_gp_yrange(f, top);
}

/* The file a figure's .gp draws: NAME.png or NAME.svg (NAME.png.txt, NAME.svg.txt
 * under the test hook: the fuzz test draws thousands of plots; text keeps it fast). */
static const char *output_name(char *buf, size_t len, const char *name, int svg)
{
	snprintf(buf, len, "%s.%s%s", name, svg ? "svg" : "png",
		 ab_test_hook("AFFBENCH_PLOT_TEXT") ? ".txt" : "");
	return buf;
}

void ab_plot_terminal(FILE *f, const char *name, int svg, int width, int height)
{
	char out[96];

	if (ab_test_hook("AFFBENCH_PLOT_TEXT"))
		fprintf(f, "set terminal dumb size 79,24\n");
	else if (svg)
		fprintf(f, "set terminal svg size %d,%d\n", width, height);
	else
		fprintf(f, "set terminal %s size %d,%d\n", have_pngcairo() ? "pngcairo" : "png", width,
			height);
	fprintf(f, "set output '%s'\n", output_name(out, sizeof(out), name, svg));
}

void ab_plot_end(struct ab_render *r, FILE *b, const char *name, int width, int height)
{
	char file[96];

	if (ferror(b) | fclose(b) || !r->dir) {
		r->failed |= r->dir != NULL;
		return;
	}
	snprintf(file, sizeof(file), "%s.gp", name);
	FILE *f = open_in(r, file);
	if (!f)
		return;
	fprintf(f, "# regenerate with: gnuplot %s.gp (in this directory)\nset encoding utf8\n"
		   "set grid ytics\n", name);
	ab_plot_terminal(f, name, 0, width, height);
	fprintf(f, "%sreset\nset grid ytics\n", body.buf);
	ab_plot_terminal(f, name, 1, width, height);
	fprintf(f, "%sunset output\nreset\n", body.buf);
	close_in(r, f, file);
	if (r->nfig < (int)AB_ARRAY_SIZE(r->figures))
		snprintf(r->figures[r->nfig++], sizeof(r->figures[0]), "%s", name);
}

/* gnuplot on NAME.gp in dir; 0 or its exit status. */
static int draw_one(const char *dir, const char *name, const char *log)
{
	char file[96];

	snprintf(file, sizeof(file), "%s.gp", name);
	char *av[] = { "gnuplot", file, NULL };
	return ab_run(dir, av, log, GNUPLOT_TIMEOUT_NS);
}

int ab_have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX];

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");
		if (len > 0 && len < sizeof(dir) - 9) {
			snprintf(dir, sizeof(dir), "%.*s/gnuplot", (int)len, p);
			if (access(dir, X_OK) == 0)
				return 1;
		}
		p += len + (p[len] == ':');
	}
	return 0;
}

int ab_plotdir_open(struct ab_plotdir *p, const char *dest)
{
	p->dest = dest;
	p->fd = ab_private_dir(p->path, sizeof(p->path), "plot");
	return p->fd < 0 ? -1 : 0;
}

/* Every file drawn or written in the private directory, moved into dest. */
static int publish(struct ab_plotdir *p)
{
	int dfd = dup(p->fd), bad = 0;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		ab_msg("plot: %s: %s", p->path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)))	/* ours alone: no dot files, no directories */
		if (de->d_name[0] != '.' && (de->d_type == DT_REG || de->d_type == DT_UNKNOWN) &&
		    ab_outfile_move(p->fd, de->d_name, p->dest) < 0)
			bad = -1;
	closedir(d);
	return bad;
}

int ab_plotdir_close(struct ab_plotdir *p)
{
	if (p->fd < 0)
		return -1;
	int rc = publish(p);
	ab_private_dir_remove(p->fd, p->path);
	p->fd = -1;
	return rc;
}

/* gnuplot's messages, kept in the run's log/ when it has one; 1 when kept. */
static int keep_log(struct ab_plotdir *p)
{
	char err[512], buf[65536];
	ssize_t n;
	int kept = 0, src = openat(p->fd, "gnuplot.log", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int dst = src >= 0 ? ab_append_open(p->dest, "log/gnuplot.log", err, sizeof(err)) : -1;

	if (src >= 0 && dst < 0 && errno != ENOENT)
		ab_msg("plot: gnuplot's messages not kept: %s", err);
	while (dst >= 0 && (n = read(src, buf, sizeof(buf))) > 0)
		kept = write(dst, buf, (size_t)n) == n;
	if (dst >= 0)
		close(dst);
	if (src >= 0)
		close(src);
	unlinkat(p->fd, "gnuplot.log", 0);
	return kept;
}

/* Both of NAME's figures drawn, each a non-empty regular file? */
static int drawn(int dfd, const char *name)
{
	char out[96];
	struct stat st;

	for (int svg = 0; svg < 2; svg++)
		if (fstatat(dfd, output_name(out, sizeof(out), name, svg), &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_size == 0)
			return 0;
	return 1;
}

/*
 * Whatever gnuplot left of a figure it failed to draw: it creates the output
 * at "set output" and fails at "plot", leaving 0 bytes (or half a figure after
 * a timeout). Taken out of the private directory, so that publish moves only
 * whole figures and a failed one leaves the run directory's previous version.
 */
static void discard_figure(int dfd, const char *name)
{
	char out[96];

	for (int svg = 0; svg < 2; svg++)
		unlinkat(dfd, output_name(out, sizeof(out), name, svg), 0);
}

int ab_plots_draw(struct ab_plotdir *p, char names[][64], int n, int *ok)
{
	char log[sizeof(p->path) + 16], *av[AB_PLOTS_MAX + 2], files[AB_PLOTS_MAX][96];
	int bad = 0;

	if (n <= 0)
		return 0;
	if (!ab_have_gnuplot()) {
		/* a missing tool, not a failed run: the data and scripts are there to draw later */
		for (int i = 0; i < n; i++)
			ok[i] = 0;
		ab_msg("plot: gnuplot is not installed: %d figure(s) not drawn; their .gp and .dat "
		       "files are in %s (install it with: apt-get install gnuplot-nox)", n, p->dest);
		return 0;
	}
	snprintf(log, sizeof(log), "%s/gnuplot.log", p->path);
	/* One gnuplot for all: its start-up is most of a plot's cost. */
	av[0] = "gnuplot";
	for (int i = 0; i < n && i < AB_PLOTS_MAX; i++) {
		snprintf(files[i], sizeof(files[i]), "%s.gp", names[i]);
		av[i + 1] = files[i];
	}
	av[n < AB_PLOTS_MAX ? n + 1 : AB_PLOTS_MAX + 1] = NULL;
	int all = ab_run(p->path, av, log, GNUPLOT_TIMEOUT_NS), empty[AB_PLOTS_MAX] = { 0 };
	for (int i = 0; i < n; i++) {	/* one failed: find which, one at a time */
		ok[i] = all == 0 || draw_one(p->path, names[i], log) == 0;
		empty[i] = ok[i] && !drawn(p->fd, names[i]);
		ok[i] &= !empty[i];
		if (!ok[i])
			discard_figure(p->fd, names[i]);
	}
	int kept = keep_log(p);
	for (int i = 0; i < n; i++)
		if (!ok[i]) {
			ab_msg("plot: gnuplot %s/%s.gp %s%s; the previous figure, if any, is left as it "
			       "was", p->dest, names[i], empty[i] ? "drew an empty figure" : "failed",
			       kept && !empty[i] ? " (see log/gnuplot.log)" : "");
			bad++;
		}
	return bad;
}
