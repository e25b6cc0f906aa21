// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer tests: the API, lookups in the unstripped fixture, build-ids,
 * the cache, the text format, the man page example and the exported symbols.
 * The fixtures are described in fixture-env.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture-env.h"

#define SUITE	"symbolizer"

static void test_alloc_free(void)
{
	struct ustack_symbolizer *sym = ustack_symbolizer_alloc();

	if (!UT_CHECK(sym, "alloc: %s", strerror(errno)))
		return;
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), "/usr/lib/debug");
	ustack_symbolizer_free(sym);
	ustack_symbolizer_free(NULL);
}

static void test_bad_args(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	unsigned char id[USTACK_BUILD_ID_MAX + 1] = { 0 };
	struct ustack_symbol s = { .path = "/lib.so" };
	char buf[8];

	if (!sym)
		return;
#define CHECK_EINVAL(call) do { \
	errno = 0; \
	UT_CHECK((call) == -1 && errno == EINVAL, "%s: want -1/EINVAL, errno %d", #call, errno); \
} while (0)
	CHECK_EINVAL(ustack_symbolizer_lookup(NULL, fx.so, NULL, 0, 0, 0, &s));
	CHECK_EINVAL(ustack_symbolizer_lookup(sym, NULL, NULL, 0, 0, 0, &s));
	CHECK_EINVAL(ustack_symbolizer_lookup(sym, fx.so, NULL, 0, 0, 0, NULL));
	CHECK_EINVAL(ustack_symbolizer_lookup(sym, fx.so, NULL, 20, 0, 0, &s));
	CHECK_EINVAL(ustack_symbolizer_lookup(sym, fx.so, id, sizeof(id), 0, 0, &s));
	CHECK_EINVAL(ustack_symbolizer_lookup(sym, fx.so, NULL, 0, 0, 0x2, &s));
	CHECK_EINVAL(ustack_symbolizer_set_debug_dir(NULL, "/tmp"));
	CHECK_EINVAL(ustack_symbolizer_set_debug_dir(sym, ""));
	CHECK_EINVAL(ustack_symbol_format(NULL, buf, sizeof(buf)));
	CHECK_EINVAL(ustack_symbol_format(&s, NULL, 4));
	s.path = NULL;
	CHECK_EINVAL(ustack_symbol_format(&s, buf, sizeof(buf)));
	errno = 0;
	UT_CHECK(!ustack_symbolizer_get_debug_dir(NULL) && errno == EINVAL,
		 "get_debug_dir(NULL) must fail with EINVAL");
#undef CHECK_EINVAL
	ustack_symbolizer_free(sym);
}

static void test_debug_dir(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);

	if (!sym)
		return;
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), fx.empty_dir);
	UT_CHECK(!ustack_symbolizer_set_debug_dir(sym, NULL), "set_debug_dir(NULL)");
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), USTACK_DEBUG_DIR);
	ustack_symbolizer_free(sym);
}

/* Functions of the unstripped file resolve from its .symtab, static ones too. */
static void test_symtab(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);

	if (!sym)
		return;
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_ALPHA], 0, fx.so);
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_ALPHA], 2, fx.so);
	/* utest_beta_alias shares the address: the plainer name wins */
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_BETA], 0, fx.so);
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_BETA], 1, fx.so);
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_GAMMA], 0, fx.so);
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_GAMMA], 3, fx.so);
	UT_CHECK(fx.funcs[F_ALPHA].vaddr != fx.funcs[F_ALPHA].offset,
		 "fixture not linked with its addresses away from its offsets");
	ustack_symbolizer_free(sym);
}

/* A symbol without a size covers the addresses up to the next symbol. */
static void test_no_size(void)
{
	struct ustack_symbolizer *sym;

	if (!fx.funcs[F_NOSIZE].found) {
		utest_skip("no assembly function without a size on this architecture");
		return;
	}
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		return;
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_NOSIZE], 0, fx.so);
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_NOSIZE], 8, fx.so);
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_NOSIZE], 16, fx.so);
	ustack_symbolizer_free(sym);
}

/* Bytes after a sized symbol that no symbol covers; data that is no code. */
static void test_no_symbol(void)
{
	struct ustack_symbolizer *sym;
	unsigned int delta;

	if (!fx.funcs[F_PADDED].found || !fx.funcs[F_RODATA].found) {
		utest_skip("no assembly fixture functions on this architecture");
		return;
	}
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		return;
	CHECK_RESOLVED(sym, fx.so, NULL, 0, &fx.funcs[F_PADDED], 0, fx.so);
	for (delta = 1; delta <= 32; delta += 7)
		CHECK_UNRESOLVED(sym, fx.so, NULL, 0, fx.funcs[F_PADDED].offset + delta);
	CHECK_UNRESOLVED(sym, fx.so, NULL, 0, fx.funcs[F_RODATA].offset);
	CHECK_UNRESOLVED(sym, fx.so, NULL, 0, fx.funcs[F_RODATA].offset + 8);
	ustack_symbolizer_free(sym);
}

/* A lookup with flags that must succeed; false (a failure recorded) if it did not. */
static bool lookup_flags(struct ustack_symbolizer *sym, unsigned long long offset,
			 unsigned int flags, struct ustack_symbol *s)
{
	memset(s, 0xa5, sizeof(*s));
	return UT_CHECK(!ustack_symbolizer_lookup(sym, fx.so, NULL, 0, offset, flags, s),
			"lookup(%#llx, %#x): %s", offset, flags, strerror(errno));
}

/*
 * The frame of a caller is a return address. When the call is the last
 * instruction of its function (the callee never returns), that address is
 * the first byte of the next function, or padding: only the byte before it
 * names the caller. The offset printed is still the one recorded.
 */
static void test_return_address(void)
{
	const struct utest_func *noret = &fx.funcs[F_NORETURN];
	const struct utest_func *after = &fx.funcs[F_AFTER_NORETURN];
	const struct utest_func *pad = &fx.funcs[F_NORETURN_PAD];
	char buf[PATH_MAX + 64], want[PATH_MAX + 64];
	struct ustack_symbolizer *sym;
	unsigned long long size;
	struct ustack_symbol s;

	if (!noret->found || !after->found || !pad->found) {
		utest_skip("no assembly fixture functions on this architecture");
		return;
	}
	/* nop; call rel32: the call's return address is utest_after_noreturn */
	size = after->vaddr - noret->vaddr;
	if (!UT_CHECK(size == 6 && after->offset - noret->offset == size,
		      "utest_noreturn is %#llx bytes, want 6", size))
		return;
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		return;

	if (lookup_flags(sym, after->offset, USTACK_LOOKUP_RETURN, &s) &&
	    UT_CHECK(s.resolved, "return address %#llx unresolved", after->offset)) {
		UT_CHECK_STR(s.name, "utest_noreturn");
		UT_CHECK_ULL(s.sym_offset, size);
		UT_CHECK_ULL(s.addr, after->vaddr);
		UT_CHECK_ULL(s.file_offset, after->offset);
		UT_CHECK_STR(s.file, fx.so);
		ustack_symbol_format(&s, buf, sizeof(buf));
		utest_pathf(want, sizeof(want), "utest_noreturn+0x6 (%s)", fx.so);
		UT_CHECK_STR(buf, want);
	}
	/* the innermost frame, right at the start of the next function, is that function */
	CHECK_RESOLVED(sym, fx.so, NULL, 0, after, 0, fx.so);
	/* a return address inside a function is in that function */
	if (lookup_flags(sym, after->offset + 1, USTACK_LOOKUP_RETURN, &s)) {
		UT_CHECK_STR(s.name, "utest_after_noreturn");
		UT_CHECK_ULL(s.sym_offset, 1);
	}

	/* padding after the call: in no symbol, but the call before it is */
	CHECK_UNRESOLVED(sym, fx.so, NULL, 0, pad->offset + size);
	if (lookup_flags(sym, pad->offset + size, USTACK_LOOKUP_RETURN, &s)) {
		UT_CHECK_STR(s.name, "utest_noreturn_pad");
		UT_CHECK_ULL(s.sym_offset, size);
		UT_CHECK_ULL(s.addr, pad->vaddr + size);
	}
	/* a return address of 0 follows no call */
	if (lookup_flags(sym, 0, USTACK_LOOKUP_RETURN, &s))
		UT_CHECK(!s.resolved && s.file_offset == 0 && !s.name, "offset 0 resolved");
	ustack_symbolizer_free(sym);
}

static void test_outside_segments(void)
{
	unsigned long long size = utest_blob_so.size;
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	struct ustack_symbol s;

	if (!sym)
		return;
	CHECK_UNRESOLVED(sym, fx.so, NULL, 0, size + 0x10000);
	CHECK_UNRESOLVED(sym, fx.so, NULL, 0, ~0ULL);
	/* the ELF header is in a segment, but no code is there */
	CHECK_UNRESOLVED(sym, fx.so, NULL, 0, 0);
	if (utest_lookup(sym, fx.so, NULL, 0, size + 0x10000, &s))
		UT_CHECK_ULL(s.addr, 0);
	ustack_symbolizer_free(sym);
}

static void test_missing_file(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	char path[PATH_MAX];

	if (!sym)
		return;
	utest_pathf(path, sizeof(path), "%s/no-such-file.so", fx.tmp_dir);
	CHECK_UNRESOLVED(sym, path, NULL, 0, fx.funcs[F_ALPHA].offset);
	CHECK_UNRESOLVED(sym, path, fx.build_id, fx.build_id_size, fx.funcs[F_ALPHA].offset);
	CHECK_UNRESOLVED(sym, "", NULL, 0, 0x1000);
	ustack_symbolizer_free(sym);
}

static void test_build_id_match(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);

	if (!sym)
		return;
	CHECK_RESOLVED(sym, fx.so, fx.build_id, fx.build_id_size, &fx.funcs[F_ALPHA], 2, fx.so);
	CHECK_RESOLVED(sym, fx.so, fx.build_id, fx.build_id_size, &fx.funcs[F_GAMMA], 0, fx.so);
	ustack_symbolizer_free(sym);
}

/*
 * fixture-other.so has the functions at the same places; told the build-id
 * of fixture.so, the symbolizer must not believe it.
 */
static void test_build_id_mismatch(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	struct ustack_symbol s;

	if (!sym)
		return;
	if (utest_lookup(sym, fx.other, NULL, 0, fx.funcs[F_ALPHA].offset, &s))
		UT_CHECK(s.resolved && !strcmp(s.name, "utest_alpha"),
			 "fixture-other.so without a build-id should resolve utest_alpha");
	CHECK_UNRESOLVED(sym, fx.other, fx.build_id, fx.build_id_size, fx.funcs[F_ALPHA].offset);
	CHECK_UNRESOLVED(sym, fx.other, fx.build_id, fx.build_id_size, fx.funcs[F_GAMMA].offset);
	/* one byte off */
	fx.build_id[fx.build_id_size - 1] ^= 1;
	CHECK_UNRESOLVED(sym, fx.so, fx.build_id, fx.build_id_size, fx.funcs[F_ALPHA].offset);
	fx.build_id[fx.build_id_size - 1] ^= 1;
	ustack_symbolizer_free(sym);
}

/* A maps line of a file deleted while mapped says "path (deleted)". */
static void test_deleted_suffix(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	char path[PATH_MAX];

	if (!sym)
		return;
	utest_pathf(path, sizeof(path), "%s (deleted)", fx.so);
	CHECK_RESOLVED(sym, path, NULL, 0, &fx.funcs[F_ALPHA], 0, fx.so);
	ustack_symbolizer_free(sym);
}

/* A file is read once: the second lookup answers from the cache, file gone or not. */
static void test_cache(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	struct ustack_symbol a, b;
	char path[PATH_MAX];
	unsigned int i;

	if (!sym)
		return;
	utest_pathf(path, sizeof(path), "%s/cached.so", fx.tmp_dir);
	if (!UT_CHECK(utest_write_blob(path, &utest_blob_so), "write") ||
	    !utest_lookup(sym, path, NULL, 0, fx.funcs[F_GAMMA].offset + 1, &a) ||
	    !UT_CHECK(a.resolved, "first lookup unresolved"))
		goto out;
	unlink(path);

	if (utest_lookup(sym, path, NULL, 0, fx.funcs[F_GAMMA].offset + 1, &b)) {
		UT_CHECK(b.resolved, "cached lookup unresolved");
		UT_CHECK(a.name == b.name && a.file == b.file && a.path == b.path,
			 "cached lookup returned other strings");
		UT_CHECK(!memcmp(&a, &b, sizeof(a)), "cached lookup returned another result");
	}
	/* another build-id is another cache entry: that file is gone */
	CHECK_UNRESOLVED(sym, path, fx.build_id, fx.build_id_size, fx.funcs[F_GAMMA].offset);

	/* many more files (the cache grows), then the first one is still cached */
	for (i = 0; i < 300; i++) {
		char other[PATH_MAX];

		utest_pathf(other, sizeof(other), "%s/missing-%u.so", fx.tmp_dir, i);
		CHECK_UNRESOLVED(sym, other, NULL, 0, 0x1000);
	}
	if (utest_lookup(sym, path, NULL, 0, fx.funcs[F_GAMMA].offset + 1, &b))
		UT_CHECK(b.resolved && b.name == a.name, "entry lost when the cache grew");
	CHECK_RESOLVED(sym, path, NULL, 0, &fx.funcs[F_ALPHA], 0, path);
out:
	ustack_symbolizer_free(sym);
}

/* Changing the debug directory drops the cache, and lookups still work. */
static void test_debug_dir_flush(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	char root[PATH_MAX], path[PATH_MAX];

	if (!sym)
		return;
	CHECK_UNRESOLVED(sym, fx.stripped, NULL, 0, fx.funcs[F_GAMMA].offset);
	if (UT_CHECK(utest_dir("dbg-flush", root, sizeof(root)), "mkdir") &&
	    UT_CHECK(utest_put_build_id_file(root, &utest_blob_debug), "write") &&
	    UT_CHECK(!ustack_symbolizer_set_debug_dir(sym, root), "set_debug_dir")) {
		utest_build_id_path(root, path, sizeof(path));
		CHECK_RESOLVED(sym, fx.stripped, NULL, 0, &fx.funcs[F_GAMMA], 0, path);
	}
	ustack_symbolizer_free(sym);
}

static void test_format(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	char buf[PATH_MAX + 64], want[PATH_MAX + 64];
	struct ustack_symbol s;
	int len;

	if (!sym)
		return;
	if (utest_lookup(sym, fx.so, NULL, 0, fx.funcs[F_ALPHA].offset + 0x2, &s)) {
		utest_pathf(want, sizeof(want), "utest_alpha+0x2 (%s)", fx.so);
		len = ustack_symbol_format(&s, buf, sizeof(buf));
		UT_CHECK_STR(buf, want);
		UT_CHECK_ULL(len, strlen(want));
		/* cut like snprintf: the full length back, the rest dropped */
		len = ustack_symbol_format(&s, buf, 6);
		UT_CHECK_STR(buf, "utest");
		UT_CHECK_ULL(len, strlen(want));
		UT_CHECK_ULL(ustack_symbol_format(&s, NULL, 0), strlen(want));
	}
	if (utest_lookup(sym, fx.so, NULL, 0, 0x1234567, &s)) {
		utest_pathf(want, sizeof(want), "[unknown] (%s+0x1234567)", fx.so);
		ustack_symbol_format(&s, buf, sizeof(buf));
		UT_CHECK_STR(buf, want);
	}
	ustack_symbolizer_free(sym);
}

/* The man page's example program, built by the Makefile, prints the same. */
static void test_example(void)
{
	char cmd[4 * PATH_MAX], line[PATH_MAX + 64], want[PATH_MAX + 64], root[PATH_MAX];
	FILE *out;
	int n = 0;

	if (!UT_CHECK(!access(UTEST_EXAMPLE_PATH, X_OK), "%s not built", UTEST_EXAMPLE_PATH))
		return;
	if (!UT_CHECK(utest_dir("dbg-example", root, sizeof(root)), "mkdir") ||
	    !UT_CHECK(utest_put_build_id_file(root, &utest_blob_debug), "write"))
		return;
	utest_pathf(cmd, sizeof(cmd), "'%s' -d '%s' -b %s '%s' %#llx 0x7fffffff 2>&1",
		 UTEST_EXAMPLE_PATH, root, fx.build_id_hex, fx.stripped,
		 fx.funcs[F_GAMMA].offset + 1);
	out = popen(cmd, "r");
	if (!UT_CHECK(out, "popen: %s", strerror(errno)))
		return;
	while (fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		if (n == 0)
			utest_pathf(want, sizeof(want), "utest_gamma+0x1 (%s)", fx.stripped);
		else
			utest_pathf(want, sizeof(want), "[unknown] (%s+0x7fffffff)", fx.stripped);
		if (n < 2)
			UT_CHECK_STR(line, want);
		n++;
	}
	UT_CHECK(!pclose(out), "example exited with an error");
	UT_CHECK(n == 2, "example printed %d lines, want 2", n);
}

/* The shared library exports the API and nothing of its insides. */
static void test_exports(void)
{
	static const char * const api[] = {
		"ustack_symbolizer_alloc", "ustack_symbolizer_free",
		"ustack_symbolizer_set_debug_dir", "ustack_symbolizer_get_debug_dir",
		"ustack_symbolizer_set_debug_path", "ustack_symbolizer_set_fetch_callback",
		"ustack_symbolizer_lookup", "ustack_symbol_format",
		"ustack_symbolizer_set_sysroot", "ustack_symbolizer_get_sysroot",
		"ustack_symbolizer_set_flags", "ustack_symbolizer_get_flags",
		"ustack_symbolizer_lookup_addr", "ustack_symbolizer_lookup_source",
	};
	static const char * const hidden[] = {
		"ustack_elf_open", "ustack_open_regular", "ustack_file_read",
		"ustack_debug_find", "ustack_file_symbol", "ustack_demangle",
	};
	utest_check_exports(api, UT_ARRAY_SIZE(api), hidden, UT_ARRAY_SIZE(hidden));
}

/* struct ustack_symbol as LIBTRACEFS_EXT_1.0 froze it: the caller allocates it. */
struct ut_symbol_1_0 {
	const char		*path;
	const char		*file;
	const char		*name;
	unsigned long long	file_offset;
	unsigned long long	addr;
	unsigned long long	sym_offset;
	bool			resolved;
};

#define UT_CHECK_FIELD(f) \
	UT_CHECK(offsetof(struct ustack_symbol, f) == offsetof(struct ut_symbol_1_0, f), \
		 "ustack_symbol.%s at %zu, 1.0 has it at %zu", #f, \
		 offsetof(struct ustack_symbol, f), offsetof(struct ut_symbol_1_0, f))

/*
 * The layout of struct ustack_symbol stays the 1.0 one: a field added or
 * moved would corrupt the memory of programs built against 1.0, unless it
 * comes with new versions of the functions that take it (ustack.h).
 */
static void test_symbol_layout(void)
{
	UT_CHECK(sizeof(struct ustack_symbol) == sizeof(struct ut_symbol_1_0),
		 "struct ustack_symbol is %zu bytes, 1.0 has %zu",
		 sizeof(struct ustack_symbol), sizeof(struct ut_symbol_1_0));
	UT_CHECK_FIELD(path);
	UT_CHECK_FIELD(file);
	UT_CHECK_FIELD(name);
	UT_CHECK_FIELD(file_offset);
	UT_CHECK_FIELD(addr);
	UT_CHECK_FIELD(sym_offset);
	UT_CHECK_FIELD(resolved);
}

void utest_symbolize_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "alloc_free", test_alloc_free);
	CU_add_test(suite, "bad_args", test_bad_args);
	CU_add_test(suite, "debug_dir", test_debug_dir);
	CU_add_test(suite, "symtab", test_symtab);
	CU_add_test(suite, "no_size", test_no_size);
	CU_add_test(suite, "no_symbol", test_no_symbol);
	CU_add_test(suite, "return_address", test_return_address);
	CU_add_test(suite, "outside_segments", test_outside_segments);
	CU_add_test(suite, "missing_file", test_missing_file);
	CU_add_test(suite, "build_id_match", test_build_id_match);
	CU_add_test(suite, "build_id_mismatch", test_build_id_mismatch);
	CU_add_test(suite, "deleted_suffix", test_deleted_suffix);
	CU_add_test(suite, "cache", test_cache);
	CU_add_test(suite, "debug_dir_flush", test_debug_dir_flush);
	CU_add_test(suite, "format", test_format);
	CU_add_test(suite, "example", test_example);
	CU_add_test(suite, "exports", test_exports);
	CU_add_test(suite, "symbol_layout", test_symbol_layout);
}
