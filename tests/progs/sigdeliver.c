// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sigdeliver: three SIGALRMs delivered while the program waits in
 * ustack_pause (a raw pause system call) under ustack_wait and main. Its
 * handler, returning through ustack_restorer (a raw rt_sigreturn, the
 * program's own SA_RESTORER, so that it has a name), calls ustack_getppid
 * (a raw getppid system call). All code of its own, with frame pointers
 * and CFI, so that the frame-pointer build and the SFrame build
 * (-fomit-frame-pointer -Wa,--gsframe) must give the same stacks:
 *
 *   signal_deliver:     ustack_pause ustack_wait main
 *   sys_enter_getppid:  ustack_getppid ustack_handler ustack_restorer
 *                       ustack_pause ustack_wait main
 *
 * The first is asked for in get_signal(), before the signal frame is set
 * up; walked after, it would start at the handler. The second has a
 * signal frame below the handler, which a frame-pointer walk must step
 * through, not over (it would skip ustack_pause). Prints
 * "ustack-sigdeliver: 3 signals".
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "raw-signal.h"

long ustack_pause(void);
long ustack_getppid(void);
void ustack_restorer(void);

asm(".text\n"
    ".globl ustack_pause\n"
    ".type ustack_pause, @function\n"
    "ustack_pause:\n"
    "	.cfi_startproc\n"
    "	push %rbp\n"
    "	.cfi_def_cfa_offset 16\n"
    "	.cfi_offset %rbp, -16\n"
    "	mov %rsp, %rbp\n"
    "	.cfi_def_cfa_register %rbp\n"
    "	mov $34, %eax\n"
    "	syscall\n"
    "	pop %rbp\n"
    "	.cfi_def_cfa %rsp, 8\n"
    "	ret\n"
    "	.cfi_endproc\n"
    ".size ustack_pause, .-ustack_pause\n"
    ".globl ustack_getppid\n"
    ".type ustack_getppid, @function\n"
    "ustack_getppid:\n"
    "	.cfi_startproc\n"
    "	push %rbp\n"
    "	.cfi_def_cfa_offset 16\n"
    "	.cfi_offset %rbp, -16\n"
    "	mov %rsp, %rbp\n"
    "	.cfi_def_cfa_register %rbp\n"
    "	mov $110, %eax\n"
    "	syscall\n"
    "	pop %rbp\n"
    "	.cfi_def_cfa %rsp, 8\n"
    "	ret\n"
    "	.cfi_endproc\n"
    ".size ustack_getppid, .-ustack_getppid\n"
    USTACK_RESTORER_ASM("ustack_restorer"));

static volatile int ustack_caught;

__attribute__((noinline)) void ustack_handler(int sig)
{
	ustack_getppid();
	ustack_caught++;
	asm volatile("" ::: "memory");
}

/* waits until a signal has come; not inlined, so that it is a frame */
__attribute__((noinline)) void ustack_wait(void)
{
	int before = ustack_caught;

	while (ustack_caught == before)
		ustack_pause();
	asm volatile("" ::: "memory");
}

int main(void)
{
	struct itimerval it;
	long i;

	i = ustack_rt_sigaction(SIGALRM, ustack_handler, ustack_restorer);
	if (i) {
		printf("ustack-sigdeliver: rt_sigaction: %ld\n", i);
		return 1;
	}
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = 50000;
	it.it_value.tv_usec = 50000;
	if (setitimer(ITIMER_REAL, &it, NULL)) {
		perror("ustack-sigdeliver: setitimer");
		return 1;
	}
	for (i = 0; i < 3; i++)
		ustack_wait();
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("ustack-sigdeliver: %d signals\n", ustack_caught);
	return ustack_caught >= 3 ? 0 : 1;
}
