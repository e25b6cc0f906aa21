// SPDX-License-Identifier: LGPL-2.1
/*
 * A program whose entry code has no CFI, as ld.so's _start: the stub lies
 * between two functions that have FDEs (-fno-toplevel-reorder keeps the
 * order of the file). -DUT_ENTRY_PAD=N: N bytes of nop in the stub (1).
 * Linked with -nostdlib -e fixture_entry; never run. Also linked as a
 * shared library with that e_entry: no place processes start.
 */
#ifndef UT_ENTRY_PAD
#define UT_ENTRY_PAD 1
#endif
#define UT_STR(x) #x
#define UT_XSTR(x) UT_STR(x)

__attribute__((noinline, used, visibility("hidden"))) long before(long x)
{
	return x * 3 + 1;
}

asm(".text\n"
    ".globl fixture_entry\n"
    ".type fixture_entry, @function\n"
    "fixture_entry:\n"
    "	xor %ebp, %ebp\n"
    "	mov %rsp, %rdi\n"
    "	call after\n"
    "	.skip " UT_XSTR(UT_ENTRY_PAD) ", 0x90\n"
    "	hlt\n"
    ".size fixture_entry, .-fixture_entry\n");

__attribute__((noinline, used, visibility("hidden"))) long after(long sp)
{
	return before(sp) + 7;
}
