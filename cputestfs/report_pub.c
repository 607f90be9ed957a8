// SPDX-License-Identifier: GPL-2.0
/* The posts beside cputestfs's levers (see report_pub.h). Numbers come from
 * published.tsv only; the text says how far they compare with ours. */
#include <stdio.h>

#include "cputestfs.h"
#include "report_pub.h"
#include "render/render.h"
#include "render/desc.h"
#include "render/beside.h"

#define WESTERFELD "westerfeld2012"
#define SPIN "schubert2022"
#define SAMECPU "schubert2025"

/* The post's server: libfuse (also records from before --transport existed), one thread. */
const char *const ctf_w_none[] = { "placement=none", "daemon=single", "baseline=fuse",
				   "transport=libfuse|", NULL };
const char *const ctf_w_same[] = { "placement=same", "daemon=single", "baseline=fuse",
				   "transport=libfuse|", NULL };
const char *const ctf_w_other[] = { "placement=other", "daemon=single", "baseline=fuse",
				    "transport=libfuse|", NULL };

/* One row of the 2012 table: the post's two machines, then this run. */
static void beside_row(struct ab_render *r, const char *label, const char *key,
		       const struct ab_group *ours)
{
	char k[64];

	ab_r_beside_row(r, label);
	for (int i = 0; i < 2; i++) {
		snprintf(k, sizeof(k), "%s.%s", i ? "athlon" : "phenom", key);
		ab_r_cell_pub(r, WESTERFELD, k);
	}
	ab_r_cell_median(r, ours);
	ab_r_beside_row_end(r);
}

void ctf_beside(struct ab_render *r)
{
	const char *const cols[] = { ab_pub_text(WESTERFELD, "machine.phenom"),
				     ab_pub_text(WESTERFELD, "machine.athlon"), "this run", NULL };
	const struct ab_group *none = ab_r_find(r, CTF_M_STAT, ctf_w_none);
	const struct ab_group *same = ab_r_find(r, CTF_M_STAT, ctf_w_same);

	if (!none && !same)
		return;
	ab_r_beside_head(r, "libfuse, one daemon thread", cols);
	beside_row(r, "stat() calls/s without cpu affinity", "without.stat_per_s", none);
	beside_row(r, "stat() calls/s with cpu affinity (same CPU)", "with.stat_per_s", same);
	ab_r_beside_row(r, "with / without");
	for (int i = 0; i < 2; i++)
		ab_r_cell_pub_ratio(r, WESTERFELD, i ? "athlon.with.stat_per_s" : "phenom.with.stat_per_s",
				    i ? "athlon.without.stat_per_s" : "phenom.without.stat_per_s");
	ab_r_cell_ratio(r, same, none, 0);
	ab_r_beside_row_end(r);
	ab_r_beside_row(r, "stat() calls/s pinned to two other CPUs");
	ab_r_cell_not_in_post(r);
	ab_r_cell_not_in_post(r);
	ab_r_cell_median(r, ab_r_find(r, CTF_M_STAT, ctf_w_other));
	ab_r_beside_row_end(r);
	beside_row(r, "% served on the caller's CPU, without", "without.same_cpu_pct",
		   ab_r_find(r, CTF_M_SAME, ctf_w_none));
	beside_row(r, "% served on the caller's CPU, with", "with.same_cpu_pct",
		   ab_r_find(r, CTF_M_SAME, ctf_w_same));
	ab_r_beside_note(r, WESTERFELD);
}

void ctf_pub_spin(struct ab_render *r)
{
	double a = ab_pub(SPIN, "seqcreate.without_per_s");
	double b = ab_pub(SPIN, "seqcreate.with_per_s");
	char x[32];

	/* his spin is in the kernel's read of /dev/fuse, ours in the server's
	 * non-blocking reads: the same wake-up goes, on another machine and load */
	fprintf(r->out, "- published (%s): %.0f -> %.0f file creates/s (%s) on his machine, "
			"to set beside dev's spin:US / block ratio above (stat/s here, creates/s "
			"there; his spin is in the kernel's read, ours in the server's "
			"non-blocking reads). %s.\n\n",
		ab_pub_text(SPIN, "source"), a, b, ab_r_x(x, sizeof(x), b / a),
		ab_pub_text(SPIN, "machine"));
}

void ctf_pub_samecpu(struct ab_render *r)
{
	fprintf(r->out, "Published (%s): waking the caller on the CPU that ended its request "
			"took io_uring from %.0f to %.0f MiB/s and /dev/fuse from %.0f to %.0f MiB/s, "
			"no gain without io_uring (fio 4 KiB random reads, 1 job; whether this kernel "
			"wakes that way: docs/kernels.md).\n\n",
		ab_pub_text(SAMECPU, "source"), ab_pub(SAMECPU, "randread4k.uring_MiB_per_s"),
		ab_pub(SAMECPU, "randread4k.uring_samecpu_MiB_per_s"),
		ab_pub(SAMECPU, "randread4k.dev_MiB_per_s"),
		ab_pub(SAMECPU, "randread4k.dev_samecpu_MiB_per_s"));
}
