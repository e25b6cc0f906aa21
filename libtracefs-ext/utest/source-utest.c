// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer tests of what libdw reads beyond the symbol tables: source
 * lines and inlined functions (ustack_symbolizer_lookup_source() and the
 * formats with USTACK_SYMBOLIZE_SRCLINE and _INLINES), and MiniDebugInfo.
 * The fixtures are described in fixture-env.h; fixture.c has the inlined
 * function and the lines to expect (utest_inl_lines).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fixture-env.h"

#define SUITE	"symbolizer-dwarf"

/* "fixture.c", whatever directory the DWARF names */
static bool ut_is_fixture_c(const char *file)
{
	const char *base = file ? strrchr(file, '/') : NULL;

	return file && !strcmp(base ? base + 1 : file, "fixture.c");
}

/* The line of a function's own code: one entry, in fixture.c. */
static void ut_check_line(struct ustack_symbolizer *sym, const char *path, int f,
			  unsigned int delta)
{
	const struct ustack_source *src;
	int n;

	n = ustack_symbolizer_lookup_source(sym, path, NULL, 0, fx.funcs[f].offset + delta, 0,
					    &src);
	if (!UT_CHECK(n == 1, "%s+%u in %s: %d entries (%s)", fx.funcs[f].name, delta, path, n,
		      n < 0 ? strerror(errno) : ""))
		return;
	UT_CHECK_STR(src[0].function, fx.funcs[f].name);
	UT_CHECK(ut_is_fixture_c(src[0].file), "file %s", src[0].file);
	UT_CHECK(src[0].line > 0 && !src[0].inlined, "line %u inlined %d", src[0].line,
		 src[0].inlined);
}

static void test_lines(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	const struct ustack_source *src;

	if (!sym)
		return;
	ut_check_line(sym, fx.so, F_ALPHA, 2);
	ut_check_line(sym, fx.so, F_GAMMA, 1);
	/* in no function of the DWARF, in no segment: nothing, and no error */
	UT_CHECK(ustack_symbolizer_lookup_source(sym, fx.so, NULL, 0, 0, 0, &src) == 0 && !src,
		 "ELF header has a source line");
	UT_CHECK(ustack_symbolizer_lookup_source(sym, fx.so, NULL, 0, ~0ULL, 0, &src) == 0,
		 "offset past the file has a source line");
	errno = 0;
	UT_CHECK(ustack_symbolizer_lookup_source(sym, fx.so, NULL, 0, 0, 0, NULL) == -1 &&
		 errno == EINVAL, "NULL source");
	ustack_symbolizer_free(sym);
}

/* Stripped: the lines come from the debug file, found by build-id; none without it. */
static void test_lines_debug_file(void)
{
	struct ustack_symbolizer *sym;
	const struct ustack_source *src;

	sym = utest_build_id_symbolizer("src-build-id", &utest_blob_debug, NULL, 0);
	if (sym)
		ut_check_line(sym, fx.stripped, F_GAMMA, 3);
	ustack_symbolizer_free(sym);
	sym = utest_symbolizer(fx.empty_dir);
	if (sym)
		UT_CHECK(ustack_symbolizer_lookup_source(sym, fx.stripped, NULL, 0,
							 fx.funcs[F_GAMMA].offset, 0, &src) == 0,
			 "a stripped file without its debug file has source lines");
	ustack_symbolizer_free(sym);
}

/*
 * The first offset of utest_inl_outer inside the inlined utest_inl_leaf:
 * false (a failure recorded) when there is none.
 */
static bool ut_find_inlined(struct ustack_symbolizer *sym, unsigned long long *offset,
			    const struct ustack_source **src)
{
	unsigned long long off = fx.funcs[F_INLINED].offset;
	unsigned int delta;

	for (delta = 0; delta < 64; delta++) {
		if (ustack_symbolizer_lookup_source(sym, fx.so, NULL, 0, off + delta, 0, src) == 2) {
			*offset = off + delta;
			return true;
		}
	}
	return UT_CHECK(false, "no offset of utest_inl_outer inside utest_inl_leaf");
}

static const int *ut_inl_lines(void)
{
	const int *lines = dlsym(fx.handle, "utest_inl_lines");

	UT_CHECK(lines, "utest_inl_lines: %s", dlerror());
	return lines;
}

/* Inside the inlined function: it, with its line, then where it was called. */
static void test_inlined(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	const int *lines = ut_inl_lines();
	const struct ustack_source *src;
	unsigned long long off;

	if (!sym || !lines || !ut_find_inlined(sym, &off, &src))
		goto out;
	UT_CHECK_STR(src[0].function, "utest_inl_leaf");
	UT_CHECK(src[0].inlined, "utest_inl_leaf not inlined");
	UT_CHECK_ULL(src[0].line, lines[0]);
	UT_CHECK(ut_is_fixture_c(src[0].file), "file %s", src[0].file);
	UT_CHECK_STR(src[1].function, "utest_inl_outer");
	UT_CHECK(!src[1].inlined, "utest_inl_outer inlined");
	UT_CHECK_ULL(src[1].line, lines[1]);
	UT_CHECK(ut_is_fixture_c(src[1].file), "call file %s", src[1].file);
out:
	ustack_symbolizer_free(sym);
}

/* The formats with the flags: lines, inlined frames, folded frames. */
static void test_formats(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	char buf[4 * PATH_MAX], want[4 * PATH_MAX];
	struct ustack_frame frame = { .file_id = 1, .path = fx.so };
	struct ustack_stack stack = { .nr = 1, .frames = &frame };
	const int *lines = ut_inl_lines();
	const struct ustack_source *src;
	struct ustack_symbol s;

	if (!sym || !lines || !ut_find_inlined(sym, &frame.offset, &src) ||
	    !utest_lookup(sym, fx.so, NULL, 0, frame.offset, &s))
		goto out;
	/* off by default: as before */
	ustack_frame_format(&frame, sym, buf, sizeof(buf));
	utest_pathf(want, sizeof(want), "utest_inl_outer+0x%llx (%s)", s.sym_offset, fx.so);
	UT_CHECK_STR(buf, want);

	UT_CHECK(!ustack_symbolizer_set_flags(sym, USTACK_SYMBOLIZE_SRCLINE), "set_flags");
	ustack_frame_format(&frame, sym, buf, sizeof(buf));
	utest_pathf(want, sizeof(want), "utest_inl_outer+0x%llx (%s) at fixture.c:%d",
		    s.sym_offset, fx.so, lines[0]);
	UT_CHECK_STR(buf, want);

	UT_CHECK(!ustack_symbolizer_set_flags(sym, USTACK_SYMBOLIZE_SRCLINE |
					      USTACK_SYMBOLIZE_INLINES), "set_flags");
	UT_CHECK_ULL(ustack_symbolizer_get_flags(sym),
		     USTACK_SYMBOLIZE_SRCLINE | USTACK_SYMBOLIZE_INLINES);
	ustack_frame_format(&frame, sym, buf, sizeof(buf));
	utest_pathf(want, sizeof(want), "utest_inl_leaf (inlined) at fixture.c:%d\n"
		    "utest_inl_outer+0x%llx (%s) at fixture.c:%d", lines[0], s.sym_offset,
		    fx.so, lines[1]);
	UT_CHECK_STR(buf, want);
	ustack_stack_format(&stack, sym, buf, sizeof(buf));
	utest_pathf(want, sizeof(want), "  => utest_inl_leaf (inlined) at fixture.c:%d\n"
		    "  => utest_inl_outer+0x%llx (%s) at fixture.c:%d\n", lines[0],
		    s.sym_offset, fx.so, lines[1]);
	UT_CHECK_STR(buf, want);
	ustack_stack_fold(&stack, sym, "t", buf, sizeof(buf));
	UT_CHECK_STR(buf, "t;utest_inl_outer;utest_inl_leaf");

	UT_CHECK(!ustack_symbolizer_set_flags(sym, USTACK_SYMBOLIZE_INLINES), "set_flags");
	ustack_frame_format(&frame, sym, buf, sizeof(buf));
	utest_pathf(want, sizeof(want), "utest_inl_leaf (inlined)\nutest_inl_outer+0x%llx (%s)",
		    s.sym_offset, fx.so);
	UT_CHECK_STR(buf, want);
	errno = 0;
	UT_CHECK(ustack_symbolizer_set_flags(sym, 0x100) == -1 && errno == EINVAL,
		 "unknown flag taken");
	UT_CHECK(ustack_symbolizer_set_flags(NULL, 0) == -1, "NULL symbolizer");
out:
	ustack_symbolizer_free(sym);
}

/*
 * A stripped file whose .gnu_debugdata holds an xz-compressed ELF file with
 * the function symbols .dynsym lacks (MiniDebugInfo): the static utest_gamma
 * resolves from it, with no debug file anywhere, the exported ones too.
 */
static void test_minidebuginfo(void)
{
	char dir[PATH_MAX], lib[PATH_MAX];
	struct ustack_symbolizer *sym;

	if (!UT_CHECK(utest_dir("mini", dir, sizeof(dir)), "mkdir") ||
	    !UT_CHECK(utest_pathf(lib, sizeof(lib), "%s/mini.so", dir) &&
		      utest_write_blob(lib, &utest_blob_mini), "write"))
		return;
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		return;
	CHECK_RESOLVED(sym, lib, NULL, 0, &fx.funcs[F_GAMMA], 3, lib);
	CHECK_RESOLVED(sym, lib, NULL, 0, &fx.funcs[F_INLINED], 1, lib);
	CHECK_RESOLVED(sym, lib, NULL, 0, &fx.funcs[F_ALPHA], 2, lib);
	CHECK_RESOLVED(sym, lib, fx.build_id, fx.build_id_size, &fx.funcs[F_GAMMA], 0, lib);
	ustack_symbolizer_free(sym);
}

void utest_source_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "lines", test_lines);
	CU_add_test(suite, "lines_debug_file", test_lines_debug_file);
	CU_add_test(suite, "inlined", test_inlined);
	CU_add_test(suite, "formats", test_formats);
	CU_add_test(suite, "minidebuginfo", test_minidebuginfo);
}
