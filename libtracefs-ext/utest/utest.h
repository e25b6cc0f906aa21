/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CUnit runner of libtracefs-ext (utest-main.c) and the checks the tests
 * use. The runner prints one line per test for tests/run.sh:
 *
 *   PASS: <suite>/<test>
 *   FAIL: <suite>/<test>: <file>:<line>: <what failed>[; <next failure>...]
 *   SKIP: <suite>/<test>: <reason>
 *
 * and exits 0 only when no test failed.
 */
#ifndef _UTEST_H
#define _UTEST_H

#include <stdbool.h>
#include <string.h>
#include <CUnit/CUnit.h>

/* Each test file registers its suite; utest-main.c calls them all. */
void utest_symbolize_register(void);
void utest_debug_file_register(void);
void utest_debug_dirs_register(void);
void utest_debuginfod_register(void);
void utest_damage_register(void);
void utest_elf32_register(void);
void utest_control_register(void);
void utest_frames_register(void);
void utest_frameset_register(void);
void utest_index_event_register(void);
void utest_stitch_register(void);
void utest_stitch_lost_register(void);
void utest_stitch_bad_register(void);
void utest_stitch_driver_register(void);
void utest_stitch_next_register(void);
void utest_hostile_register(void);
void utest_fold_register(void);
void utest_decode_register(void);
void utest_source_register(void);
void utest_names_register(void);
void utest_index_register(void);
void utest_layout_register(void);
void utest_sample_register(void);
void utest_trace_open_register(void);
void utest_abi_register(void);
void utest_hash_register(void);
void utest_symtab_register(void);
void utest_symtab_dwfl_register(void);

/* Mark the running test skipped; the test then returns by itself. */
void utest_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The shared library exports every name of @api and none of @hidden. */
void utest_check_exports(const char * const *api, size_t n_api,
			 const char * const *hidden, size_t n_hidden);

#define UT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Record a failure with a printf-style message unless ok; return ok. */
bool utest_check(bool ok, const char *file, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define UT_CHECK(cond, fmt, ...) \
	utest_check(!!(cond), __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/* Both strings may be NULL; the message shows both. */
#define UT_CHECK_STR(got, want) ({ \
	const char *__g = (got), *__w = (want); \
	UT_CHECK(__g && __w ? !strcmp(__g, __w) : __g == __w, \
		 "%s is \"%s\", want \"%s\"", #got, __g ? __g : "(null)", \
		 __w ? __w : "(null)"); \
})

#define UT_CHECK_ULL(got, want) ({ \
	unsigned long long __g = (got), __w = (want); \
	UT_CHECK(__g == __w, "%s is %#llx, want %#llx", #got, __g, __w); \
})

#endif /* _UTEST_H */
