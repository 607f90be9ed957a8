// SPDX-License-Identifier: GPL-2.0
/*
 * The parent's side of --transport passthrough: a private directory in the
 * work directory (mkdtemp, 0700) holding the pattern file r every reader's
 * file is backed by, and the w<i> files writers' data lands in; and the byte
 * check that replaces the daemon's count, which passthrough bypasses: each
 * w<i> must hold min(what worker i wrote, DDP_PT_SPAN) bytes (workers go back
 * to offset 0 at the span), and its first and last blocks must be the 'x'
 * bytes workers write. Readers check their last block against the pattern
 * themselves (loop.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ddpar.h"
#include "fuse/fusemnt.h"

int ddp_backing_make(struct ddp_settings *s, char *why, size_t len)
{
	char path[4200];
	size_t chunk = 1 << 20;
	char *buf = malloc(chunk);

	if (!buf)
		return ab_err(why, len, "out of memory");
	snprintf(s->backing_dir, sizeof(s->backing_dir), "%s/affbench-pt-%d-XXXXXX", ab_workdir(),
		 (int)getpid());
	if (!mkdtemp(s->backing_dir)) {
		free(buf);
		s->backing_dir[0] = '\0';
		return ab_err(why, len, "cannot create a backing directory in %s: %s", ab_workdir(),
			      strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/r", s->backing_dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	int rc = fd < 0 ? -1 : 0;
	for (uint64_t off = 0; rc == 0 && off < DDP_PT_SPAN; off += chunk) {
		ddp_fill_pattern(buf, off, chunk, s->bs);
		rc = write(fd, buf, chunk) == (ssize_t)chunk ? 0 : -1;
	}
	if (fd >= 0 && close(fd) < 0)
		rc = -1;
	free(buf);
	if (rc < 0)
		return ab_err(why, len, "cannot write the backing file %s: %s", path, strerror(errno));
	return 0;
}

void ddp_backing_remove(const struct ddp_settings *s)
{
	char path[4200];

	if (!s->backing_dir[0])
		return;
	snprintf(path, sizeof(path), "%s/r", s->backing_dir);
	unlink(path);
	for (int i = 0; i < DDP_MAX_PROCS; i++) {
		snprintf(path, sizeof(path), "%s/w%d", s->backing_dir, i);
		unlink(path);
	}
	if (rmdir(s->backing_dir) < 0)
		ab_msg("cannot remove %s: %s", s->backing_dir, strerror(errno));
}

/* The bs bytes at off are all 'x'. */
static int block_is_x(int fd, uint64_t off, char *buf, size_t bs)
{
	if (pread(fd, buf, bs, (off_t)off) != (ssize_t)bs)
		return 0;
	for (size_t k = 0; k < bs; k++)
		if (buf[k] != 'x')
			return 0;
	return 1;
}

int ddp_backing_check(const struct ddp_settings *s, const struct ddp_shared *sh, int procs,
		      char *why, size_t len)
{
	char path[4200], *buf = malloc(s->bs);
	int rc = 0;

	if (!buf)
		return ab_err(why, len, "out of memory");
	for (int i = 0; i < procs && rc == 0; i++) {
		uint64_t wrote = ab_counter_read(&sh->w[i].bytes);
		uint64_t want = wrote < DDP_PT_SPAN ? wrote : DDP_PT_SPAN;
		struct stat st;
		snprintf(path, sizeof(path), "%s/w%d", s->backing_dir, i);
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 || fstat(fd, &st) < 0)
			rc = ab_err(why, len, "backing file %s: %s", path, strerror(errno));
		else if ((uint64_t)st.st_size != want)
			rc = ab_err(why, len, "backing file %s holds %lld bytes; worker %d wrote %llu, so "
				    "%llu were due", path, (long long)st.st_size, i,
				    (unsigned long long)wrote, (unsigned long long)want);
		else if (want >= s->bs && (!block_is_x(fd, 0, buf, s->bs) ||
					   !block_is_x(fd, want - s->bs, buf, s->bs)))
			rc = ab_err(why, len, "backing file %s does not hold what worker %d wrote", path, i);
		if (fd >= 0)
			close(fd);
	}
	free(buf);
	return rc;
}
