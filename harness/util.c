// SPDX-License-Identifier: GPL-2.0
/* Small file and process helpers shared by the harness subcommands. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/fsutil.h"
#include "sys/parse.h"
#include "harness.h"
#include "render/desc.h"

int h_mkdirs(const char *path)
{
	return ab_mkdirs(path, 0755);	/* a run directory others may read */
}

/* A number and what follows it: suffixes is "%" or "smh" (NULL: none), one at most. */
static int number_then(const char *s, const char *suffixes, double *v, char *suffix)
{
	char num[64];
	size_t n = strlen(s);

	*suffix = '\0';
	if (n && suffixes && strchr(suffixes, s[n - 1]))
		*suffix = s[--n];
	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	return ab_parse_double(num, v);
}

int h_parse_precision(const char *s, double *frac)
{
	double v;
	char pct;

	if (number_then(s, "%", &v, &pct) < 0 || !(v > 0 && v < 100))
		return -1;
	*frac = v / 100;
	return 0;
}

int h_parse_budget(const char *s, double *seconds)
{
	double v;
	char unit;

	if (number_then(s, "smh", &v, &unit) < 0)
		return -1;
	v *= unit == 'm' ? 60 : unit == 'h' ? 3600 : 1;
	if (!(v >= 1 && v <= 7 * 86400))
		return -1;
	*seconds = v;
	return 0;
}

void h_fmt_dur(double s, char *buf, size_t len)
{
	long t = s < 0 ? 0 : (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

const char *h_machine_val(const char *dir, const char *label, char *buf, size_t len)
{
	char path[PATH_MAX], *line = NULL;
	size_t ll = strlen(label), cap = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/machine.txt", dir);
	buf[0] = '\0';
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_SMALL, NULL, 0);	/* h_inputs_check said why */
	if (!f)
		return buf;
	while ((n = ab_infile_line(f, &line, &cap)) != -1)
		if (n >= 0 && !strncmp(line, label, ll) && line[ll] == ' ') {
			char *v = line + ll;
			v += strspn(v, " ");
			snprintf(buf, len, "%s", v);	/* the last wins: a resumed run appends */
		}
	free(line);
	fclose(f);
	return buf;
}

/* May path be read: absent, or a regular file (not a link) of at most max bytes and
 * lines of at most AB_INFILE_MAX_LINE (sys/infile.h)? 0, or -1 with one line in err. */
static int h_input_check(const char *path, unsigned long long max, char *err, size_t errlen)
{
	FILE *f = ab_infile_open(path, max, err, errlen);
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;

	if (!f)
		return errno == ENOENT ? 0 : -1;
	while ((n = ab_infile_line(f, &line, &cap)) >= 0)
		lineno++;
	free(line);
	fclose(f);
	if (n == -2)
		return ab_err(err, errlen, "%s:%zu: a line over the %d-byte limit (docs/records.md)",
			      path, lineno + 1, AB_INFILE_MAX_LINE);
	return 0;
}

void h_inputs_check(const char *cmd, const char *dir)
{
	static const struct { const char *name; unsigned long long max; } in[] = {
		{ "raw.csv", AB_INFILE_MAX_BYTES }, { "failures.csv", AB_INFILE_MAX_BYTES },
		{ "hist.csv", AB_INFILE_MAX_HIST },
		{ "machine.txt", AB_INFILE_MAX_SMALL },
		{ "plan.plan", AB_INFILE_MAX_SMALL },
	};
	char path[PATH_MAX], err[PATH_MAX + 128];

	for (size_t i = 0; i < AB_ARRAY_SIZE(in); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, in[i].name);
		if (h_input_check(path, in[i].max, err, sizeof(err)) < 0)
			ab_usage_error("%s: %s", cmd, err);
	}
}

void h_md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '|' || c == '`')
			fputc('\\', f);
		fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
	}
}

int h_log_fd(const char *dir, const char *path, int trunc)
{
	size_t dl = strlen(dir);

	if (strncmp(path, dir, dl) || path[dl] != '/') {
		errno = EINVAL;
		return -1;
	}
	int fd = ab_append_open(dir, path + dl + 1, NULL, 0);
	if (fd >= 0 && trunc && ftruncate(fd, 0) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

FILE *h_log_open(const char *dir, const char *path, int trunc)
{
	int fd = h_log_fd(dir, path, trunc);
	FILE *f = fd >= 0 ? fdopen(fd, "ae") : NULL;

	if (fd >= 0 && !f)
		close(fd);
	return f;
}

const char *h_dir_arg(const char *cmd, int argc, char **argv, const char *usage)
{
	char path[PATH_MAX];

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return NULL;
	}
	if (argc != 2 || argv[1][0] == '-')
		ab_usage_error("%s: want exactly one run directory (harness %s DIR)", cmd, cmd);
	if (strlen(argv[1]) > PATH_MAX - 64)
		ab_usage_error("%s: '%.64s...': path too long", cmd, argv[1]);
	snprintf(path, sizeof(path), "%s/raw.csv", argv[1]);
	if (access(path, R_OK))
		ab_usage_error("%s: '%s': no readable raw.csv there", cmd, argv[1]);
	h_inputs_check(cmd, argv[1]);	/* a FIFO, a device, a link: refused before anything is written */
	return argv[1];
}

const char *h_plural(char *buf, size_t len, int n, const char *noun)
{
	snprintf(buf, len, "%d %s%s", n, noun, n == 1 ? "" : "s");
	return buf;
}

int h_cfg_is_cpu_numbers(const char *bench, const char *key, size_t kl)
{
	return ab_desc_is_cpu_key(h_desc(bench), key, kl);	/* its descriptor knows its policies */
}

int h_is_headline(const char *bench, const char *metric)
{
	const struct ab_bench_desc *d = h_desc(bench);

	return !d || !d->headline || ab_desc_in(d->headline, metric, strlen(metric));
}

void h_md_cfg_label(FILE *f, const char *cfg, int (*keep)(const char *key, void *ctx), void *ctx)
{
	char copy[AB_CONFIG_LEN], *save = NULL;
	int first = 1;

	snprintf(copy, sizeof(copy), "%s", cfg);
	for (char *kv = strtok_r(copy, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (!keep(kv, ctx))
			continue;
		fprintf(f, "%s%s=", first ? "" : ", ", kv);
		h_md_cell(f, eq + 1);
		first = 0;
	}
	if (first)
		fputs("(one config)", f);
}

const char *h_self_dir(void)
{
	static char dir[PATH_MAX];

	if (!dir[0]) {
		ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
		if (n <= 0) {
			strcpy(dir, ".");
		} else {
			dir[n] = '\0';
			char *slash = strrchr(dir, '/');
			if (slash)
				*slash = '\0';
		}
	}
	return dir;
}

const char *h_program_of(const struct h_block *b, char *buf, size_t len)
{
	if (b->program[0])
		return b->program;
	snprintf(buf, len, "%s/%s", h_self_dir(), b->bench);
	return buf;
}
