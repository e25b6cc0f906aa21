// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe-sysend: a getppid whose system call is the last
 * instruction its function's SFrame FDE covers. The function goes on in
 * the next FDE's code (ustack_sysend_tail, "pop %rbp; ret"), whose rule
 * at its first instruction is the rule of a function entry: the return
 * address at the stack pointer. Looked up there, the caller of a task in
 * that system call would be the saved frame pointer; looked up at the
 * system call, as a task in a system call must be, it is main. Built with
 * -Wa,--gsframe. Prints "ustack-sframe-sysend: 3 calls".
 */
#include <stdio.h>

long ustack_sysend(void);

asm(".text\n"
    ".globl ustack_sysend\n"
    ".type ustack_sysend, @function\n"
    "ustack_sysend:\n"
    "	.cfi_startproc\n"
    "	push %rbp\n"
    "	.cfi_def_cfa_offset 16\n"
    "	.cfi_offset %rbp, -16\n"
    "	mov %rsp, %rbp\n"
    "	.cfi_def_cfa_register %rbp\n"
    "	mov $110, %eax\n"
    "	syscall\n"
    "	.cfi_endproc\n"
    ".size ustack_sysend, .-ustack_sysend\n"
    ".globl ustack_sysend_tail\n"
    ".type ustack_sysend_tail, @function\n"
    "ustack_sysend_tail:\n"
    "	.cfi_startproc\n"
    "	pop %rbp\n"
    "	.cfi_def_cfa %rsp, 8\n"
    "	ret\n"
    "	.cfi_endproc\n"
    ".size ustack_sysend_tail, .-ustack_sysend_tail\n");

int main(void)
{
	int i;

	for (i = 0; i < 3; i++)
		ustack_sysend();
	printf("ustack-sframe-sysend: 3 calls\n");
	return 0;
}
