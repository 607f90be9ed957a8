/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine lock: one run at a time changes how this machine's CPUs wait
 * (or measures at all). harness run holds it for its whole run
 * (harness/run/lock.c) and hands it to each benchmark it starts: the
 * benchmark inherits a descriptor of that same open lock, named by
 * AB_MACHINE_LOCK_FD_ENV. A benchmark started by hand that changes the idle
 * policy (--idle other than as-found) takes the lock itself, for its life; a
 * second one meanwhile is refused (exit 4) naming the holder, so two runs
 * never hold two PM QoS limits at once and record each other's numbers under
 * their own policy.
 *
 * An flock lock: the kernel drops it when its holder dies. The file says who
 * holds it ("PID WHAT", as the harness writes "PID DIR") and is emptied at a
 * clean exit.
 */
#ifndef AB_MACHLOCK_H
#define AB_MACHLOCK_H

#include <stddef.h>

#define AB_MACHINE_LOCK "/run/affbench.lock"
#define AB_MACHINE_LOCK_FD_ENV "AFFBENCH_MACHINE_LOCK_FD"

/* /run/affbench.lock, or the AFFBENCH_MACHINE_LOCK test hook's file. */
const char *ab_machine_lock_path(void);

/*
 * Hold the machine lock until exit; what says for what ("fdget --idle poll").
 * Held already (a descriptor of the harness's own lock, inherited) or taken: 0.
 * Another process holds it: -1, its pid and line in why. A lock that cannot be
 * opened at all (no /run, not root): 1, with why: the caller warns and goes on.
 */
int ab_machine_lock_hold(const char *what, char *why, size_t len);

/* A lock file of this kind, as the harness's run.lock is too (harness/run/lock.c). */
/* Opened (flags | O_NOFOLLOW | O_NONBLOCK), a regular file: fd, or -1 with errno (EINVAL). */
int ab_lock_open(const char *path, int flags);
/* Its holder's line, "PID REST", into buf (len bytes), unprintable bytes replaced (it came
 * from a file): PID's text stays in buf; REST is returned, or NULL. */
char *ab_lock_holder(int fd, char *buf, size_t len);
/* Say that this process holds it: "PID WHAT". 0, or -1 with errno. */
int ab_lock_claim(int fd, const char *what);
/* Empty the holder's line and unlock: LOCK_UN frees the lock for every descriptor that
 * shares it, so no child forked meanwhile can keep it past our exit. */
void ab_lock_clear(int fd);

#endif
