// SPDX-License-Identifier: GPL-2.0
/* The hash index (see hindex.h): open addressing, linear probing. */
#include "record/hindex.h"

#include <errno.h>
#include <stdlib.h>

uint64_t ab_hash_str(uint64_t h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return (h ^ 0x1f) * 1099511628211ull;	/* the separator */
}

void ab_hindex_free(struct ab_hindex *x)
{
	free(x->slot);
	x->slot = NULL;
	x->nslot = x->n = 0;
}

/* FNV's low bits are its weakest: fold the high ones in before masking. */
static size_t start(uint64_t h, size_t mask)
{
	return (size_t)(h ^ (h >> 29) ^ (h >> 47)) & mask;
}

size_t ab_hindex_next(const struct ab_hindex *x, uint64_t h, size_t *pos)
{
	if (!x->nslot)
		return 0;
	size_t mask = x->nslot - 1;
	for (size_t k = *pos; k < x->nslot; k++) {
		const struct ab_hslot *s = &x->slot[(start(h, mask) + k) & mask];
		if (!s->e)
			break;
		if (s->hash == h) {
			*pos = k + 1;
			return s->e;
		}
	}
	*pos = x->nslot;
	return 0;
}

static void put(struct ab_hslot *slot, size_t nslot, uint64_t h, size_t e)
{
	size_t mask = nslot - 1, i = start(h, mask);

	while (slot[i].e)
		i = (i + 1) & mask;
	slot[i] = (struct ab_hslot){ .hash = h, .e = e };
}

int ab_hindex_add(struct ab_hindex *x, uint64_t h, size_t e)
{
	if (2 * (x->n + 1) > x->nslot) {
		size_t nslot = x->nslot ? 2 * x->nslot : 64;
		struct ab_hslot *slot = calloc(nslot, sizeof(*slot));
		if (!slot) {
			errno = ENOMEM;
			return -1;
		}
		for (size_t i = 0; i < x->nslot; i++)
			if (x->slot[i].e)
				put(slot, nslot, x->slot[i].hash, x->slot[i].e);
		free(x->slot);
		x->slot = slot;
		x->nslot = nslot;
	}
	put(x->slot, x->nslot, h, e + 1);
	x->n++;
	return 0;
}
