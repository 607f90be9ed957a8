/*
 * harness compare's labels (compare.h): configs shortened to the keys that vary
 * within their benchmark, for the terminal table (values, with a legend) and
 * compare.md (key=value), run labels A, B, ..., and the terminal's legends, all
 * within 100 columns. Directory names are outside text: escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/common.h"
#include "harness.h"
#include "compare.h"

/* s cut to w columns with a '~' where it was cut, so a cut name never passes for whole. */
char *h_cmp_term_cut(char *s, size_t w)
{
	if (strlen(s) > w) {
		s[w - 1] = '~';
		s[w] = '\0';
	}
	return s;
}

static int cfg_varies(const struct ab_results *d, const char *bench, const char *key)
{
	char v0[AB_VALUE_LEN] = "", v[AB_VALUE_LEN];
	int seen = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (strcmp(d->g[i].bench, bench))
			continue;
		ab_cfg_get(d->g[i].config, key, v, sizeof(v));
		if (!seen++)
			memcpy(v0, v, sizeof(v0));
		else if (strcmp(v, v0))
			return 1;
	}
	return 0;
}

static const struct shortkeys *short_keys(struct cmp *c, const char *bench)
{
	for (int i = 0; i < c->nsk; i++)
		if (!strcmp(c->sk[i].bench, bench))
			return &c->sk[i];
	if (c->nsk == (int)AB_ARRAY_SIZE(c->sk))
		return NULL;
	struct shortkeys *s = &c->sk[c->nsk++];
	memset(s, 0, sizeof(*s));
	snprintf(s->bench, sizeof(s->bench), "%s", bench);
	for (size_t i = 0; i < c->d[0].n; i++) {	/* every key any of bench's configs holds */
		if (strcmp(c->d[0].g[i].bench, bench))
			continue;
		char tmp[AB_CONFIG_LEN], *save = NULL;
		snprintf(tmp, sizeof(tmp), "%s", c->d[0].g[i].config);
		for (char *kv = strtok_r(tmp, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
			kv[strcspn(kv, "=")] = '\0';
			int have = 0;
			for (int k = 0; k < s->n; k++)
				have |= !strcmp(s->key[k], kv);
			if (!have && s->n < 16 && cfg_varies(&c->d[0], bench, kv))
				snprintf(s->key[s->n++], sizeof(s->key[0]), "%s", kv);
		}
	}
	return s;
}

const char *h_cmp_short_cfg(struct cmp *c, const struct ab_group *g, char *buf, size_t len)
{
	const struct shortkeys *s = short_keys(c, g->bench);
	char v[AB_VALUE_LEN];
	size_t o = 0;

	if (!s || !s->n)
		return snprintf(buf, len, "%s", s ? "-" : g->config), buf;
	buf[0] = '\0';
	for (int k = 0; k < s->n; k++)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", k ? "/" : "",
				      ab_cfg_get(g->config, s->key[k], v, sizeof(v))[0] ? v : "-");
	return buf;
}

/* compare.md's config cell: "daemon=single, placement=none", the keys that vary within the
 * benchmark, so a row stays readable; compare.csv keeps the whole config. */
/* Is key one of the benchmark's varying keys (s)? */
static int short_key(const char *key, void *ctx)
{
	const struct shortkeys *s = ctx;

	for (int k = 0; k < s->n; k++)
		if (!strcmp(s->key[k], key))
			return 1;
	return 0;
}

void h_cmp_md_cfg(FILE *f, struct cmp *c, const struct ab_group *g)
{
	const struct shortkeys *s = short_keys(c, g->bench);

	if (s)
		h_md_cfg_label(f, g->config, short_key, (void *)s);
	else
		h_md_cell(f, g->config);
}

void h_cmp_term_legend(struct cmp *c)
{
	int told[AB_ARRAY_SIZE(c->sk)] = { 0 };

	for (size_t i = 0; i < c->d[0].n; i++) {
		const struct shortkeys *s = short_keys(c, c->d[0].g[i].bench);
		if (!s || told[s - c->sk]++)
			continue;
		printf("%s configs:", s->bench);
		for (int k = 0; k < s->n; k++)
			printf("%s%s", k ? "/" : " ", s->key[k]);
		printf("%s\n", s->n ? "" : " (one)");
	}
}

/* A, B, ... Z, then #26, #27, ...: the run's label in the terminal table. */
const char *h_cmp_run_label(char *buf, size_t len, int k)
{
	if (k < 26)
		snprintf(buf, len, "%c", 'A' + k);
	else
		snprintf(buf, len, "#%d", k);
	return buf;
}

/* "run B: DIR", within 100 columns: a longer DIR keeps its end (compare.md has it whole). */
void h_cmp_run_legend(struct cmp *c, int k)
{
	char l[16], *esc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&esc, &len);

	if (f) {
		h_md_cell(f, c->dirs[k]);	/* outside text: escaped */
		fclose(f);
	}
	int room = 100 - (int)strlen("run : ") - (int)strlen(h_cmp_run_label(l, sizeof(l), k));
	if (!esc || (int)len <= room)
		printf("run %s: %s\n", l, esc ? esc : "?");
	else {
		const char *tail = esc + len - (size_t)(room - 3);
		while ((*tail & 0xc0) == 0x80)	/* not inside a UTF-8 character */
			tail++;
		printf("run %s: ...%s\n", l, tail);
	}
	free(esc);
}
