// SPDX-License-Identifier: GPL-2.0
/*
 * A library ustack-sframe-reg dlopen()s and dlclose()s, built -Wa,--gsframe
 * twice: libustack-sframe-dl-a.so and -b.so, with frames of other sizes
 * (SR_DL_PAD), so that a section of one used for the other's code at the
 * same address gives wrong frames:
 *
 *   sr_dl_leaf (getppid) <- sr_dl_inner <- sr_dl_enter
 */
#define NOINLINE __attribute__((noinline, noclone))

#ifndef SR_DL_PAD
#define SR_DL_PAD	16
#endif

NOINLINE long sr_dl_leaf(void)
{
	volatile char pad[SR_DL_PAD];
	long ret;

	pad[0] = 1;
	asm volatile("syscall" : "=a"(ret) : "0"(110L) : "rcx", "r11", "memory");
	return ret + pad[0];
}

NOINLINE long sr_dl_inner(int calls)
{
	volatile char pad[SR_DL_PAD * 3];
	long sum = 0;
	int i;

	pad[1] = 2;
	for (i = 0; i < calls; i++)
		sum += sr_dl_leaf() + pad[1];
	asm volatile("" ::: "memory");
	return sum;
}

NOINLINE long sr_dl_enter(int calls)
{
	long ret = sr_dl_inner(calls);

	asm volatile("" ::: "memory");
	return ret;
}
