// SPDX-License-Identifier: GPL-2.0
/*
 * The shared-library half of the known call chain. The system call is made
 * from our own code (not libc), so every frame has a frame pointer and a
 * test can expect the exact chain:
 *
 *   ustack_lib_syscall <- ustack_lib_inner <- ustack_lib_enter <-
 *   sample_middle <- sample_outer <- main
 */
#include "sample.h"
#include "raw-syscall.h"

#define NOINLINE __attribute__((noinline, noclone))

/*
 * long ustack_lib_syscall(void): getppid with a standard frame. GCC 12
 * leaves leaf functions without a frame pointer whatever the options,
 * which would hide the caller from a frame-pointer walk; so this one is
 * written out.
 */
#ifdef __x86_64__
asm(".text\n"
    ".globl ustack_lib_syscall\n"
    ".type ustack_lib_syscall, @function\n"
    "ustack_lib_syscall:\n"
    "	.cfi_startproc\n"
    "	push %rbp\n"
    "	.cfi_def_cfa_offset 16\n"
    "	.cfi_offset %rbp, -16\n"
    "	mov %rsp, %rbp\n"
    "	.cfi_def_cfa_register %rbp\n"
    "	mov $110, %eax\n"		/* getppid */
    "	syscall\n"
    "	pop %rbp\n"
    "	.cfi_def_cfa %rsp, 8\n"
    "	ret\n"
    "	.cfi_endproc\n"
    ".size ustack_lib_syscall, .-ustack_lib_syscall\n"
    /* long ustack_lib_raw(long nr, long a1, long a2, long a3) */
    ".globl ustack_lib_raw\n"
    USTACK_RAW_SYSCALL_ASM("ustack_lib_raw"));
#else
asm(".text\n"
    ".globl ustack_lib_syscall\n"
    ".type ustack_lib_syscall, @function\n"
    "ustack_lib_syscall:\n"
    "	.cfi_startproc\n"
    "	push %ebp\n"
    "	.cfi_def_cfa_offset 8\n"
    "	.cfi_offset %ebp, -8\n"
    "	mov %esp, %ebp\n"
    "	.cfi_def_cfa_register %ebp\n"
    "	mov $64, %eax\n"		/* getppid */
    "	int $0x80\n"
    "	pop %ebp\n"
    "	.cfi_def_cfa %esp, 4\n"
    "	ret\n"
    "	.cfi_endproc\n"
    ".size ustack_lib_syscall, .-ustack_lib_syscall\n"
    ".globl ustack_lib_raw\n"
    ".type ustack_lib_raw, @function\n"
    "ustack_lib_raw:\n"
    "	push %ebp\n"
    "	mov %esp, %ebp\n"
    "	push %ebx\n"
    "	mov 8(%ebp), %eax\n"
    "	mov 12(%ebp), %ebx\n"
    "	mov 16(%ebp), %ecx\n"
    "	mov 20(%ebp), %edx\n"
    "	int $0x80\n"
    "	pop %ebx\n"
    "	pop %ebp\n"
    "	ret\n"
    ".size ustack_lib_raw, .-ustack_lib_raw\n");
#endif

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
