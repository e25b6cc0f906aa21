/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The CUnit tests of libusf: the runner (utest-main.c) prints one line per
 * test for tests/run.sh and exits 0 only when no test failed:
 *
 *   PASS: <suite>/<test>
 *   FAIL: <suite>/<test>: <file>:<line>: <what failed>[; ...]
 *   SKIP: <suite>/<test>: <reason>
 *
 * and the helpers the tests share (build-utest.c).
 */
#ifndef _USF_UTEST_H
#define _USF_UTEST_H

#include <stdbool.h>
#include <CUnit/CUnit.h>

#include "usf.h"

void usf_utest_build_register(void);
void usf_utest_decode_register(void);
void usf_utest_roundtrip_register(void);
void usf_utest_corrupt_register(void);
void usf_utest_fixture_register(void);
void usf_utest_mutate_register(void);
void usf_utest_eh_register(void);
void usf_utest_table_register(void);
void usf_utest_file_register(void);
void usf_utest_trust_register(void);
void usf_utest_cache_register(void);

void ut_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool ut_check(bool ok, const char *file, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define UT_CHECK(cond, fmt, ...) \
	ut_check(!!(cond), __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/* A section of every kind of row and function; FLEX and signal only with @v3 */
int ut_build_section(struct usf_section *sec, uint8_t abi, bool v3);

/* The .sframe of a fixture (fixture-prog, fixture-lib.so); false: the test failed */
bool ut_fixture(const char *name, void **buf, size_t *size, uint64_t *vaddr);

/* Encode @sec in a new buffer (free() it); NULL: the test failed */
void *ut_encode(const struct usf_section *sec, unsigned int version, unsigned int flags,
		uint64_t vaddr, size_t *size);

/* Same functions and rows (starts moved by @delta); false with a failure recorded */
bool ut_same_section(const struct usf_section *a, const struct usf_section *b, int64_t delta,
		     bool check_signal);

/* Every pc of every function of @a looks up the same in @b at pc + @delta */
bool ut_same_lookups(const struct usf_section *a, const struct usf_section *b, int64_t delta);

#endif /* _USF_UTEST_H */
