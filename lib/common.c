/* Messages and exit helpers: one line on stderr, prefixed with the program name. */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
