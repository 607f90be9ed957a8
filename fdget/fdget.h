/*
 * fdget: the interfaces between the benchmark's files (STYLE.md point 7).
 *   loops.c   the measured loops, one per operation
 *   calib.c   pure helpers: --mode list parsing, calibration arithmetic
 *             (unit-tested by tests/unit/test_fdget.c)
 *   perf.c    cycles and instructions through perf_event_open
 *   main.c    options, modes, timing, records and tables
 */
#ifndef FDGET_H
#define FDGET_H

#include <stdint.h>
#include <stddef.h>

/* Operations under test, plus the empty loop used to measure loop+timer overhead. */
enum fdget_op { OP_PREAD, OP_READ, OP_FSTAT, OP_LSEEK, OP_COUNT, OP_NOP = OP_COUNT };

/*
 * A measured loop: n calls of one syscall on fd. Returns 0, or -1 with errno
 * set by the first call that failed. The loop body is the syscall and its
 * check, nothing else (no clock read, no counter, no indirection).
 */
typedef int (*fdget_loop_fn)(int fd, uint64_t n);

/* How the loops make their calls: libc wrappers (default) or syscall(2). */
enum fdget_call { CALL_LIBC, CALL_RAW, CALL_COUNT };

struct fdget_op_info {
	const char *name;
	fdget_loop_fn loop[CALL_COUNT];
};
/* Indexed by enum fdget_op, OP_NOP included ("nop": the loop without a syscall). */
extern const struct fdget_op_info fdget_ops[OP_COUNT + 1];


/* Execution modes; the measured loop is the same in all of them. */
enum fdget_mode { MODE_SINGLE, MODE_IDLE, MODE_SHARED, MODE_PRIVATE, MODE_PROCS, MODE_COUNT };
extern const char *const fdget_mode_names[MODE_COUNT];	/* "single", "idle-thread", ... */
#define FDGET_MODE_CHOICES "single|idle-thread|shared-fd|private-fd|procs|all"

/*
 * Parse a --mode value: one name, "all", or a comma list ("single,procs").
 * Sets want[m] for each mode named; single is always measured first because
 * the ratios are to it, so it is added when missing. 0, or -1 with a message
 * naming the bad token in err.
 */
int fdget_parse_modes(const char *s, int want[MODE_COUNT], char *err, size_t errlen);

/*
 * Calibration (lmbench's idea): given that n iterations took elapsed_ns, the
 * iteration count for the next try. Grows by at most 100x from a timing too
 * short to trust, never shrinks below n, and aims slightly past target_ns so
 * that the final timing is >= target. Returns 0 once elapsed_ns >= target_ns
 * (n is good), otherwise the next count, capped at max_n.
 */
uint64_t fdget_calib_next(uint64_t n, uint64_t elapsed_ns, uint64_t target_ns, uint64_t max_n);

/* Cycles and instructions of the calling thread (perf_event_open, user + kernel). */
struct fdget_perf {
	int fd_cycles, fd_instr;	/* -1 when not open */
};
struct fdget_perf_val {
	uint64_t cycles, instr;
};
/* Open both counters for the calling thread, disabled. 0, or -1 with a reason in why. */
int fdget_perf_open(struct fdget_perf *p, char *why, size_t whylen);
void fdget_perf_start(struct fdget_perf *p);
/* Stop and read; 0, or -1 when a counter could not be read. */
int fdget_perf_stop(struct fdget_perf *p, struct fdget_perf_val *v);
void fdget_perf_close(struct fdget_perf *p);

#endif
