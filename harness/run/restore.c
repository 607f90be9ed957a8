// SPDX-License-Identifier: GPL-2.0
/*
 * harness restore: put the machine back after a run that could not clean up
 * after itself (SIGKILL, power loss): replay the knob journal and remove
 * stale affbench FUSE mounts.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sys/common.h"
#include "sys/opts.h"
#include "fuse/fusemnt.h"
#include "run.h"
#include "knob/knob.h"

/* One line to log, as ab_msg words one: the paths given may hold any byte (escaped). */
static void __attribute__((format(printf, 2, 3))) say(FILE *log, const char *fmt, ...)
{
	char line[1024], shown[4 * sizeof(line)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(log, "harness: restore: %s\n", ab_escape(shown, sizeof(shown), line));
}

int h_restore(const char *journal, const char *workdir, FILE *log)
{
	char err[512] = "";
	int failed = 0;

	if (!log)
		log = stderr;
	/* a fake sysfs tree for the tests; an installed build has no hook (sys/common.h) */
	const char *root = ab_test_hook("AFFBENCH_KNOB_ROOT");
	int n = ab_knob_replay(root ? root : "", journal, err, sizeof(err));
	if (n < 0) {
		say(log, "%s", err);
		failed++;
	} else if (n > 0) {
		say(log, "%d knob(s) restored from %s", n, journal);
	}
	int m = ab_mnt_cleanup_stale(workdir, log);
	if (m < 0) {
		say(log, "stale mounts under %s: could not clean up", workdir);
		failed++;
	} else if (m > 0) {
		say(log, "%d stale FUSE mount(s) removed under %s", m, workdir);
	}
	return failed;
}

static const char restore_usage[] =
	"usage: harness restore [--journal FILE] [--workdir DIR]\n"
	"Replays the knob journal (restores sysfs/procfs values a killed run left\n"
	"changed) and removes stale affbench FUSE mounts under the work directory.\n"
	"  --journal FILE  default $AFFBENCH_JOURNAL, else /var/lib/affbench/knobs.journal\n"
	"  --workdir DIR   default $AFFBENCH_WORKDIR, else /tmp\n"
	"Exit 0 when everything was restored (or nothing was left), 1 otherwise.\n";

int cmd_restore(int argc, char **argv)
{
	struct restore_opts {
		const char *journal, *workdir;
	} o = { NULL, NULL };
	static const struct ab_opt opts[] = {
		AB_OPT(struct restore_opts, journal, "journal", AB_OPT_STR, "FILE", "the knob journal"),
		AB_OPT(struct restore_opts, workdir, "workdir", AB_OPT_STR, "DIR", "the work directory"),
		AB_OPT_END,
	};
	int first = ab_parse_cmd(argc, argv, "restore", restore_usage, opts, &o);

	if (first < argc)
		ab_usage_error("restore: unexpected argument '%s'", argv[first]);
	if (h_restore(o.journal ? o.journal : ab_knob_default_journal(),
		      o.workdir ? o.workdir : ab_workdir(), stderr))
		return AB_EXIT_FAIL;
	return AB_EXIT_OK;
}
