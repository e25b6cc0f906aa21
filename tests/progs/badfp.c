// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-badfp: system calls with a frame pointer the unwinder must not
 * trust, one getppid per kind, in this order:
 *   0 kernel     a kernel address
 *   1 protnone   a PROT_NONE page above the stack: reading it faults
 *   2 misaligned three bytes past the stack pointer
 *   3 below      below the stack pointer (the stack grows down)
 *   4 loop       a frame that says it is its own caller, return address
 *                0x1234: no executable mapping holds it
 *   5 ones       the same with return address 0xffffffffffffffff
 *   6 text       the same with "/gcc/x86" as its return address, as code
 *                without frame pointers leaves in rbp + 8
 *   7 data       the same with a return address in the stack
 *   8 zero       the same with a zero return address: the outermost
 *                frame's only where the frame-pointer chain gave the
 *                frame; this one is the topmost frame's register
 * Every walk gets the interrupted address and stops there, each saying
 * that it was cut (no frame outside executable memory is written); none
 * may crash or hang. Then one getppid from ustack_syspush, with a
 * good frame pointer, whose next instruction is "push %rbp": a task in a
 * system call is in the middle of a function, not at a function's first
 * instruction, so the walk must give its caller, main, next. Prints
 * "ustack-badfp: 10 calls" (and a line saying so when no PROT_NONE page
 * could be mapped).
 */
#include <stdio.h>
#include <sys/mman.h>

long ustack_badfp(long kind, long addr, long ra);
long ustack_syspush(void);

/* Frame pointer by kind, then getppid; rbp is restored before returning. */
asm(".text\n"
    ".globl ustack_badfp\n"
    ".type ustack_badfp, @function\n"
    "ustack_badfp:\n"
    "	push %rbp\n"
    "	sub $16, %rsp\n"
    "	mov %rsp, (%rsp)\n"
    "	mov %rdx, 8(%rsp)\n"
    "	mov %rsp, %rbp\n"
    "	cmp $4, %rdi\n"
    "	jae 1f\n"
    "	lea -64(%rsp), %rbp\n"
    "	cmp $3, %rdi\n"
    "	je 1f\n"
    "	lea 3(%rsp), %rbp\n"
    "	cmp $2, %rdi\n"
    "	je 1f\n"
    "	mov %rsi, %rbp\n"
    "	cmp $1, %rdi\n"
    "	je 1f\n"
    "	movabs $0xffffffff81000000, %rbp\n"
    "1:	mov $110, %eax\n"
    "	syscall\n"
    "	add $16, %rsp\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size ustack_badfp, .-ustack_badfp\n");

/* getppid, returning to a "push %rbp" (which the function then undoes) */
asm(".text\n"
    ".globl ustack_syspush\n"
    ".type ustack_syspush, @function\n"
    "ustack_syspush:\n"
    "	push %rbp\n"
    "	mov %rsp, %rbp\n"
    "	mov $110, %eax\n"
    "	syscall\n"
    "	push %rbp\n"
    "	pop %rbp\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size ustack_syspush, .-ustack_syspush\n");

int main(void)
{
	unsigned long here = (unsigned long)&here;
	void *page;
	long kind;

	/* Well above the stack, below the top of user space. */
	page = mmap((void *)((here + (64UL << 20)) & ~0xfffUL), 4096, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (page == MAP_FAILED)
		printf("ustack-badfp: no PROT_NONE page above the stack\n");
	const long ra[] = {
		[4] = 0x1234, [5] = -1L, [6] = 0x3638782f6363672fL, [7] = (long)&here,
		[8] = 0,
	};

	for (kind = 0; kind < 9; kind++)
		ustack_badfp(kind, (long)page, ra[kind]);
	ustack_syspush();
	printf("ustack-badfp: 10 calls\n");
	return 0;
}
