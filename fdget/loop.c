// SPDX-License-Identifier: GPL-2.0
/*
 * The measured loops of fdget, one per operation, written once through one
 * macro so that every mode runs exactly the same machine code and the hot
 * loop holds no indirect call: the function pointer is taken once per timing,
 * not once per operation.
 *
 *   pread  1 byte at offset 0 of a page-cached file: fdget() only.
 *   read   1 byte at the file position: fdget_pos(), which also decides
 *          whether f_pos needs its lock. The file is FDGET_FILE_BYTES long;
 *          at EOF (once every 1 Mi reads) the loop seeks back to 0.
 *   fstat  fstat(): fdget() plus a copy of struct stat.
 *   lseek  lseek(fd, 0, SEEK_SET): fdget_pos() with almost no other work.
 *   nop    the same loop without a syscall: loop overhead.
 *
 * Two ways to make the calls (--syscall): the libc wrappers, as a program
 * such as xfs_io does, or syscall(2), which leaves libc out. They differ once a
 * process has ever created a thread: glibc's read and pread are cancellation
 * points whose wrappers then add atomic operations, and glibc never returns to
 * its single-threaded path. That is part of what a second thread costs a real
 * program, so libc is the default; raw isolates the kernel's part
 * (fdget() and fdget_pos()). Either way every repetition runs in a fresh process forked
 * from a parent that never creates a thread (measure.c), so no repetition
 * inherits another's state.
 *
 * Known limit: a loop reports the first failing call, not how many succeeded
 * before it; a failed timing is thrown away whole.
 */
#include "fdget.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 'ok' is the loop body: one call and the check of its result. */
#define FDGET_LOOP(name, ok)						\
	static int loop_##name(int fd, uint64_t n)			\
	{								\
		char buf[1];						\
		struct stat st;						\
		ssize_t r;						\
		(void)buf; (void)st; (void)r; (void)fd;			\
		for (uint64_t i = 0; i < n; i++)			\
			if (__builtin_expect(!(ok), 0))			\
				return -1;				\
		return 0;						\
	}

FDGET_LOOP(pread_libc, pread(fd, buf, 1, 0) == 1)
FDGET_LOOP(read_libc, (r = read(fd, buf, 1)) == 1 || (r == 0 && lseek(fd, 0, SEEK_SET) == 0))
FDGET_LOOP(fstat_libc, fstat(fd, &st) == 0)
FDGET_LOOP(lseek_libc, lseek(fd, 0, SEEK_SET) == 0)
FDGET_LOOP(pread_raw, syscall(SYS_pread64, fd, buf, 1, 0) == 1)
FDGET_LOOP(read_raw, (r = syscall(SYS_read, fd, buf, 1)) == 1 ||
		     (r == 0 && syscall(SYS_lseek, fd, 0, SEEK_SET) == 0))
FDGET_LOOP(fstat_raw, syscall(SYS_fstat, fd, &st) == 0)
FDGET_LOOP(lseek_raw, syscall(SYS_lseek, fd, 0, SEEK_SET) == 0)
/* The compiler may not drop or merge an empty iteration. */
FDGET_LOOP(nop, ({ __asm__ volatile("" ::: "memory"); 1; }))

const struct fdget_op_info fdget_ops[OP_COUNT + 1] = {
	[OP_PREAD] = { "pread", { loop_pread_libc, loop_pread_raw } },
	[OP_READ] = { "read", { loop_read_libc, loop_read_raw } },
	[OP_FSTAT] = { "fstat", { loop_fstat_libc, loop_fstat_raw } },
	[OP_LSEEK] = { "lseek", { loop_lseek_libc, loop_lseek_raw } },
	[OP_NOP] = { "nop", { loop_nop, loop_nop } },
};
