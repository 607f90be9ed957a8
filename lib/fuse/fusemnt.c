// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE mount hygiene (see fusemnt.h): private mountpoints, mount detection,
 * unmount without following symlinks, abort through fusectl, and the removal
 * of stale mounts under rules strict enough that another user's mount, a
 * symlink or a reused connection number is never touched.
 *
 * Nothing here stat()s into a mount in a way that can block: mount state and
 * connection numbers come from /proc/self/mountinfo, the mountpoint's device
 * from statx(AT_STATX_DONT_SYNC) (no request to the daemon), and the
 * directory under a mount from a non-recursive clone of the work directory
 * (open_tree), which shows the directory as it was before anything was
 * mounted on it.
 */
#include "fuse/fusemnt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/common.h"
#include "fuse/mountinfo_i.h"

#define FUSECTL_DIR "/sys/fs/fuse/connections"

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW 8
#endif

const char *ab_workdir(void)
{
	const char *w = getenv("AFFBENCH_WORKDIR");

	return w && *w ? w : "/tmp";
}

int ab_mnt_mkdir(const char *workdir, char *path, size_t len, char *err, size_t errlen)
{
	if (!workdir)
		workdir = ab_workdir();
	int n = snprintf(path, len, "%s/" AB_MNT_PREFIX "%d-XXXXXX", workdir, (int)getpid());
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

int ab_mnt_is_fuse(const char *path)
{
	struct ab_mi e;

	return ab_mi_find(path, &e) == 1 && ab_mi_is_fuse(&e);
}

int ab_mnt_conn(const char *path)
{
	struct ab_mi e;

	if (ab_mi_find(path, &e) != 1 || !ab_mi_is_fuse(&e))
		return -1;
	return (int)e.minor;
}

/* ---- fusectl ---- */

static int write_abort(const char *file)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, "1", 1);
	int e = errno;
	close(fd);
	errno = e;
	return w == 1 ? 0 : -1;
}

int ab_fusectl_mounted(void)
{
	struct ab_mi e;

	return ab_mi_find(FUSECTL_DIR, &e) == 1 && strcmp(e.fstype, "fusectl") == 0;
}

/* The child's exit code is the errno of what failed. */
static int wait_errno(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(st)) {
		errno = EIO;
		return -1;
	}
	errno = WEXITSTATUS(st);
	return errno ? -1 : 0;
}

int ab_mnt_abort_conn(int conn)
{
	char file[128];

	if (conn <= 0) {
		errno = EINVAL;
		return -1;
	}
	snprintf(file, sizeof(file), FUSECTL_DIR "/%d/abort", conn);
	if (ab_fusectl_mounted())
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
	return wait_errno(pid);
}

/* ---- unmount ---- */

int ab_mnt_unmount(const char *path)
{
	if (umount2(path, UMOUNT_NOFOLLOW) == 0)
		return 0;
	if (errno == EBUSY)
		return umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
	if (errno == EINVAL || errno == ENOENT)
		return 0;	/* not a mount point (a symlink is not one either) */
	return -1;
}

/* ---- stale mounts ---- */

/* pid from "affbench-mnt-<pid>-XXXXXX", or -1 if the name is not ours. */
static pid_t name_pid(const char *name)
{
	size_t pl = strlen(AB_MNT_PREFIX);

	if (strncmp(name, AB_MNT_PREFIX, pl) != 0)
		return -1;
	const char *dash = strchr(name + pl, '-');
	pid_t pid;
	if (!dash || dash[1] == '\0' || strchr(dash + 1, '/'))
		return -1;
	char num[16];
	size_t nl = (size_t)(dash - (name + pl));
	if (nl == 0 || nl >= sizeof(num))
		return -1;
	memcpy(num, name + pl, nl);
	num[nl] = '\0';
	return ab_parse_pid(num, &pid) == 0 ? pid : -1;
}

/* Why the directory entry name under wfd is not our mountpoint directory; NULL if it is. */
static const char *dir_not_ours(int wfd, const char *name, char *buf, size_t len)
{
	struct stat st;

	if (fstatat(wfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		snprintf(buf, len, "cannot inspect it: %s", strerror(errno));
		return buf;
	}
	if (S_ISLNK(st.st_mode))
		return "it is a symlink";
	if (!S_ISDIR(st.st_mode))
		return "it is not a directory";
	if (st.st_uid != 0) {
		snprintf(buf, len, "its directory is owned by uid %u, not root", (unsigned)st.st_uid);
		return buf;
	}
	if ((st.st_mode & 07777) != 0700) {
		snprintf(buf, len, "its directory has mode %04o, not 0700", (unsigned)(st.st_mode & 07777));
		return buf;
	}
	return NULL;
}

/* Why a stale-looking FUSE mount is not ours to remove; NULL when it is. */
static const char *mount_not_ours(int treefd, const char *name, const char *path,
				  const struct ab_mi *e, char *buf, size_t len)
{
	struct statx sx;

	if (strncmp(e->source, AB_FSNAME_PREFIX, strlen(AB_FSNAME_PREFIX)) != 0) {
		snprintf(buf, len, "its source '%.64s' is not affbench's", e->source);
		return buf;
	}
	if (!ab_mi_has_opt(e->superopts, "user_id=0"))
		return "it was not mounted by root (no user_id=0)";
	if (treefd < 0)
		return "the directory under it cannot be inspected (open_tree failed)";
	const char *why = dir_not_ours(treefd, name, buf, len);
	if (why)
		return why;
	/* DONT_SYNC: the device number without a request to a possibly hung daemon */
	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC | AT_NO_AUTOMOUNT,
		  STATX_TYPE, &sx) < 0 ||
	    sx.stx_dev_major != e->major || sx.stx_dev_minor != e->minor)
		return "its device changed while we looked";
	return NULL;
}

/* One line per left-alone path, once per process. */
static void note_left_alone(FILE *report, const char *path, const char *why)
{
	static char seen[64][PATH_MAX];
	static int nseen;

	if (!report)
		return;
	for (int i = 0; i < nseen; i++)
		if (!strcmp(seen[i], path))
			return;
	if (nseen < (int)AB_ARRAY_SIZE(seen))
		snprintf(seen[nseen++], PATH_MAX, "%s", path);
	fprintf(report, "%s: left alone %s: %s\n", ab_prog, path, why);
}

/* Abort, detach and remove one stale mount that passed every check. 1 removed, 0 not. */
static int remove_mount(int wfd, const char *name, const char *path, const struct ab_mi *e)
{
	/* Abort first: a hung daemon would keep a lazily detached mount alive. */
	ab_mnt_abort_conn((int)e->minor);
	if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL && errno != ENOENT)
		return 0;
	char buf[128];
	if (!dir_not_ours(wfd, name, buf, sizeof(buf)))
		unlinkat(wfd, name, AT_REMOVEDIR);
	return 1;
}

/* Stale FUSE mounts directly under dir: collected first (unmounting while reading
 * mountinfo would skip lines), then each checked and removed. */
static int cleanup_mounts(const char *dir, int wfd, FILE *report)
{
	struct ab_mi *list = NULL;
	int n = ab_mi_list_children(dir, &list), removed = 0;
	int treefd = -1;

	if (n > 0)
		treefd = (int)syscall(SYS_open_tree, wfd, "", OPEN_TREE_CLONE | AT_EMPTY_PATH |
								 O_CLOEXEC);
	for (int i = 0; i < n; i++) {
		const char *name = list[i].mnt + strlen(dir) + 1;
		char buf[160];
		pid_t pid = name_pid(name);

		if (pid < 0 || ab_pid_alive(pid) || !ab_mi_is_fuse(&list[i]))
			continue;
		const char *why = mount_not_ours(treefd, name, list[i].mnt, &list[i], buf, sizeof(buf));
		if (why)
			note_left_alone(report, list[i].mnt, why);
		else
			removed += remove_mount(wfd, name, list[i].mnt, &list[i]);
	}
	if (treefd >= 0)
		close(treefd);
	free(list);
	return removed;
}

/* Empty mountpoints of dead runs; rmdir refuses anything non-empty or mounted. */
static int cleanup_dirs(const char *dir, int wfd, FILE *report)
{
	int removed = 0, dfd = dup(wfd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		char buf[160], path[PATH_MAX];
		pid_t pid = name_pid(de->d_name);
		if (pid < 0 || ab_pid_alive(pid))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (ab_mi_find(path, &(struct ab_mi){ 0 }) == 1)
			continue;	/* a mount: cleanup_mounts judged it */
		const char *why = dir_not_ours(wfd, de->d_name, buf, sizeof(buf));
		if (why)
			note_left_alone(report, path, why);
		else if (unlinkat(wfd, de->d_name, AT_REMOVEDIR) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

int ab_mnt_cleanup_stale(const char *workdir, FILE *report)
{
	char dir[PATH_MAX];

	if (!workdir)
		workdir = ab_workdir();
	if (!realpath(workdir, dir))
		return 0;
	int wfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (wfd < 0)
		return 0;
	int removed = cleanup_mounts(dir, wfd, report);
	removed += cleanup_dirs(dir, wfd, report);
	close(wfd);
	return removed;
}
