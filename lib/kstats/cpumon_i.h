/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU monitor's internals, shared by cpumon.c (snapshots) and cpumon_rec.c
 * (their difference as numbers).
 */
#ifndef AB_CPUMON_I_H
#define AB_CPUMON_I_H

#include <stdint.h>
#include <sys/types.h>

#include "kstats/cpumon.h"

#define ROWS 160
#define ROWNAME 40

enum row_kind { R_CTXT, R_IRQ, R_NAMED, R_SOFTIRQ, R_IDLE_USAGE, R_IDLE_TIME, R_FREQ, R_TASK,
		R_TASKID /* which threads were summed: not a metric */,
		R_STAT_IDLE /* /proc/stat's idle + iowait, in USER_HZ ticks */,
		R_SPIN /* --idle busy's spinners' CPU time, in ns (v[0]) */ };

struct row {
	char name[ROWNAME];	/* metric stem: "ipi_res", "softirq_timer", "idle_c1" */
	enum row_kind kind;
	uint64_t *v;		/* one per monitored CPU (index into mon->cpu) */
};

struct snap {
	int n;
	struct row r[ROWS];
};

struct ab_cpumon {
	int ncpu, *cpu;		/* the monitored CPUs, ascending */
	int ntask;
	pid_t task[AB_CPUMON_TASKS];
	struct snap s[2];
	double window_s;
	int done, tasks_ok;
	char missing[512];
};

/* The begin row matching end row e, or NULL (a row that appeared mid-window). */
const struct row *ab_cpumon_before(const struct ab_cpumon *m, const struct row *e);

#endif
