// SPDX-License-Identifier: GPL-2.0
/*
 * The measured loops of sqrtio (LKML 2008, Brunelle, "Block IO: more
 * io-cpu-affinity results"): CPU-bound workers computing sqrt, and IO-bound
 * workers doing 4 KiB O_DIRECT reads at random aligned offsets of a small
 * span, which the device serves from its cache. Each worker counts on its own
 * cache line; the parent times the window (measure.c).
 * Known limits: the sqrt loop checks for the stop every SQ_SQRT_BATCH sqrts;
 * the read loop reads the clock twice per read, because the read's latency is
 * what it records (a read takes tens of us, a vDSO clock read tens of ns);
 * where the clock has no vDSO, each read is a syscall, so one read in
 * AB_CLOCK_STRIDE_DEAR is timed there (sys/clock.h, decided before the fork).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sqrtio.h"
#include "sys/clock.h"

static int phase(struct sq_shared *sh)
{
	return atomic_load_explicit(&sh->phase, memory_order_relaxed);
}

void sq_sqrt_loop(struct sq_shared *sh, int w)
{
	volatile double x = 1234567.0, r;

	while (phase(sh) != SQ_STOP) {
		for (int i = 0; i < SQ_SQRT_BATCH; i++)
			r = sqrt(x);
		ab_counter_add(&sh->count[w], SQ_SQRT_BATCH);
	}
	(void)r;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int sq_io_loop(struct sq_shared *sh, int w, int fd, uint64_t nblocks, void *buf)
{
	struct ab_hist h = { 0 };
	uint64_t rnd = 0x9e3779b97f4a7c15ull * (uint64_t)(w + 1);
	unsigned every = ab_lat_stride();
	int ph, rc = 0;

	for (uint64_t k = 0; (ph = phase(sh)) != SQ_STOP; k++) {
		off_t off = (off_t)(xorshift(&rnd) % nblocks) * SQ_BLK;
		int timed = k % every == 0;
		uint64_t t = timed ? ab_now_ns() : 0;
		ssize_t n = pread(fd, buf, SQ_BLK, off);
		uint64_t lat = timed ? ab_now_ns() - t : 0;

		if (n != SQ_BLK) {
			rc = n < 0 ? errno : EIO;
			snprintf(sh->err[w], sizeof(sh->err[w]), "pread at offset %lld: %s",
				 (long long)off, n < 0 ? strerror(errno) : "short read");
			break;
		}
		ab_counter_inc(&sh->count[w]);
		if (ph == SQ_MEASURE && timed)
			ab_hist_add(&h, lat);
	}
	sh->hist[w] = h;
	return rc;
}

int sq_read_burst(int fd, uint64_t nblocks, void *buf, int min, int max, uint64_t until_ns,
		  char *err, size_t errlen)
{
	uint64_t rnd = 0x2545f4914f6cdd1dull;
	int i;

	for (i = 0; i < max && (i < min || ab_now_ns() < until_ns); i++) {
		off_t off = (off_t)(xorshift(&rnd) % nblocks) * SQ_BLK;
		ssize_t n = pread(fd, buf, SQ_BLK, off);

		if (n != SQ_BLK) {
			int e = n < 0 ? errno : EIO;
			ab_err(err, errlen, "O_DIRECT read at offset %lld: %s", (long long)off,
			       n < 0 ? strerror(e) : "short read");
			errno = e;
			return -1;
		}
	}
	return i;
}
