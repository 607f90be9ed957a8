/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Knobs: every sysfs/procfs write goes through here so nothing is left changed.
 *
 *  - Only paths on an allow-list may be written (rq_affinity, IRQ affinity,
 *    FUSE connection limits, fuse enable_uring, haltpoll guest_halt_poll_ns).
 *  - Before the first write of a path, its original value is appended to a
 *    journal and fsync'd ("<boot_id>\t<pid>\t<tries>\t<path>\t<value>\n",
 *    tries 0; the format in full in journal_i.h).
 *  - The owning process restores at exit and on SIGINT/SIGTERM/SIGHUP
 *    (async-signal-safe: open/write/close/_exit) and appends
 *    "<boot_id>\t<pid>\tdone\n"; a forked child never restores its parent's knobs.
 *  - After SIGKILL or a power loss, ab_knob_replay() restores what the journal
 *    still holds for processes of this boot that never marked themselves done;
 *    lines of another boot are dropped (the reboot reset the knobs), and an
 *    entry the kernel keeps refusing is given up after a few tries.
 *
 * root is a path prefix ("" for the real machine) so tests use a fake tree;
 * paths are given as on the real machine ("/sys/block/vda/queue/rq_affinity").
 */
#ifndef AB_KNOB_H
#define AB_KNOB_H

#include <stddef.h>

/* Default journal: $AFFBENCH_JOURNAL, else /var/lib/affbench/knobs.journal. */
const char *ab_knob_default_journal(void);

/* Set up for this process; installs the exit and signal handlers once. 0 or -1. */
int ab_knob_init(const char *root, const char *journal);
/* Is path (real-machine form) on the allow-list? */
int ab_knob_allowed(const char *path);
/* Read a knob's current value, trailing newline stripped. 0 or -1 (errno). */
int ab_knob_read(const char *path, char *buf, size_t len);
/*
 * Journal the original (first time only), then write value. If orig is not NULL it
 * receives the value before this process first changed it. 0, or -1 with errno
 * (EPERM for a path off the allow-list) and a message in err.
 */
int ab_knob_write(const char *path, const char *value, char *orig, size_t origlen,
		  char *err, size_t errlen);
/* Restore everything this process changed, newest first, and mark it done. Returns
 * the number of knobs that failed to restore. */
int ab_knob_restore_all(void);
/* Replay a journal: restore entries of processes that are dead and not marked done,
 * oldest original wins; entries of live processes stay in the journal, the rest go.
 * Returns the number restored, or -1 on error (message in err). A missing journal is 0.
 * A knob the kernel refuses is said on stderr, a line each; err then counts them. */
int ab_knob_replay(const char *root, const char *journal, char *err, size_t errlen);

#endif
