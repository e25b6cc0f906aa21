// SPDX-License-Identifier: GPL-2.0
/*
 * The shared-library half of the known call chain. The system call is made
 * from our own code (inline asm, not libc), so every frame has a frame
 * pointer and a test can expect the exact chain:
 *
 *   ustack_lib_syscall <- ustack_lib_inner <- ustack_lib_enter <-
 *   sample_middle <- sample_outer <- main
 */
#include "sample.h"

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE long ustack_lib_syscall(void)
{
	long ret;

#ifdef __x86_64__
	asm volatile("syscall" : "=a"(ret) : "0"(110L) /* getppid */
		     : "rcx", "r11", "memory");
#else
	asm volatile("int $0x80" : "=a"(ret) : "0"(64L) /* getppid */ : "memory");
#endif
	return ret;
}

NOINLINE long ustack_lib_inner(int calls)
{
	long sum = 0;
	int i;

	for (i = 0; i < calls; i++)
		sum += ustack_lib_syscall();
	/* keep this frame from becoming a tail call */
	asm volatile("" ::: "memory");
	return sum;
}

NOINLINE long ustack_lib_enter(int calls)
{
	long ret = ustack_lib_inner(calls);

	asm volatile("" ::: "memory");
	return ret;
}
