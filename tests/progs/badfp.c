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
 *
 *   ustack-badfp skip      a child makes 3 getppid calls from
 *                          ustack_syspush, each of which its parent, its
 *                          tracer, skips (orig_rax -1 at the entry stop,
 *                          as strace --inject does): orig_ax no longer
 *                          says that the task is in a system call;
 *                          prints "ustack-badfp: child PID skipped N"
 *   ustack-badfp eintr     pause() from ustack_syspause, whose next
 *                          instruction is "push %rbp", interrupted by
 *                          SIGALRM (no SA_RESTART); the handler,
 *                          ustack_sigppid, makes a getppid call, whose walk
 *                          goes through the signal frame to
 *                          ustack_syspause and its caller, main; prints
 *                          "ustack-badfp: interrupted"
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

long ustack_badfp(long kind, long addr, long ra);
long ustack_syspush(void);
long ustack_syspause(void);

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

/* pause, returning to a "push %rbp" (which the function then undoes) */
asm(".text\n"
    ".globl ustack_syspause\n"
    ".type ustack_syspause, @function\n"
    "ustack_syspause:\n"
    "	push %rbp\n"
    "	mov %rsp, %rbp\n"
    "	mov $34, %eax\n"
    "	syscall\n"
    "	push %rbp\n"
    "	pop %rbp\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size ustack_syspause, .-ustack_syspause\n");

/* The tracer: skip each getppid of @child; return how many, or -1 */
static int badfp_skip(pid_t child)
{
	const long orig = offsetof(struct user_regs_struct, orig_rax);
	int status, skipped = 0;
	bool entry = true;

	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
		return -1;
	ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, child, 0, 0) ||
		    waitpid(child, &status, 0) != child)
			return -1;
		if (WIFEXITED(status))
			return skipped;
		if (!WIFSTOPPED(status) || WSTOPSIG(status) != (SIGTRAP | 0x80))
			continue;
		/* entry and exit stops take turns */
		if (entry && ptrace(PTRACE_PEEKUSER, child, orig, 0) == SYS_getppid) {
			ptrace(PTRACE_POKEUSER, child, orig, -1L);
			skipped++;
		}
		entry = !entry;
	}
}

static int badfp_skip_main(void)
{
	pid_t child = fork();
	int i, n;

	if (child < 0)
		return 1;
	if (!child) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		for (i = 0; i < 3; i++)
			ustack_syspush();
		_exit(0);
	}
	n = badfp_skip(child);
	printf("ustack-badfp: child %d skipped %d\n", child, n);
	return n == 3 ? 0 : 1;
}

/* A signal handler with a frame pointer: getppid, return to the restorer */
void ustack_sigppid(int sig);
asm(".text\n"
    ".globl ustack_sigppid\n"
    ".type ustack_sigppid, @function\n"
    "ustack_sigppid:\n"
    "	push %rbp\n"
    "	mov %rsp, %rbp\n"
    "	mov $110, %eax\n"
    "	syscall\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size ustack_sigppid, .-ustack_sigppid\n");

static int badfp_eintr_main(void)
{
	struct sigaction sa = { .sa_handler = ustack_sigppid };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { .tv_usec = 100000 } };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	ustack_syspause();
	printf("ustack-badfp: interrupted\n");
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long here = (unsigned long)&here;
	void *page;
	long kind;

	if (argc > 1 && !strcmp(argv[1], "skip"))
		return badfp_skip_main();
	if (argc > 1 && !strcmp(argv[1], "eintr"))
		return badfp_eintr_main();
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
