// SPDX-License-Identifier: GPL-2.0
/*
 * fsrv's two framings around one dispatcher (fsrv_proto.c): a /dev/fuse
 * message (header, the opcode's argument and its data in one buffer; the
 * reply written back the same way, or as two iovecs for read_ref data), and
 * an io_uring entry (the header buffer carries the in/out header and the
 * first argument, the payload the rest and the reply's arguments).
 */
#include "fuse/fsrv_i.h"

#include <errno.h>
#include <string.h>

#include "sys/common.h"

ssize_t fsrv_dev_handle(struct fsrv *s, const void *in, size_t n, void *out, size_t cap)
{
	struct iovec iov[2];
	int k = fsrv_dev_handle_iov(s, in, n, out, cap, iov);

	if (k <= 0)
		return k;
	if (k == 2) {
		/* a read_ref reply: its data goes after the header, as write() wants it */
		if (iov[0].iov_len + iov[1].iov_len > cap)
			return -1;
		memmove((char *)out + iov[0].iov_len, iov[1].iov_base, iov[1].iov_len);
	}
	return (ssize_t)(iov[0].iov_len + (k == 2 ? iov[1].iov_len : 0));
}

int fsrv_dev_handle_iov(struct fsrv *s, const void *in, size_t n, void *out, size_t cap,
			struct iovec iov[2])
{
	const struct fuse_in_header *ih = in;
	struct fuse_out_header oh;
	const void *ref = NULL;
	int rc;

	if (n < sizeof(*ih) || cap < sizeof(oh)) {
		ab_msg("fsrv: %s of %zu bytes is shorter than its header",
		       n < sizeof(*ih) ? "a FUSE request" : "a reply buffer", n < sizeof(*ih) ? n : cap);
		return -1;
	}
	if (ih->len != n) {
		rc = -EINVAL;
	} else {
		uint32_t arg_len = (uint32_t)(n - sizeof(*ih)), in_size = fsrv_in_size(ih->opcode);
		uint32_t split = in_size < arg_len ? in_size : arg_len;
		struct fsrv_req r = {
			.in = ih, .arg = ih + 1, .arg_len = arg_len,
			.data = (const char *)(ih + 1) + split, .data_len = arg_len - split,
			.out = (char *)out + sizeof(oh), .out_cap = (uint32_t)(cap - sizeof(oh)),
			.ref = &ref,
		};
		rc = fsrv_dispatch(s, &r);
	}
	if (rc == FSRV_NO_REPLY)
		return 0;
	oh.len = (uint32_t)sizeof(oh) + (rc > 0 ? (uint32_t)rc : 0);
	oh.error = rc < 0 ? rc : 0;
	oh.unique = ih->unique;
	memcpy(out, &oh, sizeof(oh));
	iov[0] = (struct iovec){ out, ref ? sizeof(oh) : oh.len };
	if (!ref)
		return 1;
	iov[1] = (struct iovec){ (void *)ref, oh.len - sizeof(oh) };
	return 2;
}

uint64_t fsrv_uring_handle(struct fsrv *s, struct fuse_uring_req_header *h, void *payload,
			   uint32_t cap, struct fsrv_held *held)
{
	struct fuse_in_header ih;
	struct fuse_out_header oh;
	uint32_t psz = h->ring_ent_in_out.payload_sz;
	int rc;

	/* in_out is overwritten by the reply's header: keep the request's */
	memcpy(&ih, h->in_out, sizeof(ih));
	/* the kernel wrote the request's data (a name, write data) over the payload */
	if (psz > 0 && held)
		held->p = NULL;
	if (psz > cap) {
		rc = -EINVAL;
	} else {
		struct fsrv_req r = {
			.in = &ih, .arg = h->op_in, .arg_len = sizeof(h->op_in),
			.data = payload, .data_len = psz, .out = payload, .out_cap = cap, .held = held,
		};
		rc = fsrv_dispatch(s, &r);
	}
	/* any other reply's arguments went into the payload too */
	if (held && rc > 0 && !(ih.opcode == FUSE_READ && s->ops->read_ref))
		held->p = NULL;
	/* Every ring entry must be committed to come back: a request the kernel
	 * should never have put there still gets an answer. */
	if (rc == FSRV_NO_REPLY)
		rc = -EPROTO;
	oh.len = (uint32_t)sizeof(oh) + (rc > 0 ? (uint32_t)rc : 0);
	oh.error = rc < 0 ? rc : 0;
	oh.unique = ih.unique;
	memcpy(h->in_out, &oh, sizeof(oh));
	h->ring_ent_in_out.payload_sz = rc > 0 ? (uint32_t)rc : 0;
	return h->ring_ent_in_out.commit_id;
}
