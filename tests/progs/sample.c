// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sample: a program with a known call chain for the tests.
 *
 *   ustack-sample [CALLS [exec PROG [ARG...] | spin MS | exit]]
 *
 * makes CALLS (default 10) getppid system calls through
 * main -> sample_outer -> sample_middle -> ustack_lib_enter ->
 * ustack_lib_inner -> ustack_lib_syscall (the last three in
 * libustack-sample.so), then prints "ustack-sample: CALLS calls".
 * Then, from sample_outer -> sample_middle -> sample_then:
 *   exec PROG ARG...  execve()s PROG
 *   spin MS           spins in user space for MS milliseconds
 *   exit              calls exit_group directly
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "sample.h"

#define NOINLINE __attribute__((noinline, noclone))

static char **sample_then_argv;

static double sample_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE static void sample_then(void)
{
	char **argv = sample_then_argv;
	volatile unsigned long spins = 0;
	double end;

	if (!argv || !argv[0])
		return;
	fflush(stdout);
	if (!strcmp(argv[0], "exec") && argv[1]) {
		execv(argv[1], argv + 1);
		perror("execv");
		exit(1);
	}
	if (!strcmp(argv[0], "spin") && argv[1]) {
		end = sample_now() + atoi(argv[1]) / 1000.0;
		while (sample_now() < end)
			for (int i = 0; i < 100000; i++)
				spins++;
	}
	if (!strcmp(argv[0], "exit"))
		syscall(SYS_exit_group, 0);
}

NOINLINE static long sample_middle(int calls)
{
	long ret = ustack_lib_enter(calls);

	sample_then();
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

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ustack-sample: %d calls\n", calls);
	sample_then_argv = argc > 2 ? argv + 2 : NULL;
	sample_outer(calls);
	return 0;
}
