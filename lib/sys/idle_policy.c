// SPDX-License-Identifier: GPL-2.0
/* The idle policy: parsing, naming, the haltpoll check and the PM QoS hold (idle.h). */
#include "sys/idle_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/common.h"
#include "sys/sysfs.h"

/* The request's fd, held until exit; -1 when none. */
static int qos_fd = -1;

/* "digits" within [0, max]: 0 and *v set, or -1. At most 10 digits: no overflow. */
static int parse_value(const char *s, long max, long *v)
{
	size_t n = strspn(s, "0123456789");

	if (!n || s[n] || n > 10)
		return -1;
	long long x = 0;
	for (size_t i = 0; i < n; i++)
		x = x * 10 + (s[i] - '0');
	if (x > max)
		return -1;
	*v = (long)x;
	return 0;
}

/* The policies with a value, as parsed and named. */
static const struct {
	const char *prefix;	/* with the ':' */
	enum ab_idle_kind kind;
	long max;
	const char *unit;
} valued[] = {
	{ "max-latency:", AB_IDLE_MAX_LATENCY, AB_IDLE_MAX_US, "microseconds" },
	{ "haltpoll:", AB_IDLE_HALTPOLL, AB_IDLE_MAX_NS, "nanoseconds" },
};

int ab_idle_parse(const char *s, struct ab_idle *p, char *err, size_t errlen)
{
	if (!s)
		return ab_err(err, errlen, "expected " AB_IDLE_CHOICES);
	if (!strcmp(s, "as-found") || !strcmp(s, "poll") || !strcmp(s, "busy")) {
		*p = (struct ab_idle){ s[0] == 'p' ? AB_IDLE_POLL : s[0] == 'b' ? AB_IDLE_BUSY :
				       AB_IDLE_AS_FOUND, 0 };
		return 0;
	}
	for (size_t i = 0; i < AB_ARRAY_SIZE(valued); i++) {
		size_t n = strlen(valued[i].prefix);
		long v;
		if (strncmp(s, valued[i].prefix, n) && strncmp(s, valued[i].prefix, n - 1))
			continue;
		if (s[n - 1] != ':' || parse_value(s + n, valued[i].max, &v) < 0)
			return ab_err(err, errlen, "%.*s takes :N, N %s from 0 to %ld in decimal digits",
				      (int)(n - 1), valued[i].prefix, valued[i].unit, valued[i].max);
		*p = (struct ab_idle){ valued[i].kind, v };
		return 0;
	}
	return ab_err(err, errlen, "expected " AB_IDLE_CHOICES);
}

void ab_idle_format(const struct ab_idle *p, char *buf, size_t len)
{
	for (size_t i = 0; i < AB_ARRAY_SIZE(valued); i++)
		if (p->kind == valued[i].kind) {
			snprintf(buf, len, "%s%ld", valued[i].prefix, p->value);
			return;
		}
	snprintf(buf, len, "%s", p->kind == AB_IDLE_POLL ? "poll" : p->kind == AB_IDLE_BUSY ?
		 "busy" : "as-found");
}

int ab_idle_haltpoll_usable(char *why, size_t len)
{
	static const char *const what[] = { "driver", "governor" };
	char path[4096], val[64];

	for (size_t i = 0; i < AB_ARRAY_SIZE(what); i++) {
		snprintf(path, sizeof(path), "%s" AB_IDLE_CPUIDLE "/current_%s", ab_sysroot(), what[i]);
		errno = 0;
		if (ab_sysfs_read(path, val, sizeof(val)) < 0 || !val[0])
			return ab_err(why, len, "no cpuidle %s (%s: %s): guest halt polling needs "
				      "the haltpoll cpuidle driver of a KVM guest", what[i], path,
				      errno ? strerror(errno) : "empty");
		if (strcmp(val, "haltpoll"))
			return ab_err(why, len, "the cpuidle %s is %s, not haltpoll: guest_halt_poll_ns "
				      "has no effect here (haltpoll runs in KVM guests)", what[i], val);
	}
	snprintf(path, sizeof(path), "%s" AB_IDLE_HALTPOLL_NS, ab_sysroot());
	if (access(path, F_OK) < 0)
		return ab_err(why, len, "%s: %s", path, strerror(errno));
	return 0;
}

int ab_idle_qos_usable(char *why, size_t len)
{
	char path[4096], drv[64], boot[32];

	snprintf(path, sizeof(path), "%s" AB_IDLE_CPUIDLE "/current_driver", ab_sysroot());
	if (ab_sysfs_read(path, drv, sizeof(drv)) < 0)
		snprintf(drv, sizeof(drv), "none");
	if (drv[0] && strcmp(drv, "none"))
		return 0;
	ab_cmdline_arg("idle=", boot, sizeof(boot));
	if (boot[0])
		return ab_err(why, len, "no cpuidle driver (booted with idle=%s): no governor reads the "
			      "PM QoS limit, so the CPUs wait as idle=%s says; --idle busy acts here",
			      boot, boot);
	return ab_err(why, len, "no cpuidle driver (%s: none): no governor reads the PM QoS limit; "
		      "a cpuidle driver (acpi_idle, intel_idle, haltpoll) or booting with idle=poll "
		      "would act, and --idle busy acts here", path);
}

int ab_idle_qos_hold(long us, char *why, size_t len)
{
	char path[4096];
	int32_t v = (int32_t)us;

	snprintf(path, sizeof(path), "%s" AB_IDLE_QOS_DEV, ab_sysroot());
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return ab_err(why, len, "cannot open %s: %s%s", path, strerror(errno),
			      errno == EACCES || errno == EPERM ? " (needs root)" :
			      errno == ENOENT ? " (kernel without PM QoS, CONFIG_CPU_IDLE)" : "");
	/* The binary form: a 32-bit value (a hex string is taken too, by newer kernels only). */
	ssize_t n = write(fd, &v, sizeof(v));
	if (n != (ssize_t)sizeof(v)) {
		int e = n < 0 ? errno : EIO;
		close(fd);
		return ab_err(why, len, "cannot write %ld to %s: %s", us, path, strerror(e));
	}
	if (qos_fd >= 0)
		close(qos_fd);	/* a new limit replaces the old one */
	qos_fd = fd;
	return 0;
}

void ab_idle_qos_child(void)
{
	if (qos_fd >= 0) {
		close(qos_fd);
		qos_fd = -1;
	}
}
