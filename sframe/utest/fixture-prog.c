// SPDX-License-Identifier: GPL-2.0
/*
 * PIE fixture of the SFrame tests, built with gas --gsframe and no frame
 * pointer: calls into fixture-lib.so (PLT stubs: PCMASK FDEs), a signal
 * handler, a leaf, alloca. It is only read, never run by the tests.
 */
#include <alloca.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

int fixture_leaf(int x);
int fixture_alloca(int n);
int fixture_aligned(int n);

static volatile sig_atomic_t fixture_signals;

static void fixture_handler(int sig)
{
	fixture_signals += sig;
}

__attribute__((noinline)) static int fixture_local_alloca(int n)
{
	char *p = alloca(n + 8);

	memset(p, 0, n + 8);
	return p[n] + fixture_leaf(n);
}

int main(int argc, char **argv)
{
	(void)argv;
	signal(SIGUSR1, fixture_handler);
	raise(SIGUSR1);
	return (fixture_aligned(argc) + fixture_local_alloca(argc) + fixture_signals) & 1;
}
