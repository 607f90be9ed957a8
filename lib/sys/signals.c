// SPDX-License-Identifier: GPL-2.0
/* The interrupt flag (see signals.h). */
#include "sys/signals.h"

volatile sig_atomic_t ab_interrupted;

static void on_signal(int sig)
{
	ab_interrupted = sig;
}

void ab_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
