// SPDX-License-Identifier: GPL-2.0
/*
 * ustack_stack_fold(): stacks as folded lines for flame graphs, symbolized
 * with the fixtures of the symbolizer tests (fixture-env.h).
 */
#include <errno.h>
#include <string.h>

#include "fixture-env.h"
#include "trace-env.h"
#include "../include/ustack-stitch-local.h"

/* Innermost first, as the stitcher hands them back: gamma called by beta by alpha. */
static void ut_fold_frames(struct ustack_frame *frames, const char *path)
{
	static const int funcs[3] = { F_GAMMA, F_BETA, F_ALPHA };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		frames[i] = (struct ustack_frame){
			.path = path, .file_id = 1,
			.flags = i ? USTACK_FRAME_RETURN : 0,
			.offset = fx.funcs[funcs[i]].offset + (i ? 4 : 1),
		};
	}
}

/* Outermost first, names without offsets, the command name in front. */
static void test_fold_symbols(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	struct ustack_frame frames[4];
	struct ustack_stack s = { .nr = 3, .frames = frames };
	static const char want[] = "sample;utest_alpha;utest_beta;utest_gamma";
	char buf[256];
	int len;

	if (!sym)
		return;
	ut_fold_frames(frames, fx.so);
	len = ustack_stack_fold(&s, sym, "sample", buf, sizeof(buf));
	UT_CHECK_STR(buf, want);
	UT_CHECK(len == (int)strlen(want), "length %d", len);
	/* no command name: the stacks of every task fold together */
	ustack_stack_fold(&s, sym, NULL, buf, sizeof(buf));
	UT_CHECK_STR(buf, "utest_alpha;utest_beta;utest_gamma");
	ustack_stack_fold(&s, sym, "", buf, sizeof(buf));
	UT_CHECK_STR(buf, "utest_alpha;utest_beta;utest_gamma");
	/* cut anywhere, like snprintf */
	UT_CHECK(ustack_stack_fold(&s, sym, "sample", NULL, 0) == len, "length without a buffer");
	UT_CHECK(ustack_stack_fold(&s, sym, "sample", buf, 10) == len, "length when cut");
	UT_CHECK_STR(buf, "sample;ut");
	UT_CHECK(ustack_stack_fold(&s, sym, "sample", buf, len) == len, "cut by one");
	UT_CHECK(strlen(buf) == (size_t)len - 1 && !strncmp(buf, want, len - 1), "cut by one");
	/* an address in no file, the outermost here */
	frames[3] = (struct ustack_frame){ .offset = 0x7ffd00, .flags = USTACK_FRAME_RETURN };
	s.nr = 4;
	ustack_stack_fold(&s, sym, "a;b\nc", buf, sizeof(buf));
	UT_CHECK_STR(buf, "a_b_c;[unknown];utest_alpha;utest_beta;utest_gamma");
	ustack_symbolizer_free(sym);
}

/* Unresolved frames: by file, or [unknown]; damaged stacks say where frames are missing. */
static void test_fold_unresolved(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	struct ustack_frame frames[3];
	struct ustack_stack s = { .nr = 3, .frames = frames };
	char buf[256];

	if (!sym)
		return;
	ut_fold_frames(frames, fx.so);
	/* no symbolizer: every frame by the base name of its file */
	ustack_stack_fold(&s, NULL, "sample", buf, sizeof(buf));
	UT_CHECK_STR(buf, "sample;[fixture.so];[fixture.so];[fixture.so]");
	/* an offset in no symbol; a file whose entry was not seen */
	frames[0].offset = 0x7fffff;
	frames[2].path = NULL;
	ustack_stack_fold(&s, sym, "sample", buf, sizeof(buf));
	UT_CHECK_STR(buf, "sample;[unknown];utest_beta;[fixture.so]");
	/* a path without a slash is its own base name */
	frames[1].path = "lib;x.so";
	ustack_stack_fold(&s, NULL, NULL, buf, sizeof(buf));
	UT_CHECK_STR(buf, "[unknown];[lib_x.so];[fixture.so]");

	ut_fold_frames(frames, fx.so);
	s.flags = USTACK_STACK_TRUNCATED;
	ustack_stack_fold(&s, sym, "sample", buf, sizeof(buf));
	UT_CHECK_STR(buf, "sample;[truncated];utest_alpha;utest_beta;utest_gamma");
	s.flags = USTACK_STACK_TRUNCATED | USTACK_STACK_MALFORMED;
	s.nr = 1;
	ustack_stack_fold(&s, sym, "sample", buf, sizeof(buf));
	UT_CHECK_STR(buf, "sample;[malformed];utest_gamma");
	s.flags = USTACK_STACK_NO_STACK;
	s.nr = 0;
	ustack_stack_fold(&s, sym, "sample", buf, sizeof(buf));
	UT_CHECK_STR(buf, "sample;[no user stack]");
	ustack_stack_fold(&s, sym, NULL, buf, sizeof(buf));
	UT_CHECK_STR(buf, "[no user stack]");

	errno = 0;
	UT_CHECK(ustack_stack_fold(NULL, sym, "x", buf, 4) == -1 && errno == EINVAL, "NULL stack");
	errno = 0;
	UT_CHECK(ustack_stack_fold(&s, sym, "x", NULL, 4) == -1 && errno == EINVAL, "NULL buf");
	s.nr = 2;
	s.frames = NULL;
	errno = 0;
	UT_CHECK(ustack_stack_fold(&s, sym, "x", buf, 4) == -1 && errno == EINVAL, "NULL frames");
	ustack_symbolizer_free(sym);
}

/*
 * A decoded stack: the caller's frame is a return address right after a
 * call that ends its function, and folds as that function, like
 * ustack_stack_format() names it.
 */
static void test_fold_return_address(void)
{
	const struct utest_func *after = &fx.funcs[F_AFTER_NORETURN];
	const struct ut_frame frames[] = { { 1, after->offset }, { 1, after->offset } };
	struct ustack_files files = { 0 };
	struct ustack_symbolizer *sym;
	unsigned char enc[64];
	struct ustack_stack *s;
	char buf[256];
	size_t len;

	if (!after->found || !fx.funcs[F_NORETURN].found) {
		utest_skip("no assembly fixture functions on this architecture");
		return;
	}
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		return;
	if (!UT_CHECK(!ustack_files_set(&files, 1, NULL, 0, fx.so, strlen(fx.so)), "files_set"))
		goto out;
	len = ut_encode(enc, frames, 2);
	s = ustack_stack_decode(&files, 1, 1, 2, 0, enc, len);
	if (!UT_CHECK(s, "decode"))
		goto out;
	ustack_stack_fold(s, sym, "t", buf, sizeof(buf));
	UT_CHECK_STR(buf, "t;utest_noreturn;utest_after_noreturn");
	ustack_stack_put(s);
out:
	ustack_files_clear(&files);
	ustack_symbolizer_free(sym);
}

void utest_fold_register(void)
{
	CU_pSuite suite = CU_add_suite("stack-fold", utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "symbols", test_fold_symbols);
	CU_add_test(suite, "unresolved", test_fold_unresolved);
	CU_add_test(suite, "return_address", test_fold_return_address);
}
