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
#include "harness.h"

int h_mkdirs(const char *path)
{
	return ab_mkdirs(path, 0755);	/* a run directory others may read */
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

	snprintf(path, sizeof(path), "%s/machine.txt", dir);
	buf[0] = '\0';
	FILE *f = fopen(path, "re");
	if (!f)
		return buf;
	while (getline(&line, &cap, f) > 0)
		if (!strncmp(line, label, ll) && line[ll] == ' ') {
			char *v = line + ll;
			v += strspn(v, " ");
			v[strcspn(v, "\n")] = '\0';
			snprintf(buf, len, "%s", v);	/* the last wins: a resumed run appends */
		}
	free(line);
	fclose(f);
	return buf;
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

FILE *h_out_open(struct h_out *o, const char *dir, const char *name)
{
	snprintf(o->path, sizeof(o->path), "%s/%s", dir, name);
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp", o->path);
	o->f = fopen(o->tmp, "we");
	if (!o->f)
		ab_msg("cannot write %s: %s", o->tmp, strerror(errno));
	return o->f;
}

int h_out_close(struct h_out *o)
{
	int bad = ferror(o->f), e = errno;

	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	if (!bad && rename(o->tmp, o->path) == 0)
		return 0;
	if (!bad)
		e = errno;
	unlink(o->tmp);
	ab_msg("writing %s failed: %s (the previous version, if any, is left as it was)", o->path,
	       strerror(e ? e : EIO));
	return -1;
}
