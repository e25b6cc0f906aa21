// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sigret: three signals, each sent by the program to itself from
 * ustack_sigkill (a raw kill system call) and returned from through
 * ustack_restorer (a raw rt_sigreturn, the program's own SA_RESTORER), so
 * that both have names in the program's symbols. A deferred stack asked
 * for at sys_enter_rt_sigreturn is the trampoline's (ustack_restorer,
 * then through the signal frame the interrupted ustack_sigkill and main);
 * one asked for at its sys_exit is the interrupted code's (ustack_sigkill,
 * main). Prints "ustack-sigret: 3 signals".
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "raw-signal.h"

long ustack_sigkill(long pid, long sig);
void ustack_restorer(void);

asm(".text\n"
    ".globl ustack_sigkill\n"
    ".type ustack_sigkill, @function\n"
    "ustack_sigkill:\n"
    "	push %rbp\n"
    "	mov %rsp, %rbp\n"
    "	mov $62, %eax\n"
    "	syscall\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size ustack_sigkill, .-ustack_sigkill\n"
    USTACK_RESTORER_ASM("ustack_restorer"));

static volatile int ustack_caught;

static void ustack_handler(int sig)
{
	ustack_caught++;
}

int main(void)
{
	long i;

	i = ustack_rt_sigaction(SIGUSR1, ustack_handler, ustack_restorer);
	if (i) {
		printf("ustack-sigret: rt_sigaction: %ld\n", i);
		return 1;
	}
	for (i = 0; i < 3; i++)
		ustack_sigkill(getpid(), SIGUSR1);
	printf("ustack-sigret: %d signals\n", ustack_caught);
	return ustack_caught == 3 ? 0 : 1;
}
