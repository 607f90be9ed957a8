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
#include "compare.h"
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

/* The table's columns: the facts, then the joined lists. */
#define LISTS 3
#define NCOL (AB_ARRAY_SIZE(facts) - 1 + LISTS)
static const char *const list_name[LISTS] = { "topology", "mitigations", "knobs" };

static const char *name(int col)
{
	return col < (int)NCOL - LISTS ? facts[col] : list_name[col - ((int)NCOL - LISTS)];
}

static const char *value(const struct mach *m, int col)
{
	int l = col - ((int)NCOL - LISTS);
	return l < 0 ? m->fact[col] : l == 0 ? m->topology : l == 1 ? m->mitigation : m->knobs;
}

/* A cell of at most SHORT characters is written as it is; a column with a longer value
 * (a kernel's uname, a CPU model, any list) gets codes #1, #2, ... and a legend, so 50
 * runs make 50 short rows, not 50 columns of uname strings. */
#define SHORT 16

/* One column: the runs' values numbered by first appearance (code[k], 1-based). */
struct column {
	int col, coded, nval;
	int *code;		/* per run */
	const char **val;	/* per code - 1, the first run's value (NULL: absent) */
};

static int number(struct column *c, const struct mach *m, int nr)
{
	int differ = 0;
	c->nval = 0;
	c->coded = c->col >= (int)NCOL - LISTS;
	for (int k = 0; k < nr; k++) {
		const char *v = value(&m[k], c->col);
		int j = 0;
		while (j < c->nval && !same(c->val[j], v))
			j++;
		if (j == c->nval)
			c->val[c->nval++] = v;
		c->code[k] = j + 1;
		differ |= j > 0;
		c->coded |= v && strlen(v) > SHORT;
	}
	return differ;
}

static int lines(const char *s)
{
	int n = 0;
	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* The first line of list s that base lacks: what a reader looks for first. */
static void first_new_line(FILE *md, const char *s, const char *base)
{
	for (const char *l = s; l && *l; l += strcspn(l, "\n") + 1) {
		size_t n = strcspn(l, "\n");
		int found = 0;
		for (const char *b = base; b && *b && !found; b += strcspn(b, "\n") + 1)
			found = strcspn(b, "\n") == n && !strncmp(b, l, n);
		if (found)
			continue;
		char cut[VAL_MAX + 1];
		snprintf(cut, sizeof(cut), "%.*s", (int)n, l);
		fputs(", the first not in #1's: ", md);
		h_md_cell(md, cut);
		return;
	}
}

/* A line per code: fifty kernels make fifty short lines, not one of 3,000 characters. */
static void legend(FILE *md, const struct column *c)
{
	int list = c->col >= (int)NCOL - LISTS;
	for (int j = 0; j < c->nval; j++) {
		fprintf(md, "- %s #%d: ", name(c->col), j + 1);
		if (!c->val[j])
			fputs("absent", md);
		else if (!list)
			h_md_cell(md, c->val[j]);
		else {
			fprintf(md, "%d lines", lines(c->val[j]));
			if (j)
				first_new_line(md, c->val[j], c->val[0]);
		}
		fputc('\n', md);
	}
}

static void cell(FILE *md, const struct column *c, int k)
{
	const char *v = c->val[c->code[k] - 1];
	fputc(' ', md);
	if (c->coded)
		fprintf(md, "#%d", c->code[k]);
	else
		h_md_cell(md, v ? v : "-");
	fputs(" |", md);
}

/* The table, a row per run and a column per fact that differs; returns the columns. */
static int table(FILE *md, struct column *col, const struct mach *m, int nr)
{
	int nc = 0;
	for (int i = 0; i < (int)NCOL; i++) {
		col[nc].col = i;
		nc += number(&col[nc], m, nr);
	}
	if (!nc)
		return 0;
	fputs("| run |", md);
	for (int i = 0; i < nc; i++)
		fprintf(md, " %s |", name(col[i].col));
	fputs("\n|---|", md);
	for (int i = 0; i < nc; i++)
		fputs("---|", md);
	fputc('\n', md);
	for (int k = 0; k < nr; k++) {
		char l[16];
		fprintf(md, "| %s%s |", h_cmp_run_label(l, sizeof(l), k),
			m[k].missing ? " (no machine.txt)" : "");
		for (int i = 0; i < nc; i++)
			cell(md, &col[i], k);
		fputc('\n', md);
	}
	int coded = 0;
	for (int i = 0; i < nc; i++)
		coded |= col[i].coded;
	if (coded)
		fputs("\nThe codes (#1 is run A's; knobs: their values before the run):\n\n", md);
	for (int i = 0; i < nc; i++)
		if (col[i].coded)
			legend(md, &col[i]);
	return nc;
}

/* The labels of the runs whose machine differs from A's in the columns from fact first
 * on (2: past kernel and host, or unknown; 0: the kernel alone), into list; how many. */
static int runs(char *list, size_t len, const struct column *col, int nc, const struct mach *m,
		int nr, int first)
{
	int n = 0;
	size_t o = 0;

	list[0] = '\0';
	for (int k = 1; k < nr; k++) {
		int d = first && m[k].missing;
		for (int i = 0; i < nc && (first || !m[k].missing); i++)
			d |= (first ? col[i].col >= first : col[i].col == 0) && col[i].code[k] != 1;
		if (!d)
			continue;
		char l[16];
		o += (size_t)snprintf(list + o, o < len ? len - o : 0, "%s%s", n++ ? ", " : "",
				      h_cmp_run_label(l, sizeof(l), k));
	}
	return n;
}

int h_compare_machines(FILE *md, char *const *dirs, int nr)
{
	struct mach *m = calloc((size_t)nr, sizeof(*m));
	struct column col[NCOL];
	int kernel = 0, other = 0, missing = 0;
	int *codes = calloc((size_t)nr * NCOL, sizeof(*codes));
	const char **vals = calloc((size_t)nr * NCOL, sizeof(*vals));

	if (!m || !codes || !vals)
		ab_fail("compare: out of memory");
	for (int k = 0; k < nr; k++) {
		read_machine(dirs[k], &m[k]);
		missing += m[k].missing;
	}
	for (size_t i = 0; i < NCOL; i++)
		col[i] = (struct column){ .code = codes + i * (size_t)nr, .val = vals + i * (size_t)nr };
	fputs("## The machines\n\nWhat differs between the runs' machine.txt files, a row per run "
	      "(facts not shown agree in every run):\n\n", md);
	int nc = table(md, col, m, nr);
	for (int i = 0; i < nc; i++) {
		kernel |= col[i].col == 0;
		other |= col[i].col > 1;	/* host names alone do not make two machines */
	}
	char *list = malloc((size_t)nr * 8 + 1);	/* "#999, " a run at most */
	if (!list)
		ab_fail("compare: out of memory");
	int n = runs(list, (size_t)nr * 8 + 1, col, nc, m, nr, 2);
	if (!n)
		fprintf(md, "\nThe machines agree in every fact compared%s.", kernel ? " but the kernel" : "");
	else
		fprintf(md, "\n**The machines differ**: %s %s ran on %s than A's (CPU, topology, "
			"mitigations, governor, idle driver, knobs as the table says): %s verdicts compare "
			"machines, not only the change under test.", n > 1 ? "runs" : "run", list,
			n > 1 ? "other machines" : "another machine", n > 1 ? "their" : "its");
	n = runs(list, (size_t)nr * 8 + 1, col, nc, m, nr, 0);
	if (n)
		fprintf(md, " The kernel differs from A's in run%s %s: %s verdicts include the kernel "
			"change.", n > 1 ? "s" : "", list, n > 1 ? "their" : "its");
	free(list);
	if (missing)
		fputs(" Some runs have no readable machine.txt: their machines are unknown.", md);
	fputs("\n\n", md);
	for (int k = 0; k < nr; k++)
		free_machine(&m[k]);
	free(m);
	free(codes);
	free(vals);
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
