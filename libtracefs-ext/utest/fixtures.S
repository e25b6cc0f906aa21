/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture files, built into the test binary so that it runs from
 * anywhere: the test writes them to a temporary directory. The assembler
 * finds them through -I (the utest build directory, and utest/formats).
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
	utest_blob utest_fixture_mini_so, fixture-mini.so
	utest_blob utest_fixture_cxx_so, fixture-cxx.so
	utest_blob utest_fixture32_so, fixture32.so
	utest_blob utest_fixture32_debug, fixture32.debug
	utest_blob utest_fixture32_stripped_so, fixture32-stripped.so
	utest_blob utest_fixture32_expect, fixture32.expect
	/* the event formats of the stitcher tests (utest/formats/) */
	utest_blob utest_formats, ustack-6.12.formats

	.section .note.GNU-stack, "", %progbits
