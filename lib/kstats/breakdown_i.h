/* SPDX-License-Identifier: GPL-2.0 */
/* The breakdown's BPF half, driven by kstats.c alongside its own probes (built with BPF only). */
#ifndef AB_BREAKDOWN_I_H
#define AB_BREAKDOWN_I_H

#include <stddef.h>
#include <sys/types.h>

#include "kstats/breakdown.h"

struct ab_breakdown;
/* Load (not attach); -1 with the reason in why. */
int ab_breakdown_open(struct ab_breakdown **b, char *why, size_t len);
int ab_breakdown_attach(struct ab_breakdown *b);
void ab_breakdown_detach(struct ab_breakdown *b);
void ab_breakdown_set_conn(struct ab_breakdown *b, int conn);
/* on: follow pipe round trips instead of FUSE calls (breakdown.bpf.c's pipe_mode). */
void ab_breakdown_set_pipe(struct ab_breakdown *b, int on);
/* role: 1 server, 2 caller (breakdown_bpf_i.h); a caller stays one. */
int ab_breakdown_add(struct ab_breakdown *b, pid_t tgid, int role);
int ab_breakdown_clear(struct ab_breakdown *b);
int ab_breakdown_reset(struct ab_breakdown *b);
/* on: zero, then count the calls that enter from now; off: no call entering from now. */
int ab_breakdown_window(struct ab_breakdown *b, int on);
int ab_breakdown_read(struct ab_breakdown *b, struct ab_breakdown_result *r);
void ab_breakdown_close(struct ab_breakdown *b);

/* For kstats.c's maps too: delete every key of m; zero keys 0..nkeys-1 of a per-CPU map
 * whose values are vsize bytes. 0, or -1 when a key failed. */
struct bpf_map;
int ab_bpf_map_clear(struct bpf_map *m);
int ab_bpf_map_zero(struct bpf_map *m, unsigned nkeys, size_t vsize, int ncpus);

#endif
