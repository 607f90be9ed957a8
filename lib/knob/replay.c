/*
 * Knob journal replay: after a SIGKILL or a power loss, restore what the
 * journal still holds for processes that are dead and never marked themselves
 * done (format in journal_i.h). The oldest pending original of a path wins;
 * entries of live processes stay; entries of another boot are dropped (a reboot
 * reset the knobs already); an entry the kernel keeps refusing is given up after
 * KNOB_MAX_TRIES replays. A journal or lock directory that is not root's, or
 * that others may write, is refused: its lines could name any value.
 */
#include "knob/knob.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "knob/journal_i.h"

struct jline {
	size_t lineno;
	pid_t pid;
	int done;		/* a "done" line */
	int tries;
	const char *boot, *path, *orig;	/* point into the parsed copy */
	int keep;		/* goes back into the journal */
	int restore;		/* dead, not done: restore it */
};

#define fail_errno(e, ...) ({ int e_ = (e); ab_err(err, errlen, __VA_ARGS__); errno = e_; -1; })

/* Read the whole journal from fd into a malloc'd, NUL-terminated buffer. */
static char *slurp(int fd, size_t *len)
{
	size_t cap = 4096, got = 0;
	char *buf = malloc(cap + 1);

	while (buf) {
		if (got == cap) {
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (buf) {
		buf[got] = '\0';
		*len = got;
	}
	return buf;
}

static int valid_boot_id(const char *s)
{
	size_t n = strlen(s);

	if (n != KNOB_BOOT_ID_LEN && strcmp(s, "unknown"))
		return 0;
	return strspn(s, "0123456789abcdef-") == n || !strcmp(s, "unknown");
}

/* Split one line into fields at tabs (at most max); returns the count. */
static int split_tabs(char *s, char **f, int max)
{
	int n = 0;

	f[n++] = s;
	for (char *t = strchr(s, '\t'); t && n < max; t = strchr(t + 1, '\t')) {
		*t = '\0';
		f[n++] = t + 1;
	}
	return n;
}

/* One line (NUL-terminated, no newline) into l. 0, or -1 with what is wrong. */
static int parse_line(char *s, struct jline *l, const char **what)
{
	char *f[5];
	int n = split_tabs(s, f, 5);

	*what = "is not '<boot>\\t<pid>\\t<tries>\\t<path>\\t<value>' nor '<boot>\\t<pid>\\tdone'";
	if (n < 3 || !valid_boot_id(f[0]))
		return -1;
	if (ab_parse_pid(f[1], &l->pid) < 0) {
		*what = "has a pid out of range";
		return -1;
	}
	l->boot = f[0];
	if (n == 3 && !strcmp(f[2], "done")) {
		l->done = 1;
		return 0;
	}
	if (n != 5 || strspn(f[2], "0123456789") != strlen(f[2]) || strlen(f[2]) != 1 ||
	    f[3][0] != '/')
		return -1;
	l->tries = f[2][0] - '0';
	l->path = f[3];
	l->orig = f[4];
	return 0;
}

/* Split journal text into lines; a torn last line (no newline) is dropped. */
static struct jline *parse_journal(char *copy, size_t len, const char *journal, size_t *count)
{
	size_t cap = 16, n = 0, lineno = 0;
	struct jline *v = malloc(cap * sizeof(*v));

	if (!v)
		return NULL;
	for (char *p = copy; p < copy + len;) {
		char *nl = memchr(p, '\n', (size_t)(copy + len - p));
		if (!nl)
			break;	/* torn: the writer died in mid-line, before it changed the knob */
		*nl = '\0';
		struct jline l = { .lineno = ++lineno };
		const char *what = "holds a NUL byte";
		if (memchr(p, '\0', (size_t)(nl - p)) || parse_line(p, &l, &what) < 0) {
			ab_msg("knob journal %s: line %zu %s, dropped", journal, lineno, what);
		} else if (strcmp(l.boot, knob_boot_id())) {
			ab_msg("knob journal %s: line %zu is from another boot (%s), dropped: a reboot "
			       "already reset it", journal, lineno, l.boot);
		} else {
			if (n == cap) {
				struct jline *nv = realloc(v, cap * 2 * sizeof(*v));
				if (!nv) {
					free(v);
					return NULL;
				}
				v = nv;
				cap *= 2;
			}
			v[n++] = l;
		}
		p = nl + 1;
	}
	*count = n;
	return v;
}

static int rewrite_journal(const char *journal, const struct jline *v, size_t n,
			   char *err, size_t errlen)
{
	char dir[KNOB_PATH_MAX], tmp[KNOB_PATH_MAX + 16];
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		kept += v[i].keep;
	knob_dir_of(journal, dir, sizeof(dir));
	if (kept == 0) {
		if (unlink(journal) < 0 && errno != ENOENT)
			return fail_errno(errno, "knob journal %s: remove: %s", journal, strerror(errno));
		knob_sync_dir(dir);
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", journal);
	int fd = mkostemp(tmp, O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return fail_errno(e, "knob journal %s: %s", tmp, strerror(e));
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].keep)
			fprintf(f, "%s\t%ld\t%d\t%s\t%s\n", v[i].boot, (long)v[i].pid, v[i].tries,
				v[i].path, v[i].orig);
	if (fflush(f) || ferror(f) || fsync(fd) < 0) {
		int e = errno ? errno : EIO;
		fclose(f);
		unlink(tmp);
		return fail_errno(e, "knob journal %s: write: %s", tmp, strerror(e));
	}
	if (fclose(f) != 0 || rename(tmp, journal) < 0) {
		int e = errno;
		unlink(tmp);
		return fail_errno(e, "knob journal %s: rename: %s", journal, strerror(e));
	}
	knob_sync_dir(dir);
	return 0;
}

/* Mark what to restore and what to keep: closed entries go, live ones stay. */
static void judge(struct jline *v, size_t n, const char *journal)
{
	for (size_t i = 0; i < n; i++) {
		if (!v[i].path)
			continue;	/* done lines are dropped: they close what came before */
		int closed = 0;
		for (size_t j = i + 1; j < n && !closed; j++)
			closed = v[j].done && v[j].pid == v[i].pid;
		if (closed)
			continue;
		if (ab_pid_alive(v[i].pid))
			v[i].keep = 1;	/* still running: it restores its own knobs */
		else if (!ab_knob_allowed(v[i].path))
			ab_msg("knob journal %s: %s is not on the allow-list, not restored", journal,
			       v[i].path);
		else
			v[i].restore = 1;
	}
}

/* Write one entry's original back. 0 or an errno value (ENOENT: the object is gone). */
static int put_back(const char *root, const struct jline *l)
{
	char full[KNOB_PATH_MAX], val[KNOB_VAL_MAX + 1];
	size_t ol = strlen(l->orig);

	if (ol >= KNOB_VAL_MAX || knob_full_path(root, l->path, full, sizeof(full)) < 0)
		return ENAMETOOLONG;
	memcpy(val, l->orig, ol);
	val[ol] = '\n';
	return knob_holds(full, val, ol) ? 0 : knob_put_value(full, val, ol + 1);
}

/* Newest first; of several dead writers of one path the oldest original wins, so
 * each path is written once. Returns restored count; failures counted in *failed. */
static int restore_pending(const char *root, struct jline *v, size_t n, int *failed, char *err,
			   size_t errlen)
{
	int restored = 0;

	for (size_t i = n; i-- > 0;) {
		int older = 0;
		if (!v[i].restore)
			continue;
		for (size_t j = 0; j < i && !older; j++)
			older = v[j].restore && strcmp(v[j].path, v[i].path) == 0;
		if (older)
			continue;
		int e = put_back(root, &v[i]);
		if (e == 0 || e == ENOENT) {	/* ENOENT: the object is gone, nothing to restore */
			restored += e == 0;
			continue;
		}
		char m[KNOB_PATH_MAX + KNOB_VAL_MAX + 96];
		int given_up = ++v[i].tries >= KNOB_MAX_TRIES;
		snprintf(m, sizeof(m), "knob %s%s: restore '%s': %s%s", root, v[i].path, v[i].orig,
			 strerror(e), given_up ? " (given up: refused on every try)" : "");
		ab_msg("%s", m);
		ab_err(err, errlen, "%s", m);
		(*failed)++;
		v[i].keep = !given_up;	/* try again next time, a bounded number of times */
	}
	return restored;
}

/* Open and lock the journal: fd, or -1 with errno (ENOENT: nothing to replay). */
static int open_locked(const char *journal)
{
	struct stat a, b;

	for (int tries = 0; tries < 5; tries++) {
		int fd = open(journal, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX) < 0 || fstat(fd, &a) < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (lstat(journal, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return fd;
		close(fd);	/* replaced or removed by another replay meanwhile */
	}
	errno = ENOENT;
	return -1;
}

/* The journal, its directory and the lock directory must be root's and not writable by others. */
static int check_trust(const char *root, const char *journal, char *err, size_t errlen)
{
	char dir[KNOB_PATH_MAX], locks[KNOB_PATH_MAX], why[KNOB_PATH_MAX + 64];

	knob_dir_of(journal, dir, sizeof(dir));
	snprintf(locks, sizeof(locks), "%s/run/affbench/knobs", root);
	if (knob_trusted(dir, 1, why, sizeof(why)) < 0 || knob_trusted(journal, 0, why, sizeof(why)) < 0 ||
	    knob_trusted(locks, 1, why, sizeof(why)) < 0)
		return fail_errno(EPERM, "knob journal refused: %s", why);
	return 0;
}

static int replay_locked(const char *root, const char *journal, int fd, char *err, size_t errlen)
{
	size_t len = 0, n = 0;
	int failed = 0, rc = 0;
	char *text = slurp(fd, &len);
	char *copy = text ? malloc(len + 1) : NULL;
	struct jline *v = NULL;

	if (copy) {
		memcpy(copy, text, len + 1);
		v = parse_journal(copy, len, journal, &n);
	}
	if (!v) {
		int e = errno ? errno : ENOMEM;
		rc = fail_errno(e, "knob journal %s: read: %s", journal, strerror(e));
		goto out;
	}
	judge(v, n, journal);
	int restored = restore_pending(root, v, n, &failed, err, errlen);
	/* Rewritten unless every line stays as it was: dropped, torn, restored or
	 * retried lines all change it. */
	size_t kept = 0, lines = 0;
	for (size_t i = 0; i < n; i++)
		kept += v[i].keep;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	int torn = len == 0 || text[len - 1] != '\n';
	if ((failed || kept != lines || torn) &&
	    rewrite_journal(journal, v, n, err, errlen) < 0)
		rc = -1;
	if (rc == 0)
		rc = failed ? -1 : restored;
out:
	free(v);
	free(copy);
	free(text);
	return rc;
}

int ab_knob_replay(const char *root, const char *journal, char *err, size_t errlen)
{
	sigset_t set, old;
	int rc = 0;

	if (!root)
		root = "";
	if (!journal)
		journal = ab_knob_default_journal();
	if (check_trust(root, journal, err, errlen) < 0)
		return -1;	/* the caller prints err: once */
	/* Our own signal handler appends under the same lock: it must not run while we hold it. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	int fd = open_locked(journal);
	if (fd < 0 && errno != ENOENT)
		rc = fail_errno(errno, "knob journal %s: %s", journal, strerror(errno));
	else if (fd >= 0)
		rc = replay_locked(root, journal, fd, err, errlen);
	if (fd >= 0)
		close(fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
