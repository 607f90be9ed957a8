/*
 * Knobs: the only place affbench writes sysfs/procfs, so nothing is left changed.
 *
 * A write journals the original value first (one O_APPEND write, fsync'd), then
 * changes the knob. What to restore is also kept in a fixed in-memory table so
 * the signal handler can restore with open/write/close only (no malloc, no
 * stdio). Every entry records the pid that made the change: a forked child
 * inherits the table and the handlers, but restores only its own entries.
 *
 * Journal lines: "<pid>\t<path>\t<original>\n" before a pid's first write of a
 * path, "<pid>\tdone\n" once that pid restored everything. The journal is
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
#include "knob.h"
#include "common.h"

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

#define KNOB_OWNER_WAIT_S 10	/* how long a second writer waits for a knob's owner */
#define KNOB_MAX 64		/* knobs one process may hold changed at once */
#define KNOB_VAL_MAX 256	/* value bytes incl. the NUL */
#define KNOB_PATH_MAX 1024	/* root + path */

/* Real-machine form; FNM_PATHNAME|FNM_PERIOD keep '*' inside one ordinary component. */
static const char *const allow_list[] = {
	"/sys/block/*/queue/rq_affinity",
	"/proc/irq/*/smp_affinity_list",
	"/proc/irq/*/smp_affinity",
	"/sys/fs/fuse/connections/*/max_background",
	"/sys/fs/fuse/connections/*/congestion_threshold",
	"/sys/module/fuse/parameters/enable_uring",
};

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

static const int restore_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction old_actions[AB_ARRAY_SIZE(restore_signals)];

const char *ab_knob_default_journal(void)
{
	const char *j = getenv("AFFBENCH_JOURNAL");

	return j && *j ? j : "/var/lib/affbench/knobs.journal";
}

int ab_knob_allowed(const char *path)
{
	if (!path || path[0] != '/')
		return 0;
	/* ".." must never walk out of the allowed tree; a tab or newline would break a journal line */
	if (strstr(path, "/../") || strstr(path, "/./") || strstr(path, "//") ||
	    strpbrk(path, "\t\n"))
		return 0;
	for (size_t i = 0; i < AB_ARRAY_SIZE(allow_list); i++)
		if (fnmatch(allow_list[i], path, FNM_PATHNAME | FNM_PERIOD) == 0)
			return 1;
	return 0;
}

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

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/*
 * Append one line with one write() and fsync it. Returns 0 or an errno value.
 * The lock makes a concurrent replay's rename atomic for us: when the inode we
 * locked is no longer the journal, append to the new one instead.
 */
static int journal_append(const char *line, size_t len)
{
	int fd = -1;
	struct stat a, b;

	for (int tries = 0; tries < 5; tries++) {
		fd = open(journal_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0)
			return errno;
		if (flock(fd, LOCK_EX) < 0 || fstat(fd, &a) < 0) {
			int e = errno;
			close(fd);
			return e;
		}
		if (stat(journal_path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return EAGAIN;
	ssize_t n = write(fd, line, len);
	int e = n < 0 ? errno : (size_t)n != len ? EIO : 0;
	if (!e && fsync(fd) < 0)
		e = errno;
	close(fd);
	if (!e && a.st_size == 0)	/* a new journal: make its name durable too */
		sync_dir(journal_dir);
	return e;
}

/* open/write/close a value that already ends in a newline. Returns 0 or an errno value. */
static int put_value(const char *full, const char *val, size_t len)
{
	/* O_TRUNC: what a shell's '>' does; sysfs and procfs accept it, fake files need it */
	int fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return errno;
	ssize_t n = write(fd, val, len);
	int e = n < 0 ? errno : (size_t)n != len ? EIO : 0;
	if (close(fd) < 0 && !e)
		e = errno;
	return e;
}

/*
 * Does the knob already hold val (len bytes, no newline)? Then restoring it is a
 * no-op, and must not fail: a write the kernel refused (a managed IRQ's affinity
 * gives EPERM) changed nothing, yet its original was journaled before the try.
 * open/read/close only: this runs in the signal handler too.
 */
static int holds(const char *full, const char *val, size_t len)
{
	char cur[KNOB_VAL_MAX + 2];
	int fd = open(full, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	ssize_t n = read(fd, cur, sizeof(cur) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	if (cur[n - 1] == '\n')
		n--;
	return (size_t)n == len && memcmp(cur, val, len) == 0;
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
		e->err = holds(e->full, e->orig, e->origlen - 1) ? 0 :
			 put_value(e->full, e->orig, e->origlen);
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
 * "<pid>\tdone\n", once, and only by the pid that journaled. After a failed
 * restore it stays unwritten, so a later replay retries what failed.
 */
static void mark_done(pid_t me)
{
	pid_t want = me;
	char line[32];
	size_t n;

	if (!__atomic_compare_exchange_n(&journaled_pid, &want, 0, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	if (__atomic_load_n(&failed_pid, __ATOMIC_ACQUIRE) == me)
		return;
	n = fmt_pid(line, me);
	memcpy(line + n, "\tdone\n", 6);
	journal_append(line, n + 6);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	pid_t me = getpid();
	size_t k;

	restore_mine(me);
	mark_done(me);
	for (k = 0; k < AB_ARRAY_SIZE(restore_signals); k++)
		if (restore_signals[k] == sig)
			break;
	if (k < AB_ARRAY_SIZE(restore_signals)) {
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

static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t k = 0; k < AB_ARRAY_SIZE(restore_signals); k++)
		sigaddset(&set, restore_signals[k]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void unblock_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

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

static int make_dirs(const char *dir)
{
	char p[KNOB_PATH_MAX];
	size_t len = strlen(dir);

	if (len == 0 || len >= sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(p, dir, len + 1);
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0700) < 0 && errno != EEXIST)
				return -1;
			*s = c;
			if (!c)
				break;
		}
	}
	return 0;
}

static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
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
	block_signals(&old);
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
	dir_of(journal_path, journal_dir, sizeof(journal_dir));
	if (!handlers_installed) {
		if (atexit(at_exit) != 0) {
			ab_msg("knob init: atexit failed");
			errno = ENOMEM;
			rc = -1;
			goto out;
		}
		for (size_t k = 0; k < AB_ARRAY_SIZE(restore_signals); k++) {
			struct sigaction sa;

			if (sigaction(restore_signals[k], NULL, &old_actions[k]) < 0) {
				ab_msg("knob init: sigaction(%d): %s", restore_signals[k],
				       strerror(errno));
				rc = -1;
				goto out;
			}
			/* An ignored signal cannot kill us (nohup): leave it ignored. */
			if (!(old_actions[k].sa_flags & SA_SIGINFO) &&
			    old_actions[k].sa_handler == SIG_IGN)
				continue;
			memset(&sa, 0, sizeof(sa));
			sa.sa_sigaction = on_signal;
			sa.sa_flags = SA_SIGINFO;
			sigemptyset(&sa.sa_mask);
			for (size_t j = 0; j < AB_ARRAY_SIZE(restore_signals); j++)
				sigaddset(&sa.sa_mask, restore_signals[j]);
			if (sigaction(restore_signals[k], &sa, NULL) < 0) {
				ab_msg("knob init: sigaction(%d): %s", restore_signals[k],
				       strerror(errno));
				rc = -1;
				goto out;
			}
		}
		handlers_installed = 1;
	}
	ready = 1;
out:
	pthread_mutex_unlock(&lock);
	unblock_signals(&old);
	/* A run killed earlier may have left knobs changed: put them back before this one
	 * reads any "original", or it would journal the leftover as one. */
	if (rc == 0) {
		char err[512];
		if (ab_knob_replay(root, journal, err, sizeof(err)) < 0)
			ab_msg("%s", err);
	}
	return rc;
}

/* Read whole file into buf (len bytes incl. NUL), one trailing newline stripped. */
static int read_full(const char *full, char *buf, size_t len)
{
	int fd;
	size_t got = 0;
	char extra;

	if (!buf || len == 0) {
		errno = EINVAL;
		return -1;
	}
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	/* A value that does not fit would be restored truncated: refuse it. */
	if (got == len - 1 && read(fd, &extra, 1) > 0) {
		close(fd);
		errno = ERANGE;
		return -1;
	}
	close(fd);
	buf[got] = '\0';
	if (got && buf[got - 1] == '\n')
		buf[got - 1] = '\0';
	return 0;
}

static int full_path(const char *root, const char *path, char *full, size_t len)
{
	int n = snprintf(full, len, "%s%s", root, path);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int ab_knob_read(const char *path, char *buf, size_t len)
{
	char full[KNOB_PATH_MAX];

	if (!path) {
		errno = EINVAL;
		return -1;
	}
	if (full_path(root_dir, path, full, sizeof(full)) < 0)
		return -1;
	return read_full(full, buf, len);
}

/* ab_err keeps errno for the caller */
#define fail_errno(e, ...) ({ int e_ = (e); ab_err(err, errlen, __VA_ARGS__); errno = e_; -1; })

/* Has this process an active entry for full? */
static int mine(const char *full)
{
	pid_t me = getpid();
	int n = __atomic_load_n(&table_count, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		if (table[i].owner == me &&
		    __atomic_load_n(&table[i].state, __ATOMIC_ACQUIRE) == E_ACTIVE &&
		    strcmp(table[i].full, full) == 0)
			return 1;
	return 0;
}

/* Become the knob's only live owner: an fd holding its lock, or -1 with a message. */
static int owner_lock(const char *path, char *err, size_t errlen)
{
	char dir[KNOB_PATH_MAX], file[KNOB_PATH_MAX], name[KNOB_PATH_MAX];
	size_t i;

	for (i = 0; path[i] && i < sizeof(name) - 1; i++)
		name[i] = path[i] == '/' ? '%' : path[i];
	name[i] = 0;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/run/affbench/knobs", root_dir) >= sizeof(dir) ||
	    (size_t)snprintf(file, sizeof(file), "%s/%s", dir, name) >= sizeof(file))
		return fail_errno(ENAMETOOLONG, "knob %s: lock path too long", path);
	if (make_dirs(dir) < 0)
		return fail_errno(errno, "knob lock directory %s: %s", dir, strerror(errno));
	const char *w = getenv("AFFBENCH_KNOB_WAIT_S");
	int wait_s = w && *w ? atoi(w) : KNOB_OWNER_WAIT_S;
	int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail_errno(errno, "knob lock %s: %s", file, strerror(errno));
	/* A POSIX record lock, not flock: it belongs to this process only, so children
	 * forked after the write (workers, daemons) do not keep the knob locked. */
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	for (int tries = 0; fcntl(fd, F_SETLK, &fl) < 0; tries++) {
		int busy = errno == EACCES || errno == EAGAIN;
		if (!busy || tries >= wait_s * 10) {
			char owner[32] = "";
			int e = busy ? EBUSY : errno;
			ssize_t n = pread(fd, owner, sizeof(owner) - 1, 0);
			close(fd);
			owner[n > 0 ? n : 0] = 0;
			return fail_errno(e, "knob %s: changed by another affbench process (pid %s) for "
					  "more than %d s; let it finish", path, owner[0] ? owner : "?",
					  wait_s);
		}
		usleep(100000);
	}
	char pid[32];
	int len = snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	/* The pid is only for the message of a waiting writer: failure to write it is harmless. */
	if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)len, 0) != len)
		errno = 0;
	return fd;
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
	if (full_path(root_dir, path, full, sizeof(full)) < 0)
		return fail_errno(errno, "knob %s%s: path too long", root_dir, path);

	/* Outside the mutex: waiting for another process must not block our restore. */
	int have = mine(full);
	int lockfd = have ? -1 : owner_lock(path, err, errlen);
	if (!have && lockfd < 0)
		return -1;

	block_signals(&old);
	pthread_mutex_lock(&lock);
	pid_t me = getpid();
	int n = __atomic_load_n(&table_count, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n && !e; i++)
		if (table[i].owner == me &&
		    __atomic_load_n(&table[i].state, __ATOMIC_ACQUIRE) == E_ACTIVE &&
		    strcmp(table[i].full, full) == 0)
			e = &table[i];
	if (!e) {
		char cur[KNOB_VAL_MAX], line[KNOB_PATH_MAX + KNOB_VAL_MAX + 32];
		int ln;

		if (n == KNOB_MAX) {
			rc = fail_errno(ENOSPC, "knob %s: already %d knobs changed, none left to journal",
					path, KNOB_MAX);
			goto out;
		}
		if (read_full(full, cur, sizeof(cur)) < 0) {
			rc = fail_errno(errno, "knob %s: read: %s", full, strerror(errno));
			goto out;
		}
		if (strchr(cur, '\n')) {
			rc = fail_errno(EINVAL, "knob %s: value has more than one line, cannot journal it",
					full);
			goto out;
		}
		if (make_dirs(journal_dir) < 0) {
			rc = fail_errno(errno, "knob journal directory %s: %s", journal_dir,
					strerror(errno));
			goto out;
		}
		ln = snprintf(line, sizeof(line), "%ld\t%s\t%s\n", (long)me, path, cur);
		int je = journal_append(line, (size_t)ln);
		if (je) {
			rc = fail_errno(je, "knob journal %s: %s (knob %s left unchanged)",
					journal_path, strerror(je), path);
			goto out;
		}
		/* Published before the knob changes, so a signal in between restores a no-op. */
		e = &table[n];
		e->owner = me;
		e->err = 0;
		snprintf(e->full, sizeof(e->full), "%s", full);
		e->origlen = strlen(cur) + 1;
		e->lockfd = lockfd;
		lockfd = -1;
		memcpy(e->orig, cur, e->origlen - 1);
		e->orig[e->origlen - 1] = '\n';
		__atomic_store_n(&e->state, E_ACTIVE, __ATOMIC_RELEASE);
		__atomic_store_n(&table_count, n + 1, __ATOMIC_RELEASE);
		__atomic_store_n(&journaled_pid, me, __ATOMIC_RELEASE);
	}
	if (orig && origlen) {
		size_t k = e->origlen - 1 < origlen - 1 ? e->origlen - 1 : origlen - 1;
		memcpy(orig, e->orig, k);
		orig[k] = '\0';
	}
	int we = put_value(full, val, vlen);
	if (we)
		rc = fail_errno(we, "knob %s: write '%.*s': %s", full, (int)(vlen - 1), val,
				strerror(we));
out:
	pthread_mutex_unlock(&lock);
	unblock_signals(&old);
	if (lockfd >= 0)
		close(lockfd);	/* not journaled after all: nothing of ours to own */
	return rc;
}

int ab_knob_restore_all(void)
{
	sigset_t old;
	pid_t me = getpid();
	int failed, n;

	block_signals(&old);
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
	unblock_signals(&old);
	return failed;
}

/* ---- replay ---- */

struct jline {
	const char *raw;	/* the line in the journal buffer, with its newline */
	size_t rawlen;
	pid_t pid;
	int done;		/* a "<pid>\tdone" line */
	const char *path;	/* NUL-terminated copies below */
	const char *orig;
	int keep;		/* goes back into the journal */
	int restore;		/* dead, not done: restore it */
};

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

/* Split journal text into lines; a torn last line (no newline) is dropped. */
static struct jline *parse_journal(char *text, size_t len, char *copy, size_t *count)
{
	size_t cap = 16, n = 0;
	struct jline *v = malloc(cap * sizeof(*v));
	size_t lineno = 0;

	if (!v)
		return NULL;
	memcpy(copy, text, len + 1);
	for (char *p = copy, *raw = text; p < copy + len;) {
		char *nl = memchr(p, '\n', (size_t)(copy + len - p));
		if (!nl)
			break;	/* torn: the writer died in mid-line, before it changed the knob */
		lineno++;
		size_t rawlen = (size_t)(nl - p) + 1;
		*nl = '\0';
		struct jline l = { .raw = raw, .rawlen = rawlen };
		char *end, *t1 = strchr(p, '\t');
		long pid = strtol(p, &end, 10);
		if (t1 && end == t1 && pid > 0) {
			l.pid = (pid_t)pid;
			if (strcmp(t1 + 1, "done") == 0) {
				l.done = 1;
			} else {
				char *t2 = strchr(t1 + 1, '\t');
				if (t2) {
					*t2 = '\0';
					l.path = t1 + 1;
					l.orig = t2 + 1;
				}
			}
		}
		if (l.done || l.path) {
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
		} else {
			ab_msg("knob journal: line %zu is not '<pid>\\t<path>\\t<value>' nor '<pid>\\tdone', dropped",
			       lineno);
		}
		p = nl + 1;
		raw += rawlen;
	}
	*count = n;
	return v;
}

static int rewrite_journal(const char *journal, const struct jline *v, size_t n,
			   char *err, size_t errlen)
{
	char dir[KNOB_PATH_MAX], tmp[KNOB_PATH_MAX + 16];
	size_t kept = 0;
	int fd;

	for (size_t i = 0; i < n; i++)
		kept += v[i].keep;
	dir_of(journal, dir, sizeof(dir));
	if (kept == 0) {
		if (unlink(journal) < 0 && errno != ENOENT)
			return fail_errno(errno, "knob journal %s: remove: %s", journal, strerror(errno));
		sync_dir(dir);
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", journal);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return fail_errno(errno, "knob journal %s: %s", tmp, strerror(errno));
	for (size_t i = 0; i < n; i++) {
		if (!v[i].keep)
			continue;
		if (write(fd, v[i].raw, v[i].rawlen) != (ssize_t)v[i].rawlen) {
			int e = errno ? errno : EIO;
			close(fd);
			unlink(tmp);
			return fail_errno(e, "knob journal %s: write: %s", tmp, strerror(e));
		}
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		int e = errno;
		unlink(tmp);
		return fail_errno(e, "knob journal %s: %s", tmp, strerror(e));
	}
	if (rename(tmp, journal) < 0) {
		int e = errno;
		unlink(tmp);
		return fail_errno(e, "knob journal %s: rename: %s", journal, strerror(e));
	}
	sync_dir(dir);
	return 0;
}

int ab_knob_replay(const char *root, const char *journal, char *err, size_t errlen)
{
	char *text = NULL, *copy = NULL;
	struct jline *v = NULL;
	size_t len = 0, n = 0;
	int fd = -1, rc = 0, restored = 0, failed = 0;
	sigset_t old;
	struct stat a, b;

	if (!root)
		root = "";
	if (!journal)
		journal = ab_knob_default_journal();
	/* Our own handler appends under the same lock: it must not run while we hold it. */
	block_signals(&old);
	for (int tries = 0; tries < 5; tries++) {
		fd = open(journal, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			goto out;
		if (fd < 0) {
			rc = fail_errno(errno, "knob journal %s: %s", journal, strerror(errno));
			goto out;
		}
		if (flock(fd, LOCK_EX) < 0 || fstat(fd, &a) < 0) {
			rc = fail_errno(errno, "knob journal %s: lock: %s", journal, strerror(errno));
			goto out;
		}
		if (stat(journal, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			break;
		close(fd);	/* replaced or removed by another replay meanwhile */
		fd = -1;
	}
	if (fd < 0)
		goto out;
	text = slurp(fd, &len);
	copy = text ? malloc(len + 1) : NULL;
	v = copy ? parse_journal(text, len, copy, &n) : NULL;
	if (!v) {
		rc = fail_errno(errno ? errno : ENOMEM, "knob journal %s: read: %s", journal,
				strerror(errno ? errno : ENOMEM));
		goto out;
	}

	for (size_t i = 0; i < n; i++) {
		if (!v[i].path)
			continue;	/* done lines are dropped: they close what came before */
		/* A later done line of the same pid says it restored this itself. */
		int closed = 0;
		for (size_t j = i + 1; j < n && !closed; j++)
			closed = v[j].done && v[j].pid == v[i].pid;
		if (closed)
			continue;
		if (ab_pid_alive(v[i].pid))
			v[i].keep = 1;	/* still running: it restores its own knobs */
		else if (!ab_knob_allowed(v[i].path))
			ab_msg("knob journal %s: %s is not on the allow-list, not restored",
			       journal, v[i].path);
		else
			v[i].restore = 1;
	}

	/* Newest first; of several dead writers of one path the oldest original wins,
	 * so each path is written once, with its oldest pending original. */
	for (size_t i = n; i-- > 0;) {
		char full[KNOB_PATH_MAX], val[KNOB_VAL_MAX + 1];
		int older = 0;

		if (!v[i].restore)
			continue;
		for (size_t j = 0; j < i && !older; j++)
			older = v[j].restore && strcmp(v[j].path, v[i].path) == 0;
		if (older)
			continue;
		size_t ol = strlen(v[i].orig);
		int e = 0;
		if (ol >= KNOB_VAL_MAX || full_path(root, v[i].path, full, sizeof(full)) < 0)
			e = ENAMETOOLONG;
		if (!e) {
			memcpy(val, v[i].orig, ol);
			val[ol] = '\n';
			e = holds(full, val, ol) ? 0 : put_value(full, val, ol + 1);
		}
		if (e == 0) {
			restored++;
		} else if (e != ENOENT) {	/* ENOENT: the object is gone, nothing to restore */
			char m[KNOB_PATH_MAX + KNOB_VAL_MAX + 64];

			failed++;
			v[i].keep = 1;	/* try again next time */
			snprintf(m, sizeof(m), "knob %s%s: restore '%s': %s", root, v[i].path,
				 v[i].orig, strerror(e));
			ab_msg("%s", m);
			ab_err(err, errlen, "%s", m);
		}
	}

	int changed = 0;
	for (size_t i = 0; i < n; i++)
		changed |= !v[i].keep;
	size_t used = 0;
	for (size_t i = 0; i < n; i++)
		used += v[i].rawlen;
	changed |= used != len;	/* dropped a torn or malformed line */
	if (changed && rewrite_journal(journal, v, n, err, errlen) < 0)
		rc = -1;
	if (rc == 0)
		rc = failed ? -1 : restored;
out:
	if (fd >= 0)
		close(fd);
	free(v);
	free(copy);
	free(text);
	unblock_signals(&old);
	return rc;
}
