// SPDX-License-Identifier: GPL-2.0
/*
 * libustack-old-kernel.so: LD_PRELOAD it into perf to make this kernel look
 * like one without deferred callchains. Such a kernel refuses, with EINVAL,
 * a perf_event_attr that sets bits it does not know: here defer_callchain
 * and defer_output (perf-defer.h).
 * Every other system call goes through untouched.
 *
 * With USTACK_DROP_OUTPUT=1 in the environment it instead clears
 * defer_output (in a copy of the attr) and lets the call through: samples
 * get their deferred marker but no record ever comes, the lost case.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "perf-defer.h"

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	unsigned long long flags;
	char copy[512];
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);

	if (nr == SYS_perf_event_open && a[0]) {
		const char *drop = getenv("USTACK_DROP_OUTPUT");

		memcpy(&flags, (char *)a[0] + ATTR_FLAGS_OFFSET, sizeof(flags));
		if (drop && *drop == '1') {
			struct perf_event_attr *attr = (void *)a[0];
			size_t size = attr->size ? attr->size : PERF_ATTR_SIZE_VER0;

			if ((flags & ATTR_DEFER_OUTPUT) && size <= sizeof(copy) &&
			    size >= ATTR_FLAGS_OFFSET + sizeof(flags)) {
				memcpy(copy, attr, size);
				flags &= ~ATTR_DEFER_OUTPUT;
				memcpy(copy + ATTR_FLAGS_OFFSET, &flags, sizeof(flags));
				a[0] = (long)copy;
			}
		} else if (flags & (ATTR_DEFER_CALLCHAIN | ATTR_DEFER_OUTPUT)) {
			errno = EINVAL;
			return -1;
		}
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
