// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-jit NAME CALLS: code in no file, as a JIT compiler makes it. The
 * program copies a small function (a frame, getppid, return) into an
 * anonymous mapping at a fixed address, says so in /tmp/perf-PID.map as
 * runtimes do for perf ("START SIZE NAME", hex), and calls it CALLS times
 * through jit_call(). Two runs with other names have the same code at the
 * same address: only the process tells their frames apart.
 *
 * The frame in the JIT code is the innermost one of each getppid call's
 * stack, at JIT_ADDR + 0xb (the instruction after the syscall); main calls
 * jit_call() through jit_step(), inlined into it (a frame with an inlined
 * call for -O ustack_inlines).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define JIT_ADDR	0x7e0000000000UL

static const unsigned char jit_code[] = {
	0x55,				/* push %rbp */
	0x48, 0x89, 0xe5,		/* mov %rsp,%rbp */
	0xb8, 0x6e, 0x00, 0x00, 0x00,	/* mov $110 (getppid),%eax */
	0x0f, 0x05,			/* syscall */
	0x5d,				/* pop %rbp */
	0xc3,				/* ret */
};

/* A frame of its own under its own name (no clone), returning after the call. */
static __attribute__((noipa)) long jit_call(long (*fn)(void))
{
	long ret = fn();

	__asm__ volatile("" : "+r"(ret));
	return ret;
}

static inline __attribute__((always_inline)) long jit_step(long (*fn)(void))
{
	return jit_call(fn);
}

static int jit_map_write(const char *name)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%lx %zx %s\n", JIT_ADDR, sizeof(jit_code), name);
	return fclose(f);
}

int main(int argc, char **argv)
{
	long (*fn)(void);
	void *code;
	long i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: ustack-jit NAME CALLS\n");
		return 2;
	}
	n = atol(argv[2]);
	code = mmap((void *)JIT_ADDR, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (code != (void *)JIT_ADDR) {
		perror("ustack-jit: mmap");
		return 1;
	}
	memcpy(code, jit_code, sizeof(jit_code));
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC) || jit_map_write(argv[1])) {
		perror("ustack-jit");
		return 1;
	}
	fn = (long (*)(void))code;
	for (i = 0; i < n; i++)
		jit_step(fn);
	printf("ustack-jit: %ld calls\n", n);
	return 0;
}
