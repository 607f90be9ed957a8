/* The posts beside cputestfs's levers (see desc_pub.h). Numbers come from
 * published.tsv only; the text says how far they compare with ours. And the
 * history of its records: keys added after runs were recorded. */
#include <stdio.h>

#include "desc_pub.h"

#define SPIN "schubert2022"
#define SAMECPU "schubert2025"

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

/* uring_cpu came with --uring-cpu: io_uring runs recorded before it ran as queue does. */
const struct ab_key_default cputestfs_key_defaults[] = {
	{ "uring_cpu", "queue", "transport=uring", "2026-12-01, --uring-cpu" },
	{ NULL, NULL, NULL, NULL },
};
