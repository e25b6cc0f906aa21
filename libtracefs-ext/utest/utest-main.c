// SPDX-License-Identifier: GPL-2.0
/*
 * CUnit runner: runs every registered test and prints one PASS/FAIL/SKIP line
 * per test from the CUnit handlers, then "N passed, N failed, N skipped".
 * The exit status is 0 only when no test failed and CUnit itself worked.
 *
 * Unlike the CUnit basic runner, this one fails the run when a test fails,
 * and ends it with a FAIL line when a test hangs.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/TestRun.h>

#include "utest.h"

/* Seconds a test may take; tests/run.sh has no timeout of its own. */
#ifndef UTEST_TIMEOUT
#define UTEST_TIMEOUT	120
#endif

static unsigned int utest_passed, utest_failed, utest_skipped;
static char utest_skip_reason[256];
static bool utest_skipping;
static char utest_timeout_line[512];
static size_t utest_timeout_len;

/* A hung test: say which, and end the run (async-signal-safe calls only). */
static void utest_timeout(int sig)
{
	ssize_t ret;

	(void)sig;
	ret = write(STDOUT_FILENO, utest_timeout_line, utest_timeout_len);
	(void)ret;
	_exit(1);
}

void utest_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(utest_skip_reason, sizeof(utest_skip_reason), fmt, ap);
	va_end(ap);
	utest_skipping = true;
}

bool utest_check(bool ok, const char *file, unsigned int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (ok)
		return true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* CUnit copies the condition text into its failure record */
	CU_assertImplementation(CU_FALSE, line, msg, file, "", CU_FALSE);
	return false;
}

/* One line per failure record, joined; newlines would break the line format. */
static void utest_print_failures(const CU_pTest test, CU_pFailureRecord f)
{
	const char *sep = "";
	const char *p;

	for (; f && f->pTest == test; f = f->pNext) {
		const char *file = f->strFileName ? f->strFileName : "?";

		p = strrchr(file, '/');
		printf("%s%s:%u: ", sep, p ? p + 1 : file, f->uiLineNumber);
		for (p = f->strCondition ? f->strCondition : "failed"; *p; p++)
			putchar(*p == '\n' ? ' ' : *p);
		sep = "; ";
	}
}

static void utest_test_start(const CU_pTest test, const CU_pSuite suite)
{
	int len;

	utest_skipping = false;
	utest_skip_reason[0] = '\0';
	len = snprintf(utest_timeout_line, sizeof(utest_timeout_line),
		       "FAIL: %s/%s: no result after %d s\n", suite->pName, test->pName,
		       UTEST_TIMEOUT);
	utest_timeout_len = len < 0 ? 0 : strlen(utest_timeout_line);
	alarm(UTEST_TIMEOUT);
}

static void utest_test_complete(const CU_pTest test, const CU_pSuite suite,
				const CU_pFailureRecord failure)
{
	alarm(0);
	if (failure) {
		printf("FAIL: %s/%s: ", suite->pName, test->pName);
		utest_print_failures(test, failure);
		putchar('\n');
		utest_failed++;
	} else if (utest_skipping) {
		printf("SKIP: %s/%s: %s\n", suite->pName, test->pName, utest_skip_reason);
		utest_skipped++;
	} else {
		printf("PASS: %s/%s\n", suite->pName, test->pName);
		utest_passed++;
	}
	fflush(stdout);
}

/* A suite whose setup failed ran none of its tests: each of them fails. */
static void utest_suite_init_failed(const CU_pSuite suite)
{
	CU_pTest test;

	for (test = suite->pTest; test; test = test->pNext) {
		printf("FAIL: %s/%s: suite setup failed\n", suite->pName, test->pName);
		utest_failed++;
	}
}

static void utest_suite_cleanup_failed(const CU_pSuite suite)
{
	printf("FAIL: %s/cleanup: suite cleanup failed\n", suite->pName);
	utest_failed++;
}

int main(void)
{
	CU_ErrorCode err;

	/*
	 * The tests look up build-ids no server has; a debuginfod named by
	 * the caller's environment must not be asked (a network wait, and
	 * answers that depend on it). tests/host/symbolize-remote.sh tests
	 * debuginfod with a server of its own.
	 */
	unsetenv("DEBUGINFOD_URLS");
	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "utest: %s\n", CU_get_error_msg());
		return 1;
	}
	utest_symbolize_register();
	utest_symtab_register();
	utest_symtab_dwfl_register();
	utest_debug_file_register();
	utest_debug_dirs_register();
	utest_debuginfod_register();
	utest_damage_register();
	utest_elf32_register();
	utest_control_register();
	utest_frames_register();
	utest_frameset_register();
	utest_stitch_register();
	utest_stitch_lost_register();
	utest_stitch_bad_register();
	utest_stitch_driver_register();
	utest_stitch_next_register();
	utest_hostile_register();
	utest_fold_register();
	utest_decode_register();
	utest_source_register();
	utest_names_register();
	utest_index_register();
	utest_index_event_register();
	utest_layout_register();
	utest_sample_register();
	utest_trace_open_register();
	utest_abi_register();
	utest_hash_register();
	if (CU_get_error() != CUE_SUCCESS) {
		fprintf(stderr, "utest: registering tests: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 1;
	}

	signal(SIGALRM, utest_timeout);
	CU_set_test_start_handler(utest_test_start);
	CU_set_test_complete_handler(utest_test_complete);
	CU_set_suite_init_failure_handler(utest_suite_init_failed);
	CU_set_suite_cleanup_failure_handler(utest_suite_cleanup_failed);

	err = CU_run_all_tests();
	if (err != CUE_SUCCESS) {
		printf("FAIL: cunit/run: %s\n", CU_get_error_msg());
		utest_failed++;
	}
	CU_cleanup_registry();

	printf("%u passed, %u failed, %u skipped\n", utest_passed, utest_failed, utest_skipped);
	return utest_failed ? 1 : 0;
}
