// SPDX-License-Identifier: LGPL-2.1
/*
 * CUnit runner of the libusf tests: one PASS/FAIL/SKIP line per test, then
 * "N passed, N failed, N skipped"; exit status 1 when any test failed, and
 * a FAIL line when a test hangs.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <CUnit/TestRun.h>

#include "utest.h"

#define UT_TIMEOUT	120

static unsigned int ut_passed, ut_failed, ut_skipped;
static char ut_skip_reason[256];
static bool ut_skipping;
static char ut_hung[256];
static size_t ut_hung_len;

static void ut_timeout(int sig)
{
	ssize_t ret;

	(void)sig;
	ret = write(STDOUT_FILENO, ut_hung, ut_hung_len);
	(void)ret;
	_exit(1);
}

void ut_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ut_skip_reason, sizeof(ut_skip_reason), fmt, ap);
	va_end(ap);
	ut_skipping = true;
}

bool ut_check(bool ok, const char *file, unsigned int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (ok)
		return true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	CU_assertImplementation(CU_FALSE, line, msg, file, "", CU_FALSE);
	return false;
}

static void ut_start(const CU_pTest test, const CU_pSuite suite)
{
	ut_skipping = false;
	snprintf(ut_hung, sizeof(ut_hung), "FAIL: %s/%s: no result after %d s\n",
		 suite->pName, test->pName, UT_TIMEOUT);
	ut_hung_len = strlen(ut_hung);
	alarm(UT_TIMEOUT);
}

static void ut_complete(const CU_pTest test, const CU_pSuite suite,
			const CU_pFailureRecord failure)
{
	CU_pFailureRecord f = failure;
	const char *sep = "", *p;

	alarm(0);
	if (!f) {
		if (ut_skipping) {
			printf("SKIP: %s/%s: %s\n", suite->pName, test->pName, ut_skip_reason);
			ut_skipped++;
		} else {
			printf("PASS: %s/%s\n", suite->pName, test->pName);
			ut_passed++;
		}
		fflush(stdout);
		return;
	}
	printf("FAIL: %s/%s: ", suite->pName, test->pName);
	for (; f && f->pTest == test; f = f->pNext) {
		p = strrchr(f->strFileName ? f->strFileName : "?", '/');
		printf("%s%s:%u: ", sep, p ? p + 1 : f->strFileName, f->uiLineNumber);
		for (p = f->strCondition ? f->strCondition : "failed"; *p; p++)
			putchar(*p == '\n' ? ' ' : *p);
		sep = "; ";
	}
	putchar('\n');
	fflush(stdout);
	ut_failed++;
}

static void ut_suite_failed(const CU_pSuite suite)
{
	CU_pTest t;

	for (t = suite->pTest; t; t = t->pNext, ut_failed++)
		printf("FAIL: %s/%s: suite setup failed\n", suite->pName, t->pName);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "usf-utest: %s\n", CU_get_error_msg());
		return 1;
	}
	usf_utest_build_register();
	usf_utest_decode_register();
	usf_utest_roundtrip_register();
	usf_utest_corrupt_register();
	usf_utest_fixture_register();
	usf_utest_mutate_register();
	usf_utest_eh_register();
	usf_utest_table_register();
	usf_utest_file_register();
	usf_utest_trust_register();
	usf_utest_cache_register();
	if (CU_get_error() != CUE_SUCCESS) {
		fprintf(stderr, "usf-utest: registering: %s\n", CU_get_error_msg());
		return 1;
	}
	signal(SIGALRM, ut_timeout);
	CU_set_test_start_handler(ut_start);
	CU_set_test_complete_handler(ut_complete);
	CU_set_suite_init_failure_handler(ut_suite_failed);
	if (CU_run_all_tests() != CUE_SUCCESS) {
		printf("FAIL: cunit/run: %s\n", CU_get_error_msg());
		ut_failed++;
	}
	CU_cleanup_registry();
	printf("%u passed, %u failed, %u skipped\n", ut_passed, ut_failed, ut_skipped);
	return ut_failed ? 1 : 0;
}
