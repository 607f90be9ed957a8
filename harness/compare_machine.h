/* harness compare: the table of what differs between the runs' machines (compare_machine.c). */
#ifndef H_COMPARE_MACHINE_H
#define H_COMPARE_MACHINE_H

#include <stdio.h>

/* "## The machines" into md: one row per machine.txt fact that differs between the
 * runs in dirs, then a sentence saying what the verdicts compare. 1 when the machines
 * differ (or one is unknown), 0 when they agree. */
int h_compare_machines(FILE *md, char *const *dirs, int nr);

#endif
