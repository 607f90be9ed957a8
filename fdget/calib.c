// SPDX-License-Identifier: GPL-2.0
/*
 * Calibration, timed in the parent: how many iterations make one timing last
 * --duration (lmbench's idea: grow the count until a timing takes a quarter
 * of the target time, then scale it by the rate that timing saw), what the
 * loop around the syscall costs (the same loop with no syscall), and what one
 * clock read costs. The parent never creates a thread, so these timings see
 * the single-threaded fast path.
 *
 * A quarter, not the whole: a timing of a whole window was a fixed cost of
 * every invocation (about 15% of one, at the default plan's 0.5 s then), and the rate
 * of a quarter window sets the count as well; the timings up to it still warm
 * the loop up before the first window. The count aims 10% past --duration, as
 * the growing steps do.
 *
 * A timing that reaches its part is timed again, and the faster taken, when
 * its count came from a 100x jump or it ran over twice the part: a preemption
 * inside it would otherwise pass 1/100 of the work, or shorten every window
 * (one that slows it by less than that still shortens them: a known limit).
 *
 * Known limits: the count is calibrated once per operation, in single mode;
 * a repetition that runs much faster than the calibration did gets a shorter
 * window, and one shorter than AB_MIN_WINDOW_NS fails (modes.c).
 */
#include "fdget.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sys/barrier.h"
#include "record/stats.h"

#define START_ITERS 1000
#define MAX_ITERS (1ull << 40)
#define CALIB_PART 4		/* the last calibration timing lasts 1/CALIB_PART of the target */

uint64_t fdget_time_loop(const struct fdget_settings *s, enum fdget_op op, uint64_t iters)
{
	fdget_loop_fn loop = fdget_ops[op].loop[s->call];
	uint64_t t0 = ab_now_ns();

	if (loop(s->fd, iters))
		ab_fail("%s on the test file (fd %d): %s", fdget_ops[op].name, s->fd, strerror(errno));
	return ab_now_ns() - t0;
}

/* The test hook AFFBENCH_FDGET_ITERS forces the count (a window too short to time). */
static uint64_t forced_iters(void)
{
	const char *v = ab_test_hook("AFFBENCH_FDGET_ITERS");
	char *end;

	if (!v)
		return 0;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || end == v || *end || n == 0)
		ab_fail("bad AFFBENCH_FDGET_ITERS '%s': expected a count above 0", v);
	return n;
}

uint64_t fdget_calibrate(const struct fdget_settings *s, enum fdget_op op)
{
	uint64_t target = (uint64_t)(s->duration * 1e9), n = forced_iters(), t = 0;
	uint64_t part = target / CALIB_PART;

	if (n)
		return n;
	int jumped = 0, recheck = 3;

	for (n = START_ITERS;;) {
		t = fdget_time_loop(s, op, n);
		uint64_t next = fdget_calib_next(n, t, part, MAX_ITERS);
		if (!next && recheck > 0 && fdget_calib_suspect(t, part, jumped)) {
			/* One preemption (routine on a busy machine) can make 1/100 of the
			 * work look long enough, or slow the timing whose rate sets every
			 * window. Timed again, the faster of the two decides: a preemption
			 * only ever adds time. */
			recheck--;
			uint64_t again = fdget_time_loop(s, op, n);
			if (again < t)
				t = again;
			next = fdget_calib_next(n, t, part, MAX_ITERS);
		}
		if (!next || next == n)
			break;
		jumped = next == n * 100;
		n = next;
	}
	uint64_t iters = fdget_calib_scale(n, t, target, MAX_ITERS);
	if (!s->quiet)
		ab_msg("%s: %llu iterations per timing (%llu took %.1f ms)", fdget_ops[op].name,
		       (unsigned long long)iters, (unsigned long long)n, (double)t / 1e6);
	return iters;
}

double fdget_timer_ns(void)
{
	double x[101];

	for (size_t i = 0; i < AB_ARRAY_SIZE(x); i++) {
		uint64_t t0 = ab_now_ns();
		for (int k = 0; k < 100; k++)
			ab_now_ns();
		uint64_t t1 = ab_now_ns();
		x[i] = (double)(t1 - t0) / 101.0;
	}
	return ab_median(x, AB_ARRAY_SIZE(x));
}
