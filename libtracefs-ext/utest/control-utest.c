// SPDX-License-Identifier: GPL-2.0
/*
 * Control tests: the option user_stacktrace_deferred on fake tracing
 * directories, which libtracefs takes as well as tracefs
 * (tracefs_instance_alloc(), tracefs_set_tracing_dir()). The tests never
 * write to the host's tracefs; they only look at it when it is mounted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <tracefs.h>

#include "fixture-env.h"

#define SUITE	"control"

#define OPTION	"options/user_stacktrace_deferred"

/* A fake tracing directory: fx.tmp_dir/name, with options/ holding option (if set). */
static const char *ut_fake(const char *name, const char *sub, const char *option, char *buf,
			   size_t size)
{
	char path[PATH_MAX];

	if (!utest_dir(name, buf, size) ||
	    !utest_pathf(path, sizeof(path), "%s%s/options", buf, sub) || !utest_make_dirs(path) ||
	    !utest_pathf(path, sizeof(path), "%s%s/options/userstacktrace", buf, sub) ||
	    !utest_write_file(path, "0\n", 2))
		return NULL;
	if (option && (!utest_pathf(path, sizeof(path), "%s%s/%s", buf, sub, OPTION) ||
		       !utest_write_file(path, option, strlen(option))))
		return NULL;
	return buf;
}

static bool ut_file_is(const char *dir, const char *sub, const char *want)
{
	char path[PATH_MAX], buf[64] = "";
	FILE *f;
	size_t n;

	utest_pathf(path, sizeof(path), "%s%s/%s", dir, sub, OPTION);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return !strcmp(buf, want);
}

#define CHECK_RET(call, want) do { \
	int __r; \
	errno = 0; \
	__r = (call); \
	UT_CHECK(__r == (want), "%s returned %d (%s), want %d", #call, __r, strerror(errno), want); \
} while (0)

#define CHECK_ERR(call, err) do { \
	int __r; \
	errno = 0; \
	__r = (call); \
	UT_CHECK(__r == -1 && errno == (err), "%s returned %d (%s), want -1 (%s)", #call, __r, \
		 strerror(errno), strerror(err)); \
} while (0)

/* Set, read, clear: the whole cycle, on the top level of a fake directory. */
static void ut_cycle(struct tracefs_instance *inst, const char *dir, const char *sub)
{
	CHECK_RET(ustack_option_is_supported(inst), 1);
	CHECK_RET(ustack_option_is_enabled(inst), 0);
	CHECK_RET(ustack_option_enable(inst), 0);
	UT_CHECK(ut_file_is(dir, sub, "1"), "the option file does not say 1");
	CHECK_RET(ustack_option_is_enabled(inst), 1);
	CHECK_RET(ustack_option_enable(inst), 0);
	CHECK_RET(ustack_option_disable(inst), 0);
	UT_CHECK(ut_file_is(dir, sub, "0"), "the option file does not say 0");
	CHECK_RET(ustack_option_is_enabled(inst), 0);
}

static void test_supported(void)
{
	struct tracefs_instance *inst;
	char dir[PATH_MAX], path[PATH_MAX];

	if (!UT_CHECK(ut_fake("tracing-new", "", "0\n", dir, sizeof(dir)), "fake tracefs"))
		return;
	inst = tracefs_instance_alloc(dir, NULL);
	if (!UT_CHECK(inst, "tracefs_instance_alloc(%s)", dir))
		return;
	ut_cycle(inst, dir, "");
	tracefs_instance_free(inst);

	/* an instance of it, leaving the top level alone */
	if (!UT_CHECK(ut_fake("tracing-new", "/instances/foo", "0\n", dir, sizeof(dir)), "fake"))
		return;
	inst = tracefs_instance_alloc(dir, "foo");
	if (!UT_CHECK(inst, "tracefs_instance_alloc(%s, foo)", dir))
		return;
	ut_cycle(inst, dir, "/instances/foo");
	CHECK_RET(ustack_option_enable(inst), 0);
	UT_CHECK(ut_file_is(dir, "", "0"), "the top level was changed");
	tracefs_instance_free(inst);

	/* the top level is the instance NULL once libtracefs is pointed at the directory */
	if (UT_CHECK(!tracefs_set_tracing_dir(dir), "tracefs_set_tracing_dir")) {
		ut_cycle(NULL, dir, "");
		tracefs_set_tracing_dir(NULL);
	}

	/* the option file as a kernel may show it: "1" with a newline */
	utest_pathf(path, sizeof(path), "%s/%s", dir, OPTION);
	utest_write_file(path, "1\n", 2);
	inst = tracefs_instance_alloc(dir, NULL);
	if (UT_CHECK(inst, "alloc"))
		CHECK_RET(ustack_option_is_enabled(inst), 1);
	/* neither 0 nor 1 */
	utest_write_file(path, "on\n", 3);
	if (inst)
		CHECK_ERR(ustack_option_is_enabled(inst), EIO);
	tracefs_instance_free(inst);
}

/* A kernel without the option: ENOTSUP from everything but the question. */
static void test_not_supported(void)
{
	struct tracefs_instance *inst;
	char dir[PATH_MAX];

	if (!UT_CHECK(ut_fake("tracing-old", "", NULL, dir, sizeof(dir)), "fake tracefs"))
		return;
	inst = tracefs_instance_alloc(dir, NULL);
	if (!UT_CHECK(inst, "tracefs_instance_alloc(%s)", dir))
		return;
	CHECK_RET(ustack_option_is_supported(inst), 0);
	CHECK_ERR(ustack_option_enable(inst), ENOTSUP);
	CHECK_ERR(ustack_option_disable(inst), ENOTSUP);
	CHECK_ERR(ustack_option_is_enabled(inst), ENOTSUP);
	tracefs_instance_free(inst);

	if (UT_CHECK(!tracefs_set_tracing_dir(dir), "tracefs_set_tracing_dir")) {
		CHECK_RET(ustack_option_is_supported(NULL), 0);
		CHECK_ERR(ustack_option_enable(NULL), ENOTSUP);
		tracefs_set_tracing_dir(NULL);
	}
}

/* No tracing directory where the instance says: not "not supported", but gone. */
static void test_no_tracefs(void)
{
	struct tracefs_instance *inst;
	char dir[PATH_MAX], opts[PATH_MAX];

	if (!UT_CHECK(ut_fake("tracing-gone", "/instances/bar", "0\n", dir, sizeof(dir)),
		      "fake tracefs"))
		return;
	inst = tracefs_instance_alloc(dir, "bar");
	if (!UT_CHECK(inst, "tracefs_instance_alloc"))
		return;
	CHECK_RET(ustack_option_is_supported(inst), 1);
	/* the instance is removed behind our back */
	utest_pathf(opts, sizeof(opts), "%s/instances/bar/%s", dir, OPTION);
	unlink(opts);
	utest_pathf(opts, sizeof(opts), "%s/instances/bar/options/userstacktrace", dir);
	unlink(opts);
	utest_pathf(opts, sizeof(opts), "%s/instances/bar/options", dir);
	rmdir(opts);
	utest_pathf(opts, sizeof(opts), "%s/instances/bar", dir);
	rmdir(opts);
	CHECK_ERR(ustack_option_is_supported(inst), ENOENT);
	CHECK_ERR(ustack_option_enable(inst), ENOENT);
	CHECK_ERR(ustack_option_is_enabled(inst), ENOENT);
	tracefs_instance_free(inst);
}

/* The error of the write is passed on as it was (the kernel's EBUSY, here ENOSPC). */
static void test_write_error(void)
{
	struct tracefs_instance *inst;
	char dir[PATH_MAX], path[PATH_MAX];

	if (!UT_CHECK(ut_fake("tracing-full", "", NULL, dir, sizeof(dir)), "fake tracefs"))
		return;
	utest_pathf(path, sizeof(path), "%s/%s", dir, OPTION);
	if (symlink("/dev/full", path)) {
		utest_skip("symlink to /dev/full: %s", strerror(errno));
		return;
	}
	inst = tracefs_instance_alloc(dir, NULL);
	if (!UT_CHECK(inst, "tracefs_instance_alloc"))
		return;
	CHECK_RET(ustack_option_is_supported(inst), 1);
	CHECK_ERR(ustack_option_enable(inst), ENOSPC);
	CHECK_ERR(ustack_option_disable(inst), ENOSPC);
	tracefs_instance_free(inst);
}

/* The man page's example program, on the fake directories. */
static void test_example(void)
{
	char cmd[2 * PATH_MAX], out[256], dir_new[PATH_MAX], dir_old[PATH_MAX];
	static const struct {
		const char	*dir;
		const char	*args;
		const char	*out;
		int		status;
	} runs[] = {
		{ "new", "", "user_stacktrace_deferred: off\n", 0 },
		{ "new", "on", "", 0 },
		{ "new", "", "user_stacktrace_deferred: on\n", 0 },
		{ "new", "off", "", 0 },
		{ "old", "", "user_stacktrace_deferred: not supported\n", 0 },
		{ "old", "on", "deferred: the kernel has no user_stacktrace_deferred\n", 1 },
		{ "new", "maybe", "usage: deferred [-t TRACING_DIR] [-i INSTANCE] [on|off]\n", 2 },
	};
	size_t i, n;
	FILE *p;
	int st;

	if (!UT_CHECK(ut_fake("example-new", "", "0\n", dir_new, sizeof(dir_new)) &&
		      ut_fake("example-old", "", NULL, dir_old, sizeof(dir_old)), "fake tracefs"))
		return;
	for (i = 0; i < UT_ARRAY_SIZE(runs); i++) {
		utest_pathf(cmd, sizeof(cmd), "'%s/deferred' -t '%s' %s 2>&1", UTEST_EXAMPLES_DIR,
			    strcmp(runs[i].dir, "new") ? dir_old : dir_new, runs[i].args);
		p = popen(cmd, "r");
		if (!UT_CHECK(p, "popen: %s", strerror(errno)))
			return;
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = '\0';
		st = pclose(p);
		UT_CHECK_STR(out, runs[i].out);
		UT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == runs[i].status,
			 "run %zu exited with %#x, want %d", i, st, runs[i].status);
	}
}

/* The host's tracefs, when mounted: only looked at, never written. */
static void test_host(void)
{
	struct tracefs_instance *inst;
	char line[PATH_MAX + 128], dir[PATH_MAX] = "", type[64];
	FILE *f = fopen("/proc/mounts", "r");
	int ret;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %4095s %63s", dir, type) == 2 && !strcmp(type, "tracefs"))
			break;
		dir[0] = '\0';
	}
	if (f)
		fclose(f);
	if (!dir[0]) {
		utest_skip("no tracefs mounted (the host is never mounted on by the tests)");
		return;
	}
	inst = tracefs_instance_alloc(dir, NULL);
	if (!UT_CHECK(inst, "tracefs_instance_alloc(%s)", dir))
		return;
	errno = 0;
	ret = ustack_option_is_supported(inst);
	UT_CHECK(ret == 0 || ret == 1 || errno == EACCES, "supported: %d (%s)", ret,
		 strerror(errno));
	tracefs_instance_free(inst);
}

void utest_control_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "supported", test_supported);
	CU_add_test(suite, "not_supported", test_not_supported);
	CU_add_test(suite, "no_tracefs", test_no_tracefs);
	CU_add_test(suite, "write_error", test_write_error);
	CU_add_test(suite, "example", test_example);
	CU_add_test(suite, "host", test_host);
}
