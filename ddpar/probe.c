// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel statistics' window of an instrumented repetition (see ddpar.h's
 * struct ddp_probe): the processes it follows and the window's edges, which
 * each client (loop.c, dd.c) marks around its timed stretch. measure.c sets the
 * probe up and writes what it read; apart from it, so that the clients, which
 * measure.c runs, call down to it rather than back into measure.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "ddpar.h"
#include "kstats/kstats.h"

void ddp_probe_add(struct ddp_probe *p, pid_t pid)
{
	if (!p->pid_err && ab_kstats_add_pid(p->ks, pid) < 0)
		p->pid_err = errno ? errno : E2BIG;	/* E2BIG: the map is full */
}

/* Clients are the callers whose requests the breakdown follows. */
void ddp_probe_pids(struct ddp_probe *p, const struct ab_workers *w)
{
	for (int i = 0; p && i < w->started; i++) {
		ddp_probe_add(p, w->pid[i]);
		if (p->brk && ab_kstats_add_caller(p->ks, w->pid[i]) < 0) {
			ab_msg("cannot name client %d to the request breakdown: brk_* metrics not written", i);
			free(p->brk);
			p->brk = NULL;
		}
	}
}

void ddp_probe_window_begin(struct ddp_probe *p)
{
	if (p)
		p->have = ab_kstats_reset(p->ks) == 0;
	if (p && p->brk)
		p->brk_on = ab_kstats_brk_window(p->ks, 1) == 0;
}

void ddp_probe_window_end(struct ddp_probe *p)
{
	if (p && p->have)
		p->have = ab_kstats_read(p->ks, &p->res) == 0;
	if (p && p->brk_on)
		ab_kstats_brk_window(p->ks, 0);
	if (p && p->have && p->brk_on)
		p->have_brk = ab_kstats_read_brk(p->ks, p->brk) == 0;
}
