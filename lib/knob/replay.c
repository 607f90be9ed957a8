// SPDX-License-Identifier: GPL-2.0
/*
 * Knob journal replay: after a SIGKILL or a power loss, restore what the
 * journal still holds for writers that are gone and never marked themselves
 * done (format in journal_i.h). A writer holds its knob's owner lock for as
 * long as the knob is changed, so the lock, not a pid, says whether it lives:
 * a pid is reused (pid_max can be 32768), a lock dies with its holder. An
 * entry whose knob lock is free is restored, whatever process has that pid
 * now; the replay holds the lock while it writes, so no new owner starts
 * meanwhile. The oldest pending original of a path wins; entries of another
 * boot are dropped (a reboot reset the knobs already); an entry the kernel
 * keeps refusing is given up after KNOB_MAX_TRIES replays. A journal or lock
 * directory that is not root's, or that others may write, is refused: its
 * lines could name any value.
 *
 * The journal is read a line at a time (pending.c keeps what no done line has
 * closed), so a replay is linear in the lines and its memory bounded by
 * KNOB_PENDING_MAX (journal_i.h).
 */
#include "knob/knob.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "knob/journal_i.h"
#include "knob/pending_i.h"

#define SAID_MAX 5	/* dropped lines named one by one; past it, one line counts the rest */

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
static int parse_line(char *s, struct kp_line *l, const char **what)
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

/* What reading the journal saw besides its entries. */
struct scan {
	size_t lines;		/* whole lines (a torn last one not counted) */
	size_t dropped;		/* malformed or of another boot */
	int torn;
};

static void dropped(const char *journal, struct scan *sc, size_t lineno, const char *what,
		    const char *boot)
{
	if (++sc->dropped > SAID_MAX)
		return;
	if (boot)
		ab_msg("knob journal %s: line %zu is from another boot (%s), dropped: a reboot "
		       "already reset it", journal, lineno, boot);
	else
		ab_msg("knob journal %s: line %zu %s, dropped", journal, lineno, what);
}

/* The journal read in chunks: a line is never longer than KNOB_LINE_MAX to hold. */
#define KNOB_LINE_MAX (KNOB_BOOT_ID_LEN + KNOB_PATH_MAX + KNOB_VAL_MAX + 64)
struct jread {
	int fd;
	size_t at, len;
	char buf[65536];
};

enum { JR_LONG = -1, JR_END = -2, JR_TORN = -3, JR_ERR = -4 };	/* JR_LONG and up: a line */

/* The next line into line (NUL-terminated, no newline): its length, or JR_END, JR_LONG
 * (skipped to its newline), JR_TORN (the last line, without its newline), JR_ERR. */
static ssize_t next_line(struct jread *r, char *line)
{
	size_t n = 0;
	int over = 0;

	for (;;) {
		if (r->at == r->len) {
			ssize_t got = read(r->fd, r->buf, sizeof(r->buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				return JR_ERR;
			if (got == 0)
				return n || over ? JR_TORN : JR_END;
			r->at = 0;
			r->len = (size_t)got;
		}
		char *nl = memchr(r->buf + r->at, '\n', r->len - r->at);
		size_t k = (nl ? (size_t)(nl - r->buf) : r->len) - r->at;
		if (over || n + k >= KNOB_LINE_MAX)
			over = 1;
		else
			memcpy(line + n, r->buf + r->at, k);
		n += over ? 0 : k;
		r->at += k + (nl != NULL);
		if (nl) {
			line[over ? 0 : n] = '\0';
			return over ? JR_LONG : (ssize_t)n;
		}
	}
}

/* One whole line into tab, or dropped with a message. 0, or -1 with err set. */
static int take_line(struct kp_tab *tab, struct scan *sc, const char *journal, char *line,
		     ssize_t n, char *err, size_t errlen)
{
	struct kp_line l = { .lineno = sc->lines };
	const char *what = "is longer than any entry";

	if (n >= 0 && memchr(line, '\0', (size_t)n))
		what = "holds a NUL byte";
	else if (n >= 0 && parse_line(line, &l, &what) == 0)
		what = NULL;
	if (what) {
		dropped(journal, sc, l.lineno, what, NULL);
	} else if (strcmp(l.boot, knob_boot_id())) {
		dropped(journal, sc, l.lineno, NULL, l.boot);
	} else if (kp_add(tab, &l) < 0) {
		int e = errno;
		return fail_errno(e, "knob journal %s refused: %s %d entries not closed by a done "
				  "line at line %zu (a replay holds at most %d; affbench never "
				  "leaves that many): look at it, then remove it", journal,
				  e == E2BIG ? "more than" : "no memory for", KNOB_PENDING_MAX,
				  l.lineno, KNOB_PENDING_MAX);
	}
	return 0;
}

/* Every line of the journal (fd, locked) into tab. 0, or -1 with err set. */
static int read_journal(int fd, const char *journal, struct kp_tab *tab, struct scan *sc,
			char *err, size_t errlen)
{
	struct stat st;
	struct jread *r = malloc(sizeof(*r));
	char *line = malloc(KNOB_LINE_MAX + 1);
	ssize_t n;
	int rc = 0;

	if (!r || !line)
		rc = fail_errno(ENOMEM, "knob journal %s: %s", journal, strerror(ENOMEM));
	else if (fstat(fd, &st) < 0)
		rc = fail_errno(errno, "knob journal %s: %s", journal, strerror(errno));
	else if ((unsigned long long)st.st_size > KNOB_JOURNAL_MAX_BYTES)
		rc = fail_errno(EFBIG, "knob journal %s refused: %lld bytes, over the %llu a "
				"replay reads (affbench never writes that much): look at it, then "
				"remove it", journal, (long long)st.st_size,
				KNOB_JOURNAL_MAX_BYTES);
	if (rc == 0) {
		*r = (struct jread){ .fd = fd };
		while (rc == 0 && (n = next_line(r, line)) >= JR_LONG) {	/* a line, whole */
			sc->lines++;
			rc = take_line(tab, sc, journal, line, n, err, errlen);
		}
		if (rc == 0 && n == JR_ERR)
			rc = fail_errno(errno, "knob journal %s: read: %s", journal,
					strerror(errno));
		sc->torn = n == JR_TORN;	/* the writer died in mid-line, before the change */
	}
	if (sc->dropped > SAID_MAX)
		ab_msg("knob journal %s: %zu more lines dropped", journal, sc->dropped - SAID_MAX);
	free(line);
	free(r);
	return rc;
}

static int rewrite_journal(const char *journal, const struct kp_tab *t, char *err, size_t errlen)
{
	char dir[KNOB_PATH_MAX], tmp[KNOB_PATH_MAX + 16];
	size_t kept = 0;

	for (size_t i = 0; i < t->n; i++)
		kept += t->v[i].keep;
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
	for (size_t i = 0; i < t->n; i++)	/* every entry kept is of this boot */
		if (t->v[i].keep)
			fprintf(f, "%s\t%ld\t%d\t%s\t%s\n", knob_boot_id(), (long)t->v[i].pid,
				t->v[i].tries, t->v[i].path, t->v[i].orig);
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

/* Write one entry's original back. 0 or an errno value (ENOENT: the object is gone). */
static int put_back(const char *root, const struct kp_ent *l)
{
	char full[KNOB_PATH_MAX], val[KNOB_VAL_MAX + 1];
	size_t ol = strlen(l->orig);

	if (ol >= KNOB_VAL_MAX || knob_full_path(root, l->path, full, sizeof(full)) < 0)
		return ENAMETOOLONG;
	memcpy(val, l->orig, ol);
	val[ol] = '\n';
	return knob_holds(full, val, ol) ? 0 : knob_put_value(full, val, ol + 1);
}

/* The entries of one path: v[idx[a]] (the oldest) .. v[idx[b - 1]]. */
struct group {
	size_t a, b;
};

static const struct kp_tab *sorting;

static int by_path(const void *x, const void *y)
{
	const struct kp_ent *p = &sorting->v[*(const size_t *)x];
	const struct kp_ent *q = &sorting->v[*(const size_t *)y];
	int c = strcmp(p->path, q->path);

	return c ? c : p->lineno < q->lineno ? -1 : p->lineno > q->lineno;
}

static size_t *order;	/* for by_oldest: the entries by path */

/* Newest first: a path changed later is put back first, so of two views of one
 * thing (an IRQ's smp_affinity and smp_affinity_list) the older original ends up. */
static int by_oldest_desc(const void *x, const void *y)
{
	size_t p = sorting->v[order[((const struct group *)x)->a]].lineno;
	size_t q = sorting->v[order[((const struct group *)y)->a]].lineno;

	return p < q ? 1 : p > q ? -1 : 0;
}

/*
 * One path's entries. Ours (this process lives) and those whose knob lock is
 * held (its owner lives) stay; otherwise, under the lock, the oldest original
 * is written back and every entry of the path goes. Restored: 1, else 0; a
 * failure is said here, a line, counted in *failed and its entry kept for a bounded
 * number of tries.
 */
static int settle(const char *root, const char *journal, struct kp_tab *t, const size_t *idx,
		  struct group g, int *failed)
{
	struct kp_ent *old = &t->v[idx[g.a]];
	char why[KNOB_PATH_MAX + 128];

	for (size_t k = g.a; k < g.b; k++)
		if (t->v[idx[k]].pid == getpid()) {	/* ours: we hold its lock, we restore it */
			for (k = g.a; k < g.b; k++)
				t->v[idx[k]].keep = 1;
			return 0;
		}
	if (!ab_knob_allowed(old->path)) {
		ab_msg("knob journal %s: %s is not on the allow-list, not restored", journal,
		       old->path);
		return 0;
	}
	int fd = knob_lock_open(root, old->path, why, sizeof(why));
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	/* the lock held: its owner lives; or we cannot tell */
	if (fd < 0 || fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		if (fd < 0 || (errno != EAGAIN && errno != EACCES)) {
			ab_msg("knob journal %s: %s kept: %s", journal, old->path,
			       fd < 0 ? why : strerror(errno));
			(*failed)++;
		}
		for (size_t k = g.a; k < g.b; k++)
			t->v[idx[k]].keep = 1;
		if (fd >= 0)
			close(fd);
		return 0;
	}
	int e = put_back(root, old);
	close(fd);	/* written: the next owner journals what we put back */
	if (e == 0 || e == ENOENT)	/* ENOENT: the object is gone, nothing to restore */
		return e == 0;
	char m[KNOB_PATH_MAX + KNOB_VAL_MAX + 96];
	int given_up = ++old->tries >= KNOB_MAX_TRIES;
	snprintf(m, sizeof(m), "knob %s%s: restore '%s': %s%s", root, old->path, old->orig,
		 strerror(e), given_up ? " (given up: refused on every try)" : "");
	ab_msg("%s", m);	/* said once, here: err only counts it (replay_locked) */
	(*failed)++;
	old->keep = !given_up;	/* try again next time, a bounded number of times */
	return 0;
}

/* Every path's entries settled, newest path first. The number restored, or -1 (ENOMEM). */
static int settle_all(const char *root, const char *journal, struct kp_tab *t, int *failed,
		      char *err, size_t errlen)
{
	size_t *idx = malloc((t->n + 1) * sizeof(*idx)), ng = 0;
	struct group *g = malloc((t->n + 1) * sizeof(*g));
	int restored = 0;

	if (!idx || !g) {
		free(idx);
		free(g);
		return fail_errno(ENOMEM, "knob journal %s: %s", journal, strerror(ENOMEM));
	}
	for (size_t i = 0; i < t->n; i++)
		idx[i] = i;
	sorting = t;
	order = idx;
	qsort(idx, t->n, sizeof(*idx), by_path);
	for (size_t i = 0; i < t->n; i++)
		if (i == 0 || strcmp(t->v[idx[i]].path, t->v[idx[i - 1]].path)) {
			if (ng)
				g[ng - 1].b = i;
			g[ng++] = (struct group){ i, t->n };
		}
	qsort(g, ng, sizeof(*g), by_oldest_desc);
	for (size_t k = 0; k < ng; k++)
		restored += settle(root, journal, t, idx, g[k], failed);
	free(idx);
	free(g);
	return restored;
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
	struct kp_tab tab = { 0 };
	struct scan sc = { 0 };
	int failed = 0, rc = read_journal(fd, journal, &tab, &sc, err, errlen);

	if (rc == 0) {
		kp_compact(&tab);
		rc = settle_all(root, journal, &tab, &failed, err, errlen);
	}
	if (rc >= 0) {
		/* Rewritten unless every line stays as it was: dropped, torn, restored or
		 * retried lines all change it. */
		size_t kept = 0;
		for (size_t i = 0; i < tab.n; i++)
			kept += tab.v[i].keep;
		if ((failed || kept != sc.lines || sc.torn) &&
		    rewrite_journal(journal, &tab, err, errlen) < 0)
			rc = -1;
		else if (failed)
			rc = ab_err(err, errlen, "knob journal %s: %d knob%s not restored, as said "
				    "above", journal, failed, failed == 1 ? "" : "s");
	}
	kp_free(&tab);
	return rc;
}

int ab_knob_replay(const char *root, const char *journal, char *err, size_t errlen)
{
	sigset_t old;
	struct stat st;
	int rc = 0;

	if (!root)
		root = "";
	if (!journal)
		journal = ab_knob_default_journal();
	if (check_trust(root, journal, err, errlen) < 0)
		return -1;	/* the caller prints err: once */
	/* Our own signal handler appends under the same lock: it must not run while we hold it. */
	knob_block_signals(&old);
	/* ENOENT: nothing to replay, also when another replay kept replacing it */
	int fd = knob_journal_open(journal, O_RDONLY, &st, ENOENT);
	if (fd < 0 && errno != ENOENT)
		rc = fail_errno(errno, "knob journal %s: %s", journal, strerror(errno));
	else if (fd >= 0)
		rc = replay_locked(root, journal, fd, err, errlen);
	if (fd >= 0)
		close(fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
