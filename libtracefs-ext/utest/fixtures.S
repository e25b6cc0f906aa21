/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture files, built into the test binary so that it runs from
 * anywhere: the test writes them to a temporary directory. The assembler
 * finds them through -I (the utest build directory).
 */
	.macro	utest_blob name, file
	.section .rodata
	.balign	16
	.globl	\name
\name:
	.incbin	"\file"
	.globl	\name\()_end
\name\()_end:
	.byte	0
	.endm

	utest_blob utest_fixture_so, fixture.so
	utest_blob utest_fixture_debug, fixture.debug
	utest_blob utest_fixture_stripped_so, fixture-stripped.so
	utest_blob utest_fixture_other_so, fixture-other.so

	.section .note.GNU-stack, "", %progbits
