/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input files from elsewhere (a results directory someone sent, a plan, a
 * machine.txt), read safely as root: opened only if they are regular files,
 * never through a link, never blocking on a FIFO, and within bounds, so a
 * planted link, a FIFO or an endless device ends in one line and exit 2
 * rather than a hang or an exhausted machine (coreutils, systemd chase()).
 */
#ifndef AB_INFILE_H
#define AB_INFILE_H

#include <stdio.h>
#include <sys/types.h>

/*
 * The limits (docs/records.md). The default plan's raw.csv is about 4.4 MB
 * (9 repetitions and precision's, 2026-12-05) and its longest line under 200
 * bytes; 64 MiB holds about 190 repetitions of it and a line of 64 KiB ten
 * configs at the record grammar's longest.
 * hist.csv (13 MB for the same run) is streamed into a
 * bounded number of groups, so its size costs time, not memory: 1 GiB.
 * Anything larger was not written by affbench.
 */
#define AB_INFILE_MAX_BYTES (64ull << 20)	/* raw.csv, runs.csv, summary.csv */
#define AB_INFILE_MAX_HIST (1ull << 30)		/* hist.csv */
#define AB_INFILE_MAX_SMALL (4ull << 20)	/* plan files, machine.txt */
#define AB_INFILE_MAX_LINE 65536

/*
 * Open path for reading: O_NOFOLLOW (the last component may not be a link),
 * O_NONBLOCK (a FIFO does not block the open), then fstat: a regular file of
 * at most max_bytes; the stream ends in a read error (EFBIG) if the file grows
 * past max_bytes while it is read. NULL with err set ("PATH: not a regular file (a FIFO)",
 * "PATH: 70000000 bytes, over the 67108864-byte limit") and errno.
 */
FILE *ab_infile_open(const char *path, unsigned long long max_bytes, char *err, size_t errlen);
/* The same checks and stream for a file the caller opened (openat under a directory
 * fd it checked, O_NONBLOCK): fd is the stream's, or closed on failure. path names it
 * in err. */
FILE *ab_infile_fdopen(int fd, const char *path, unsigned long long max_bytes, char *err,
		       size_t errlen);

/*
 * One line (without its newline) into *buf, grown as getline does but never
 * past AB_INFILE_MAX_LINE: its length, -1 at the end of the file, -2 when the
 * line is longer than the limit (the rest of it is skipped).
 */
ssize_t ab_infile_line(FILE *f, char **buf, size_t *cap);

/* What a file that is not a regular file is, for messages: "a FIFO", "a directory", ... */
const char *ab_file_kind(mode_t m);

#endif
