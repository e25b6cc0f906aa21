// SPDX-License-Identifier: GPL-2.0
/*
 * libustack-mremap.so: a call chain without frame pointers, described by
 * the library's .sframe (built -fomit-frame-pointer -Wa,--gsframe), that
 * still runs after every mapping of the library was moved by mremap():
 * hidden functions called directly, no data, no PLT or GOT on the way, and
 * the system call made by the leaf itself.
 *
 *   mr_entry -> mr_middle -> mr_leaf: getppid
 *
 * mr_entry and mr_middle keep a buffer on the stack, so their frames have
 * a size of their own that only SFrame knows; none of them touches %rbp,
 * so a frame-pointer walk from the leaf lands in the caller's caller.
 */
#define HIDDEN __attribute__((visibility("hidden"), noinline, noclone))

HIDDEN long mr_leaf(long x)
{
	long ret;

	asm volatile("syscall" : "=a" (ret) : "0" (110L) : "rcx", "r11", "memory");
	return ret + x;
}

HIDDEN long mr_middle(long x)
{
	volatile char buf[48];

	buf[0] = x;
	return mr_leaf(buf[0]) + buf[0];
}

__attribute__((visibility("default"), noinline)) long mr_entry(long x)
{
	volatile char buf[80];

	buf[0] = x;
	return mr_middle(buf[0]) + buf[0];
}
