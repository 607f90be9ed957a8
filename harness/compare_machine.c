/*
 * Machines first: what differs between the compared runs' machine.txt files,
 * as a table opening compare.md. A ratio between two machines measures the
 * machines (kernel build, mitigations, idle driver, CPU) as much as the change
 * under test, so the report says which facts differ before any verdict.
 * machine.txt is outside text: read bounded (sys/infile.h), each value cut to
 * VAL_MAX and escaped where written.
 */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/infile.h"
#include "harness.h"
#include "compare_machine.h"

#define VAL_MAX 80

/* The labels compared; "kernel" alone is the change under test of a kernel comparison. */
static const char *const facts[] = { "kernel", "host", "cpu_model", "allowed_cpus", "online_cpus",
				     "numa_nodes", "smt_active", "governor", "cpuidle", "haltpoll_ns",
				     "idle_states", "cpu_boost", "hypervisor", "libfuse", NULL };

struct mach {
	char *fact[16];		/* one per facts[], NULL when absent */
	char *topology, *mitigation, *knobs;	/* all such lines, joined */
	char *date;
	int missing;		/* no readable machine.txt */
};

static void append(char **s, const char *v)
{
	size_t o = *s ? strlen(*s) : 0, l = strlen(v);
	char *t = realloc(*s, o + l + 2);
	if (!t)
		return;
	memcpy(t + o, v, l);
	t[o + l] = '\n';
	t[o + l + 1] = '\0';
	*s = t;
}

static void read_machine(const char *dir, struct mach *m)
{
	char path[4096], err[256], *line = NULL;
	size_t cap = 0;
	ssize_t n;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/machine.txt", dir);
	FILE *f = ab_infile_open(path, AB_INFILE_MAX_SMALL, err, sizeof(err));
	if (!f) {
		m->missing = 1;
		return;
	}
	while ((n = ab_infile_line(f, &line, &cap)) != -1) {
		char *sp = n > 0 ? strchr(line, ' ') : NULL;
		if (!sp)
			continue;
		*sp = '\0';
		char *v = sp + 1 + strspn(sp + 1, " ");
		if (!strcmp(line, "topology"))
			append(&m->topology, v);
		else if (!strcmp(line, "mitigation"))
			append(&m->mitigation, v);
		else if (!strcmp(line, "knob") && !strncmp(v, "before ", 7))
			append(&m->knobs, v + 7);
		else if (!strcmp(line, "date") && !m->date)	/* the first: when the run began */
			m->date = strndup(v, VAL_MAX);
		for (int i = 0; facts[i]; i++)
			if (!strcmp(line, facts[i])) {	/* the last wins: a resumed run appends */
				free(m->fact[i]);
				m->fact[i] = strndup(v, VAL_MAX);
			}
	}
	free(line);
	fclose(f);
}

static void free_machine(struct mach *m)
{
	for (int i = 0; facts[i]; i++)
		free(m->fact[i]);
	free(m->topology);
	free(m->mitigation);
	free(m->knobs);
	free(m->date);
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The number of lines of a joined list, for a cell: "2 CPUs listed" says more than a hash. */
static int lines(const char *s)
{
	int n = 0;
	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* One row of the table when the runs differ in it; 1 when they do. */
static int row(FILE *md, const char *label, struct mach *m, int nr, int which)
{
	const char *v0 = which < 0 ? NULL : m[0].fact[which];
	int differ = 0;
	for (int k = 1; k < nr; k++) {
		const char *v = which >= 0 ? m[k].fact[which] :
				which == -1 ? m[k].topology : which == -2 ? m[k].mitigation : m[k].knobs;
		const char *b = which >= 0 ? v0 :
				which == -1 ? m[0].topology : which == -2 ? m[0].mitigation : m[0].knobs;
		differ |= !same(v, b);
	}
	if (!differ)
		return 0;
	fprintf(md, "| %s |", label);
	for (int k = 0; k < nr; k++) {
		if (which >= 0) {
			fputc(' ', md);
			h_md_cell(md, m[k].fact[which] ? m[k].fact[which] : "-");
			fputs(" |", md);
		} else {
			const char *s = which == -1 ? m[k].topology : which == -2 ? m[k].mitigation : m[k].knobs;
			int d = k && !same(s, which == -1 ? m[0].topology :
						 which == -2 ? m[0].mitigation : m[0].knobs);
			fprintf(md, " %d lines%s |", lines(s), d ? ", not as A" : "");
		}
	}
	fputc('\n', md);
	return 1;
}

int h_compare_machines(FILE *md, char *const *dirs, int nr)
{
	struct mach *m = calloc((size_t)nr, sizeof(*m));
	int kernel = 0, other = 0, missing = 0;

	if (!m)
		return 0;
	for (int k = 0; k < nr; k++) {
		read_machine(dirs[k], &m[k]);
		missing += m[k].missing;
	}
	fprintf(md, "## The machines\n\nWhat differs between the runs' machine.txt files "
		    "(nothing listed: they agree):\n\n| machine.txt |");
	for (int k = 0; k < nr; k++) {
		fputc(' ', md);
		h_md_cell(md, dirs[k]);
		fputs(" |", md);
	}
	fputs("\n|---|", md);
	for (int k = 0; k < nr; k++)
		fputs("---|", md);
	fputc('\n', md);
	for (int i = 0; facts[i]; i++) {
		int d = row(md, facts[i], m, nr, i);
		kernel |= d && i == 0;
		other |= d && i > 1;	/* host names alone do not make two machines */
	}
	other |= row(md, "topology", m, nr, -1);
	other |= row(md, "mitigations", m, nr, -2);
	other |= row(md, "knobs before the run", m, nr, -3);
	fprintf(md, "\n%s%s%s\n\n",
		other ? "**The machines differ**: the verdicts below compare machines (CPU, topology, "
			"mitigations, governor, idle driver, knobs as the table says), not only the "
			"change under test. " : "The machines agree in every fact compared. ",
		kernel ? "The kernels differ: a verdict includes the kernel change. " : "",
		missing ? "Some runs have no readable machine.txt: their machines are unknown." : "");
	for (int k = 0; k < nr; k++)
		free_machine(&m[k]);
	free(m);
	return other || missing;
}

/* ---- --sort kernel|date|host ---- */

struct sortkey {
	char *dir;
	char key[VAL_MAX + 1];
	long long when;		/* date: seconds since the epoch, UTC */
	int known, pos;
};

/* "Linux 6.18.44-fc #1 ..." -> "6.18.44-fc": the release, compared as versions */
static void kernel_release(const char *v, char *out, size_t len)
{
	const char *r = strchr(v, ' ');
	r = r ? r + 1 : v;
	snprintf(out, len, "%.*s", (int)strcspn(r, " "), r);
}

static int by_key(const void *pa, const void *pb, int date)
{
	const struct sortkey *a = pa, *b = pb;
	if (a->known != b->known)	/* unknown machines last */
		return b->known - a->known;
	int d = !a->known ? 0 : date ? (a->when > b->when) - (a->when < b->when) : strverscmp(a->key, b->key);
	return d ? d : a->pos - b->pos;	/* stable: ties as given */
}
static int by_text(const void *a, const void *b) { return by_key(a, b, 0); }
static int by_date(const void *a, const void *b) { return by_key(a, b, 1); }

void h_compare_sort(char **dirs, int nr, int by)
{
	struct sortkey *s = calloc((size_t)nr, sizeof(*s));
	const int fact = by == H_SORT_KERNEL ? 0 : by == H_SORT_HOST ? 1 : -1;

	if (!s)
		ab_fail("compare: out of memory");
	for (int k = 0; k < nr; k++) {
		struct mach m;
		s[k].dir = dirs[k];
		s[k].pos = k;
		read_machine(dirs[k], &m);
		const char *v = fact >= 0 ? m.fact[fact] : m.date;
		if (v) {
			struct tm tm;
			memset(&tm, 0, sizeof(tm));
			const char *end = by == H_SORT_DATE ? strptime(v, "%Y-%m-%d %H:%M:%S %z", &tm) : NULL;
			if (by == H_SORT_KERNEL)
				kernel_release(v, s[k].key, sizeof(s[k].key));
			else
				snprintf(s[k].key, sizeof(s[k].key), "%s", v);
			s[k].when = end ? (long long)timegm(&tm) - tm.tm_gmtoff : 0;
			s[k].known = by != H_SORT_DATE || end;
		}
		free_machine(&m);
	}
	qsort(s, (size_t)nr, sizeof(*s), by == H_SORT_DATE ? by_date : by_text);
	for (int k = 0; k < nr; k++)
		dirs[k] = s[k].dir;
	free(s);
}
