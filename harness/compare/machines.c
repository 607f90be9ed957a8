// SPDX-License-Identifier: GPL-2.0
/*
 * Machines first: what differs between the compared runs' machine.txt files,
 * as a table opening compare.md. A ratio between two machines measures the
 * machines (kernel build, mitigations, idle driver, CPU) as much as the change
 * under test, so the report says which facts differ before any verdict.
 * machine.txt is outside text: read bounded (sys/infile.h), each value cut to
 * VAL_MAX and escaped where written.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "sys/grow.h"
#include "sys/infile.h"
#include "record/hindex.h"
#include "compare.h"
#include "render/render.h"

#define VAL_MAX 80
#define NEWS_MAX 2048	/* the lines of a list not in A's: every mitigation line fits */

/* The labels compared; "kernel" alone is the change under test of a kernel comparison. */
static const char *const facts[] = { "kernel", "host", "cpu_model", "allowed_cpus", "online_cpus",
				     "numa_nodes", "smt_active", "governor", "cpuidle", "idle_cmdline",
				     "haltpoll_ns", "idle_states", "cpu_boost", "hypervisor",
				     "hypervisor_name", "pti", "pcid", "topology_src",
				     "clocksource", "libfuse", NULL };
/* Measured, so never equal twice: compared as a ratio, not as a fact (prices()). */
static const char *const price[] = { "syscall_ns", "pipe_rt_ns" };
#define NPRICE 2

/* The table's columns: the facts, then the lists of lines. */
#define LISTS 3
#define NCOL (AB_ARRAY_SIZE(facts) - 1 + LISTS)
static const char *const list_name[LISTS] = { "topology", "mitigations", "knobs" };
static const char *const list_key[LISTS] = { "topology", "mitigation", "knob" };

/*
 * A list of lines (all topology, mitigation or "knob before" lines), joined.
 * Only run A's text is kept: another run's list is compared with A's byte for
 * byte as it is read, then kept as its hash, size and line count (two runs
 * other than A agree when those do) and the first of its lines that A's lacks,
 * found through A's lines sorted once. So 1000 runs of a 4 MiB machine.txt hold
 * one text, and lists of 215,000 lines compare in O(n log n), not O(n^2).
 */
struct list {
	char *text;
	size_t len, cap;
	uint64_t hash;		/* ab_hash_str of text */
	int lines, present;
	int as_a;		/* the same text as A's list, compared byte for byte */
	int has_new;		/* first_new holds the first line not in A's list */
	char first_new[VAL_MAX + 1];
	char news[NEWS_MAX];	/* every line not in A's, '\n'-joined, as far as it fits */
};

struct mach {
	char *fact[24];		/* one per facts[], NULL when absent */
	double price[NPRICE];	/* the leading number of each price[] line, 0 when absent */
	struct list list[LISTS];
	char *date;
	int missing;		/* no readable machine.txt */
};

/* A's lines, sorted, to look another run's lines up in. */
struct line {
	const char *p;
	size_t n;
};

static void append(struct list *l, const char *v, size_t n)
{
	/* doubling: a 215,000-line list is read in linear time */
	if (ab_grow(&l->text, &l->cap, l->len + n + 2, 1, 256) < 0)
		ab_fail("compare: out of memory");
	memcpy(l->text + l->len, v, n);
	l->len += n;
	l->text[l->len++] = '\n';
	l->text[l->len] = '\0';
	l->lines++;
	l->present = 1;
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
		for (int i = 0; i < LISTS; i++)
			if (!strcmp(line, list_key[i]) && (i < 2 || !strncmp(v, "before ", 7)))
				append(&m->list[i], v + (i < 2 ? 0 : 7), strlen(v + (i < 2 ? 0 : 7)));
		if (!strcmp(line, "date") && !m->date)	/* the first: when the run began */
			m->date = strndup(v, VAL_MAX);
		for (int i = 0; i < NPRICE; i++)
			if (!strcmp(line, price[i]) && sscanf(v, "%lf", &m->price[i]) != 1)
				m->price[i] = 0;
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
	for (int i = 0; i < LISTS; i++)
		free(m->list[i].text);
	free(m->date);
}

static int cmp_line(const void *pa, const void *pb)
{
	const struct line *a = pa, *b = pb;
	int d = memcmp(a->p, b->p, a->n < b->n ? a->n : b->n);
	return d ? d : (a->n > b->n) - (a->n < b->n);
}

/* The lines of list a, sorted; *n of them. */
static struct line *sorted_lines(const struct list *a, int *n)
{
	struct line *s = malloc(((size_t)a->lines + 1) * sizeof(*s));

	if (!s)
		ab_fail("compare: out of memory");
	*n = 0;
	for (const char *l = a->text; l && *l; l += s[(*n)++].n + 1)
		s[*n] = (struct line){ l, strcspn(l, "\n") };
	qsort(s, (size_t)*n, sizeof(*s), cmp_line);
	return s;
}

/* Keep list l as its hash, whether it is A's (a: A's list, NULL for A's own) and the
 * first line A's lacks (base: A's nb lines, sorted), what a reader looks for first;
 * the text of another run than A goes. */
static void reduce(struct list *l, const struct list *a, const struct line *base, int nb)
{
	l->as_a = !a || (l->present == a->present && l->len == a->len &&
			 (!l->len || !memcmp(l->text, a->text, l->len)));
	l->hash = ab_hash_str(AB_HASH_INIT, l->text ? l->text : "");
	for (const char *p = l->text; base && p && *p; p += strcspn(p, "\n") + 1) {
		struct line key = { p, strcspn(p, "\n") };
		if (!bsearch(&key, base, (size_t)nb, sizeof(*base), cmp_line)) {
			if (!l->has_new)
				snprintf(l->first_new, sizeof(l->first_new), "%.*s", (int)key.n, p);
			size_t o = strlen(l->news);
			if (o + key.n + 2 < sizeof(l->news))
				snprintf(l->news + o, sizeof(l->news) - o, "%.*s\n", (int)key.n, p);
			l->has_new = 1;
		}
	}
	if (base) {	/* another run's: its text goes */
		free(l->text);
		l->text = NULL;
		l->cap = 0;
	}
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Exact against A's list (what the verdicts rest on), by hash between two others. */
static int same_list(const struct list *a, const struct list *b)
{
	if (a->as_a || b->as_a)
		return a->as_a && b->as_a;
	return a->present == b->present && a->len == b->len && a->lines == b->lines &&
	       a->hash == b->hash;
}

static const char *name(int col)
{
	return col < (int)NCOL - LISTS ? facts[col] : list_name[col - ((int)NCOL - LISTS)];
}

/* Do runs a and b agree in column col? */
static int agree(const struct mach *a, const struct mach *b, int col)
{
	int l = col - ((int)NCOL - LISTS);
	return l < 0 ? same(a->fact[col], b->fact[col]) : same_list(&a->list[l], &b->list[l]);
}

/* A cell of at most SHORT characters is written as it is; a column with a longer value
 * (a kernel's uname, a CPU model, any list) gets codes #1, #2, ... and a legend, so 50
 * runs make 50 short rows, not 50 columns of uname strings. */
#define SHORT 16

/* One column: the runs' values numbered by first appearance (code[k], 1-based). */
struct column {
	int col, coded, nval;
	int *code;		/* per run */
	int *first;		/* per code - 1, the first run holding that value */
};

static int number(struct column *c, const struct mach *m, int nr)
{
	int differ = 0;
	c->nval = 0;
	c->coded = c->col >= (int)NCOL - LISTS;
	for (int k = 0; k < nr; k++) {
		int j = 0;
		while (j < c->nval && !agree(&m[c->first[j]], &m[k], c->col))
			j++;
		if (j == c->nval)
			c->first[c->nval++] = k;
		c->code[k] = j + 1;
		differ |= j > 0;
		if (!c->coded) {
			const char *v = m[k].fact[c->col];
			c->coded |= v && strlen(v) > SHORT;
		}
	}
	return differ;
}

/* A's value of the mitigation named in line ("meltdown:Mitigation: PTI"), "absent" without. */
static void a_value(char *out, size_t len, const char *line, size_t n, const struct list *a)
{
	size_t k = strcspn(line, ":");

	snprintf(out, len, "absent");
	for (const char *p = a->text; k < n && p && *p; p += strcspn(p, "\n") + 1)
		if (!strncmp(p, line, k + 1)) {
			snprintf(out, len, "%.*s", (int)(strcspn(p, "\n") - k - 1), p + k + 1);
			return;
		}
}

/* Every mitigation line that differs from A's: a VM with PTI beside one without must show
 * Meltdown's line, not only the first that differs. */
static void mitigation_lines(FILE *md, const char *news, const struct list *a)
{
	char was[VAL_MAX + 1], item[3 * VAL_MAX];

	fputs(", differing from #1's:", md);
	for (const char *p = news; *p; p += strcspn(p, "\n") + 1) {
		size_t n = strcspn(p, "\n"), k = strcspn(p, ":");
		a_value(was, sizeof(was), p, n, a);
		snprintf(item, sizeof(item), "%.*s: %s -> %.*s", (int)k, p, was,
			 k < n ? (int)(n - k - 1) : 0, k < n ? p + k + 1 : "");
		fputs(p == news ? " " : "; ", md);
		h_md_cell(md, item);
	}
}

/* A line per code: fifty kernels make fifty short lines, not one of 3,000 characters. */
static void legend(FILE *md, const struct column *c, const struct mach *m)
{
	int list = c->col - ((int)NCOL - LISTS);
	for (int j = 0; j < c->nval; j++) {
		const struct mach *r = &m[c->first[j]];
		fprintf(md, "- %s #%d: ", name(c->col), j + 1);
		if (list < 0 ? !r->fact[c->col] : !r->list[list].present)
			fputs("absent", md);
		else if (list < 0)
			h_md_cell(md, r->fact[c->col]);
		else {
			fprintf(md, "%d lines", r->list[list].lines);
			if (j && r->list[list].has_new && !strcmp(list_key[list], "mitigation"))
				mitigation_lines(md, r->list[list].news, &m[0].list[list]);
			else if (j && r->list[list].has_new) {
				fputs(", the first not in #1's: ", md);
				h_md_cell(md, r->list[list].first_new);
			}
		}
		fputc('\n', md);
	}
}

static void cell(FILE *md, const struct column *c, const struct mach *m, int k)
{
	const char *v = c->col < (int)NCOL - LISTS ? m[c->first[c->code[k] - 1]].fact[c->col] : NULL;
	fputc(' ', md);
	if (c->coded)
		fprintf(md, "#%d", c->code[k]);
	else
		h_md_cell(md, v ? v : "-");
	fputs(" |", md);
}

/* Characters one cell takes, its " " and " |" included: a code, or the value escaped. */
static size_t cell_len(const struct column *c, const struct mach *m, int k)
{
	const char *v = c->col < (int)NCOL - LISTS ? m[c->first[c->code[k] - 1]].fact[c->col] : NULL;
	size_t n = 3;

	if (c->coded)
		return n + (size_t)snprintf(NULL, 0, "#%d", c->code[k]);
	for (v = v ? v : "-"; *v; v++)	/* as h_md_cell writes it */
		n += 1 + (*v == '|' || *v == '`');
	return n;
}

static size_t col_width(const struct column *c, const struct mach *m, int nr)
{
	size_t w = strlen(name(c->col)) + 3;
	for (int k = 0; k < nr; k++)
		if (cell_len(c, m, k) > w)
			w = cell_len(c, m, k);
	return w;
}

/* A table's rows stay this narrow: past it, the next columns open another table, each
 * with the run column, where a machine.txt with every fact made one of 190 characters. */
#define TABLE_WIDTH 120

/* One table of columns col[0..nc), a row per run. */
static void part(FILE *md, const struct column *col, int nc, const struct mach *m, int nr)
{
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
			cell(md, &col[i], m, k);
		fputc('\n', md);
	}
}

/* The table, a row per run and a column per fact that differs, in parts of at most
 * TABLE_WIDTH characters a row (but one column a part, however wide); returns the
 * columns. */
static int table(FILE *md, struct column *col, const struct mach *m, int nr)
{
	int nc = 0;
	for (int i = 0; i < (int)NCOL; i++) {
		col[nc].col = i;
		nc += number(&col[nc], m, nr);
	}
	if (!nc)
		return 0;
	size_t runw = strlen("| run |");
	for (int k = 0; k < nr; k++) {
		char l[16];
		size_t w = strlen(h_cmp_run_label(l, sizeof(l), k)) + 4 +
			   (m[k].missing ? strlen(" (no machine.txt)") : 0);
		runw = w > runw ? w : runw;
	}
	for (int i = 0, j; i < nc; i = j) {
		size_t w = runw + col_width(&col[i], m, nr);
		for (j = i + 1; j < nc && w + col_width(&col[j], m, nr) <= TABLE_WIDTH; j++)
			w += col_width(&col[j], m, nr);
		if (i)
			fputc('\n', md);
		part(md, col + i, j - i, m, nr);
	}
	int coded = 0;
	for (int i = 0; i < nc; i++)
		coded |= col[i].coded;
	if (coded)
		fputs("\nThe codes (#1 is run A's; knobs: their values before the run):\n\n", md);
	for (int i = 0; i < nc; i++)
		if (col[i].coded)
			legend(md, &col[i], m);
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

/* Measured prices that differ from A's by half again or more, a sentence each. */
static void prices(FILE *md, const struct mach *m, int nr)
{
	static const char *const what[NPRICE] = { "syscalls", "same-CPU pipe round trips" };

	for (int k = 1; k < nr; k++)
		for (int i = 0; i < NPRICE; i++) {
			double a = m[0].price[i], b = m[k].price[i];
			char l[16], x[32];
			if (!(a > 0 && b > 0) || (b / a < 1.5 && a / b < 1.5))
				continue;
			fprintf(md, " Run %s's %s cost %s A's (%.0f against %.0f ns, measured at each run's "
				"start): same-CPU round trips differ as much, so cross-CPU ratios shrink or "
				"grow with them.", h_cmp_run_label(l, sizeof(l), k), what[i],
				ab_r_x(x, sizeof(x), b / a), b, a);
		}
}

int h_compare_machines(FILE *md, char *const *dirs, int nr)
{
	struct mach *m = calloc((size_t)nr, sizeof(*m));
	struct column col[NCOL];
	int kernel = 0, other = 0, missing = 0;
	int *codes = calloc((size_t)nr * NCOL, sizeof(*codes));
	int *first = calloc((size_t)nr * NCOL, sizeof(*first));
	struct line *base[LISTS];
	int nbase[LISTS];

	if (!m || !codes || !first)
		ab_fail("compare: out of memory");
	for (int k = 0; k < nr; k++) {	/* one run's text at a time, past A's */
		read_machine(dirs[k], &m[k]);
		missing += m[k].missing;
		for (int i = 0; i < LISTS; i++) {
			if (!k)
				base[i] = sorted_lines(&m[0].list[i], &nbase[i]);
			reduce(&m[k].list[i], k ? &m[0].list[i] : NULL, k ? base[i] : NULL, nbase[i]);
		}
	}
	for (int i = 0; i < LISTS; i++)
		free(base[i]);
	for (size_t i = 0; i < NCOL; i++)
		col[i] = (struct column){ .code = codes + i * (size_t)nr, .first = first + i * (size_t)nr };
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
	prices(md, m, nr);
	if (missing)
		fputs(" Some runs have no readable machine.txt: their machines are unknown.", md);
	fputs("\n\n", md);
	for (int k = 0; k < nr; k++)
		free_machine(&m[k]);
	free(m);
	free(codes);
	free(first);
	return other || missing;
}
