/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests' random numbers (test_stats_ref.c, test_hboot.c,
 * test_plan_precision.c): splitmix64, a fixed, portable stream (rand() differs
 * between libcs), so a simulation gives the same figures on every machine.
 */
#ifndef RNG_FX_H
#define RNG_FX_H

#include <math.h>
#include <stdint.h>

static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * 0x1p-53;
}

/* A standard normal draw (Box-Muller; the first uniform kept off 0 for the log). */
static inline double rng_gauss(uint64_t *s)
{
	double u1 = ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = (double)(rng_next(s) >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

#endif
