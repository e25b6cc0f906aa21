// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-marker [-m] N: N rounds of a getppid system call made from
 * ustack_call, then, with -m, a write of "ustack-marker I" to trace_marker
 * made from ustack_mark, and a short sleep. Both system calls are raw, from
 * frames of their own, so that each stack names the function that made
 * it. Run with -m and without, side by side on one CPU: the marker lines
 * of the one must have its write's stack, never the stack of its earlier
 * getppid nor of the other process's (kernel review 2026-11-28, N4).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "raw-syscall.h"

long ustack_raw(long nr, long a1, long a2, long a3);

asm(".text\n" USTACK_RAW_SYSCALL_ASM("ustack_raw"));

__attribute__((noinline)) long ustack_call(void)
{
	long r = ustack_raw(110, 0, 0, 0);	/* getppid */

	asm volatile("" ::: "memory");
	return r;
}

__attribute__((noinline)) long ustack_mark(int fd, const char *text)
{
	long r = ustack_raw(1, fd, (long)text, strlen(text));	/* write */

	asm volatile("" ::: "memory");
	return r;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 2000000 };
	int i, n, fd = -1, mark = 0;
	char text[64];

	if (argc > 1 && !strcmp(argv[1], "-m")) {
		mark = 1;
		argc--;
		argv++;
	}
	n = argc > 1 ? atoi(argv[1]) : 20;
	if (mark) {
		fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY);
		if (fd < 0) {
			perror("ustack-marker: /sys/kernel/tracing/trace_marker");
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		ustack_call();
		if (mark) {
			snprintf(text, sizeof(text), "ustack-marker %d", i);
			if (ustack_mark(fd, text) < 0) {
				fprintf(stderr, "ustack-marker: write failed\n");
				return 1;
			}
		}
		nanosleep(&ts, NULL);
	}
	printf("ustack-marker: %d rounds\n", n);
	return 0;
}
