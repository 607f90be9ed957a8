/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interrupt flag: SIGINT, SIGTERM and SIGHUP set it instead of ending the
 * program, and every wait (lib/sys/barrier, lib/sys/proc) gives up when it is
 * set, so a run interrupted mid-point still restores its knobs and says why.
 * Its own file, below barrier and proc, so that both can read it.
 */
#ifndef AB_SIGNALS_H
#define AB_SIGNALS_H

#include <signal.h>

/* Set by SIGINT/SIGTERM/SIGHUP once ab_catch_signals() ran. The knob module,
 * initialised afterwards, restores its knobs first and then chains to it. */
extern volatile sig_atomic_t ab_interrupted;
void ab_catch_signals(void);

#endif
