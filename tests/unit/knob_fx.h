/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by test_knob.c, test_knob_proc.c and test_knob_replay.c
 * (lib/knob/knob.c): the fake sysfs/procfs tree in a mkdtemp directory (under
 * $AFFBENCH_WORKDIR, else /tmp) that each test starts from, file and journal
 * helpers, and the setup/teardown of the tree and of two reaped pids.
 */
#ifndef KNOB_FX_H
#define KNOB_FX_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "knob/knob.h"

#define RQ "/sys/block/vda/queue/rq_affinity"
#define IRQL "/proc/irq/24/smp_affinity_list"
#define IRQM "/proc/irq/24/smp_affinity"
#define BG "/sys/fs/fuse/connections/40/max_background"
#define CONG "/sys/fs/fuse/connections/40/congestion_threshold"
#define URING "/sys/module/fuse/parameters/enable_uring"
#define PASSWD "/etc/passwd"
#define SCHED "/sys/block/vda/queue/scheduler"

/* The fake tree every test starts from. */
static const struct {
	const char *path, *init;
} tree[] = {
	{ RQ, "1\n" },
	{ IRQL, "0-1\n" },
	{ IRQM, "3\n" },
	{ BG, "12\n" },
	{ CONG, "9\n" },
	{ URING, "N\n" },
	{ PASSWD, "root:x:0:0:root:/root:/bin/bash\n" },
	{ SCHED, "none\n" },
};

struct fx {
	char dir[1024];		/* short enough that dir + any knob path fits PATH_MAX */
	char journal[PATH_MAX];
};

static pid_t dead_pid[2];	/* reaped children: kill(pid, 0) says ESRCH */

static inline const char *in(const struct fx *f, const char *path)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s%s", f->dir, path);
	return buf[k];
}

static inline void put_file(const char *full, const char *content)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", full);
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", dir, strerror(errno));
		*s = '/';
	}
	FILE *fp = fopen(full, "w");
	if (!fp)
		fail_msg("create %s: %s", full, strerror(errno));
	fputs(content, fp);
	if (fclose(fp) != 0)
		fail_msg("write %s: %s", full, strerror(errno));
}

/* Whole file, exactly; "<missing>" when it does not exist. */
static inline const char *get_file(const char *full)
{
	static char buf[4][8192];
	static int k;
	FILE *fp = fopen(full, "r");

	k = (k + 1) % 4;
	if (!fp)
		return "<missing>";
	size_t n = fread(buf[k], 1, sizeof(buf[k]) - 1, fp);
	buf[k][n] = '\0';
	fclose(fp);
	return buf[k];
}

/* How many lines of the journal are exactly line (which ends in '\n'). */
static inline int count_line(const char *journal, const char *line)
{
	const char *text = get_file(journal);
	size_t len = strlen(line);
	int n = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (l == len && memcmp(p, line, len) == 0)
			n++;
		p += l;
	}
	return n;
}

/* This boot's id, as the journal lines carry it. */
static inline const char *boot(void)
{
	static char id[64];

	if (!id[0]) {
		snprintf(id, sizeof(id), "%s", get_file("/proc/sys/kernel/random/boot_id"));
		id[strcspn(id, "\n")] = '\0';
	}
	return id;
}

/* How many journal lines start with "<boot>\t<pid>\t". */
static inline int count_pid(const char *journal, pid_t pid)
{
	char pre[96];
	const char *text = get_file(journal);
	int n = 0;

	snprintf(pre, sizeof(pre), "%s\t%ld\t", boot(), (long)pid);
	for (const char *p = text; *p;) {
		if (strncmp(p, pre, strlen(pre)) == 0)
			n++;
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

/* A journal line of this boot: an entry (tries 0) or, with orig NULL, a done line. */
static inline const char *jline_tries(pid_t pid, const char *path, const char *orig, int tries)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	if (orig)
		snprintf(buf[k], sizeof(buf[k]), "%s\t%ld\t%d\t%s\t%s\n", boot(), (long)pid, tries,
			 path, orig);
	else
		snprintf(buf[k], sizeof(buf[k]), "%s\t%ld\tdone\n", boot(), (long)pid);
	return buf[k];
}

static inline const char *jline(pid_t pid, const char *path, const char *orig)
{
	return jline_tries(pid, path, orig, 0);
}

static inline void assert_tree_pristine(const struct fx *f)
{
	for (size_t i = 0; i < AB_ARRAY_SIZE(tree); i++)
		if (strcmp(get_file(in(f, tree[i].path)), tree[i].init) != 0)
			fail_msg("%s is '%s', want '%s'", tree[i].path, get_file(in(f, tree[i].path)),
				 tree[i].init);
}

static inline int rm_one(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(p);
}

static inline int group_setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < AB_ARRAY_SIZE(dead_pid); i++) {
		pid_t p = fork();
		if (p < 0)
			return -1;
		if (p == 0)
			_exit(0);
		if (waitpid(p, NULL, 0) != p)
			return -1;
		dead_pid[i] = p;
	}
	return 0;
}

static inline int setup(void **state)
{
	static struct fx f;
	const char *base = getenv("AFFBENCH_WORKDIR");

	snprintf(f.dir, sizeof(f.dir), "%s/knobtest.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(f.dir)) {
		fprintf(stderr, "mkdtemp %s: %s\n", f.dir, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < AB_ARRAY_SIZE(tree); i++)
		put_file(in(&f, tree[i].path), tree[i].init);
	/* The journal's directory does not exist yet: the module creates it 0700. */
	snprintf(f.journal, sizeof(f.journal), "%s/state/knobs.journal", f.dir);
	if (ab_knob_init(f.dir, f.journal) != 0)
		return -1;
	*state = &f;
	return 0;
}

static inline int teardown(void **state)
{
	struct fx *f = *state;

	ab_knob_restore_all();
	return nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
