// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-bench: system calls from a deep user stack, for make bench.
 *
 *   ustack-bench CALLS [DEEPER]
 *
 * main -> bench_f0 -> ... -> bench_f15 (16 distinct functions, so that the
 * stack is not a run of identical frames) makes CALLS getppid system calls
 * from its own code and prints "ns_per_call N". DEEPER (default 0) more
 * frames of bench_deeper go between main and bench_f0; a negative DEEPER
 * leaves out that many of the 16 functions: main calls bench_f<-DEEPER>
 * (-10: an 8-frame stack of bench_syscalls, bench_f15..f10 and main).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))

static long bench_calls;

static NOINLINE long bench_syscalls(void)
{
	long i, sum = 0, ret;

	for (i = 0; i < bench_calls; i++) {
		asm volatile("syscall" : "=a"(ret) : "0"(110L) /* getppid */
			     : "rcx", "r11", "memory");
		sum += ret;
	}
	return sum;
}

#define BENCH_F(n, next)				\
	static NOINLINE long bench_f##n(void)		\
	{						\
		long ret = next();			\
							\
		asm volatile("" ::: "memory");		\
		return ret + n;				\
	}

BENCH_F(15, bench_syscalls)
BENCH_F(14, bench_f15)
BENCH_F(13, bench_f14)
BENCH_F(12, bench_f13)
BENCH_F(11, bench_f12)
BENCH_F(10, bench_f11)
BENCH_F(9, bench_f10)
BENCH_F(8, bench_f9)
BENCH_F(7, bench_f8)
BENCH_F(6, bench_f7)
BENCH_F(5, bench_f6)
BENCH_F(4, bench_f5)
BENCH_F(3, bench_f4)
BENCH_F(2, bench_f3)
BENCH_F(1, bench_f2)
BENCH_F(0, bench_f1)

/* @n more frames of itself, then bench_f0 (not a loop: work after the call) */
static NOINLINE long bench_deeper(long n)
{
	long ret = n > 0 ? bench_deeper(n - 1) : bench_f0();

	asm volatile("" : "+r"(ret) :: "memory");
	return ret;
}

static long (*const bench_fs[])(void) = {
	bench_f0, bench_f1, bench_f2, bench_f3, bench_f4, bench_f5, bench_f6, bench_f7,
	bench_f8, bench_f9, bench_f10, bench_f11, bench_f12, bench_f13, bench_f14, bench_f15,
};

int main(int argc, char **argv)
{
	struct timespec a, b;
	double ns;
	long deeper;

	bench_calls = argc > 1 ? atol(argv[1]) : 1000;
	deeper = argc > 2 ? atol(argv[2]) : 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (deeper > 0)
		bench_deeper(deeper - 1);
	else if (-deeper < (long)(sizeof(bench_fs) / sizeof(bench_fs[0])))
		bench_fs[-deeper]();
	else
		bench_syscalls();
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("ns_per_call %.0f\n", ns / bench_calls);
	return 0;
}
