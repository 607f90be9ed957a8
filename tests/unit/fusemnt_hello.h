/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the test_fusemnt*.c tests (through fusemnt_fx.h): a tiny hello
 * filesystem (root + one file) on the libfuse low-level API, and the daemon
 * bodies run in an ab_daemon_start child (serve it, exit, kill itself, never
 * mount).
 */
#ifndef FUSEMNT_HELLO_H
#define FUSEMNT_HELLO_H

/* ---- the hello filesystem ---- */

enum { HELLO_ROOT_INO = FUSE_ROOT_ID, HELLO_FILE_INO = 2 };
static const char hello_name[] = "hello";

struct hello_fs {
	const char *text;
	size_t len;
};

static inline int hello_stat(struct hello_fs *fs, fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == HELLO_ROOT_INO) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (ino == HELLO_FILE_INO) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = (off_t)fs->len;
	} else {
		return -1;
	}
	return 0;
}

/* Timeouts 0: every lookup and stat reaches the daemon, so a hung daemon is felt. */
static inline void hello_ll_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	if (parent != HELLO_ROOT_INO || strcmp(name, hello_name) != 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	e.ino = HELLO_FILE_INO;
	hello_stat(fuse_req_userdata(req), e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static inline void hello_ll_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (hello_stat(fuse_req_userdata(req), ino, &st) < 0)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, 0.0);
}

static inline void hello_ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != HELLO_FILE_INO)
		fuse_reply_err(req, EISDIR);
	else if ((fi->flags & O_ACCMODE) != O_RDONLY)
		fuse_reply_err(req, EACCES);
	else
		fuse_reply_open(req, fi);
}

static inline void hello_ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			  struct fuse_file_info *fi)
{
	struct hello_fs *fs = fuse_req_userdata(req);

	(void)ino;
	(void)fi;
	if ((size_t)off >= fs->len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, fs->text + off, size < fs->len - off ? size : fs->len - off);
}

static const struct fuse_lowlevel_ops hello_ops = {
	.lookup = hello_ll_lookup,
	.getattr = hello_ll_getattr,
	.open = hello_ll_open,
	.read = hello_ll_read,
};

static const char hello_text[] = "Hello from the affbench test filesystem\n";

/* ---- daemon bodies (run in the ab_daemon_start child) ---- */

struct serve_cfg {
	enum ab_fuse_loop loop;
	const char *name;	/* NULL: "test" */
	int max_threads;
	/* written by the child into shared memory: where it was allowed to run */
	int *seen_ncpus, *seen_cpu;
};

static inline int run_hello(void *arg, const char *mnt)
{
	struct serve_cfg *c = arg;
	struct hello_fs fs = { hello_text, sizeof(hello_text) - 1 };
	cpu_set_t set;

	if (c->seen_ncpus && sched_getaffinity(0, sizeof(set), &set) == 0) {
		*c->seen_ncpus = CPU_COUNT(&set);
		*c->seen_cpu = CPU_COUNT(&set) == 1 ? sched_getcpu() : -1;
	}
	return ab_fuse_serve(&hello_ops, sizeof(hello_ops), &fs, mnt, c->name ? c->name : "test",
			     NULL, c->loop, c->max_threads);
}

/* A mount whose source is not affbench's, as a stranger's filesystem would be. */
static inline int run_foreign(void *arg, const char *mnt)
{
	char *argv[] = { "foreign", "-o", "fsname=foreign-fs,subtype=hello", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct hello_fs fs = { hello_text, sizeof(hello_text) - 1 };
	int rc = 1;

	(void)arg;
	struct fuse_session *se = fuse_session_new(&args, &hello_ops, sizeof(hello_ops), &fs);
	if (se && fuse_session_mount(se, mnt) == 0) {
		rc = fuse_session_loop(se) == 0 ? 0 : 1;
		fuse_session_unmount(se);
	}
	if (se)
		fuse_session_destroy(se);
	return rc;
}

static inline int run_exit1(void *arg, const char *mnt)
{
	(void)arg;
	(void)mnt;
	return 1;
}

static inline int run_killself(void *arg, const char *mnt)
{
	(void)arg;
	(void)mnt;
	kill(getpid(), SIGKILL);
	return 0;
}

static inline int run_never_mount(void *arg, const char *mnt)
{
	(void)arg;
	(void)mnt;
	for (;;)
		pause();
	return 0;
}

#endif
