/* harness compare: the table of what differs between the runs' machines (compare_machine.c). */
#ifndef H_COMPARE_MACHINE_H
#define H_COMPARE_MACHINE_H

#include <stdio.h>

/* "## The machines" into md: one row per machine.txt fact that differs between the
 * runs in dirs, then a sentence saying what the verdicts compare. 1 when the machines
 * differ (or one is unknown), 0 when they agree. */
int h_compare_machines(FILE *md, char *const *dirs, int nr);

/* --sort: the order of the runs (H_SORT_GIVEN: as given). */
enum { H_SORT_GIVEN, H_SORT_KERNEL, H_SORT_DATE, H_SORT_HOST };
#define H_SORT_CHOICES "given|kernel|date|host"
/* Sort dirs by machine.txt's kernel release (version order), date (UTC) or host; ties
 * and runs without the fact keep their given order, the unknown last. */
void h_compare_sort(char **dirs, int nr, int by);

#endif
