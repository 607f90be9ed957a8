/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The posts that pulled cputestfs's levers by hand (lib/render/published.tsv),
 * each printed beside the row we measure: the server spinning before it sleeps
 * (schubert2022) beside --daemon-wait, and waking the caller on the CPU that
 * ended its request (schubert2025) beside the uring transport's reading.
 */
#ifndef CPUTESTFS_DESC_PUB_H
#define CPUTESTFS_DESC_PUB_H

#include "render/render.h"

/* The post's server, libfuse with one thread, at each placement: ab_r_find's want. */
extern const char *const ctf_w_none[], *const ctf_w_same[], *const ctf_w_other[];
/* report.md's first table: the 2012 post's stat/s and same-CPU shares beside ours. */
void ctf_beside(struct ab_render *r);
/* One "- published" line under the wait table: 2022's creates/s without and with the spin. */
void ctf_pub_spin(struct ab_render *r);
/* A paragraph after the uring reading: 2025's same-CPU wake on io_uring and on /dev/fuse. */
void ctf_pub_samecpu(struct ab_render *r);

#endif
