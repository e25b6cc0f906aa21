// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-flame-names: a known call chain whose names are hostile, for the
 * flame graph fixture (tests/fixtures/make-flame-fixture.sh).
 *
 *   ustack-flame-names [CALLS]
 *
 * makes CALLS (default 2) getppid system calls through
 * main -> flame_names_outer -> flame_names_inner -> flame_names_syscall.
 * The fixture script renames the two middle functions in the symbol table
 * (objcopy --redefine-sym) to names with markup, quotes, ";", a control
 * character and bytes that are not UTF-8, and runs the program from a file
 * whose name (the task's comm) is as bad.
 */
#include <stdlib.h>
#include <sys/syscall.h>

#include "raw-syscall.h"

#define NOINLINE __attribute__((noinline, noclone))

long flame_names_syscall(long nr, long a1, long a2, long a3);
asm(".text\n" USTACK_RAW_SYSCALL_ASM("flame_names_syscall"));

NOINLINE void flame_names_inner(void)
{
	flame_names_syscall(SYS_getppid, 0, 0, 0);
	asm volatile("" ::: "memory");
}

NOINLINE void flame_names_outer(void)
{
	flame_names_inner();
	asm volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 2;

	while (calls-- > 0)
		flame_names_outer();
	return 0;
}
