// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture of the .eh_frame converter tests, built -O2 -fomit-frame-pointer
 * with and without gas --gsframe (and once with .debug_frame only): a
 * leaf, alloca, a realigned stack with a DRAP register, a function that
 * realigns its incoming stack (force_align_arg_pointer, FP-based CFA), a
 * signal handler, PLT calls. Only read, never run by the tests.
 */
#include <alloca.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t ehf_signals;

void ehf_sink(char *p);

__attribute__((noinline)) void ehf_sink(char *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

__attribute__((noinline)) int ehf_leaf(int x)
{
	return x * 7 + 3;
}

__attribute__((noinline)) int ehf_alloca(int n)
{
	char *p = alloca(n + 16);

	memset(p, n, n + 16);
	ehf_sink(p);
	return p[n] + ehf_leaf(n);
}

/* A 64-byte aligned local and a variable frame: gcc uses a DRAP register */
__attribute__((noinline)) int ehf_drap(int n)
{
	char buf[64] __attribute__((aligned(64)));
	char *p = alloca(n + 1);

	memset(buf, n, sizeof(buf));
	ehf_sink(buf);
	ehf_sink(p);
	return buf[3] + p[0];
}

__attribute__((noinline, force_align_arg_pointer)) int ehf_realign(int n)
{
	double d[4] = { n, n, n, n };

	ehf_sink((char *)d);
	return (int)d[1] + ehf_leaf(n);
}

static void ehf_handler(int sig)
{
	ehf_signals += sig;
}

int main(int argc, char **argv)
{
	(void)argv;
	signal(SIGUSR1, ehf_handler);
	raise(SIGUSR1);
	printf("%d\n", ehf_alloca(argc) + ehf_drap(argc) + ehf_realign(argc) + ehf_signals);
	return 0;
}
