// SPDX-License-Identifier: GPL-2.0
/*
 * The cputestfs filesystem served by lib/fuse/fsrv, affbench's own kernel-protocol
 * server, for the transports libfuse 3.14 lacks (--transport dev|uring): the
 * same root directory and one file as fs.c, entries cached for good and
 * attributes never (one GETATTR per stat()), the serving CPU in st_blocks,
 * every request counted in shared memory.
 *
 * dev: read/write on /dev/fuse; --daemon single is one thread, multi one
 * thread per daemon CPU, clone_fd the same with a cloned fd each. uring: one
 * ring thread per daemon CPU (every allowed CPU when unpinned), each kernel
 * queue served by the thread of its CPU when there is one. Either waits for
 * requests as --daemon-wait says, and its threads add their CPU time to
 * sh->srv_cpu (server_cpu_us_per_req).
 * Limits: no READDIR (ls on the mount gets ENOSYS); the CPU is read before the
 * reply is written, like fs.c.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "cputestfs.h"
#include "fuse/fsrv.h"

enum { RAW_INO_ROOT = FUSE_ROOT_ID, RAW_INO_FILE = 2 };
#define RAW_ENTRY_VALID_S 1000000	/* entries stay valid: no LOOKUP per stat() */

struct rawfs {
	struct ctf_shared *sh;
	uint32_t uid, gid;
};

static int raw_attr(const struct rawfs *fs, uint64_t ino, struct fuse_attr *a)
{
	a->ino = ino;
	a->uid = fs->uid;
	a->gid = fs->gid;
	if (ino == RAW_INO_ROOT) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else if (ino == RAW_INO_FILE) {
		a->mode = S_IFREG | 0444;
		a->nlink = 1;
	} else {
		return -ENOENT;
	}
	a->blocks = (uint64_t)ctf_encode_cpu(sched_getcpu());
	return 0;
}

static int raw_lookup(void *fsp, uint64_t parent, const char *name, struct fuse_entry_out *out)
{
	struct rawfs *fs = fsp;

	atomic_fetch_add_explicit(&fs->sh->requests.v, 1, memory_order_relaxed);
	if (parent != RAW_INO_ROOT || strcmp(name, CTF_FILE_NAME))
		return -ENOENT;
	out->nodeid = RAW_INO_FILE;
	out->entry_valid = RAW_ENTRY_VALID_S;	/* attr_valid 0: attributes expire at once */
	return raw_attr(fs, RAW_INO_FILE, &out->attr);
}

static int raw_getattr(void *fsp, uint64_t nodeid, struct fuse_attr_out *out)
{
	struct rawfs *fs = fsp;

	atomic_fetch_add_explicit(&fs->sh->requests.v, 1, memory_order_relaxed);
	return raw_attr(fs, nodeid, &out->attr);
}

static const struct ab_fsrv_ops raw_ops = {
	.lookup = raw_lookup,
	.getattr = raw_getattr,
};

int ctf_raw_run(void *arg, const char *mnt)
{
	const struct ctf_raw_args *a = arg;
	struct rawfs fs = { .sh = a->sh, .uid = (uint32_t)getuid(), .gid = (uint32_t)getgid() };
	struct ab_fsrv_cfg cfg = {
		.transport = a->transport == CTF_TR_URING ? AB_FSRV_URING : AB_FSRV_DEV,
		.fsname = "affbench-cputestfs",
		.subtype = "cputestfs",
		.threads = a->threads,
		.clone_fd = a->clone_fd,
		.pin = a->pin,
		.uring_cpu = a->uring_cpu,
		.cpus = a->cpus,
		.wait = a->wait,
		.cpu = a->sh->srv_cpu,
		.ncpu = CTF_CPU_SLOTS,
	};

	if (ab_daemon_prepare(NULL) < 0)
		return AB_EXIT_CHILD_SETUP;
	return ab_fsrv_serve(mnt, &raw_ops, &fs, &cfg);
}
