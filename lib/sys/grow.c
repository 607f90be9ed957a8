// SPDX-License-Identifier: GPL-2.0
/* Growable arrays (grow.h). */
#include "sys/grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ab_grow(void *pp, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t n = *cap ? *cap : (first ? first : 1);
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			goto nomem;
		n *= 2;
	}
	if (!elem || n > SIZE_MAX / elem)
		goto nomem;
	/* pp may point at any object pointer type: read and written as bytes, not as void * */
	memcpy(&p, pp, sizeof(p));
	p = realloc(p, n * elem);
	if (!p)
		goto nomem;
	memcpy(pp, &p, sizeof(p));
	*cap = n;
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}
