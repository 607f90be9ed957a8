// SPDX-License-Identifier: GPL-2.0
/*
 * fsrv's daemon body: open /dev/fuse, mount(2) with fd= (no fusermount, so
 * root only), answer INIT, then hand over to a transport until the
 * filesystem is unmounted. Whatever fails after the mount detaches it
 * before returning, so a failed daemon leaves no mount behind; a stat()
 * already blocked on it is released when the process exits and the kernel
 * aborts the connection.
 */
#include "fuse/fsrv_i.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "sys/common.h"

/* mount(2) the FUSE filesystem of fd at mnt. An AB_EXIT_* code. */
static int fsrv_mount(const char *mnt, const struct ab_fsrv_cfg *cfg, int fd)
{
	char opts[128], type[128];
	const char *src = cfg->fsname ? cfg->fsname : "affbench-fsrv";

	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%u,group_id=%u", fd,
		 (unsigned)getuid(), (unsigned)getgid());
	if (snprintf(type, sizeof(type), "fuse%s%s", cfg->subtype ? "." : "",
		     cfg->subtype ? cfg->subtype : "") >= (int)sizeof(type)) {
		ab_msg("fsrv: subtype '%s' is too long", cfg->subtype);
		return AB_EXIT_FAIL;
	}
	if (mount(src, mnt, type, MS_NOSUID | MS_NODEV, opts) < 0) {
		int e = errno;
		ab_msg("fsrv: mount %s on %s (type %s, %s): %s%s", src, mnt, type, opts, strerror(e),
		       e == EPERM ? " (mounting without fusermount needs root)" : "");
		return e == EPERM ? AB_EXIT_SKIP : AB_EXIT_FAIL;
	}
	return AB_EXIT_OK;
}

/* Read INIT, negotiate, reply. An AB_EXIT_* code. */
static int fsrv_handshake(struct fsrv *s)
{
	size_t len = s->bufsize + s->page_size;	/* what the kernel wants a read() to offer */
	char *in = malloc(len), out[256];
	ssize_t n;
	int rc = AB_EXIT_FAIL;

	if (!in) {
		ab_msg("fsrv: no memory for a %zu-byte request buffer", len);
		return AB_EXIT_FAIL;
	}
	while ((n = read(s->devfd, in, len)) < 0 && errno == EINTR)
		;
	const struct fuse_in_header *ih = (const void *)in;
	if (n < 0) {
		ab_msg("fsrv: read INIT from /dev/fuse: %s", strerror(errno));
	} else if ((size_t)n < sizeof(*ih) || ih->opcode != FUSE_INIT) {
		ab_msg("fsrv: the first FUSE request is %s (%zd bytes), not INIT",
		       (size_t)n < sizeof(*ih) ? "short" : fsrv_opname(ih->opcode), n);
	} else {
		ssize_t r = fsrv_dev_handle(s, in, (size_t)n, out, sizeof(out));
		if (r > 0 && write(s->devfd, out, (size_t)r) < 0)
			ab_msg("fsrv: write the INIT reply: %s", strerror(errno));
		else if (s->inited)
			rc = AB_EXIT_OK;
		/* else do_init said why */
	}
	free(in);
	return rc;
}

static int fsrv_run(struct fsrv *s)
{
	int rc = fsrv_handshake(s);

	if (rc)
		return rc;
	if (s->cfg->passthrough && !s->passthrough) {
		ab_msg("fsrv: the kernel did not offer FUSE passthrough (protocol 7.%u; needs 7.40 "
		       "and CONFIG_FUSE_PASSTHROUGH)", s->minor);
		return AB_EXIT_SKIP;
	}
	if (s->cfg->transport == AB_FSRV_URING)
		rc = fsrv_uring_run(s);
	else
		rc = fsrv_dev_run(s);
	if (rc && atomic_load(&s->fatal))
		ab_msg("fsrv: %s", s->fatal_msg);
	return rc;
}

int ab_fsrv_serve(const char *mnt, const struct ab_fsrv_ops *ops, void *fs,
		  const struct ab_fsrv_cfg *cfg)
{
	struct fsrv s;
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;
		ab_msg("fsrv: open /dev/fuse: %s", strerror(e));
		return e == ENOENT || e == ENXIO || e == EACCES || e == EPERM ? AB_EXIT_SKIP
									    : AB_EXIT_FAIL;
	}
	if (fsrv_init(&s, ops, fs, cfg, fd) < 0) {
		close(fd);
		return AB_EXIT_FAIL;
	}
	int rc = fsrv_mount(mnt, cfg, fd);
	if (rc) {
		close(fd);
		fsrv_fini(&s);
		return rc;
	}
	fsrv_cpu_serving(&s);
	rc = fsrv_run(&s);
	if (rc) {
		/* Threads may still use s and fd: both stay until the process exits. */
		if (umount2(mnt, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
			ab_msg("fsrv: unmount %s after the failure: %s", mnt, strerror(errno));
		return rc;
	}
	close(fd);
	fsrv_fini(&s);
	return AB_EXIT_OK;
}
