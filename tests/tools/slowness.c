// SPDX-License-Identifier: GPL-2.0
/*
 * Prints the machine's slowness (ab_slowness: a fork calibration, 1 on an idle
 * VM, more on a slow or busy machine) so that the shell tests scale their time
 * bounds the way the programs scale their own timeouts.
 *   slowness            -> e.g. "1.7"
 *   slowness --source   -> "probed" or "inherited" (AFFBENCH_SLOWNESS, sys/proc.h)
 *   slowness --fresh    -> the source of the harness's figure (ab_slowness_fresh)
 */
#include <stdio.h>
#include <string.h>

#include "sys/proc.h"

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	if (!strcmp(how, "--source") || !strcmp(how, "--fresh")) {
		if (!strcmp(how, "--fresh"))
			ab_slowness_fresh(AB_NS);
		else
			ab_slowness();
		printf("%s\n", ab_slowness_probed() ? "probed" : "inherited");
		return 0;
	}
	printf("%.2f\n", ab_slowness());
	return 0;
}
