/* SPDX-License-Identifier: GPL-2.0 */
/* Exit codes, error helpers and small macros shared by every affbench program. */
#ifndef AB_COMMON_H
#define AB_COMMON_H

#include <stddef.h>

#define AB_VERSION "0.1.0"

/* Exit codes (docs/records.md) */
enum {
	AB_EXIT_OK = 0,		/* measured */
	AB_EXIT_FAIL = 1,	/* the measurement failed */
	AB_EXIT_USAGE = 2,	/* bad usage: one line naming the bad value */
	AB_EXIT_SKIP = 4,	/* the machine lacks something: say what and how to get it */
	/* A child of ours (worker, FUSE daemon) that could not start; never a benchmark's exit:
	 * the parent sees it as the child's wait status and fails the point. */
	AB_EXIT_ORPHAN = 125,	/* the parent was gone before the child could watch for it */
	AB_EXIT_CHILD_SETUP = 126,	/* pinning or preparing the child failed (said on stderr) */
};

/*
 * The shortest --duration any benchmark accepts, in seconds: below it, start-up,
 * clock reads and scheduling dominate the window and a rate means nothing.
 * A measured window shorter than AB_MIN_WINDOW_NS fails its point.
 */
#define AB_MIN_DURATION 0.01
#define AB_MIN_WINDOW_NS 5000000ull
#define AB_STR_(x) #x
#define AB_STR(x) AB_STR_(x)

#define AB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define AB_CACHELINE 64

/* Program name used as the prefix of every message ("cputestfs: ..."). */
extern const char *ab_prog;

/* One line on stderr, prefixed with ab_prog; its control bytes escaped (ab_escape). */
void ab_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A path the program reaches by another name than its user gave (a resumed run's
 * directory through its descriptor, /proc/self/fd/N) is shown in every message from
 * now on as its user named it: internal (under 64 bytes) becomes shown wherever it
 * stands whole. One pair at a time; NULLs end it. */
void ab_msg_alias(const char *internal, const char *shown);
/* s with that pair applied, into out (len bytes, cut). Returns out. */
const char *ab_unalias(char *out, size_t len, const char *s);
/* Print one line and exit with the given code. */
void ab_exit(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
#define ab_usage_error(...) ab_exit(AB_EXIT_USAGE, __VA_ARGS__)
/* A value as a message quotes it: at most AB_CUT_LEN characters, then "...", so a
 * 100 KB argument is not echoed whole. Returns s itself when short, else buf. */
#define AB_CUT_LEN 64
const char *ab_cut(const char *s, char buf[AB_CUT_LEN + 4]);
#define ab_skip(...) ab_exit(AB_EXIT_SKIP, __VA_ARGS__)
#define ab_fail(...) ab_exit(AB_EXIT_FAIL, __VA_ARGS__)
/* s with its control bytes as C escapes (\n, \t, \r, else \xHH: ESC is \x1b), a C1
 * control's UTF-8 form and a byte that begins no UTF-8 character as \xHH each, the
 * rest as it is; into out (len bytes, cut at a whole character). Returns out. */
const char *ab_escape(char *out, size_t len, const char *s);

/*
 * Is pid a running process? A zombie is not: a SIGKILLed benchmark re-parented
 * to an init that reaps late must count as dead, or its knobs and mounts would
 * never be cleaned up.
 */
#include <sys/types.h>
int ab_pid_alive(pid_t pid);
/* A pid from text: decimal digits only, 1..AB_PID_MAX ("4294967297" is not pid 1). 0 or -1. */
#define AB_PID_MAX 4194304	/* Linux's PID_MAX_LIMIT */
int ab_parse_pid(const char *s, pid_t *pid);

/*
 * A test-only environment hook (fault injection, forced paths): getenv(name) in
 * the build the tests use, NULL in an installed build (compiled with
 * -DAB_NO_TEST_HOOKS by 'make install'), so a stray variable on a user's
 * machine never injects a fault. Every hook goes through here.
 */
const char *ab_test_hook(const char *name);

/* snprintf into an error buffer (err may be NULL); always returns -1. */
int ab_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
