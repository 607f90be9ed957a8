/*
 * FUSE mount hygiene (see fusemnt.h): private mountpoints, a daemon in its own
 * pinned process, waiting for the mount with a deadline, unmount (lazy when
 * busy), abort through fusectl, stale-mount cleanup, and the libfuse 3.14
 * session glue our filesystems share.
 *
 * Nothing here stat()s a mountpoint: a stat() on a FUSE mount whose daemon hangs
 * blocks, so mount state and the connection number (the superblock's device
 * minor) come from /proc/self/mountinfo, which never calls into the daemon.
 */
/*
 * 3.12+ API in this file only: the 3.12 loop config is the only way to set
 * max_threads. Callers may use FUSE_USE_VERSION 34: struct fuse_lowlevel_ops
 * has the same layout in both (only ioctl's cmd type differs).
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include "fusemnt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "pin.h"

#define MNT_PREFIX "affbench-mnt-"
#define FUSECTL_DIR "/sys/fs/fuse/connections"
#define MOUNTINFO "/proc/self/mountinfo"

const char *ab_workdir(void)
{
	const char *w = getenv("AFFBENCH_WORKDIR");

	return w && *w ? w : "/tmp";
}

int ab_mnt_mkdir(const char *workdir, char *path, size_t len, char *err, size_t errlen)
{
	if (!workdir)
		workdir = ab_workdir();
	int n = snprintf(path, len, "%s/" MNT_PREFIX "%d-XXXXXX", workdir, (int)getpid());
	if (n < 0 || (size_t)n >= len)
		return ab_err(err, errlen, "mountpoint name under %s does not fit in %zu bytes",
			      workdir, len);
	if (!mkdtemp(path))
		return ab_err(err, errlen, "cannot create a mountpoint under %s: %s", workdir,
			      strerror(errno));
	/* mkdtemp's 0700 is filtered by the umask; a mountpoint is private to us. */
	if (chmod(path, 0700) < 0) {
		int e = errno;
		rmdir(path);
		return ab_err(err, errlen, "chmod 0700 %s: %s", path, strerror(e));
	}
	return 0;
}

/* ---- /proc/self/mountinfo ---- */

struct mi_entry {
	unsigned major, minor;
	char mnt[PATH_MAX];
	char fstype[256];
};

/* Undo the kernel's octal escapes (\040 space, \011 tab, \012 newline, \134 backslash). */
static void unescape(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	while (*src && o + 1 < len) {
		if (src[0] == '\\' && src[1] >= '0' && src[1] <= '3' && src[2] >= '0' &&
		    src[2] <= '7' && src[3] >= '0' && src[3] <= '7') {
			dst[o++] = (char)((src[1] - '0') * 64 + (src[2] - '0') * 8 + (src[3] - '0'));
			src += 4;
		} else {
			dst[o++] = *src++;
		}
	}
	dst[o] = '\0';
}

/*
 * "36 35 98:0 /root /mnt/point rw,noatime master:1 - fuse.hello src rw"
 * Fields: id parent maj:min root mountpoint options [optional...] - fstype source superopts.
 * 0 when parsed, -1 for a line we cannot read.
 */
static int mi_parse(char *line, struct mi_entry *e)
{
	char *save = NULL, *tok;
	int field = 0;

	line[strcspn(line, "\n")] = '\0';
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 2 && sscanf(tok, "%u:%u", &e->major, &e->minor) != 2)
			return -1;
		if (field == 4)
			unescape(e->mnt, sizeof(e->mnt), tok);
		if (field >= 6 && strcmp(tok, "-") == 0) {
			tok = strtok_r(NULL, " ", &save);
			if (!tok)
				return -1;
			snprintf(e->fstype, sizeof(e->fstype), "%s", tok);
			return 0;
		}
	}
	return -1;
}

static int is_fuse_type(const char *fstype)
{
	return strcmp(fstype, "fuse") == 0 || strncmp(fstype, "fuse.", 5) == 0;
}

/*
 * Canonical form of a mountpoint as mountinfo prints it: absolute, no trailing
 * slash, parent resolved with realpath. Only the parent is resolved: realpath on
 * the mountpoint itself would lstat into a possibly hung FUSE root.
 * 0, or -1 when it does not fit (then it cannot be a mountpoint either).
 */
static int canon_path(const char *path, char *out, size_t len)
{
	char tmp[PATH_MAX], parent[PATH_MAX];
	int n;

	if (path[0] != '/' && getcwd(parent, sizeof(parent)))
		n = snprintf(tmp, sizeof(tmp), "%s/%s", parent, path);
	else
		n = snprintf(tmp, sizeof(tmp), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';

	char *slash = strrchr(tmp, '/');
	if (!slash || slash == tmp) {
		n = snprintf(out, len, "%s", tmp);
	} else {
		*slash = '\0';
		if (realpath(tmp, parent))
			n = snprintf(out, len, "%s/%s", strcmp(parent, "/") ? parent : "", slash + 1);
		else
			n = snprintf(out, len, "%s/%s", tmp, slash + 1);
	}
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The topmost mount at path (the last one listed there): 1 found, 0 none, -1 error. */
static int mi_find(const char *path, struct mi_entry *out)
{
	char want[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (canon_path(path, want, sizeof(want)) < 0)
		return 0;
	FILE *f = fopen(MOUNTINFO, "re");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		struct mi_entry e;
		if (mi_parse(line, &e) == 0 && strcmp(e.mnt, want) == 0) {
			*out = e;
			found = 1;
		}
	}
	free(line);
	fclose(f);
	return found;
}

int ab_mnt_is_fuse(const char *path)
{
	struct mi_entry e;

	return mi_find(path, &e) == 1 && is_fuse_type(e.fstype);
}

int ab_mnt_conn(const char *path)
{
	struct mi_entry e;

	if (mi_find(path, &e) != 1 || !is_fuse_type(e.fstype))
		return -1;
	return (int)e.minor;
}

/* ---- fusectl ---- */

static int write_abort(const char *file)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, "1", 1);
	int e = errno;
	close(fd);
	errno = e;
	return w == 1 ? 0 : -1;
}

static int fusectl_mounted(void)
{
	struct mi_entry e;

	return mi_find(FUSECTL_DIR, &e) == 1 && strcmp(e.fstype, "fusectl") == 0;
}

int ab_mnt_abort_conn(int conn)
{
	char file[128];

	if (conn <= 0) {
		errno = EINVAL;
		return -1;
	}
	snprintf(file, sizeof(file), FUSECTL_DIR "/%d/abort", conn);
	if (fusectl_mounted())
		return write_abort(file);

	/*
	 * fusectl is not mounted: mount it in a child's private mount namespace so
	 * the machine's mount table is left as found, even if we are killed here.
	 * The child only makes system calls (safe after fork in a threaded process).
	 */
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("fusectl", FUSECTL_DIR, "fusectl", 0, NULL) < 0 || write_abort(file) < 0)
			_exit(errno ? errno : EIO);
		_exit(0);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(st)) {
		errno = EIO;
		return -1;
	}
	if (WEXITSTATUS(st)) {
		errno = WEXITSTATUS(st);
		return -1;
	}
	return 0;
}

/* ---- unmount and stale mounts ---- */

/* umount2, lazily when busy. 0 also when nothing was mounted there. */
static int unmount_only(const char *path)
{
	if (umount2(path, 0) == 0)
		return 0;
	if (errno == EBUSY)
		return umount2(path, MNT_DETACH);
	if (errno == EINVAL || errno == ENOENT)
		return 0;
	return -1;
}

int ab_mnt_unmount(const char *path)
{
	if (unmount_only(path) < 0)
		return -1;
	if (rmdir(path) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

/* pid from "affbench-mnt-<pid>-XXXXXX", or -1 if name is not ours. */
static pid_t name_pid(const char *name)
{
	if (strncmp(name, MNT_PREFIX, strlen(MNT_PREFIX)) != 0)
		return -1;
	const char *p = name + strlen(MNT_PREFIX);
	char *end;
	errno = 0;
	long pid = strtol(p, &end, 10);
	if (end == p || *end != '-' || end[1] == '\0' || errno || pid <= 0 || pid > INT_MAX ||
	    *p < '0' || *p > '9')
		return -1;
	return (pid_t)pid;
}

static int pid_dead(pid_t pid)
{
	return !ab_pid_alive(pid);
}

struct stale {
	char mnt[PATH_MAX];
	int conn;
};

int ab_mnt_cleanup_stale(const char *workdir)
{
	char dir[PATH_MAX];
	struct stale *list = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t linecap = 0;
	int removed = 0;

	if (!workdir)
		workdir = ab_workdir();
	if (!realpath(workdir, dir))
		return 0;
	size_t dlen = strlen(dir);

	/* Collect first: unmounting while reading mountinfo would skip lines. */
	FILE *f = fopen(MOUNTINFO, "re");
	if (f) {
		while (getline(&line, &linecap, f) > 0) {
			struct mi_entry e;
			if (mi_parse(line, &e) < 0 || !is_fuse_type(e.fstype))
				continue;
			if (strncmp(e.mnt, dir, dlen) != 0 || e.mnt[dlen] != '/' ||
			    strchr(e.mnt + dlen + 1, '/'))
				continue;
			pid_t pid = name_pid(e.mnt + dlen + 1);
			if (pid < 0 || !pid_dead(pid))
				continue;
			if (n == cap) {
				size_t ncap = cap ? 2 * cap : 4;
				struct stale *nl = realloc(list, ncap * sizeof(*nl));
				if (!nl)
					break;
				list = nl;
				cap = ncap;
			}
			snprintf(list[n].mnt, sizeof(list[n].mnt), "%s", e.mnt);
			list[n].conn = (int)e.minor;
			n++;
		}
		free(line);
		fclose(f);
	}

	for (size_t i = 0; i < n; i++) {
		/* Abort first: a hung daemon would keep a lazily detached mount alive. */
		ab_mnt_abort_conn(list[i].conn);
		if (umount2(list[i].mnt, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
			continue;
		rmdir(list[i].mnt);
		removed++;
	}
	free(list);

	/* Empty mountpoints of dead runs; rmdir refuses anything non-empty or mounted. */
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			pid_t pid = name_pid(de->d_name);
			if (pid < 0 || !pid_dead(pid))
				continue;
			if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) == 0)
				removed++;
		}
		closedir(d);
	}
	return removed;
}

/* ---- the daemon process ---- */

static void describe_status(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "ended with wait status 0x%x", (unsigned)st);
}

static void reset(struct ab_daemon *d)
{
	d->pid = 0;
	d->conn = -1;
	d->keep_dir = 0;
	d->mnt[0] = '\0';
}

int ab_daemon_start(struct ab_daemon *d, const char *mnt, int cpu, ab_daemon_fn run, void *arg,
		    int timeout_ms, char *err, size_t errlen)
{
	char why[128];
	int made_dir = 0, st;

	reset(d);
	if (!mnt || !*mnt) {
		if (ab_mnt_mkdir(NULL, d->mnt, sizeof(d->mnt), err, errlen) < 0)
			return -1;
		made_dir = 1;
	} else if (snprintf(d->mnt, sizeof(d->mnt), "%s", mnt) >= (int)sizeof(d->mnt)) {
		reset(d);
		return ab_err(err, errlen, "mountpoint path too long: %s", mnt);
	}
	if (ab_mnt_is_fuse(d->mnt)) {
		ab_err(err, errlen, "%s is already a FUSE mount", d->mnt);
		reset(d);
		return -1;
	}

	pid_t parent = getpid();
	fflush(NULL);	/* or the child's exit path could repeat buffered output */
	pid_t pid = fork();
	if (pid < 0) {
		ab_err(err, errlen, "fork for the FUSE daemon of %s: %s", d->mnt, strerror(errno));
		goto fail_dir;
	}
	if (pid == 0) {
		/* PDEATHSIG fires when the forking thread exits: start daemons from a long-lived thread. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(125);
		if (ab_pin_self(cpu) < 0) {
			ab_msg("cannot pin the FUSE daemon to CPU %d: %s", cpu, strerror(errno));
			_exit(126);
		}
		_exit(run(arg, d->mnt));
	}
	d->pid = pid;

	uint64_t deadline = ab_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid) {
			describe_status(st, why, sizeof(why));
			ab_err(err, errlen, "FUSE daemon %s before mounting %s", why, d->mnt);
			d->pid = 0;
			goto fail_mount;
		}
		if (ab_mnt_is_fuse(d->mnt))
			break;
		if (ab_now_ns() >= deadline) {
			ab_err(err, errlen, "FUSE daemon did not mount %s within %d ms", d->mnt,
			       timeout_ms);
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			d->pid = 0;
			goto fail_mount;
		}
		ab_sleep_ns(1000000);
	}
	d->conn = ab_mnt_conn(d->mnt);
	return 0;

fail_mount:
	/* It may have mounted just before dying or being killed. */
	if (ab_mnt_is_fuse(d->mnt))
		unmount_only(d->mnt);
fail_dir:
	if (made_dir)
		rmdir(d->mnt);
	reset(d);
	return -1;
}

int ab_daemon_alive(struct ab_daemon *d)
{
	siginfo_t si;

	if (d->pid <= 0)
		return 0;
	/* WNOWAIT: leave the status for ab_daemon_stop to return. */
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)d->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return 0;
	return si.si_pid == 0;
}

int ab_daemon_stop(struct ab_daemon *d, int timeout_ms)
{
	int st = -1;

	if (d->pid <= 0 && !d->mnt[0])
		return -1;
	/* Unmounting makes a healthy daemon's loop see ENODEV and return. */
	if (d->mnt[0])
		unmount_only(d->mnt);

	if (d->pid > 0) {
		uint64_t deadline =
			ab_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
		pid_t r;
		while ((r = waitpid(d->pid, &st, WNOHANG)) == 0 && ab_now_ns() < deadline)
			ab_sleep_ns(1000000);
		if (r == 0) {
			/* Hung, stopped, or a lazily detached mount is still in use. */
			ab_mnt_abort_conn(d->conn);
			kill(d->pid, SIGKILL);
			while ((r = waitpid(d->pid, &st, 0)) < 0 && errno == EINTR)
				;
		}
		if (r != d->pid)
			st = -1;
	}

	if (d->mnt[0]) {
		if (ab_mnt_is_fuse(d->mnt)) {
			ab_mnt_abort_conn(d->conn);
			umount2(d->mnt, MNT_DETACH);
		}
		if (!d->keep_dir)
			rmdir(d->mnt);
	}
	reset(d);
	return st;
}

/* ---- libfuse session glue ---- */

int ab_fuse_serve(const struct fuse_lowlevel_ops *ops, size_t ops_size, void *userdata,
		  const char *mnt, const char *mount_opts, enum ab_fuse_loop loop, int max_threads)
{
	char *argv[] = { (char *)ab_prog, "-o", (char *)mount_opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(mount_opts ? 3 : 1, argv);
	struct fuse_loop_config *cfg = NULL;
	int ret = 1, rc;

	struct fuse_session *se = fuse_session_new(&args, ops, ops_size, userdata);
	if (!se) {
		ab_msg("fuse_session_new for %s failed (mount options: %s)", mnt,
		       mount_opts ? mount_opts : "none");
		goto out_args;
	}
	if (fuse_set_signal_handlers(se) != 0) {
		ab_msg("fuse_set_signal_handlers for %s failed", mnt);
		goto out_session;
	}
	if (fuse_session_mount(se, mnt) != 0) {
		ab_msg("cannot mount FUSE at %s", mnt);
		goto out_signals;
	}

	if (loop == AB_LOOP_SINGLE) {
		rc = fuse_session_loop(se);
	} else {
		cfg = fuse_loop_cfg_create();
		if (!cfg) {
			ab_msg("fuse_loop_cfg_create: out of memory");
			goto out_unmount;
		}
		fuse_loop_cfg_set_clone_fd(cfg, loop == AB_LOOP_CLONE_FD);
		if (max_threads > 0)
			fuse_loop_cfg_set_max_threads(cfg, (unsigned)max_threads);
		rc = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	if (rc == 0)
		ret = 0;
	else if (rc > 0)
		ab_msg("FUSE loop on %s ended by signal %d", mnt, rc);
	else
		ab_msg("FUSE loop on %s failed: %s", mnt, strerror(-rc));

out_unmount:
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
out_args:
	fuse_opt_free_args(&args);
	return ret;
}

int ab_daemon_prepare(const struct ab_cpuset *cpus)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	for (size_t i = 0; i < AB_ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
	if (cpus && ab_pin_self_set(cpus) < 0) {
		char list[256];
		int e = errno;

		ab_cpuset_format(cpus, list, sizeof(list));
		ab_msg("cannot pin the FUSE daemon to CPUs %s: %s", list, strerror(e));
		return -1;
	}
	return 0;
}
