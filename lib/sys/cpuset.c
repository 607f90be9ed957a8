// SPDX-License-Identifier: GPL-2.0
/*
 * CPU sets as fixed bitmaps of AB_MAX_CPUS bits, so CPU numbers past 64 (and
 * past glibc's 1024-bit cpu_set_t) work, plus the Linux CPU-list syntax
 * ("0-3,8,10-11") used by --cpus, sysfs files and our records.
 */
#include "sys/cpuset.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "sys/common.h"

#define WORD_BITS (8 * (int)sizeof(unsigned long))
#define NR_WORDS ((int)AB_ARRAY_SIZE(((struct ab_cpuset *)0)->bits))

static bool in_range(int cpu)
{
	return cpu >= 0 && cpu < AB_MAX_CPUS;
}

void ab_cpuset_zero(struct ab_cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

void ab_cpuset_set(struct ab_cpuset *s, int cpu)
{
	if (in_range(cpu))
		s->bits[cpu / WORD_BITS] |= 1UL << (cpu % WORD_BITS);
}

void ab_cpuset_clear(struct ab_cpuset *s, int cpu)
{
	if (in_range(cpu))
		s->bits[cpu / WORD_BITS] &= ~(1UL << (cpu % WORD_BITS));
}

bool ab_cpuset_isset(const struct ab_cpuset *s, int cpu)
{
	return in_range(cpu) && (s->bits[cpu / WORD_BITS] >> (cpu % WORD_BITS)) & 1;
}

int ab_cpuset_count(const struct ab_cpuset *s)
{
	int n = 0;

	for (int w = 0; w < NR_WORDS; w++)
		n += __builtin_popcountl(s->bits[w]);
	return n;
}

int ab_cpuset_next(const struct ab_cpuset *s, int from)
{
	if (from < 0)
		from = 0;
	if (from >= AB_MAX_CPUS)
		return -1;
	int w = from / WORD_BITS;
	/* Mask off the bits below 'from' in its word, then scan whole words. */
	unsigned long word = s->bits[w] & (~0UL << (from % WORD_BITS));
	for (;;) {
		if (word)
			return w * WORD_BITS + __builtin_ctzl(word);
		if (++w >= NR_WORDS)
			return -1;
		word = s->bits[w];
	}
}

int ab_cpuset_nth(const struct ab_cpuset *s, int n)
{
	int cpu;

	if (n < 0)
		return -1;
	ab_cpuset_for_each(cpu, s)
		if (n-- == 0)
			return cpu;
	return -1;
}

void ab_cpuset_and(struct ab_cpuset *dst, const struct ab_cpuset *a, const struct ab_cpuset *b)
{
	for (int w = 0; w < NR_WORDS; w++)
		dst->bits[w] = a->bits[w] & b->bits[w];
}

/*
 * Reads a CPU number at *p (digits only: no sign, no blanks). Returns the
 * number, AB_MAX_CPUS for anything too large, or -1 if *p is not a digit.
 */
static int parse_cpu(const char **p)
{
	const char *q = *p;
	long v = 0;

	if (*q < '0' || *q > '9')
		return -1;
	for (; *q >= '0' && *q <= '9'; q++)
		if (v < AB_MAX_CPUS)
			v = v * 10 + (*q - '0');
	*p = q;
	return v < AB_MAX_CPUS ? (int)v : AB_MAX_CPUS;
}

int ab_cpuset_parse(struct ab_cpuset *s, const char *list, const struct ab_cpuset *allowed,
		    char *err, size_t errlen)
{
	struct ab_cpuset tmp;
	char allowed_str[256];
	size_t len;

	if (!list)
		return ab_err(err, errlen, "bad CPU list: none given");
	/* sysfs files end in a newline; accept trailing blanks, nothing else. */
	len = strlen(list);
	while (len > 0 && (list[len - 1] == '\n' || list[len - 1] == ' ' || list[len - 1] == '\t'))
		len--;
	if (len == 0)
		return ab_err(err, errlen, "bad CPU list '': empty");
	if (len > INT_MAX)
		return ab_err(err, errlen, "bad CPU list: too long");

	ab_cpuset_zero(&tmp);
	const char *end = list + len;
	const char *p = list;
	for (;;) {
		const char *tok = p;
		const char *tok_end = memchr(tok, ',', (size_t)(end - tok));
		if (!tok_end)
			tok_end = end;
		int tl = (int)(tok_end - tok);
		int lo, hi;

		if (tl == 0)
			return ab_err(err, errlen, "bad CPU list '%.*s': empty entry", (int)len, list);
		lo = parse_cpu(&p);
		if (lo < 0)
			return ab_err(err, errlen, "bad CPU list '%.*s': '%.*s' is not a CPU number",
				      (int)len, list, tl, tok);
		hi = lo;
		if (p < tok_end && *p == '-') {
			p++;
			if (p == tok_end)
				return ab_err(err, errlen, "bad CPU list '%.*s': range '%.*s' has no end",
					      (int)len, list, tl, tok);
			hi = parse_cpu(&p);
			if (hi < 0)
				return ab_err(err, errlen,
					      "bad CPU list '%.*s': range '%.*s' does not end in a CPU number",
					      (int)len, list, tl, tok);
		}
		if (p != tok_end)
			return ab_err(err, errlen, "bad CPU list '%.*s': '%.*s' is not a CPU number or range",
				      (int)len, list, tl, tok);
		if (lo >= AB_MAX_CPUS || hi >= AB_MAX_CPUS)
			return ab_err(err, errlen, "bad CPU list '%.*s': '%.*s' is past the largest CPU %d",
				      (int)len, list, tl, tok, AB_MAX_CPUS - 1);
		if (hi < lo)
			return ab_err(err, errlen, "bad CPU list '%.*s': range '%.*s' is reversed",
				      (int)len, list, tl, tok);
		for (int cpu = lo; cpu <= hi; cpu++) {
			if (allowed && !ab_cpuset_isset(allowed, cpu)) {
				if (ab_cpuset_format(allowed, allowed_str, sizeof(allowed_str)) < 0)
					snprintf(allowed_str, sizeof(allowed_str), "%d CPUs",
						 ab_cpuset_count(allowed));
				return ab_err(err, errlen, "CPU %d in '%.*s' is not allowed (allowed: %s)",
					      cpu, tl, tok, allowed_str);
			}
			ab_cpuset_set(&tmp, cpu);
		}
		if (tok_end == end)
			break;
		p = tok_end + 1;
		if (p == end)
			return ab_err(err, errlen, "bad CPU list '%.*s': empty entry at the end",
				      (int)len, list);
	}
	*s = tmp;
	return 0;
}

int ab_cpuset_format(const struct ab_cpuset *s, char *buf, size_t len)
{
	size_t off = 0;
	int lo = ab_cpuset_next(s, 0);

	if (len == 0)
		return -1;
	buf[0] = '\0';
	while (lo >= 0) {
		int hi = lo;
		while (ab_cpuset_isset(s, hi + 1))
			hi++;
		int r = hi == lo ? snprintf(buf + off, len - off, "%s%d", off ? "," : "", lo)
				 : snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", lo, hi);
		if (r < 0 || (size_t)r >= len - off) {
			buf[off] = '\0';
			return -1;
		}
		off += (size_t)r;
		lo = ab_cpuset_next(s, hi + 1);
	}
	return (int)off;
}

int ab_cpuset_allowed(struct ab_cpuset *s)
{
	/*
	 * The kernel refuses (EINVAL) a mask smaller than its nr_cpu_ids, which we
	 * cannot know up front: start at glibc's size and double.
	 */
	for (int ncpus = CPU_SETSIZE; ncpus <= AB_MAX_CPUS; ncpus *= 2) {
		cpu_set_t *k = CPU_ALLOC(ncpus);
		size_t size = CPU_ALLOC_SIZE(ncpus);

		if (!k)
			return -1;
		CPU_ZERO_S(size, k);
		if (sched_getaffinity(0, size, k) < 0) {
			int e = errno;
			CPU_FREE(k);
			if (e == EINVAL)
				continue;
			errno = e;
			return -1;
		}
		ab_cpuset_zero(s);
		for (int cpu = 0; cpu < ncpus; cpu++)
			if (CPU_ISSET_S(cpu, size, k))
				ab_cpuset_set(s, cpu);
		CPU_FREE(k);
		return 0;
	}
	errno = EINVAL;
	return -1;
}

cpu_set_t *ab_cpuset_to_kernel(const struct ab_cpuset *s, size_t *size)
{
	int cpu, ncpus = 1;

	ab_cpuset_for_each(cpu, s)
		ncpus = cpu + 1;
	cpu_set_t *k = CPU_ALLOC(ncpus);
	if (!k)
		return NULL;
	*size = CPU_ALLOC_SIZE(ncpus);
	CPU_ZERO_S(*size, k);
	ab_cpuset_for_each(cpu, s)
		CPU_SET_S(cpu, *size, k);
	return k;
}
