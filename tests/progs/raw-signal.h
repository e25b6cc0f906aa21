/* SPDX-License-Identifier: GPL-2.0 */
#ifndef USTACK_RAW_SIGNAL_H
#define USTACK_RAW_SIGNAL_H

/*
 * A signal handler installed by a raw rt_sigaction, with a restorer of the
 * program's own (x86-64), so that the signal trampoline has a name in the
 * program's symbols.
 *
 * USTACK_RESTORER_ASM(NAME): the assembly of void NAME(void), a raw
 * rt_sigreturn.
 */
#define USTACK_RESTORER_ASM(name)		\
	".globl " name "\n"			\
	".type " name ", @function\n"		\
	name ":\n"				\
	"	mov $15, %eax\n"		\
	"	syscall\n"			\
	"	hlt\n"				\
	".size " name ", .-" name "\n"

/* the kernel's struct sigaction for rt_sigaction on x86-64 */
struct ustack_ksigaction {
	void		(*handler)(int);
	unsigned long	flags;
	void		(*restorer)(void);
	unsigned long	mask;
};

#define USTACK_SA_RESTORER	0x04000000

/* rt_sigaction(@sig) with @handler and @restorer: 0, or -errno */
static inline long ustack_rt_sigaction(int sig, void (*handler)(int), void (*restorer)(void))
{
	struct ustack_ksigaction sa = {
		.handler = handler,
		.flags = USTACK_SA_RESTORER,
		.restorer = restorer,
	};
	register long sigsetsize asm("r10") = 8;
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"(13L), "D"((long)sig), "S"(&sa), "d"(0L),
		     "r"(sigsetsize) : "rcx", "r11", "memory");
	return ret;
}

#endif /* USTACK_RAW_SIGNAL_H */
