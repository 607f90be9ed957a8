/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A hash index over entries the caller keeps in its own array: entry i is
 * found from its key's hash, so a reader that groups rows by a key (hist.csv's
 * histograms, results.json's points, machine.txt's knobs) does one lookup per
 * row, not a scan of every group so far, whatever order the rows come in.
 *
 * The index holds hashes and entry numbers only; equal hashes are told apart
 * by the caller, who compares the keys:
 *
 *	uint64_t h = ab_hash_str(ab_hash_str(AB_HASH_INIT, bench), metric);
 *	size_t pos = 0, e;
 *	while ((e = ab_hindex_next(&x, h, &pos)))
 *		if (same(&g[e - 1], bench, metric))
 *			return &g[e - 1];
 *	... append the new entry as g[n], then ab_hindex_add(&x, h, n) ...
 */
#ifndef AB_HINDEX_H
#define AB_HINDEX_H

#include <stddef.h>
#include <stdint.h>

#define AB_HASH_INIT 1469598103934665603ull	/* FNV-1a's offset basis */

/* h with the bytes of s and a field separator mixed in (FNV-1a): hash a key of
 * several strings by chaining, so ("ab", "c") and ("a", "bc") differ. */
uint64_t ab_hash_str(uint64_t h, const char *s);

struct ab_hindex {
	struct ab_hslot { uint64_t hash; size_t e; } *slot;	/* e: entry + 1, 0: empty */
	size_t nslot, n;	/* kept at most half full: probes stay short */
};

/* An empty index is all zeros; free it with ab_hindex_free (zeroed again). */
void ab_hindex_free(struct ab_hindex *x);
/* The next entry whose hash is h, as entry + 1, or 0 when there is none; *pos is 0
 * for the first call of a lookup and carries where it got to. */
size_t ab_hindex_next(const struct ab_hindex *x, uint64_t h, size_t *pos);
/* Index entry e under hash h. 0, or -1 with errno ENOMEM (the index is as it was). */
int ab_hindex_add(struct ab_hindex *x, uint64_t h, size_t e);

#endif
