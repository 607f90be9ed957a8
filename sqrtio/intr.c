// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/interrupts snapshots. sqrtio diffs two of them to find which IRQ lines
 * serve a device (no driver names are hard-coded) and to count interrupts and
 * IPIs (CAL: function call, RES: rescheduling) per IO.
 * Known limits: a CPU going on- or offline between two snapshots changes the
 * columns, and the deltas of those two read 0; a line re-registered between
 * them is counted from 0.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "sqrtio.h"

int sq_intr_is_irq(const char *name)
{
	if (!*name)
		return 0;
	for (const char *p = name; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return 1;
}

void sq_intr_free(struct sq_intr *s)
{
	for (int i = 0; i < s->nlines; i++)
		free(s->line[i].count);
	free(s->line);
	free(s->col_cpu);
	memset(s, 0, sizeof(*s));
}

/* The header names the CPU of each column ("CPU0 CPU1 CPU3" when CPU2 is offline). */
static int parse_header(const char *l, struct sq_intr *s)
{
	size_t cap = 0;
	const char *p = l;

	while ((p = strstr(p, "CPU"))) {
		char *end;
		long cpu = strtol(p + 3, &end, 10);

		if (end == p + 3)
			return -1;
		if (ab_grow(&s->col_cpu, &cap, (size_t)s->ncol + 1, sizeof(*s->col_cpu), 64) < 0)
			return -1;
		s->col_cpu[s->ncol++] = (int)cpu;
		p = end;
	}
	return s->ncol ? 0 : -1;
}

int sq_intr_read(const char *path, struct sq_intr *s, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *l = NULL;
	size_t lcap = 0, cap = 0;

	memset(s, 0, sizeof(*s));
	if (!f)
		return ab_err(err, errlen, "open %s: %s", path, strerror(errno));
	if (getline(&l, &lcap, f) < 0 || parse_header(l, s)) {
		ab_err(err, errlen, "%s: no CPU header line", path);
		goto fail;
	}
	while (getline(&l, &lcap, f) >= 0) {
		char *colon = strchr(l, ':');
		char *p = l;

		if (!colon)
			continue;
		while (isspace((unsigned char)*p))
			p++;
		if (colon - p <= 0 || colon - p >= (long)sizeof(s->line[0].name))
			continue;
		if (ab_grow(&s->line, &cap, (size_t)s->nlines + 1, sizeof(*s->line), 256) < 0) {
			ab_err(err, errlen, "out of memory");
			goto fail;
		}
		struct sq_intr_line *ln = &s->line[s->nlines];
		memcpy(ln->name, p, colon - p);
		ln->name[colon - p] = 0;
		ln->count = calloc(s->ncol, sizeof(uint64_t));
		if (!ln->count) {
			ab_err(err, errlen, "out of memory");
			goto fail;
		}
		s->nlines++;
		/* Counts come first; the chip and handler names after them are not numbers. */
		p = colon + 1;
		for (int c = 0; c < s->ncol; c++) {
			char *end;
			unsigned long long v;

			while (*p == ' ' || *p == '\t')
				p++;
			if (!isdigit((unsigned char)*p))
				break;
			v = strtoull(p, &end, 10);
			if (*end && !isspace((unsigned char)*end))
				break;
			ln->count[c] = v;
			p = end;
		}
	}
	free(l);
	fclose(f);
	return 0;
fail:
	free(l);
	fclose(f);
	sq_intr_free(s);
	return -1;
}

int sq_intr_find(const struct sq_intr *s, const char *name)
{
	for (int i = 0; i < s->nlines; i++)
		if (!strcmp(s->line[i].name, name))
			return i;
	return -1;
}

uint64_t sq_intr_delta(const struct sq_intr *a, const struct sq_intr *b, const char *name, int col)
{
	int ia = sq_intr_find(a, name), ib = sq_intr_find(b, name);
	uint64_t d = 0;

	if (ib < 0 || a->ncol != b->ncol)
		return 0;
	for (int c = 0; c < b->ncol; c++) {
		if (col >= 0 && c != col)
			continue;
		uint64_t before = ia >= 0 ? a->line[ia].count[c] : 0;
		uint64_t after = b->line[ib].count[c];
		/* A line re-registered between snapshots restarts at 0: count it from there. */
		d += after >= before ? after - before : after;
	}
	return d;
}
