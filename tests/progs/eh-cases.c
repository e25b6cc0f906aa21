// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-eh-cases: the stacks an unwind table made from .eh_frame must get
 * right. Built -O2 -fomit-frame-pointer without .sframe, as Debian builds
 * its programs: only .eh_frame describes its frames. Each traced call is
 * libc's getppid(), made 3 times per run:
 *
 *   ustack-eh-cases signal    in a SIGUSR1 handler:
 *                             eh_handler <- signal frame <- kill <- eh_raise
 *                             <- eh_signal <- main
 *   ustack-eh-cases longjmp   after a longjmp() out of a deeper chain back
 *                             into eh_jump_outer: eh_after <- eh_jump_outer
 *                             <- main (none of the frames left behind)
 *   ustack-eh-cases thread    in a thread: eh_thread_leaf <- eh_thread_fn
 *                             <- start_thread <- clone3
 *   ustack-eh-cases deep N    N calls of eh_recurse, then eh_leaf
 *   ustack-eh-cases twice FIFO  one call through eh_recurse (3 deep), then
 *                             waits for a line on FIFO, then one more: a
 *                             test changes something in between
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* not inlined, cloned nor merged with an identical function (-fipa-icf) */
#define NOINLINE __attribute__((noipa))
#define CALLS 3

/* no tail calls: every function keeps its frame while it calls */
#define KEEP() asm volatile("" ::: "memory")

static volatile long eh_sink;

NOINLINE static void eh_leaf(void)
{
	eh_sink += getppid();
	KEEP();
}

NOINLINE static void eh_handler(int sig)
{
	eh_leaf();
	KEEP();
}

NOINLINE static void eh_raise(void)
{
	kill(getpid(), SIGUSR1);
	KEEP();
}

NOINLINE static int eh_signal(void)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = eh_handler;
	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	for (i = 0; i < CALLS; i++)
		eh_raise();
	KEEP();
	return 0;
}

static jmp_buf eh_jmp;
/* always set: a path that returns keeps GCC from calling this endless */
static volatile int eh_jump_armed = 1;

NOINLINE static void eh_jump_deep(int n)
{
	if (n > 0)
		eh_jump_deep(n - 1);
	else if (eh_jump_armed)
		longjmp(eh_jmp, 1);
	KEEP();
}

NOINLINE static void eh_after(void)
{
	eh_leaf();
	KEEP();
}

NOINLINE static int eh_jump_outer(void)
{
	volatile int i;

	for (i = 0; i < CALLS; i++) {
		if (!setjmp(eh_jmp))
			eh_jump_deep(5);
		eh_after();
	}
	KEEP();
	return 0;
}

NOINLINE static void eh_thread_leaf(void)
{
	eh_leaf();
	KEEP();
}

NOINLINE static void *eh_thread_fn(void *arg)
{
	int i;

	for (i = 0; i < CALLS; i++)
		eh_thread_leaf();
	KEEP();
	return arg;
}

NOINLINE static int eh_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, eh_thread_fn, NULL))
		return 1;
	return pthread_join(t, NULL) ? 1 : 0;
}

NOINLINE static void eh_recurse(int n)
{
	if (n > 0)
		eh_recurse(n - 1);
	else
		eh_leaf();
	KEEP();
}

NOINLINE static int eh_twice(const char *fifo)
{
	char line[16];
	FILE *f;

	eh_recurse(3);
	f = fopen(fifo, "r");
	if (!f || !fgets(line, sizeof(line), f))
		return 1;
	fclose(f);
	eh_recurse(3);
	KEEP();
	return 0;
}

int main(int argc, char **argv)
{
	int i, ret = 2;

	setvbuf(stdout, NULL, _IONBF, 0);

	if (argc == 2 && !strcmp(argv[1], "signal"))
		ret = eh_signal();
	else if (argc == 2 && !strcmp(argv[1], "longjmp"))
		ret = eh_jump_outer();
	else if (argc == 2 && !strcmp(argv[1], "thread"))
		ret = eh_thread();
	else if (argc == 3 && !strcmp(argv[1], "twice"))
		ret = eh_twice(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "deep")) {
		for (i = 0; i < CALLS; i++)
			eh_recurse(atoi(argv[2]));
		ret = 0;
	} else {
		fprintf(stderr,
			"usage: ustack-eh-cases signal|longjmp|thread|deep N|twice FIFO\n");
	}
	if (!ret)
		printf("ustack-eh-cases: %s done\n", argv[1]);
	return ret;
}
