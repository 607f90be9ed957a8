/*
 * Starting a program whose output the harness reads: a benchmark's records
 * (point.c), its --check-options line (plan_check.c), a discovery's KEY=VALUE
 * lines (machine.c). No shell: argv runs as given, stdin on /dev/null, one of
 * its outputs on a pipe the caller reads with its own deadlines.
 */
#ifndef H_SPAWN_H
#define H_SPAWN_H

#include <sys/types.h>

struct h_spawn {
	int pipe_to;	/* the child's 1 (stdout) or 2 (stderr): on the pipe */
	int other;	/* its other output: onto this fd; -1: /dev/null */
	int deathsig;	/* 0: the harness's process group; else its own group (the watchdog
			 * kills it with its children), and this signal if the harness dies */
	const char *env;	/* "NAME=VALUE" added to the child's environment alone; NULL: none */
};

/* Start argv[0] (a path) as how says; the pipe's read end (close-on-exec) in *fd.
 * A failed exec says why on the child's stderr and exits 127. Its pid, or -1
 * with errno (nothing left open). */
pid_t h_spawn(char **argv, const struct h_spawn *how, int *fd);

#endif
