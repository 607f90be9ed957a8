/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsrv internals shared by its files and its unit tests: what Debian 12's
 * <linux/fuse.h> (protocol 7.38) lacks, the server state, one request as
 * either transport lays it out, and the dispatcher. Not a public API.
 */
#ifndef AB_FSRV_I_H
#define AB_FSRV_I_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/types.h>

#include "fuse/fsrv.h"

/* ---- protocol 7.40 .. 7.42, guarded for newer system headers ---- */

#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH (1ULL << 37)
#endif
#ifndef FUSE_OVER_IO_URING
#define FUSE_OVER_IO_URING (1ULL << 41)
#endif
#ifndef FOPEN_PASSTHROUGH
#define FOPEN_PASSTHROUGH (1 << 7)
#endif
#ifndef FUSE_DEV_IOC_BACKING_OPEN
struct fuse_backing_map {
	int32_t fd;
	uint32_t flags;
	uint64_t padding;
};
#define FUSE_DEV_IOC_BACKING_OPEN _IOW(FUSE_DEV_IOC_MAGIC, 1, struct fuse_backing_map)
#define FUSE_DEV_IOC_BACKING_CLOSE _IOW(FUSE_DEV_IOC_MAGIC, 2, uint32_t)
#endif
#ifndef FUSE_URING_IN_OUT_HEADER_SZ
#define FUSE_URING_IN_OUT_HEADER_SZ 128
#define FUSE_URING_OP_IN_OUT_SZ 128
struct fuse_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;	/* the request's unique: give it back to commit */
	uint32_t payload_sz;	/* bytes used in the payload buffer, both ways */
	uint32_t padding;
	uint64_t reserved;
};
struct fuse_uring_req_header {
	char in_out[FUSE_URING_IN_OUT_HEADER_SZ];	/* fuse_in_header / fuse_out_header */
	char op_in[FUSE_URING_OP_IN_OUT_SZ];		/* the opcode's first argument */
	struct fuse_uring_ent_in_out ring_ent_in_out;
};
enum fuse_uring_cmd {
	FUSE_IO_URING_CMD_INVALID = 0,
	FUSE_IO_URING_CMD_REGISTER = 1,
	FUSE_IO_URING_CMD_COMMIT_AND_FETCH = 2,
};
struct fuse_uring_cmd_req {	/* in the SQE's command area */
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
};
#endif

/* Same layout as the system structs; named fields the 7.38 header calls padding/unused. */
struct fsrv_init_out {
	uint32_t major, minor, max_readahead, flags;
	uint16_t max_background, congestion_threshold;
	uint32_t max_write, time_gran;
	uint16_t max_pages, map_alignment;
	uint32_t flags2;
	uint32_t max_stack_depth;	/* 7.40 */
	uint32_t unused[6];
};
struct fsrv_open_out {
	uint64_t fh;
	uint32_t open_flags;
	int32_t backing_id;		/* 7.40 */
};
_Static_assert(sizeof(struct fsrv_init_out) == sizeof(struct fuse_init_out), "init_out");
_Static_assert(sizeof(struct fsrv_open_out) == sizeof(struct fuse_open_out), "open_out");
_Static_assert(sizeof(struct fuse_uring_req_header) == 288, "uring header");
_Static_assert(sizeof(struct fuse_uring_cmd_req) == 24, "uring command");

/* The protocol this server speaks: io_uring arrived in 7.42. */
#define FSRV_MINOR 42
/* Oldest kernel protocol we accept: 64-byte fuse_init_out, current struct sizes. */
#define FSRV_MIN_MINOR 23
/* The kernel's FUSE_MAX_MAX_PAGES: replies asking for more are clamped anyway. */
#define FSRV_MAX_PAGES 256
#define FSRV_DEFAULT_MAX_WRITE (128u * 1024)
#define FSRV_DEFAULT_DEPTH 4

/* ---- server state ---- */

struct fsrv_pt;			/* passthrough opens, fsrv_proto.c */

struct fsrv {
	const struct ab_fsrv_ops *ops;
	void *fs;
	const struct ab_fsrv_cfg *cfg;
	int devfd;		/* the mount's /dev/fuse fd; ioctls go here */
	uint32_t page_size;
	/* Negotiated by INIT (fsrv_dispatch), read-only afterwards. */
	int inited;
	uint32_t minor;		/* the kernel's protocol minor */
	uint64_t offered;	/* the kernel's flags | flags2 << 32 */
	uint32_t max_write, max_pages;
	uint32_t bufsize;	/* payload bytes a request or reply may need */
	int uring;		/* FUSE_OVER_IO_URING accepted */
	int passthrough;	/* FUSE_PASSTHROUGH accepted */
	atomic_int destroyed;
	/* First fatal error of a serving thread: message and exit code. */
	atomic_int fatal;
	char fatal_msg[512];
	pthread_mutex_t lock;	/* fatal_msg and the passthrough table */
	struct fsrv_pt *pt;
	size_t pt_cap;
};

/* Set up s for cfg (defaults applied to a copy the caller keeps). 0 or -1 (message). */
int fsrv_init(struct fsrv *s, const struct ab_fsrv_ops *ops, void *fs,
	      const struct ab_fsrv_cfg *cfg, int devfd);
void fsrv_fini(struct fsrv *s);
/* Record the first fatal error (exit code and one line); later ones are dropped. */
void fsrv_set_fatal(struct fsrv *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- one request ---- */

/* What an io_uring entry's payload holds from read_ref replies: len bytes of p. */
struct fsrv_held {
	const void *p;
	uint32_t len;
};

struct fsrv_req {
	const struct fuse_in_header *in;
	const void *arg;	/* the opcode's fixed argument (fuse_read_in ...) */
	uint32_t arg_len;	/* bytes available at arg */
	const void *data;	/* what follows it: a name, write data, a forget list */
	uint32_t data_len;
	void *out;		/* the reply's arguments go here ... */
	uint32_t out_cap;	/* ... up to this many bytes */
	const void **ref;	/* dev: a read_ref reply's data is left here, not copied to out */
	struct fsrv_held *held;	/* uring: what out holds already (read_ref replies) */
};

/* fsrv_dispatch's answer when the opcode takes no reply (FORGET, INTERRUPT). */
#define FSRV_NO_REPLY (-0x10000)

/*
 * Handle one request: the reply's argument bytes written at r->out (>= 0),
 * -errno for an error reply, or FSRV_NO_REPLY. Never fails otherwise.
 */
int fsrv_dispatch(struct fsrv *s, const struct fsrv_req *r);
/* Kernel name of an opcode ("GETATTR"), "?" when unknown. */
const char *fsrv_opname(uint32_t opcode);
/* Bytes of the opcode's fixed argument (what precedes a name or write data); 0 when unknown. */
uint32_t fsrv_in_size(uint32_t opcode);

/*
 * /dev/fuse framing: one request as read() gave it (n bytes at in) -> the
 * whole reply to write() into out (cap bytes, >= 16 + bufsize): its length,
 * 0 for none, or -1 for a request too short to answer (message printed).
 */
ssize_t fsrv_dev_handle(struct fsrv *s, const void *in, size_t n, void *out, size_t cap);
/* The same as iovecs: iov[0] the header and arguments in out, iov[1] read_ref
 * data where it lies. Returns how many iovecs (0: no reply) or -1. */
int fsrv_dev_handle_iov(struct fsrv *s, const void *in, size_t n, void *out, size_t cap,
			struct iovec iov[2]);
/*
 * io_uring framing: the request in an entry's header and payload buffers ->
 * the reply written back into them (out header, payload, payload_sz).
 * Returns the reply's unique (the commit id).
 */
uint64_t fsrv_uring_handle(struct fsrv *s, struct fuse_uring_req_header *h, void *payload,
			   uint32_t cap, struct fsrv_held *held);

/* ---- the serving threads' CPU time (fsrv_wait.c) ---- */
/* In the serving process, before its threads start: name it in cfg.cpu, so that the
 * caller can read its CPU clock at a window's edges (ab_fsrv_cpu_sum). */
void fsrv_cpu_serving(const struct fsrv *s);

/* ---- transports: serve until unmounted; an AB_EXIT_* code ---- */
int fsrv_dev_run(struct fsrv *s);
int fsrv_uring_run(struct fsrv *s);

#endif
