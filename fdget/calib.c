/*
 * Pure helpers of fdget, kept apart from the syscalls so that unit tests can
 * drive them with tables: --mode list parsing and the calibration step.
 */
#include "fdget.h"

#include <string.h>

#include "common.h"

const char *const fdget_mode_names[MODE_COUNT] = {
	[MODE_SINGLE] = "single",
	[MODE_IDLE] = "idle-thread",
	[MODE_SHARED] = "shared-fd",
	[MODE_PRIVATE] = "private-fd",
	[MODE_PROCS] = "procs",
};

int fdget_parse_modes(const char *s, int want[MODE_COUNT], char *err, size_t errlen)
{
	const char *p = s;

	memset(want, 0, MODE_COUNT * sizeof(want[0]));
	if (!s || !*s)
		return ab_err(err, errlen, "bad value '' for --mode: expected %s", FDGET_MODE_CHOICES);
	while (*p) {
		size_t len = strcspn(p, ",");
		int found = 0;

		if (len == 0)
			return ab_err(err, errlen, "bad value '%s' for --mode: empty entry", s);
		if (len == 3 && !strncmp(p, "all", 3)) {
			for (int m = 0; m < MODE_COUNT; m++)
				want[m] = 1;
			found = 1;
		}
		for (int m = 0; m < MODE_COUNT && !found; m++) {
			if (strlen(fdget_mode_names[m]) == len && !strncmp(p, fdget_mode_names[m], len)) {
				want[m] = 1;
				found = 1;
			}
		}
		if (!found)
			return ab_err(err, errlen, "bad value '%s' for --mode: '%.*s' is not one of %s", s,
				      (int)len, p, FDGET_MODE_CHOICES);
		p += len;
		if (*p == ',' && !*++p)
			return ab_err(err, errlen, "bad value '%s' for --mode: trailing comma", s);
	}
	want[MODE_SINGLE] = 1;
	return 0;
}

uint64_t fdget_calib_next(uint64_t n, uint64_t elapsed_ns, uint64_t target_ns, uint64_t max_n)
{
	uint64_t next;

	if (elapsed_ns >= target_ns)
		return 0;
	if (n == 0)
		n = 1;
	/* A timing under 1/100 of the target says little about the rate: grow by 100x
	 * at most; otherwise scale to the rate seen and aim 10% past the target. */
	if (elapsed_ns == 0 || (double)target_ns / (double)elapsed_ns > 100.0)
		next = n * 100;
	else
		next = (uint64_t)((double)n * (double)target_ns / (double)elapsed_ns * 1.1) + 1;
	if (next <= n)
		next = n + 1;
	return next > max_n ? max_n : next;
}
