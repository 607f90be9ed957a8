// SPDX-License-Identifier: GPL-2.0
/*
 * From a file's st_dev to the disk whose request queue (and rq_affinity)
 * serves its IO, through sysfs: /sys/dev/block/MAJ:MIN is a link into the
 * device tree; a partition sits inside its disk's directory; stacked devices
 * (device-mapper, md) list what they sit on in slaves/.
 * Known limits: a device stacked on several (md RAID, LVM over two disks) and
 * a loop device are refused, not measured: no single queue and IRQ serve them.
 */
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/sysfs.h"
#include "sqrtio.h"

/* The filesystem type mounted from dev ("tmpfs", "overlay"), from /proc/self/mountinfo. */
static void sq_fstype(dev_t dev, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *l = NULL;
	size_t cap = 0;
	char want[32];

	snprintf(buf, len, "unknown filesystem");
	if (!f)
		return;
	snprintf(want, sizeof(want), "%u:%u", major(dev), minor(dev));
	while (getline(&l, &cap, f) >= 0) {
		char id[32], *sep;

		/* "36 35 98:0 /root /mnt rw,noatime master:1 - ext3 /dev/root rw" */
		if (sscanf(l, "%*s %*s %31s", id) != 1 || strcmp(id, want))
			continue;
		sep = strstr(l, " - ");
		if (sep) {
			char type[64];
			if (sscanf(sep + 3, "%63s", type) == 1)
				snprintf(buf, len, "%s", type);
		}
		break;
	}
	free(l);
	fclose(f);
}

static int exists(const char *dir, const char *name)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return 0;
	return access(p, F_OK) == 0;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The entries of dir/slaves: count, and the first one's name. */
static int slaves(const char *dir, char *first, size_t len)
{
	char p[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int n = 0;

	if (snprintf(p, sizeof(p), "%s/slaves", dir) >= (int)sizeof(p))
		return 0;
	d = opendir(p);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (!n++)
			snprintf(first, len, "%s", e->d_name);
	}
	closedir(d);
	return n;
}

/* dst = src, cut at the buffer's end (names in sysfs are short; paths may not be) */
static void copy(char *dst, size_t len, const char *src)
{
	size_t l = strnlen(src, len - 1);

	memcpy(dst, src, l);
	dst[l] = 0;
}

/* how += " -> name (why)", cut at the buffer's end */
static void append(char *how, size_t len, const char *name, const char *why)
{
	const char *parts[] = { " -> ", name, " (", why, ")" };
	size_t l = strlen(how);

	for (size_t i = 0; i < AB_ARRAY_SIZE(parts); i++)
		for (const char *c = parts[i]; *c && l + 1 < len; c++)
			how[l++] = *c;
	how[l] = 0;
}

int sq_blkdev_resolve(const char *sysroot, dev_t dev, struct sq_blkdev *b, char *why, size_t whylen)
{
	char link[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX];

	memset(b, 0, sizeof(*b));
	if (!sysroot)
		sysroot = "";
	snprintf(link, sizeof(link), "%s/sys/dev/block/%u:%u", sysroot, major(dev), minor(dev));
	if (!realpath(link, dir)) {
		char type[64];

		sq_fstype(dev, type, sizeof(type));
		return ab_err(why, whylen, "it is on %s (device %u:%u), which is not backed by a block "
			      "device; use --file on a disk-backed filesystem or --device",
			      type, major(dev), minor(dev));
	}
	copy(b->how, sizeof(b->how), base(dir));

	/* A few steps at most: partition -> disk, dm -> its one slave -> disk. */
	for (int step = 0; step < 8; step++) {
		char name[NAME_MAX + 1], slave[NAME_MAX + 1];
		int ns;

		copy(name, sizeof(name), base(dir));
		if (exists(dir, "partition")) {
			char *slash = strrchr(dir, '/');
			*slash = 0;
			append(b->how, sizeof(b->how), base(dir), "partition");
			continue;
		}
		if (exists(dir, "loop/backing_file")) {
			char bf[PATH_MAX] = "?";

			if (snprintf(tmp, sizeof(tmp), "%s/loop/backing_file", dir) < (int)sizeof(tmp) &&
			    (ab_sysfs_read(tmp, bf, sizeof(bf)) < 0 || !bf[0]))
				snprintf(bf, sizeof(bf), "?");
			return ab_err(why, whylen, "%s is a loop device backed by %s: its IO completes in a "
				      "kernel worker, not a device interrupt; use a file on the filesystem "
				      "that holds %s", name, bf, bf);
		}
		ns = slaves(dir, slave, sizeof(slave));
		if (ns > 1)
			return ab_err(why, whylen, "%s is stacked on %d devices, so no single queue or IRQ "
				      "serves it; use --device with one of them (see %s/slaves)",
				      name, ns, dir);
		if (ns == 1) {
			if (snprintf(tmp, sizeof(tmp), "%s/slaves/%s", dir, slave) >= (int)sizeof(tmp) ||
			    !realpath(tmp, dir))
				return ab_err(why, whylen, "%s: %s", tmp, strerror(errno));
			append(b->how, sizeof(b->how), base(dir), "stacked on it");
			continue;
		}
		if (!exists(dir, "queue/rq_affinity"))
			return ab_err(why, whylen, "%s has no queue/rq_affinity in sysfs (%s)", name, dir);
		if (strlen(name) >= sizeof(b->disk))
			return ab_err(why, whylen, "device name '%s' too long", name);
		snprintf(b->disk, sizeof(b->disk), "%s", name);
		snprintf(b->rq_path, sizeof(b->rq_path), "/sys/block/%s/queue/rq_affinity", name);
		return 0;
	}
	return ab_err(why, whylen, "%s: too many stacked devices under %s", b->how, link);
}
