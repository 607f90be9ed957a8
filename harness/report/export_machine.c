// SPDX-License-Identifier: GPL-2.0
/*
 * results.json's "machine" object from machine.txt's "label value" lines:
 * facts, knobs before and after, topology, mitigations. machine.txt may come
 * from anyone, and a JSON object with a key twice means whatever its reader
 * makes of it, so each key is written once: the last line of a label wins (a
 * resumed run appends its "after" lines), and one line on stderr names the
 * first key given twice, which line was kept, and how many more there were.
 * A discovery's "<bench>_knob" lines are a list, not a key given twice: one
 * fact, the paths space-separated. Lines are sorted once by (section, key,
 * line) to find repeats: n log n.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "record/record.h"
#include "sys/common.h"
#include "sys/grow.h"
#include "sys/infile.h"

enum section { FACTS, TOPOLOGY, MITIGATIONS, KNOBS_BEFORE, KNOBS_AFTER, NSECTIONS };

struct entry {
	enum section sec;
	char *key, *val;	/* key NULL: topology, a list */
	size_t line;
	int dropped;		/* a later line gives its key */
};

struct entries {
	struct entry *e;
	size_t n, cap;
};

static int push(struct entries *es, enum section sec, const char *key, const char *val,
		size_t line)
{
	if (ab_grow(&es->e, &es->cap, es->n + 1, sizeof(*es->e), 64) < 0)
		return -1;
	struct entry *e = &es->e[es->n];
	*e = (struct entry){ .sec = sec, .line = line };
	e->key = key ? strdup(key) : NULL;
	e->val = strdup(val);
	if ((key && !e->key) || !e->val) {
		free(e->key);
		free(e->val);
		return -1;
	}
	es->n++;
	return 0;
}

/* One line of machine.txt into its section. 0, or -1 out of memory. */
static int parse(struct entries *es, char *line, size_t lineno)
{
	char *sp = strchr(line, ' ');

	if (!sp)
		return 0;
	*sp = '\0';
	char *v = sp + 1 + strspn(sp + 1, " ");
	if (!strcmp(line, "mitigation")) {
		char *c = strchr(v, ':');
		if (!c)
			return 0;
		*c = '\0';
		return push(es, MITIGATIONS, v, c + 1, lineno);
	}
	if (!strcmp(line, "topology"))
		return push(es, TOPOLOGY, NULL, v, lineno);
	if (!strcmp(line, "knob")) {
		int after = !strncmp(v, "after", 5);
		char *p = v + strcspn(v, " "), *eq;
		p += strspn(p, " ");
		if (!(after || !strncmp(v, "before", 6)) || !(eq = strstr(p, " = ")))
			return 0;
		*eq = '\0';
		return push(es, after ? KNOBS_AFTER : KNOBS_BEFORE, p, eq + 3, lineno);
	}
	return push(es, FACTS, line, v, lineno);
}

static int by_key(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;
	int c = (int)x->sec - (int)y->sec;

	if (!c && x->key && y->key)
		c = strcmp(x->key, y->key);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int same_key(const struct entry *a, const struct entry *b)
{
	return a->key && b->key && a->sec == b->sec && !strcmp(a->key, b->key);
}

/* A discovery's "<bench>_knob PATH" lines are a list: one fact, the paths in file order. */
static int is_list(const struct entry *e)
{
	size_t l = strlen(e->key);

	return e->sec == FACTS && l > 5 && !strcmp(e->key + l - 5, "_knob");
}

/* p[0..n) of one key, in line order: the first keeps them all, space-separated. */
static int join(struct entry **p, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += strlen(p[i]->val) + 1;
	char *all = malloc(len), *w = all;
	if (!all)
		return -1;
	for (size_t i = 0; i < n; i++) {
		w = stpcpy(w, p[i]->val);
		*w++ = i + 1 < n ? ' ' : '\0';
		p[i]->dropped = i > 0;
	}
	free(p[0]->val);
	p[0]->val = all;
	return 0;
}

/*
 * Each key once: every line but the last of its key is dropped (a list is
 * joined), and the first key given twice is said, with the line kept and how
 * many more keys repeat. 0 or -1 (ENOMEM).
 */
static int dedup(struct entries *es, const char *path)
{
	struct entry **p = malloc((es->n ? es->n : 1) * sizeof(*p));
	const struct entry *first = NULL, *kept = NULL;
	size_t more = 0;
	int rc = 0;

	if (!p)
		return -1;
	for (size_t i = 0; i < es->n; i++)
		p[i] = &es->e[i];
	qsort(p, es->n, sizeof(*p), by_key);
	for (size_t i = 0, j; i < es->n; i = j) {
		for (j = i + 1; j < es->n && same_key(p[i], p[j]); j++)
			p[j - 1]->dropped = 1;
		if (j - i == 1)
			continue;
		if (is_list(p[i])) {
			rc |= join(p + i, j - i);
			continue;
		}
		if (first && p[i]->line > first->line) {
			more++;
			continue;
		}
		more += first != NULL;
		first = p[i];
		kept = p[j - 1];
	}
	free(p);
	if (first && more)
		ab_msg("%s:%zu: '%s' given again (line %zu has it): results.json keeps line %zu's; "
		       "%zu more keys repeated, the last line of each kept", path, kept->line,
		       first->key, first->line, kept->line, more);
	else if (first)
		ab_msg("%s:%zu: '%s' given again (line %zu has it): results.json keeps line %zu's",
		       path, kept->line, first->key, first->line, kept->line);
	return rc;
}

static void section(FILE *f, const struct entries *es, enum section sec, const char *name)
{
	int first = 1;

	fprintf(f, "%s\"%s\":%c", sec == FACTS ? "" : ",", name, sec == TOPOLOGY ? '[' : '{');
	for (size_t i = 0; i < es->n; i++) {
		const struct entry *e = &es->e[i];
		if (e->sec != sec || e->dropped)
			continue;
		fputs(first ? "" : ",", f);
		first = 0;
		if (e->key) {
			ab_json_string(f, e->key);
			fputc(':', f);
		}
		ab_json_string(f, e->val);
	}
	fputc(sec == TOPOLOGY ? ']' : '}', f);
}

void h_json_machine(FILE *f, const char *dir)
{
	static const char *const names[NSECTIONS] = {
		"facts", "topology", "mitigations", "knobs_before", "knobs_after",
	};
	char path[PATH_MAX], err[256], *line = NULL;
	struct entries es = { 0 };
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int oom = 0;

	snprintf(path, sizeof(path), "%s/machine.txt", dir);
	FILE *in = ab_infile_open(path, AB_INFILE_MAX_SMALL, err, sizeof(err));
	while (in && !oom && (n = ab_infile_line(in, &line, &cap)) != -1) {
		lineno++;
		if (n >= 0)	/* a line over the limit is not ours */
			oom = parse(&es, line, lineno) < 0;
	}
	if (in)
		fclose(in);
	free(line);
	if (oom || dedup(&es, path) < 0) {
		ab_msg("%s: out of memory: results.json lists none of it", path);
		for (size_t i = 0; i < es.n; i++)
			es.e[i].dropped = 1;
	}
	fputs("\"machine\":{", f);
	for (int s = 0; s < NSECTIONS; s++)
		section(f, &es, (enum section)s, names[s]);
	fputc('}', f);
	for (size_t i = 0; i < es.n; i++) {
		free(es.e[i].key);
		free(es.e[i].val);
	}
	free(es.e);
}
