// SPDX-License-Identifier: GPL-2.0
/* Messages and exit helpers: one line on stderr, prefixed with the program name. */
#include "sys/common.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ab_prog = "affbench";

/* Bytes of the UTF-8 character at p that a terminal shows as text: 2 to 4, or 0 for a
 * byte that begins none, or a C1 control (U+0080..U+009F: U+009B is CSI). */
static size_t utf8_text(const unsigned char *p)
{
	size_t n = *p >= 0xf5 ? 0 : *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 ? 2 : 0;

	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n == 2 && p[0] == 0xc2 && p[1] < 0xa0 ? 0 : n;
}

const char *ab_escape(char *out, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return out;
	while (*p) {
		char e[8];
		size_t n = *p < 0x80 ? *p >= 0x20 && *p != 0x7f : utf8_text(p);
		const char *t = (const char *)p;
		if (!n) {
			if (*p == '\n' || *p == '\t' || *p == '\r')
				snprintf(e, sizeof(e), "\\%c",
					 *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
			else
				snprintf(e, sizeof(e), "\\x%02x", *p);
			t = e;
		}
		size_t k = n ? n : strlen(e);
		if (o + k >= len)
			break;
		memcpy(out + o, t, k);
		o += k;
		p += n ? n : 1;
	}
	out[o] = '\0';
	return out;
}

/* ab_msg_alias's pair: the name the program uses, the one its user gave. */
static char alias_from[64], alias_to[1024];

void ab_msg_alias(const char *internal, const char *shown)
{
	snprintf(alias_from, sizeof(alias_from), "%s", internal ? internal : "");
	snprintf(alias_to, sizeof(alias_to), "%s", shown ? shown : "");
}

const char *ab_unalias(char *out, size_t len, const char *s)
{
	size_t n = strlen(alias_from), o = 0;

	if (!len)
		return out;
	while (*s && o + 1 < len) {
		/* whole names only: /proc/self/fd/6 is not the start of /proc/self/fd/60 */
		if (n && !strncmp(s, alias_from, n) && (s[n] < '0' || s[n] > '9')) {
			o += (size_t)snprintf(out + o, len - o, "%s", alias_to);
			o = o < len ? o : len - 1;
			s += n;
			continue;
		}
		out[o++] = *s++;
	}
	out[o] = '\0';
	return out;
}

static void vmsg(const char *fmt, va_list ap)
{
	char line[1024], named[2 * sizeof(line)], shown[4 * sizeof(named)];

	/* One write per message so lines from parallel processes do not interleave; a
	 * value from outside (an argument, a file) may hold any byte: escaped, the
	 * message stays one line and never drives the terminal. */
	vsnprintf(line, sizeof(line), fmt, ap);
	ab_unalias(named, sizeof(named), line);
	fprintf(stderr, "%s: %s\n", ab_prog, ab_escape(shown, sizeof(shown), named));
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
