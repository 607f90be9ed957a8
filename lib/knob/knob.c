// SPDX-License-Identifier: GPL-2.0
/*
 * Knobs: the only place affbench writes sysfs/procfs, so nothing is left changed.
 * This file writes and restores; replay.c replays a journal after a crash;
 * the journal's format is described in journal_i.h, its file helpers are in
 * journal.c.
 *
 * A write journals the original value first (one O_APPEND write, fsync'd), then
 * changes the knob. What to restore is also kept in a fixed in-memory table so
 * the signal handler can restore with open/write/close only (no malloc, no
 * stdio). Every entry records the pid that made the change: a forked child
 * inherits the table and the handlers, but restores only its own entries.
 *
 * Journal lines: "<boot_id>\t<pid>\t0\t<path>\t<original>\n" before a pid's
 * first write of a path (0: no replay has tried it yet), "<boot_id>\t<pid>\tdone\n"
 * once that pid restored everything. The boot id lets a replay drop what an
 * earlier boot left: the reboot reset it. The journal is
 * flock'd around every append and around a replay, which replaces it by rename;
 * an appender re-opens when the file it locked is no longer the journal.
 *
 * One live process at a time owns a knob: the first write takes a record lock on
 * <root>/run/affbench/knobs/<path> and restoring releases it (so does death).
 * Without it, a second run would journal the first one's temporary value as
 * its "original" and put that back at its exit. A second writer waits up to
 * KNOB_OWNER_WAIT_S (or $AFFBENCH_KNOB_WAIT_S), then fails with EBUSY naming
 * the owner.
 *
 * Known limits: a pid reused by an unrelated live process keeps its dead
 * predecessor's entries in the journal until that process is gone; a knob whose
 * object disappeared (ENOENT: FUSE connection unmounted, device removed) counts
 * as restored, there is nothing left to restore.
 */
#include "knob/knob.h"
#include "sys/common.h"
#include "sys/fsutil.h"
#include "knob/journal_i.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define KNOB_MAX 64		/* knobs one process may hold changed at once */

enum { E_FREE, E_ACTIVE, E_RESTORING, E_RESTORED, E_FAILED };

struct entry {
	int state;			/* E_*, atomic: the handler may race another thread */
	pid_t owner;			/* the process that changed the knob */
	int err;			/* errno of a failed restore */
	size_t origlen;			/* bytes of orig incl. the newline */
	int lockfd;			/* owner lock, held until restored */
	char full[KNOB_PATH_MAX];	/* root + path, what open() gets */
	char orig[KNOB_VAL_MAX + 1];	/* original value + "\n", ready to write */
};

static struct entry table[KNOB_MAX];
static int table_count;			/* atomic; entries below it are published */
static pid_t journaled_pid;		/* atomic; pid that journaled and owes a done line */
static pid_t failed_pid;		/* atomic; pid with a failed restore: no done line, ever */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int ready;
static int handlers_installed;
static char root_dir[KNOB_PATH_MAX];
static char journal_path[KNOB_PATH_MAX];
static char journal_dir[KNOB_PATH_MAX];
static char boot_id[KNOB_BOOT_ID_LEN + 1];	/* padded with '-': the handler copies 36 bytes */

static struct sigaction old_actions[KNOB_NSIGNALS];

/* ---- async-signal-safe helpers: syscalls and string scans only ---- */

static size_t fmt_pid(char *buf, pid_t pid)
{
	char tmp[16];
	size_t n = 0, len = 0;
	unsigned long v = (unsigned long)pid;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(tmp));
	while (n)
		buf[len++] = tmp[--n];
	return len;
}

/* Restore this process's entries, newest first. Returns the number that failed. */
static int restore_mine(pid_t me)
{
	int failed = 0;

	for (int i = __atomic_load_n(&table_count, __ATOMIC_ACQUIRE); i-- > 0;) {
		struct entry *e = &table[i];
		int want = E_ACTIVE;

		if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != E_ACTIVE || e->owner != me)
			continue;
		if (!__atomic_compare_exchange_n(&e->state, &want, E_RESTORING, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue;
		e->err = knob_holds(e->full, e->orig, e->origlen - 1) ? 0 :
			 knob_put_value(e->full, e->orig, e->origlen);
		if (e->err == ENOENT)	/* the object is gone, nothing left to restore */
			e->err = 0;
		if (e->err) {
			failed++;
			__atomic_store_n(&failed_pid, me, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&e->state, e->err ? E_FAILED : E_RESTORED, __ATOMIC_RELEASE);
		if (e->lockfd >= 0) {
			close(e->lockfd);	/* the knob is free for the next owner */
			e->lockfd = -1;
		}
	}
	return failed;
}

/*
 * "<boot_id>\t<pid>\tdone\n", once, and only by the pid that journaled. After a failed
 * restore it stays unwritten, so a later replay retries what failed.
 */
static void mark_done(pid_t me)
{
	pid_t want = me;
	char line[KNOB_BOOT_ID_LEN + 32];
	size_t n;

	if (!__atomic_compare_exchange_n(&journaled_pid, &want, 0, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	if (__atomic_load_n(&failed_pid, __ATOMIC_ACQUIRE) == me)
		return;
	/* boot id, pid, "done": memcpy only, this runs in the signal handler */
	memcpy(line, boot_id, KNOB_BOOT_ID_LEN);
	n = KNOB_BOOT_ID_LEN;
	line[n++] = '\t';
	n += fmt_pid(line + n, me);
	memcpy(line + n, "\tdone\n", 6);
	knob_journal_append(journal_path, journal_dir, line, n + 6);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	pid_t me = getpid();
	size_t k;

	restore_mine(me);
	mark_done(me);
	for (k = 0; k < KNOB_NSIGNALS; k++)
		if (knob_signals[k] == sig)
			break;
	if (k < KNOB_NSIGNALS) {
		struct sigaction *old = &old_actions[k];
		if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
			old->sa_sigaction(sig, si, uc);
			errno = saved;
			return;
		}
		if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL &&
		    old->sa_handler != SIG_IGN) {
			old->sa_handler(sig);
			errno = saved;
			return;
		}
	}
	/* Die of the same signal: it stays pending (blocked in here) until we return. */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

/* ---- normal context ---- */

static int mine_pending(pid_t me)
{
	int n = __atomic_load_n(&table_count, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++) {
		int s = __atomic_load_n(&table[i].state, __ATOMIC_ACQUIRE);
		if ((s == E_ACTIVE || s == E_RESTORING) && table[i].owner == me)
			return 1;
	}
	return 0;
}

static void at_exit(void)
{
	ab_knob_restore_all();
}

/* Restore at exit, and on each of knob_signals (the old actions kept to chain to):
 * 0, or -1 with a message. */
static int install_handlers(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	if (atexit(at_exit) != 0) {
		ab_msg("knob init: atexit failed");
		errno = ENOMEM;
		return -1;
	}
	sigemptyset(&sa.sa_mask);
	for (size_t j = 0; j < KNOB_NSIGNALS; j++)
		sigaddset(&sa.sa_mask, knob_signals[j]);
	for (size_t k = 0; k < KNOB_NSIGNALS; k++) {
		int sig = knob_signals[k];

		if (sigaction(sig, NULL, &old_actions[k]) < 0)
			return ab_msg("knob init: sigaction(%d): %s", sig, strerror(errno)), -1;
		/* An ignored signal cannot kill us (nohup): leave it ignored. */
		if (!(old_actions[k].sa_flags & SA_SIGINFO) && old_actions[k].sa_handler == SIG_IGN)
			continue;
		if (sigaction(sig, &sa, NULL) < 0)
			return ab_msg("knob init: sigaction(%d): %s", sig, strerror(errno)), -1;
	}
	return 0;
}

int ab_knob_init(const char *root, const char *journal)
{
	sigset_t old;
	int rc = 0;

	if (!root)
		root = "";
	if (!journal)
		journal = ab_knob_default_journal();
	if (strlen(root) >= sizeof(root_dir) || strlen(journal) >= sizeof(journal_path) ||
	    !*journal) {
		ab_msg("knob init: root '%s' or journal '%s' too long or empty", root, journal);
		errno = ENAMETOOLONG;
		return -1;
	}
	knob_block_signals(&old);
	pthread_mutex_lock(&lock);
	/* Entries already journaled must be restored into the tree and journal they came from. */
	if (ready && mine_pending(getpid()) &&
	    (strcmp(root, root_dir) || strcmp(journal, journal_path))) {
		ab_msg("knob init: knobs changed under '%s' are not restored yet, cannot switch to '%s'",
		       root_dir, root);
		errno = EBUSY;
		rc = -1;
		goto out;
	}
	snprintf(root_dir, sizeof(root_dir), "%s", root);
	snprintf(journal_path, sizeof(journal_path), "%s", journal);
	knob_dir_of(journal_path, journal_dir, sizeof(journal_dir));
	snprintf(boot_id, sizeof(boot_id), "%-36s", knob_boot_id());
	if (!handlers_installed && install_handlers() < 0) {
		rc = -1;
		goto out;
	}
	handlers_installed = 1;
	ready = 1;
out:
	pthread_mutex_unlock(&lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* A run killed earlier may have left knobs changed: put them back before this one
	 * reads any "original", or it would journal the leftover as one. */
	if (rc == 0) {
		char err[512];
		if (ab_knob_replay(root, journal, err, sizeof(err)) < 0)
			ab_msg("%s", err);
	}
	return rc;
}

int ab_knob_read(const char *path, char *buf, size_t len)
{
	char full[KNOB_PATH_MAX];

	if (!path) {
		errno = EINVAL;
		return -1;
	}
	if (knob_full_path(root_dir, path, full, sizeof(full)) < 0)
		return -1;
	return knob_read_full(full, buf, len);
}

/* This process's active entry for full, or NULL. */
static struct entry *find_mine(const char *full)
{
	pid_t me = getpid();
	int n = __atomic_load_n(&table_count, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		if (table[i].owner == me &&
		    __atomic_load_n(&table[i].state, __ATOMIC_ACQUIRE) == E_ACTIVE &&
		    strcmp(table[i].full, full) == 0)
			return &table[i];
	return NULL;
}

/*
 * First write of a knob by this process: journal its original (fsync'd), then
 * publish the entry, before the knob changes, so a signal in between restores
 * a no-op. Takes over *lockfd. Called with the mutex held and signals blocked.
 * The entry, or NULL with a message in err.
 */
static struct entry *journal_entry(const char *path, const char *full, int *lockfd, char *err,
				   size_t errlen)
{
	char cur[KNOB_VAL_MAX], line[KNOB_PATH_MAX + KNOB_VAL_MAX + 64], why[KNOB_PATH_MAX + 64];
	int n = __atomic_load_n(&table_count, __ATOMIC_ACQUIRE);
	pid_t me = getpid();

	if (n == KNOB_MAX)
		return fail_errno(ENOSPC, "knob %s: already %d knobs changed, none left to journal",
				  path, KNOB_MAX), NULL;
	if (knob_read_full(full, cur, sizeof(cur)) < 0)
		return fail_errno(errno, "knob %s: read: %s", full, strerror(errno)), NULL;
	if (strchr(cur, '\n'))
		return fail_errno(EINVAL, "knob %s: value has more than one line, cannot journal it",
				  full), NULL;
	if (ab_mkdirs(journal_dir, 0700) < 0)
		return fail_errno(errno, "knob journal directory %s: %s", journal_dir,
				  strerror(errno)), NULL;
	if (knob_trusted(journal_dir, 1, why, sizeof(why)) < 0)
		return fail_errno(EPERM, "knob journal refused: %s (knob %s left unchanged)", why,
				  path), NULL;
	int ln = snprintf(line, sizeof(line), "%s\t%ld\t0\t%s\t%s\n", knob_boot_id(), (long)me,
			  path, cur);
	int je = knob_journal_append(journal_path, journal_dir, line, (size_t)ln);
	if (je)
		return fail_errno(je, "knob journal %s: %s (knob %s left unchanged)", journal_path,
				  strerror(je), path), NULL;
	struct entry *e = &table[n];
	e->owner = me;
	e->err = 0;
	snprintf(e->full, sizeof(e->full), "%s", full);
	e->origlen = strlen(cur) + 1;
	e->lockfd = *lockfd;
	*lockfd = -1;
	memcpy(e->orig, cur, e->origlen - 1);
	e->orig[e->origlen - 1] = '\n';
	__atomic_store_n(&e->state, E_ACTIVE, __ATOMIC_RELEASE);
	__atomic_store_n(&table_count, n + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&journaled_pid, me, __ATOMIC_RELEASE);
	return e;
}

int ab_knob_write(const char *path, const char *value, char *orig, size_t origlen,
		  char *err, size_t errlen)
{
	char full[KNOB_PATH_MAX], val[KNOB_VAL_MAX + 1];
	struct entry *e = NULL;
	sigset_t old;
	size_t vlen;
	int rc = 0;

	if (!ready)
		return fail_errno(EINVAL, "knob %s: ab_knob_init() was not called",
				  path ? path : "(null)");
	if (!ab_knob_allowed(path))
		return fail_errno(EPERM, "knob %s: not on the allow-list", path ? path : "(null)");
	vlen = value ? strlen(value) : 0;
	if (vlen && value[vlen - 1] == '\n')
		vlen--;
	if (!value || vlen >= KNOB_VAL_MAX || memchr(value, '\n', vlen))
		return fail_errno(EINVAL, "knob %s: value '%s' is not one line under %d bytes",
				  path, value ? value : "(null)", KNOB_VAL_MAX);
	memcpy(val, value, vlen);
	val[vlen++] = '\n';
	if (knob_full_path(root_dir, path, full, sizeof(full)) < 0)
		return fail_errno(errno, "knob %s%s: path too long", root_dir, path);

	/* Outside the mutex: waiting for another process must not block our restore. */
	int have = find_mine(full) != NULL;
	int lockfd = have ? -1 : knob_owner_lock(root_dir, path, err, errlen);
	if (!have && lockfd < 0)
		return -1;

	knob_block_signals(&old);
	pthread_mutex_lock(&lock);
	e = find_mine(full);
	if (!e && !(e = journal_entry(path, full, &lockfd, err, errlen))) {
		rc = -1;
		goto out;
	}
	if (orig && origlen) {
		size_t k = e->origlen - 1 < origlen - 1 ? e->origlen - 1 : origlen - 1;
		memcpy(orig, e->orig, k);
		orig[k] = '\0';
	}
	int we = knob_put_value(full, val, vlen);
	if (we)
		rc = fail_errno(we, "knob %s: write '%.*s': %s", full, (int)(vlen - 1), val,
				strerror(we));
out:
	pthread_mutex_unlock(&lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (lockfd >= 0)
		close(lockfd);	/* not journaled after all: nothing of ours to own */
	return rc;
}

int ab_knob_restore_all(void)
{
	sigset_t old;
	pid_t me = getpid();
	int failed, n;

	knob_block_signals(&old);
	pthread_mutex_lock(&lock);
	failed = restore_mine(me);
	n = __atomic_load_n(&table_count, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n; i++) {
		struct entry *e = &table[i];
		if (e->owner == me && __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == E_FAILED) {
			ab_msg("knob %s: restore '%.*s': %s (left in the journal for replay)",
			       e->full, (int)e->origlen - 1, e->orig, strerror(e->err));
			__atomic_store_n(&e->state, E_RESTORED, __ATOMIC_RELEASE);
		}
	}
	mark_done(me);
	/* Slots are reused once nothing of ours is pending; a parent's entries are its own business. */
	if (!mine_pending(me)) {
		for (int i = 0; i < n; i++)
			__atomic_store_n(&table[i].state, E_FREE, __ATOMIC_RELEASE);
		__atomic_store_n(&table_count, 0, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return failed;
}

