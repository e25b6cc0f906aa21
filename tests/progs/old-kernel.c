// SPDX-License-Identifier: GPL-2.0
/*
 * libustack-old-kernel.so: LD_PRELOAD it into perf to make this kernel look
 * like one without deferred callchains. Such a kernel refuses, with EINVAL,
 * a perf_event_attr that sets bits it does not know: here defer_callchain
 * (bit 38) and defer_output (bit 39) of the flags word after read_format.
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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#define FLAGS_OFFSET	(offsetof(struct perf_event_attr, read_format) + 8)
#define DEFER_OUTPUT	(1ULL << 39)
#define DEFER_BITS	((1ULL << 38) | DEFER_OUTPUT)

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

		memcpy(&flags, (char *)a[0] + FLAGS_OFFSET, sizeof(flags));
		if (drop && *drop == '1') {
			struct perf_event_attr *attr = (void *)a[0];
			size_t size = attr->size ? attr->size : PERF_ATTR_SIZE_VER0;

			if ((flags & DEFER_OUTPUT) && size <= sizeof(copy) &&
			    size >= FLAGS_OFFSET + sizeof(flags)) {
				memcpy(copy, attr, size);
				flags &= ~DEFER_OUTPUT;
				memcpy(copy + FLAGS_OFFSET, &flags, sizeof(flags));
				a[0] = (long)copy;
			}
		} else if (flags & DEFER_BITS) {
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
