/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals shared by the knob files (knob.c writes and restores, replay.c
 * replays, journal.c holds the helpers): the journal's line format and the
 * async-signal-safe file helpers.
 *
 * Journal lines (tab-separated, one write() each, fsync'd):
 *   <boot_id>\t<pid>\t<tries>\t<path>\t<original>\n   before a pid's first write of path
 *   <boot_id>\t<pid>\tdone\n                          once that pid restored everything
 * boot_id is /proc/sys/kernel/random/boot_id: a reboot already reset every knob
 * affbench writes, and pids, IRQ and FUSE connection numbers mean something
 * else after it, so entries of another boot are dropped, never restored.
 * tries counts replays the kernel refused; at KNOB_MAX_TRIES the entry is given up.
 */
#ifndef AB_KNOB_JOURNAL_H
#define AB_KNOB_JOURNAL_H

#include <signal.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define KNOB_VAL_MAX 256	/* value bytes incl. the NUL */
#define KNOB_PATH_MAX 1024	/* root + path */
#define KNOB_BOOT_ID_LEN 36	/* "8e3f5c1a-...": 36 characters */
#define KNOB_MAX_TRIES 3	/* replays that may fail before an entry is given up */

/* -1 with a message in err and errno e: ab_err keeps errno for the caller */
#define fail_errno(e, ...) ({ int e_ = (e); ab_err(err, errlen, __VA_ARGS__); errno = e_; -1; })

/* This boot's id ("unknown" when procfs cannot tell), read once. */
const char *knob_boot_id(void);
/* Open the journal (flags | O_NOFOLLOW) and lock it (flock), retried while a replay
 * replaces it: fd with *st, or -1 with errno (gone, when it kept changing). Signal-safe. */
int knob_journal_open(const char *journal, int flags, struct stat *st, int gone);
/* Append one line with one write() and fsync it. 0 or an errno value. Signal-safe. */
int knob_journal_append(const char *journal, const char *dir, const char *line, size_t len);
/* open/write/close a value that ends in a newline. 0 or an errno value. Signal-safe. */
int knob_put_value(const char *full, const char *val, size_t len);
/* Does the knob already hold val (len bytes, no newline)? Signal-safe. */
int knob_holds(const char *full, const char *val, size_t len);
void knob_sync_dir(const char *dir);
/* The signals whose handler (knob.c) restores and journals; blocked, old: the mask before. */
#define KNOB_NSIGNALS 3
extern const int knob_signals[KNOB_NSIGNALS];
void knob_block_signals(sigset_t *old);
void knob_dir_of(const char *path, char *dir, size_t len);
int knob_full_path(const char *root, const char *path, char *full, size_t len);
/* Is dir (or a file, want_dir 0) owned by root and not group/world-writable, and no
 * symlink? 0, or -1 with the reason in why. A missing one is trusted (made 0700 by us). */
int knob_trusted(const char *path, int want_dir, char *why, size_t len);

/*
 * Become the knob's only live owner: a POSIX record lock on
 * <root>/run/affbench/knobs/<path with / as %>, held until restored (or death).
 * A second writer waits up to KNOB_OWNER_WAIT_S (or $AFFBENCH_KNOB_WAIT_S), then
 * fails with EBUSY naming the owner. The lock fd, or -1 with a message in err.
 */
#define KNOB_OWNER_WAIT_S 10
int knob_owner_lock(const char *root, const char *path, char *err, size_t errlen);
/* That lock file opened (created 0600, its directory made and checked), unlocked:
 * the fd, or -1 with a message in err. A replay tests it with an OFD lock, which
 * conflicts with the owner's record lock whichever process asks. */
int knob_lock_open(const char *root, const char *path, char *err, size_t errlen);

/*
 * A replay's bounds (docs/knobs.md). It reads the journal a line at a time and
 * holds only the entries no "done" line has closed yet, so its memory follows
 * what is pending, not the journal's length; time is linear in the lines. A
 * journal past either bound was not written by affbench (each process holds at
 * most 64 knobs, and every run's replay drops what is closed): it is refused
 * with one line and left as it is, for a person to look at.
 */
#define KNOB_JOURNAL_MAX_BYTES (64ull << 20)
#define KNOB_PENDING_MAX 4096	/* entries not closed by a done line, at any point */

/* Read a whole file into buf (len bytes incl. NUL), one trailing newline stripped;
 * a value that does not fit is refused (ERANGE). 0 or -1 with errno. */
int knob_read_full(const char *full, char *buf, size_t len);

#endif
