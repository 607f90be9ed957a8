/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way an array grows: its capacity doubled (from a first size) until it
 * holds what is needed, so that n appends cost O(n) copies in all.
 */
#ifndef AB_GROW_H
#define AB_GROW_H

#include <stddef.h>

/*
 * Room for need elements of elem (> 0) bytes in *pp, pp the address of the array's
 * pointer (of any type) and *cap its capacity: nothing to do when need <= *cap;
 * else *pp is realloc'd to first elements, or twice *cap, doubled until it holds
 * need, and *cap says so. Elements past the old capacity are not initialised.
 * 0, or -1 with errno ENOMEM (out of memory, or a size past SIZE_MAX) and *pp and
 * *cap as they were, the array still valid.
 */
int ab_grow(void *pp, size_t *cap, size_t need, size_t elem, size_t first);

#endif
