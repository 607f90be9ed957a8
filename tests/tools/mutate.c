/*
 * Seeded mutations of a file, for the raw.csv fuzz test: 1 to 4 of truncation,
 * byte flips (NUL, quotes, commas, newlines, high bytes), inserted quotes, a
 * huge field, a duplicated or deleted line. The same seed gives the same file.
 *   mutate SEED IN OUT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint64_t next(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t pick(size_t n)
{
	return n ? (size_t)(next() % n) : 0;
}

/* Replace [at, at + del) of buf by ins (len ilen). */
static void splice(char **buf, size_t *len, size_t at, size_t del, const char *ins, size_t ilen)
{
	char *nb = malloc(*len - del + ilen + 1);

	if (!nb)
		exit(1);
	memcpy(nb, *buf, at);
	memcpy(nb + at, ins, ilen);
	memcpy(nb + at + ilen, *buf + at + del, *len - at - del);
	*len = *len - del + ilen;
	free(*buf);
	*buf = nb;
}

static size_t line_start(const char *buf, size_t at)
{
	while (at > 0 && buf[at - 1] != '\n')
		at--;
	return at;
}

static void mutate(char **buf, size_t *len)
{
	static const char bytes[] = { '\0', '"', '\'', ',', '\n', '\r', ';', '=', '\\', '<', '|', '$', '\xff' };
	size_t at = pick(*len + 1);

	switch (pick(6)) {
	case 0:	/* truncate */
		*len = at;
		break;
	case 1:	/* flip a byte */
		if (*len)
			(*buf)[pick(*len)] = bytes[pick(sizeof(bytes))];
		break;
	case 2:	/* insert quotes */
		splice(buf, len, at, 0, "'\"'\"", 1 + pick(4));
		break;
	case 3: {	/* a huge field */
		size_t n = 1000 + pick(20000);
		char *big = malloc(n);
		if (!big)
			exit(1);
		memset(big, pick(2) ? 'A' : '9', n);
		splice(buf, len, at, 0, big, n);
		free(big);
		break;
	}
	case 4: {	/* duplicate a line */
		size_t s = line_start(*buf, at), e = s;
		while (e < *len && (*buf)[e] != '\n')
			e++;
		char *copy = malloc(e - s + 1);
		if (!copy)
			exit(1);
		memcpy(copy, *buf + s, e - s);
		copy[e - s] = '\n';
		splice(buf, len, s, 0, copy, e - s + 1);
		free(copy);
		break;
	}
	default: {	/* delete a line */
		size_t s = line_start(*buf, at), e = s;
		while (e < *len && (*buf)[e] != '\n')
			e++;
		splice(buf, len, s, e < *len ? e - s + 1 : e - s, "", 0);
	}
	}
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	state = strtoull(argv[1], NULL, 10) * 7919 + 1;
	FILE *in = fopen(argv[2], "rb");
	if (!in)
		return 1;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (int c; (c = fgetc(in)) != EOF;) {
		if (len + 1 >= cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				return 1;
		}
		buf[len++] = (char)c;
	}
	fclose(in);
	for (size_t k = 1 + pick(4); k > 0; k--)
		mutate(&buf, &len);
	FILE *out = fopen(argv[3], "wb");
	if (!out || fwrite(buf, 1, len, out) != len || fclose(out))
		return 1;
	free(buf);
	return 0;
}
