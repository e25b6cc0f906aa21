/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event formats of the unit tests, for utest/trace-env.c in the fuzzer:
 * the assembler finds the file through -I libtracefs-ext/utest/formats.
 */
	.section .rodata
	.globl	utest_formats
utest_formats:
	.incbin	"ustack-6.12.formats"
	.globl	utest_formats_end
utest_formats_end:
	.byte	0

	.section .note.GNU-stack, "", %progbits
