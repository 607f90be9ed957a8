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
#include "harness.h"

int h_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int h_mkdirs(const char *path)
{
	char tmp[4096];

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -1;
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
