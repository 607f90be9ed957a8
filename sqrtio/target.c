// SPDX-License-Identifier: GPL-2.0
/*
 * What sqrtio's readers read: --device (read-only, never written), --file
 * (created with real data if missing), or by default a scratch file in the
 * current directory, unlinked at once so no exit leaves it behind. Each is
 * opened O_DIRECT so reads reach the device, and resolved to the disk whose
 * queue (rq_affinity) serves it.
 * Known limits: a file with holes or unwritten extents is read from memory,
 * not the device (we warn when --file has a hole in the span); a filesystem
 * without O_DIRECT (tmpfs, some overlays) is a skip. Nothing here reads the
 * target: the first reads happen in discovery's workers, which a hung device
 * cannot hold forever; writing a new file to a hung device can still block.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/sysfs.h"
#include "sqrtio.h"

#define DEFAULT_FILE_SIZE (64ull << 20)

static void resolve(dev_t dev, const char *what, struct sq_target *t)
{
	char why[512];

	if (sq_blkdev_resolve("", dev, &t->blk, why, sizeof(why)))
		ab_skip("%s: %s", what, why);
	if (ab_sysfs_read(t->blk.rq_path, t->rq_orig, sizeof(t->rq_orig)) < 0 || !t->rq_orig[0])
		ab_skip("%s: cannot read %s", what, t->blk.rq_path);
}

/* The directory a --file that does not exist yet goes into: it decides the disk. */
static void new_file_dir(const char *file, char *dir, size_t len)
{
	const char *slash = strrchr(file, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else
		snprintf(dir, len, "%.*s", slash == file ? 1 : (int)(slash - file), file);
}

/* --file and --device as the run will take them: one line and exit 2 otherwise. Reads
 * the machine only (stat), so --check-options runs it too. */
void sq_target_check(const struct sq_settings *s)
{
	struct stat st;
	char dir[4096];

	if (s->file && s->device)
		ab_usage_error("--file and --device exclude each other");
	if (s->device) {
		if (stat(s->device, &st))
			ab_usage_error("bad value '%s' for --device: %s", s->device, strerror(errno));
		if (!S_ISBLK(st.st_mode))
			ab_usage_error("bad value '%s' for --device: not a block device", s->device);
	} else if (s->file) {
		if (stat(s->file, &st) == 0) {
			if (S_ISBLK(st.st_mode))
				ab_usage_error("bad value '%s' for --file: a block device, use --device", s->file);
			if (!S_ISREG(st.st_mode))
				ab_usage_error("bad value '%s' for --file: not a regular file", s->file);
		} else if (errno != ENOENT) {
			ab_usage_error("bad value '%s' for --file: %s", s->file, strerror(errno));
		} else {
			new_file_dir(s->file, dir, sizeof(dir));
			if (stat(dir, &st))
				ab_usage_error("bad value '%s' for --file: directory %s: %s", s->file, dir,
					       strerror(errno));
			if (!S_ISDIR(st.st_mode))
				ab_usage_error("bad value '%s' for --file: %s is not a directory", s->file, dir);
		}
	}
}

/* Everything that can be decided without changing anything happens here, before
 * the root check; files are created in sq_target_open(). */
void sq_target_find(struct sq_target *t, const struct sq_settings *s)
{
	struct stat st;
	char dir[4096];

	sq_target_check(s);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (s->device) {
		t->name = s->device;
		if (stat(s->device, &st) || !S_ISBLK(st.st_mode))
			ab_usage_error("bad value '%s' for --device: not a block device", s->device);
		resolve(st.st_rdev, s->device, t);
		return;
	}
	if (s->file) {
		t->name = s->file;
		if (stat(s->file, &st) == 0) {
			resolve(st.st_dev, s->file, t);
			return;
		}
		new_file_dir(s->file, dir, sizeof(dir));
		if (stat(dir, &st))
			ab_usage_error("bad value '%s' for --file: directory %s: %s", s->file, dir,
				       strerror(errno));
		resolve(st.st_dev, s->file, t);
		return;
	}
	/* The current directory's filesystem, as the post read from disk, not /tmp (often tmpfs). */
	t->name = "scratch file in the current directory";
	if (stat(".", &st))
		ab_fail("stat .: %s", strerror(errno));
	resolve(st.st_dev, "current directory (use --file or --device)", t);
}

/* Real data, not holes or unwritten extents, which reads never take to the device. */
static void fill(int fd, const char *name, uint64_t size)
{
	static char chunk[1 << 20];

	memset(chunk, 0xa5, sizeof(chunk));
	for (uint64_t off = 0; off < size; off += sizeof(chunk)) {
		ssize_t n = pwrite(fd, chunk, sizeof(chunk), (off_t)off);
		if (n != (ssize_t)sizeof(chunk)) {
			if (n < 0 && (errno == ENOSPC || errno == EDQUOT))
				ab_skip("writing %s: %s (needs %llu MiB)", name, strerror(errno),
					(unsigned long long)(size >> 20));
			ab_fail("writing %s: %s", name, n < 0 ? strerror(errno) : "short write");
		}
	}
	if (fsync(fd))
		ab_fail("fsync %s: %s", name, strerror(errno));
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

static void set_direct(int fd, const char *name)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_DIRECT) < 0)
		ab_skip("%s: cannot enable O_DIRECT: %s (filesystem may not support O_DIRECT)", name,
			strerror(errno));
}

static void open_failed(const char *path, int e, const char *what)
{
	ab_exit(e == EINVAL ? AB_EXIT_SKIP : AB_EXIT_FAIL, "open %s: %s%s%s%s", path, strerror(e),
		e == EINVAL ? " (" : "", e == EINVAL ? what : "",
		e == EINVAL ? " may not support O_DIRECT)" : "");
}

static int open_device(const char *dev, uint64_t *size)
{
	int fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0 && (errno == EACCES || errno == EPERM))
		ab_skip("open %s: %s (reading a disk needs root or group disk; a container or "
			"sandbox may forbid it: use --file instead)", dev, strerror(errno));
	if (fd < 0)
		open_failed(dev, errno, "device");
	if (ioctl(fd, BLKGETSIZE64, size))
		ab_fail("BLKGETSIZE64 %s: %s", dev, strerror(errno));
	return fd;
}

static int open_file(const char *file, uint64_t size, int quiet)
{
	int fd = open(file, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd >= 0 || errno != ENOENT) {
		if (fd < 0)
			open_failed(file, errno, "filesystem");
		return fd;
	}
	fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		ab_fail("create %s: %s", file, strerror(errno));
	if (!quiet)
		ab_msg("creating %s (%llu MiB)", file, (unsigned long long)(size >> 20));
	fill(fd, file, size);
	set_direct(fd, file);
	return fd;
}

static int open_scratch(uint64_t size)
{
	char path[] = "./.affbench-sqrtio.XXXXXX";
	int fd = mkostemp(path, O_CLOEXEC);

	if (fd < 0)
		ab_skip("cannot create a scratch file in the current directory (%s): %s; use --file "
			"PATH on a disk-backed filesystem", path, strerror(errno));
	/* Unlinked at once: the open fd keeps it, and no crash or signal leaves 64 MiB behind. */
	unlink(path);
	fill(fd, "scratch file", size);
	set_direct(fd, "scratch file");
	return fd;
}

/* The span the readers use: --span cut to the target's size, whole blocks. */
static void set_span(struct sq_target *t, const struct sq_settings *s, int quiet)
{
	uint64_t span = s->span / SQ_BLK * SQ_BLK;

	if (span > t->size / SQ_BLK * SQ_BLK) {
		span = t->size / SQ_BLK * SQ_BLK;
		if (!quiet)
			ab_msg("%s holds only %llu bytes: --span reduced to that", t->name,
			       (unsigned long long)span);
	}
	if (span < SQ_BLK)
		ab_usage_error("%s is smaller than one %d-byte block", t->name, SQ_BLK);
	t->nblocks = span / SQ_BLK;
	if (s->file && !quiet) {
		off_t hole = lseek(t->fd, 0, SEEK_HOLE);
		if (hole >= 0 && (uint64_t)hole < span)
			ab_msg("%s has a hole at %lld: reads of holes never reach the device", s->file,
			       (long long)hole);
	}
}

void sq_target_open(struct sq_target *t, const struct sq_settings *s, int quiet)
{
	uint64_t create = s->span > DEFAULT_FILE_SIZE ? (s->span + SQ_BLK - 1) / SQ_BLK * SQ_BLK
						       : DEFAULT_FILE_SIZE;
	struct stat st;

	if (s->device)
		t->fd = open_device(s->device, &t->size);
	else
		t->fd = s->file ? open_file(s->file, create, quiet) : open_scratch(create);
	if (fstat(t->fd, &st))
		ab_fail("fstat %s: %s", t->name, strerror(errno));
	if (!s->device)
		t->size = (uint64_t)st.st_size;
	set_span(t, s, quiet);
}
