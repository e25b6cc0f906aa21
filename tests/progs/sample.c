// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sample: a program with a known call chain for the tests.
 *
 *   ustack-sample [CALLS]
 *
 * makes CALLS (default 10) getppid system calls through
 * main -> sample_outer -> sample_middle -> ustack_lib_enter ->
 * ustack_lib_inner -> ustack_lib_syscall (the last three in
 * libustack-sample.so), then prints "ustack-sample: CALLS calls".
 */
#include <stdio.h>
#include <stdlib.h>
#include "sample.h"

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE static long sample_middle(int calls)
{
	long ret = ustack_lib_enter(calls);

	asm volatile("" ::: "memory");
	return ret;
}

NOINLINE static long sample_outer(int calls)
{
	long ret = sample_middle(calls);

	asm volatile("" ::: "memory");
	return ret;
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 10;

	sample_outer(calls);
	printf("ustack-sample: %d calls\n", calls);
	return 0;
}
