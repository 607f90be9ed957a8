// SPDX-License-Identifier: GPL-2.0
/*
 * statloop: the reference client of scripts/speedcheck.sh. Calls stat() on
 * one path for SECONDS after a short warm-up and prints calls per second
 * (one number on stdout), so libfuse's hello_ll can be timed with a client
 * as plain as possible beside bin/cputestfs. Pinning is left to the caller
 * (taskset), as the script pins the daemon the same way.
 *
 * The loop reads no clock: a SIGALRM timer ends it, and the elapsed time is
 * read once on each side of it (CLOCK_MONOTONIC).
 *
 *   cc -O2 -o statloop statloop.c && taskset -c 1 ./statloop /mnt/hello 2
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run stat() until the timer of 'seconds' fires; returns the calls made, or -1. */
static long long loop(const char *path, double seconds)
{
	struct itimerval it = { .it_value = { .tv_sec = (time_t)seconds,
					      .tv_usec = (suseconds_t)((seconds - (time_t)seconds) * 1e6) } };
	struct stat st;
	long long n = 0;

	stop = 0;
	if (setitimer(ITIMER_REAL, &it, NULL) < 0) {
		fprintf(stderr, "statloop: setitimer: %s\n", strerror(errno));
		return -1;
	}
	while (!stop) {
		if (stat(path, &st) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "statloop: stat %s: %s\n", path, strerror(errno));
			return -1;
		}
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	char *end;

	if (argc != 3) {
		fprintf(stderr, "usage: statloop PATH SECONDS\n");
		return 2;
	}
	/* decimal only: strtod alone takes 0x10 as 16 s, and inf */
	double seconds = strtod(argv[2], &end);
	if (*end || !(seconds > 0) || !(seconds <= 86400) ||
	    strspn(argv[2], "0123456789.") != strlen(argv[2])) {
		fprintf(stderr, "statloop: bad value '%s' for SECONDS\n", argv[2]);
		return 2;
	}
	sigaction(SIGALRM, &sa, NULL);

	/* Warm-up: dentry and daemon in cache, CPU frequency settled. */
	if (loop(argv[1], seconds / 10 < 0.25 ? seconds / 10 : 0.25) < 0)
		return 1;
	double t0 = now_s();
	long long n = loop(argv[1], seconds);
	double t1 = now_s();
	if (n < 0)
		return 1;
	printf("%.1f\n", n / (t1 - t0));
	return 0;
}
