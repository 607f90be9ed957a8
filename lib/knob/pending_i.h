/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entries of a knob journal that no "done" line has closed yet, as a
 * replay reads it (replay.c): an entry line adds one, a done line closes
 * every earlier entry of its pid. A table of the open entries in journal
 * order and a hash of pids to their newest open entry keep each line O(1);
 * closed entries are compacted away, so memory follows what is pending
 * (KNOB_PENDING_MAX, journal_i.h), not the journal's length.
 */
#ifndef AB_KNOB_PENDING_H
#define AB_KNOB_PENDING_H

#include <stddef.h>
#include <sys/types.h>

/* One parsed journal line; its strings point into the line being read. */
struct kp_line {
	size_t lineno;
	pid_t pid;
	int done;		/* a "done" line */
	int tries;
	const char *boot, *path, *orig;
};

struct kp_ent {
	size_t lineno;
	pid_t pid;
	int tries;
	char *path, *orig;	/* owned; NULL once a done line closed the entry */
	long prev;		/* the next older open entry of this pid, or -1 */
	int keep;		/* goes back into the journal */
};

struct kp_tab {
	struct kp_ent *v;
	size_t n, cap, open;	/* open: entries not closed */
	pid_t *key;		/* hash slots: a pid (0: empty, never a valid pid) */
	long *newest;		/* that pid's newest open entry, or -1 */
	size_t nslots;		/* a power of two, at least twice cap */
	unsigned long long steps;	/* slots probed and entries moved: the work done,
					 * which tests bound per line (linear, whatever pids) */
};

/* Add an entry line, or close a pid's entries for a done line. 0, or -1 with
 * errno: E2BIG past KNOB_PENDING_MAX open entries, ENOMEM. */
int kp_add(struct kp_tab *t, const struct kp_line *l);
/* Only the open entries remain, in journal order: v[0 .. n). */
void kp_compact(struct kp_tab *t);
void kp_free(struct kp_tab *t);

#endif
