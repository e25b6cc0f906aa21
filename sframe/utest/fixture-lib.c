// SPDX-License-Identifier: GPL-2.0
/*
 * Shared library fixture of the SFrame tests, built with gas --gsframe and
 * no frame pointer: a leaf, alloca, a dynamically aligned stack.
 */
#include <alloca.h>
#include <string.h>

int fixture_leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int fixture_alloca(int n)
{
	char *p = alloca(n + 1);

	memset(p, n, n + 1);
	return p[n / 2] + fixture_leaf(n);
}

__attribute__((noinline)) int fixture_aligned(int n)
{
	char buf[64] __attribute__((aligned(64)));

	memset(buf, n, sizeof(buf));
	__asm__ volatile("" : : "r"(buf) : "memory");
	return buf[3] + fixture_alloca(n);
}
