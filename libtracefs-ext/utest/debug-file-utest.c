// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer tests of stripped files: .dynsym only, separate debug files found
 * by build-id and by .gnu_debuglink (each place, and a bad CRC), and files
 * whose build-id does not match. The fixtures are described in fixture-env.h.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture-env.h"

#define SUITE	"debug-file"

/* Stripped, no debug file anywhere: only the exported functions, from .dynsym. */
static void test_stripped_dynsym(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	struct ustack_symbol s;

	if (!sym)
		return;
	CHECK_RESOLVED(sym, fx.stripped, NULL, 0, &fx.funcs[F_ALPHA], 2, fx.stripped);
	CHECK_RESOLVED(sym, fx.stripped, NULL, 0, &fx.funcs[F_BETA], 0, fx.stripped);
	if (utest_lookup(sym, fx.stripped, NULL, 0, fx.funcs[F_GAMMA].offset, &s))
		UT_CHECK(!s.resolved || strcmp(s.name, "utest_gamma"),
			 "static function found without its debug file");
	ustack_symbolizer_free(sym);
}

/* Stripped, debug file at DEBUGDIR/.build-id/xx/yyyy.debug. */
static void test_debug_build_id(void)
{
	struct ustack_symbolizer *sym;
	char path[PATH_MAX];

	sym = utest_build_id_symbolizer("dbg-build-id", &utest_blob_debug, path, sizeof(path));
	if (!sym)
		return;
	CHECK_RESOLVED(sym, fx.stripped, NULL, 0, &fx.funcs[F_GAMMA], 3, path);
	CHECK_RESOLVED(sym, fx.stripped, NULL, 0, &fx.funcs[F_ALPHA], 0, path);
	/* the same with the build-id given, as the kernel would record it */
	CHECK_RESOLVED(sym, fx.stripped, fx.build_id, fx.build_id_size, &fx.funcs[F_GAMMA], 3, path);
	ustack_symbolizer_free(sym);
}

/* A file at the build-id path with another build-id is not the debug file. */
static void test_debug_build_id_wrong(void)
{
	struct ustack_symbolizer *sym;

	sym = utest_build_id_symbolizer("dbg-wrong-id", &utest_blob_other, NULL, 0);
	if (!sym)
		return;
	CHECK_UNRESOLVED(sym, fx.stripped, NULL, 0, fx.funcs[F_GAMMA].offset);
	ustack_symbolizer_free(sym);
}

/* A file at the build-id path without any build-id is not the debug file either. */
static void test_debug_build_id_none(void)
{
	unsigned char *copy, *p, *end;
	struct ustack_symbolizer *sym;
	struct utest_blob blob;
	bool cleared = false;

	copy = malloc(utest_blob_debug.size);
	if (!UT_CHECK(copy, "malloc"))
		return;
	memcpy(copy, utest_blob_debug.data, utest_blob_debug.size);
	/* the note: namesz 4, descsz, type NT_GNU_BUILD_ID (3), "GNU", the id */
	end = copy + utest_blob_debug.size - 16 - fx.build_id_size;
	for (p = copy; p < end && !cleared; p += 4) {
		if (!memcmp(p + 12, "GNU", 4) && !memcmp(p + 16, fx.build_id, fx.build_id_size)) {
			memset(p + 8, 0x7f, 4);
			cleared = true;
		}
	}
	blob.data = copy;
	blob.size = utest_blob_debug.size;
	if (UT_CHECK(cleared, "no build-id note in fixture.debug")) {
		sym = utest_build_id_symbolizer("dbg-no-id", &blob, NULL, 0);
		if (sym)
			CHECK_UNRESOLVED(sym, fx.stripped, NULL, 0, fx.funcs[F_GAMMA].offset);
		ustack_symbolizer_free(sym);
	}
	free(copy);
}

/*
 * Without section headers (as after sstrip), the build-id comes from the
 * PT_NOTE segment, and the debug file is still found by it.
 */
static void test_no_section_headers(void)
{
	char dir[PATH_MAX], lib[PATH_MAX], root[PATH_MAX], dbg[PATH_MAX];
	struct ustack_symbolizer *sym;
	struct utest_blob blob;
	Elf64_Ehdr *ehdr;
	unsigned char *copy;

	if (utest_blob_stripped.size < sizeof(*ehdr) ||
	    utest_blob_stripped.data[EI_CLASS] != ELFCLASS64) {
		utest_skip("the fixture is not an ELF64 file");
		return;
	}
	copy = malloc(utest_blob_stripped.size);
	if (!UT_CHECK(copy, "malloc"))
		return;
	memcpy(copy, utest_blob_stripped.data, utest_blob_stripped.size);
	ehdr = (Elf64_Ehdr *)copy;
	ehdr->e_shoff = 0;
	ehdr->e_shnum = 0;
	ehdr->e_shstrndx = 0;
	blob.data = copy;
	blob.size = utest_blob_stripped.size;

	if (UT_CHECK(utest_dir("no-shdr", dir, sizeof(dir)) &&
		     utest_dir("no-shdr-root", root, sizeof(root)), "mkdir") &&
	    UT_CHECK(utest_pathf(lib, sizeof(lib), "%s/lib.so", dir) &&
		     utest_write_blob(lib, &blob), "write") &&
	    UT_CHECK(utest_put_build_id_file(root, &utest_blob_debug), "write")) {
		utest_build_id_path(root, dbg, sizeof(dbg));
		sym = utest_symbolizer(root);
		if (sym)
			CHECK_RESOLVED(sym, lib, NULL, 0, &fx.funcs[F_GAMMA], 1, dbg);
		ustack_symbolizer_free(sym);
	}
	free(copy);
}

/*
 * Stripped copy as dir/lib.so with the debug file where .gnu_debuglink
 * points: sub is "" (same directory) or ".debug"; with root, under
 * root/<dir>/ instead. bad_crc changes one byte of the debug file.
 */
static void check_debuglink(const char *name, const char *sub, bool under_root, bool bad_crc)
{
	char dir[PATH_MAX], lib[PATH_MAX], dbg_dir[PATH_MAX], dbg[PATH_MAX], root[PATH_MAX];
	size_t size = utest_blob_debug.size;
	struct ustack_symbolizer *sym;
	unsigned char *copy;

	if (!UT_CHECK(utest_dir(name, dir, sizeof(dir)), "mkdir"))
		return;
	utest_pathf(lib, sizeof(lib), "%s/lib.so", dir);
	utest_pathf(root, sizeof(root), "%s/%s-root", fx.tmp_dir, name);
	if (under_root)
		utest_pathf(dbg_dir, sizeof(dbg_dir), "%s%s", root, dir);
	else
		utest_pathf(dbg_dir, sizeof(dbg_dir), "%s%s%s", dir, *sub ? "/" : "", sub);
	utest_pathf(dbg, sizeof(dbg), "%s/fixture.debug", dbg_dir);

	copy = calloc(1, size + 1);
	if (!UT_CHECK(copy, "malloc"))
		return;
	memcpy(copy, utest_blob_debug.data, size);
	/* one more byte at the end: the same ELF file, another CRC */
	if (bad_crc)
		size++;
	if (UT_CHECK(utest_make_dirs(root) && utest_make_dirs(dbg_dir), "mkdir") &&
	    UT_CHECK(utest_write_blob(lib, &utest_blob_stripped), "write") &&
	    UT_CHECK(utest_write_file(dbg, copy, size), "write")) {
		sym = utest_symbolizer(root);
		if (sym && bad_crc) {
			CHECK_RESOLVED(sym, lib, NULL, 0, &fx.funcs[F_ALPHA], 0, lib);
			CHECK_UNRESOLVED(sym, lib, NULL, 0, fx.funcs[F_GAMMA].offset);
		} else if (sym) {
			CHECK_RESOLVED(sym, lib, NULL, 0, &fx.funcs[F_GAMMA], 1, dbg);
			CHECK_RESOLVED(sym, lib, NULL, 0, &fx.funcs[F_BETA], 0, dbg);
		}
		ustack_symbolizer_free(sym);
	}
	free(copy);
}

static void test_debuglink_same_dir(void)
{
	check_debuglink("link-same", "", false, false);
}

static void test_debuglink_subdir(void)
{
	check_debuglink("link-sub", ".debug", false, false);
}

static void test_debuglink_debug_dir(void)
{
	check_debuglink("link-root", NULL, true, false);
}

static void test_debuglink_bad_crc(void)
{
	check_debuglink("link-crc", "", false, true);
}

/* Mismatch with an --only-keep-debug file: it lost the file layout. */
static void test_build_id_mismatch_keep_debug(void)
{
	struct ustack_symbolizer *sym;

	sym = utest_build_id_symbolizer("dbg-keep-only", &utest_blob_debug, NULL, 0);
	if (!sym)
		return;
	CHECK_UNRESOLVED(sym, fx.other, fx.build_id, fx.build_id_size, fx.funcs[F_GAMMA].offset);
	ustack_symbolizer_free(sym);
}

/* Mismatch, or file gone, with an unstripped copy at the build-id path. */
static void test_build_id_mismatch_full_copy(void)
{
	char path[PATH_MAX], gone[PATH_MAX];
	struct ustack_symbolizer *sym;

	utest_pathf(gone, sizeof(gone), "%s/gone.so", fx.tmp_dir);
	sym = utest_build_id_symbolizer("dbg-full", &utest_blob_so, path, sizeof(path));
	if (!sym)
		return;
	CHECK_RESOLVED(sym, fx.other, fx.build_id, fx.build_id_size, &fx.funcs[F_GAMMA], 3, path);
	CHECK_RESOLVED(sym, gone, fx.build_id, fx.build_id_size, &fx.funcs[F_ALPHA], 2, path);
	CHECK_UNRESOLVED(sym, gone, NULL, 0, fx.funcs[F_ALPHA].offset);
	ustack_symbolizer_free(sym);
}

void utest_debug_file_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "stripped_dynsym", test_stripped_dynsym);
	CU_add_test(suite, "debug_build_id", test_debug_build_id);
	CU_add_test(suite, "debug_build_id_wrong", test_debug_build_id_wrong);
	CU_add_test(suite, "debug_build_id_none", test_debug_build_id_none);
	CU_add_test(suite, "no_section_headers", test_no_section_headers);
	CU_add_test(suite, "debuglink_same_dir", test_debuglink_same_dir);
	CU_add_test(suite, "debuglink_subdir", test_debuglink_subdir);
	CU_add_test(suite, "debuglink_debug_dir", test_debuglink_debug_dir);
	CU_add_test(suite, "debuglink_bad_crc", test_debuglink_bad_crc);
	CU_add_test(suite, "build_id_mismatch_keep_debug", test_build_id_mismatch_keep_debug);
	CU_add_test(suite, "build_id_mismatch_full_copy", test_build_id_mismatch_full_copy);
}
