// SPDX-License-Identifier: GPL-2.0
/*
 * The shared object the symbolizer tests look into. Built with -g (the
 * Makefile also makes a stripped copy and its --only-keep-debug file), and
 * once more with -DUTEST_OTHER for a file with the same functions and another
 * build-id. The tests dlopen() it to learn where each function is, the way
 * the kernel would see it: an offset into the mapped file.
 */
#define NOINLINE __attribute__((noinline, noclone, used))

static volatile int utest_sink;

NOINLINE int utest_alpha(int x)
{
	int i;

	for (i = 0; i < x; i++)
		utest_sink += i * 3;
#ifdef UTEST_OTHER
	utest_sink ^= 0x5a5a;
#endif
	return utest_sink;
}

NOINLINE static int utest_gamma(int x)
{
	utest_sink += x;
	return utest_sink * 7;
}

NOINLINE int utest_beta(int x)
{
	return utest_gamma(x) + utest_alpha(x + 1);
}

/* Another global name for utest_beta: lookups must pick one the same way. */
int utest_beta_alias(int x) __attribute__((alias("utest_beta")));

/* A weak name for utest_alpha, shorter: the global name still wins. */
int ualpha(int x) __attribute__((weak, alias("utest_alpha")));

/*
 * A function inlined into another (always, even at -O1): the DWARF has a
 * DW_TAG_inlined_subroutine for it. utest_inl_lines holds the line of its
 * statement and the line of its call, for the source line tests.
 */
static inline __attribute__((always_inline)) int utest_inl_leaf(int x)
{
	utest_sink += x * 5;
	return utest_sink;
}

NOINLINE int utest_inl_outer(int x)
{
	return utest_inl_leaf(x) ^ 3;
}

/* the two lines above: utest_sink += ..., and return utest_inl_leaf(...) */
const int utest_inl_lines[2] = { __LINE__ - 10, __LINE__ - 4 };

/* Names as rustc mangles them (legacy, with its hash, and v0), made by hand. */
int utest_rust_legacy(int x) __asm__("_ZN6ustack4rust6legacy17h0123456789abcdefE");
int utest_rust_v0(int x) __asm__("_RNvCs1234_6ustack2v0");

NOINLINE int utest_rust_legacy(int x)
{
	return utest_sink + x * 11;
}

NOINLINE int utest_rust_v0(int x)
{
	return utest_sink - x * 13;
}

/* The tests cannot dlsym() a static function. */
void *utest_gamma_addr(void)
{
	return (void *)utest_gamma;
}

#if defined(__x86_64__) || defined(__i386__)
/*
 * A function without a size (no .size directive), like some assembly code.
 * Its own section puts it after the C functions: it then reaches to the end
 * of .text and covers none of them when only .dynsym is left.
 */
asm(".pushsection .text.utest_nosize, \"ax\", @progbits\n"
	".globl utest_nosize\n"
	".type utest_nosize, @function\n"
	"utest_nosize:\n"
	"	nop; nop; nop; nop; nop; nop; nop; nop\n"
	"	nop; nop; nop; nop; nop; nop; nop; nop\n"
	"	ret\n"
	".popsection\n");

/* A 1-byte function and 32 bytes after it that belong to no symbol. */
asm(".pushsection .text.utest_padded, \"ax\", @progbits\n"
	".globl utest_padded\n"
	".type utest_padded, @function\n"
	"utest_padded:\n"
	"	ret\n"
	".size utest_padded, 1\n"
	"	.skip 32, 0xcc\n"
	".popsection\n");

/*
 * Functions whose last instruction calls one that never returns (abort()
 * here; exit() and __stack_chk_fail() do the same in real programs): the
 * return address is one past the end. After utest_noreturn comes
 * utest_after_noreturn, starting at that return address; after
 * utest_noreturn_pad, 16 bytes of padding in no symbol.
 */
asm(".pushsection .text.utest_noreturn, \"ax\", @progbits\n"
	".globl utest_noreturn\n"
	".type utest_noreturn, @function\n"
	"utest_noreturn:\n"
	"	nop\n"
	"	call abort@PLT\n"
	".size utest_noreturn, .-utest_noreturn\n"
	".globl utest_after_noreturn\n"
	".type utest_after_noreturn, @function\n"
	"utest_after_noreturn:\n"
	"	nop\n"
	"	ret\n"
	".size utest_after_noreturn, .-utest_after_noreturn\n"
	".globl utest_noreturn_pad\n"
	".type utest_noreturn_pad, @function\n"
	"utest_noreturn_pad:\n"
	"	nop\n"
	"	call abort@PLT\n"
	".size utest_noreturn_pad, .-utest_noreturn_pad\n"
	"	.skip 16, 0xcc\n"
	".popsection\n");

/* A label in read-only data: a symbol, but not code. */
asm(".pushsection .rodata.utest_label, \"a\", @progbits\n"
	".globl utest_rodata_label\n"
	"utest_rodata_label:\n"
	"	.skip 64, 0\n"
	".popsection\n");
#endif
