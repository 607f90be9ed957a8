/* The breakdown's BPF half, driven by kstats.c alongside its own probes. */
#ifndef AB_BRK_I_H
#define AB_BRK_I_H

#include <stddef.h>
#include <sys/types.h>

#include "kstats/breakdown.h"

struct ab_brk;
/* Load (not attach); -1 with the reason in why. */
int ab_brk_open(struct ab_brk **b, char *why, size_t len);
int ab_brk_attach(struct ab_brk *b);
void ab_brk_detach(struct ab_brk *b);
void ab_brk_set_conn(struct ab_brk *b, int conn);
/* on: follow pipe round trips instead of FUSE calls (brk.bpf.c's pipe_mode). */
void ab_brk_set_pipe(struct ab_brk *b, int on);
/* role: 1 server, 2 caller (brk_bpf_i.h); a caller stays one. */
int ab_brk_add(struct ab_brk *b, pid_t tgid, int role);
int ab_brk_clear(struct ab_brk *b);
int ab_brk_reset(struct ab_brk *b);
/* on: zero, then count the calls that enter from now; off: no call entering from now. */
int ab_brk_window(struct ab_brk *b, int on);
int ab_brk_read(struct ab_brk *b, struct ab_brk_result *r);
void ab_brk_close(struct ab_brk *b);

#endif
