// SPDX-License-Identifier: GPL-2.0
/* The open entries of a knob journal during a replay (pending_i.h). */
#include "knob/pending_i.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "knob/journal_i.h"
#include "sys/grow.h"

/* pid's slot: Fibonacci hashing, the product's top bits. Its low bits would follow the
 * pid's own: pids that are multiples of 1024 would share a handful of slots, and every
 * line would walk a run of thousands (a crafted journal). */
static size_t slot_of(struct kp_tab *t, pid_t pid)
{
	unsigned bits = (unsigned)__builtin_ctzl(t->nslots);
	size_t h = (uint32_t)((uint32_t)pid * 2654435761u) >> (32 - bits);

	t->steps++;
	while (t->key[h] && t->key[h] != pid) {
		h = (h + 1) & (t->nslots - 1);
		t->steps++;
	}
	return h;
}

/* The pid hash, rebuilt for the entries there are (chains newest first). */
static int rehash(struct kp_tab *t)
{
	size_t ns = 16;

	while (ns < 2 * t->cap)
		ns *= 2;
	if (ns != t->nslots) {	/* the same size is reused: a compaction cannot fail */
		pid_t *key = malloc(ns * sizeof(*key));
		long *newest = malloc(ns * sizeof(*newest));
		if (!key || !newest) {
			free(key);
			free(newest);
			errno = ENOMEM;
			return -1;
		}
		free(t->key);
		free(t->newest);
		t->key = key;
		t->newest = newest;
		t->nslots = ns;
	}
	memset(t->key, 0, ns * sizeof(*t->key));
	for (size_t i = 0; i < t->n; i++) {
		if (!t->v[i].path)
			continue;
		size_t h = slot_of(t, t->v[i].pid);
		if (!t->key[h]) {
			t->key[h] = t->v[i].pid;
			t->newest[h] = -1;
		}
		t->v[i].prev = t->newest[h];
		t->newest[h] = (long)i;
	}
	return 0;
}

void kp_compact(struct kp_tab *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].path)
			t->v[k++] = t->v[i];
	t->steps += t->n;
	t->n = k;
	if (t->nslots)
		rehash(t);	/* the same size: reuses its slots, cannot fail */
}

/* Room for one more entry: closed ones compacted away when they are half, else
 * the table doubles. 0, or -1 with errno. */
static int room(struct kp_tab *t)
{
	if (t->n < t->cap)
		return 0;
	if (t->open >= KNOB_PENDING_MAX) {
		errno = E2BIG;
		return -1;
	}
	if (t->cap && t->open <= t->cap / 2) {
		kp_compact(t);
		return 0;
	}
	if (ab_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v), 64) < 0)
		return -1;
	return rehash(t);
}

static void close_pid(struct kp_tab *t, pid_t pid)
{
	if (!t->nslots)
		return;
	size_t h = slot_of(t, pid);
	if (!t->key[h])
		return;
	for (long i = t->newest[h]; i >= 0; i = t->v[i].prev) {
		free(t->v[i].path);
		free(t->v[i].orig);
		t->v[i].path = t->v[i].orig = NULL;
		t->open--;
	}
	t->newest[h] = -1;
}

int kp_add(struct kp_tab *t, const struct kp_line *l)
{
	if (l->done) {
		close_pid(t, l->pid);
		return 0;
	}
	if (room(t) < 0)
		return -1;
	struct kp_ent *e = &t->v[t->n];
	*e = (struct kp_ent){ .lineno = l->lineno, .pid = l->pid, .tries = l->tries,
			      .path = strdup(l->path), .orig = strdup(l->orig) };
	if (!e->path || !e->orig) {
		free(e->path);
		free(e->orig);
		errno = ENOMEM;
		return -1;
	}
	size_t h = slot_of(t, l->pid);
	if (!t->key[h]) {
		t->key[h] = l->pid;
		t->newest[h] = -1;
	}
	e->prev = t->newest[h];
	t->newest[h] = (long)t->n++;
	t->open++;
	return 0;
}

void kp_free(struct kp_tab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].path);
		free(t->v[i].orig);
	}
	free(t->v);
	free(t->key);
	free(t->newest);
	memset(t, 0, sizeof(*t));
}
