// SPDX-License-Identifier: GPL-2.0
/*
 * Where figures are drawn (plotdir.h). gnuplot opens its output files by name
 * and follows links, so it never draws in the run directory (which may come
 * from elsewhere): the .dat and .gp files are written in a private directory's
 * src/ and drawn there into the private directory itself, and each file is then
 * moved into the run directory's figures/src/ or figures/ by lib/sys/outfile,
 * which replaces a link planted under its name and refuses a figures/ that is
 * a link or not a directory. The layout is the run directory's own, so a .gp
 * script works from the figures/src/ it is kept in.
 */
#include "render/plotdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/outfile.h"
#include "sys/proc.h"

const char *ab_plot_output(char *buf, size_t len, const char *name, int svg)
{
	snprintf(buf, len, "%s.%s%s", name, svg ? "svg" : "png",
		 ab_test_hook("AFFBENCH_PLOT_TEXT") ? ".txt" : "");
	return buf;
}

/* gnuplot on NAME.gp in dir; 0 or its exit status. */
static int draw_one(const char *dir, const char *name, const char *log)
{
	char file[96];

	snprintf(file, sizeof(file), "%s.gp", name);
	char *av[] = { "gnuplot", file, NULL };
	return ab_run(dir, av, log, AB_GNUPLOT_TIMEOUT_NS);
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
	p->fd = -1;
	p->replace = 0;
	p->top = ab_private_dir(p->root, sizeof(p->root), "plot");
	if (p->top < 0)
		return -1;
	snprintf(p->path, sizeof(p->path), "%s/src", p->root);
	if (mkdirat(p->top, "src", 0700) == 0)
		p->fd = openat(p->top, "src", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (p->fd < 0) {
		ab_msg("plot: %s: %s", p->path, strerror(errno));
		ab_private_dir_remove(p->top, p->root);
		return -1;
	}
	return 0;
}

/* NAME: a figure part we write (NAME.png.txt: the test hook's figures)? */
static int figure_part(const char *name)
{
	static const char *const ext[] = { ".png", ".svg", ".gp", ".dat", ".png.txt", ".svg.txt" };
	size_t n = strlen(name);

	for (size_t k = 0; k < AB_ARRAY_SIZE(ext); k++)
		if (n > strlen(ext[k]) && !strcmp(name + n - strlen(ext[k]), ext[k]))
			return 1;
	return 0;
}

/* Every regular file of the private directory fd, moved into dest/SUB/. */
static int publish(struct ab_plotdir *p, int fd, const char *sub)
{
	int dfd = dup(fd), bad = 0;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	struct stat st;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		ab_msg("plot: %s: %s", p->root, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {	/* ours alone: no dot files; src/ is published apart */
		char rel[128];
		if (de->d_name[0] == '.' || fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if ((size_t)snprintf(rel, sizeof(rel), "%s/%s", sub, de->d_name) >= sizeof(rel) ||
		    ab_outfile_move_to(fd, de->d_name, p->dest, rel) < 0)
			bad = -1;
	}
	closedir(d);
	return bad;
}

/* NAME's stem (NAME less its figure extension) with ".gp" in buf. */
static const char *script_of(char *buf, size_t len, const char *name)
{
	const char *dot = strchr(name, '.');

	snprintf(buf, len, "%.*s.gp", dot ? (int)(dot - name) : (int)strlen(name), name);
	return buf;
}

/*
 * dest/SUB's figure files that this plot did not write, removed: a figure an
 * earlier plot drew and this one no longer does would be left beside the
 * report, stale. A file stays when the private directory (mine) holds it, or,
 * in figures/, when its script is in src (a figure that failed to draw keeps
 * its previous version). Only regular files with a figure's name, never
 * through or of a link: unlinkat on a name in a directory opened O_NOFOLLOW.
 */
static void sweep(struct ab_plotdir *p, const char *sub, int mine)
{
	char path[PATH_MAX], gp[128];
	struct dirent *de;
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", p->dest, sub);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !figure_part(de->d_name) ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    faccessat(mine, de->d_name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (mine == p->top &&
		    faccessat(p->fd, script_of(gp, sizeof(gp), de->d_name), F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		unlinkat(fd, de->d_name, 0);
	}
	closedir(d);
}

int ab_plotdir_close(struct ab_plotdir *p)
{
	if (p->fd < 0)
		return -1;
	int rc = ab_outdir_make(p->dest, AB_FIG_DIR) | ab_outdir_make(p->dest, AB_FIG_SRC_DIR);
	if (rc == 0) {
		if (p->replace) {	/* before publishing: what is there now is the earlier plot's */
			sweep(p, AB_FIG_SRC_DIR, p->fd);
			sweep(p, AB_FIG_DIR, p->top);
		}
		rc = publish(p, p->fd, AB_FIG_SRC_DIR) | publish(p, p->top, AB_FIG_DIR);
	}
	ab_private_dir_remove(p->fd, p->path);
	ab_private_dir_remove(p->top, p->root);
	p->fd = p->top = -1;
	return rc ? -1 : 0;
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
		if (fstatat(dfd, ab_plot_output(out, sizeof(out), name, svg), &st, AT_SYMLINK_NOFOLLOW) < 0 ||
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
		unlinkat(dfd, ab_plot_output(out, sizeof(out), name, svg), 0);
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
		       "files are in %s/" AB_FIG_SRC_DIR " (install it with: apt-get install gnuplot-nox)",
		       n, p->dest);
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
	int all = ab_run(p->path, av, log, AB_GNUPLOT_TIMEOUT_NS), empty[AB_PLOTS_MAX] = { 0 };
	for (int i = 0; i < n; i++) {	/* one failed: find which, one at a time */
		ok[i] = all == 0 || draw_one(p->path, names[i], log) == 0;
		empty[i] = ok[i] && !drawn(p->top, names[i]);
		ok[i] &= !empty[i];
		if (!ok[i])
			discard_figure(p->top, names[i]);
	}
	int kept = keep_log(p);
	for (int i = 0; i < n; i++)
		if (!ok[i]) {
			ab_msg("plot: gnuplot %s/" AB_FIG_SRC_DIR "/%s.gp %s%s; the previous figure, "
			       "if any, is left as it was", p->dest, names[i],
			       empty[i] ? "drew an empty figure" : "failed",
			       kept && !empty[i] ? " (see log/gnuplot.log)" : "");
			bad++;
		}
	return bad;
}
