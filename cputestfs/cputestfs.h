/*
 * cputestfs: the interfaces between its files.
 *   fs.c        the FUSE filesystem (daemon process): one directory, one file,
 *               every GETATTR reply says which CPU served it
 *   baseline.c  the kernel-file and pipe ping-pong baselines
 *   main.c      options, placements, client processes, timing, output
 * Parent, clients and servers share one struct cfs_shared (ab_shm_alloc, made
 * before fork): the parent flips the phase and samples counters; clients and
 * servers only bump their own counters.
 */
#ifndef CFS_H
#define CFS_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cpuset.h"
#include "fusedaemon.h"
#include "pin.h"

#define CFS_FILE_NAME "cputest"	/* the file clients stat() on the mount */
#define CFS_LAT_EVERY 64	/* clients time one call in this many */
#define CFS_LAT_MAX 65536	/* latency samples kept per client (a ring: the latest) */

enum cfs_phase { CFS_WARMUP, CFS_MEASURE, CFS_STOP };
enum cfs_baseline { CFS_BASE_FUSE, CFS_BASE_KERNEL, CFS_BASE_PIPE };

/* Per client: written by that client (and its pipe server), read by the parent. */
struct cfs_client_shm {
	struct ab_counter calls;	/* completed operations */
	struct ab_counter same;		/* ... served on the caller's CPU */
	struct ab_counter served;	/* pipe baseline: requests its server answered */
	_Atomic int err;		/* errno of the operation that failed, 0 if none */
	uint32_t nlat;			/* latency samples written (ring index) */
	uint32_t lat[CFS_LAT_MAX];	/* ns, saturated at UINT32_MAX */
} __attribute__((aligned(AB_CACHELINE)));

struct cfs_shared {
	_Atomic int phase __attribute__((aligned(AB_CACHELINE)));	/* enum cfs_phase */
	struct ab_gate gate __attribute__((aligned(AB_CACHELINE)));
	/* FUSE daemon: requests served, all threads (atomic add: multi mode shares it). */
	struct ab_counter requests;
	struct cfs_client_shm client[];
};

/*
 * The served CPU travels in st_blocks as CPU + 1 (0: unknown). st_blocks, unlike
 * st_size or st_mtime, makes the kernel drop no page cache when it changes, and
 * the inode number stays stable.
 */
static inline blkcnt_t cfs_encode_cpu(int cpu)
{
	return cpu >= 0 ? (blkcnt_t)cpu + 1 : 0;
}
static inline int cfs_served_cpu(const struct stat *st)
{
	return (int)st->st_blocks - 1;
}

/* fs.c: the daemon. arg is a struct cfs_daemon_args; run as an ab_daemon_fn. */
struct cfs_daemon_args {
	struct cfs_shared *sh;
	enum ab_fuse_loop loop;
	int pinned;			/* pin the whole process (all threads) to cpus */
	struct ab_cpuset cpus;
};
int cfs_daemon_run(void *arg, const char *mnt);

/* baseline.c: a file on a kernel filesystem (under ab_workdir()) to stat(). 0 or -1. */
int cfs_kernel_file(char *path, size_t len, char *err, size_t errlen);

/*
 * baseline.c: pipe ping-pong. One server process per client, pinned like the
 * daemon; the client writes one byte, the server answers with its CPU.
 */
struct cfs_pipe {
	int to_server;		/* client's write end */
	int from_server;	/* client's read end */
	pid_t pid;		/* server, 0 if none */
};
/* Start servers for p[0..n-1], server i pinned to cpu[i] (-1: not pinned). 0 or -1. */
int cfs_pipes_start(struct cfs_pipe *p, int n, const int *cpu, struct cfs_shared *sh, char *err,
		    size_t errlen);
/* In client i's process: close the other clients' pipe ends. */
void cfs_pipes_keep_only(struct cfs_pipe *p, int n, int i);
/* One round trip: 0 with the server's CPU in *served, or -1 with errno (EPIPE when it is gone). */
int cfs_pipe_ping(const struct cfs_pipe *p, int *served);
/* Is any server gone? Returns its index or -1 (status left for cfs_pipes_stop). */
int cfs_pipes_dead(const struct cfs_pipe *p, int n);
/* Kill and reap every server, close the parent's ends. */
void cfs_pipes_stop(struct cfs_pipe *p, int n);

#endif
