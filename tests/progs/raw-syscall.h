/* SPDX-License-Identifier: GPL-2.0 */
#ifndef USTACK_RAW_SYSCALL_H
#define USTACK_RAW_SYSCALL_H

/*
 * USTACK_RAW_SYSCALL_ASM(NAME): the x86-64 assembly of a function
 * long NAME(long nr, long a1, long a2, long a3) that makes system call nr
 * from a frame-pointer frame of its own, so that a frame-pointer walk from
 * the system call sees its caller (libc's syscall wrappers have no frame).
 */
#define USTACK_RAW_SYSCALL_ASM(name)		\
	".type " name ", @function\n"		\
	name ":\n"				\
	"	push %rbp\n"			\
	"	mov %rsp, %rbp\n"		\
	"	mov %rdi, %rax\n"		\
	"	mov %rsi, %rdi\n"		\
	"	mov %rdx, %rsi\n"		\
	"	mov %rcx, %rdx\n"		\
	"	syscall\n"			\
	"	pop %rbp\n"			\
	"	ret\n"				\
	".size " name ", .-" name "\n"

#endif /* USTACK_RAW_SYSCALL_H */
