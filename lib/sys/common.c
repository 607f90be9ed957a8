/* Messages and exit helpers: one line on stderr, prefixed with the program name. */
#include "sys/common.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ab_prog = "affbench";

static void vmsg(const char *fmt, va_list ap)
{
	char line[1024];

	/* One write per message so lines from parallel processes do not interleave. */
	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s: %s\n", ab_prog, line);
}

void ab_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void ab_exit(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(code);
}

const char *ab_cut(const char *s, char buf[AB_CUT_LEN + 4])
{
	if (!s || strnlen(s, AB_CUT_LEN + 1) <= AB_CUT_LEN)
		return s ? s : "";
	snprintf(buf, AB_CUT_LEN + 4, "%.*s...", AB_CUT_LEN, s);
	return buf;
}

int ab_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *ab_test_hook(const char *name)
{
#ifdef AB_NO_TEST_HOOKS
	(void)name;
	return NULL;
#else
	const char *v = getenv(name);

	return v && *v ? v : NULL;
#endif
}

int ab_parse_pid(const char *s, pid_t *pid)
{
	unsigned long v = 0;

	if (!s || !*s || strlen(s) > 7)
		return -1;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v < 1 || v > AB_PID_MAX)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

int ab_pid_alive(pid_t pid)
{
	char path[64], buf[512];
	FILE *f;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 1;	/* no procfs: kill() said it exists */
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* "pid (comm) S ...": the state follows the last ')' (comm may hold one) */
	char *p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}
