// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-perf-attr: perf_event_open() with the deferred callchain bits, for
 * the perf tests.
 *
 *   ustack-perf-attr [-p PID] [-c] [-o] [-x] [-k]
 *
 * opens a sampling cpu-clock event with PERF_SAMPLE_CALLCHAIN on PID
 * (default: this process) with attr.defer_callchain (-c), defer_output
 * (-o), exclude_callchain_user (-x), exclude_kernel and
 * exclude_callchain_kernel (-k: what an unprivileged user may ask) and prints "ok" or
 * the errno name. The exit status is 0 either way, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "perf-defer.h"

static void set_flag(struct perf_event_attr *attr, unsigned long long bit)
{
	unsigned long long flags;

	memcpy(&flags, (char *)attr + ATTR_FLAGS_OFFSET, sizeof(flags));
	flags |= bit;
	memcpy((char *)attr + ATTR_FLAGS_OFFSET, &flags, sizeof(flags));
}

static const char *errno_name(int err)
{
	switch (err) {
	case EINVAL: return "EINVAL";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ESRCH: return "ESRCH";
	case ENOENT: return "ENOENT";
	case E2BIG: return "E2BIG";
	default: return strerror(err);
	}
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	pid_t pid = 0;
	int opt, fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 100000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CALLCHAIN;
	attr.sample_id_all = 1;
	attr.disabled = 1;

	while ((opt = getopt(argc, argv, "p:coxk")) != -1) {
		switch (opt) {
		case 'p':
			pid = atoi(optarg);
			break;
		case 'c':
			set_flag(&attr, ATTR_DEFER_CALLCHAIN);
			break;
		case 'o':
			set_flag(&attr, ATTR_DEFER_OUTPUT);
			break;
		case 'x':
			attr.exclude_callchain_user = 1;
			break;
		case 'k':
			attr.exclude_kernel = 1;
			attr.exclude_hv = 1;
			attr.exclude_callchain_kernel = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-p PID] [-c] [-o] [-x] [-k]\n", argv[0]);
			return 2;
		}
	}

	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		return 0;
	}
	printf("ok\n");
	close(fd);
	return 0;
}
