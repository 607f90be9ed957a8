// SPDX-License-Identifier: GPL-2.0
/*
 * Prints the machine's slowness (ab_slowness: a fork calibration, 1 on an idle
 * VM, more on a slow or busy machine) so that the shell tests scale their time
 * bounds the way the programs scale their own timeouts.
 *   slowness        -> e.g. "1.7"
 */
#include <stdio.h>

#include "sys/proc.h"

int main(void)
{
	printf("%.2f\n", ab_slowness());
	return 0;
}
