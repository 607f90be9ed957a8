/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files written into a directory that may have come from elsewhere (a results
 * directory someone sent, --out, --resume, compare's --out), as root: never
 * through a link planted there. The directory the user named is followed, as
 * any path on a command line is; every name below it is opened one component
 * at a time with O_NOFOLLOW, so a link planted under any name is refused or
 * replaced, never followed.
 *  - A whole file (report.md, a figure, plan.plan, machine.txt) is written to a
 *    new name that cannot exist yet (O_CREAT|O_EXCL, which follows nothing) and
 *    renamed over NAME with renameat: rename replaces a link planted at NAME
 *    and never follows it. A failed write leaves the previous version.
 *  - An appended file (raw.csv, a log) is opened with O_NOFOLLOW|O_NONBLOCK and
 *    must be a regular file: a FIFO would block, a device would swallow rows.
 */
#ifndef AB_OUTFILE_H
#define AB_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

struct ab_outfile {
	FILE *f;
	int dirfd;		/* the directory NAME goes in */
	char name[200], tmp[200 + 32];
	char path[4096];	/* DIR/REL, for messages */
};

/* Start DIR/REL (REL: "report.md" or "log/gnuplot.log"). The stream, or NULL after
 * one message naming the file and why. */
FILE *ab_outfile_open(struct ab_outfile *o, const char *dir, const char *rel);
/* Check every write and the close, then rename into place: 0. Or remove it, say
 * which file failed and why (the previous version, if any, is left): -1. */
int ab_outfile_close(struct ab_outfile *o);

/* DIR/REL for appending, created 0644 when absent: a regular file, reached
 * without following a link below DIR. The fd, or -1 with err set and errno. */
int ab_append_open(const char *dir, const char *rel, char *err, size_t errlen);

/* Move the file NAME of the directory fd `from` (a private directory of ours) to
 * DIR/REL (REL: "figures/x.png"; its directories must exist): renameat, or across
 * file systems a copy through ab_outfile. 0, or -1 after one message. */
int ab_outfile_move_to(int from, const char *name, const char *dir, const char *rel);
/* The directory DIR/REL, made 0755 when absent; one that exists must be a
 * directory, not a link to one (every directory on the way likewise). 0, or -1
 * after one message. */
int ab_outdir_make(const char *dir, const char *rel);

/* A private directory (mkdtemp under $TMPDIR or /tmp, 0700) that only we and our
 * children write in: gnuplot draws there. path filled; its fd, or -1 after one message. */
int ab_private_dir(char *path, size_t len, const char *what);
/* Remove a private directory and whatever is left in it (no subdirectories). */
void ab_private_dir_remove(int fd, const char *path);

#endif
