/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixtures of the symbolizer tests on disk, and what is known about them.
 *
 * fixture.c is built four ways (see the Makefile): fixture.so (with -g),
 * fixture-stripped.so (strip --strip-all, with a .gnu_debuglink to
 * fixture.debug), fixture.debug (objcopy --only-keep-debug) and
 * fixture-other.so (other code, so another build-id). All four are built into
 * the test binary (fixtures.S); utest_fixture_setup() writes them to a new
 * temporary directory.
 *
 * The expected file offsets are not read from the ELF: the setup dlopen()s
 * fixture.so and computes, from /proc/self/maps, the offset each function has
 * in the mapped file, the way the kernel records a user stack frame
 * (ip - vma_start + vm_pgoff * page_size). The fixture is linked with
 * -Ttext-segment, so its link-time addresses differ from its file offsets.
 */
#ifndef _UTEST_FIXTURE_ENV_H
#define _UTEST_FIXTURE_ENV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <ustack.h>

#include "utest.h"

/* A fixture file built into the test binary; set by utest_fixture_setup(). */
struct utest_blob {
	const unsigned char	*data;
	size_t			size;
};

extern struct utest_blob utest_blob_so, utest_blob_debug, utest_blob_stripped,
	utest_blob_other;
/* fixture.so stripped, with MiniDebugInfo; a g++ build of fixture-cxx.cc */
extern struct utest_blob utest_blob_mini, utest_blob_cxx;
/* The 32-bit build, empty when the toolchain has none; see elf32-utest.c. */
extern struct utest_blob utest_blob32_so, utest_blob32_debug, utest_blob32_stripped,
	utest_blob32_expect;

/* Their bytes, from fixtures.S */
extern const unsigned char utest_fixture_so[], utest_fixture_so_end[];
extern const unsigned char utest_fixture_debug[], utest_fixture_debug_end[];
extern const unsigned char utest_fixture_stripped_so[], utest_fixture_stripped_so_end[];
extern const unsigned char utest_fixture_other_so[], utest_fixture_other_so_end[];
extern const unsigned char utest_fixture_mini_so[], utest_fixture_mini_so_end[];
extern const unsigned char utest_fixture_cxx_so[], utest_fixture_cxx_so_end[];
extern const unsigned char utest_fixture32_so[], utest_fixture32_so_end[];
extern const unsigned char utest_fixture32_debug[], utest_fixture32_debug_end[];
extern const unsigned char utest_fixture32_stripped_so[], utest_fixture32_stripped_so_end[];
extern const unsigned char utest_fixture32_expect[], utest_fixture32_expect_end[];

/* A function of the fixture: where it is in the file and at link time. */
struct utest_func {
	const char		*name;
	unsigned long long	offset;
	unsigned long long	vaddr;
	bool			found;
};

/* From F_NOSIZE on they are assembly, only on x86 */
enum {
	F_ALPHA, F_BETA, F_GAMMA, F_INLINED, F_NOSIZE, F_PADDED, F_RODATA,
	F_NORETURN, F_AFTER_NORETURN, F_NORETURN_PAD, F_NR
};

struct utest_fixture {
	char			tmp_dir[PATH_MAX];
	char			so[PATH_MAX];		/* fixture.so */
	char			stripped_dir[PATH_MAX];	/* holds only the stripped copy */
	char			stripped[PATH_MAX];	/* .../fixture-stripped.so */
	char			debug[PATH_MAX];	/* fixture.debug, beside fixture.so */
	char			other[PATH_MAX];	/* fixture-other.so */
	char			empty_dir[PATH_MAX];	/* a debug root with nothing in it */
	unsigned char		build_id[USTACK_BUILD_ID_MAX];
	size_t			build_id_size;
	char			build_id_hex[2 * USTACK_BUILD_ID_MAX + 1];
	struct utest_func	funcs[F_NR];
	void			*handle;
};

extern struct utest_fixture fx;

/* CUnit suite setup and cleanup */
int utest_fixture_setup(void);
int utest_fixture_cleanup(void);

/* The offset of a loaded address in the file path, from /proc/self/maps. */
bool utest_map_offset(const void *addr, const char *path, unsigned long long *offset);

/* snprintf() for paths: true when the whole path fit */
bool utest_pathf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool utest_write_file(const char *path, const void *data, size_t len);
bool utest_write_blob(const char *path, const struct utest_blob *blob);
bool utest_make_dirs(const char *dir);
/* A directory fx.tmp_dir/name, made if needed; NULL on failure. */
const char *utest_dir(const char *name, char *buf, size_t size);
/* The build-id debug path of the fixture under the debug root. */
void utest_build_id_path(const char *root, char *buf, size_t size);
/* Put a blob at the build-id debug path of the fixture under the debug root. */
bool utest_put_build_id_file(const char *root, const struct utest_blob *blob);

/* A symbolizer with its debug root set; NULL (a failure recorded) on error. */
struct ustack_symbolizer *utest_symbolizer(const char *debug_dir);
/*
 * A symbolizer whose debug root is fx.tmp_dir/name, made with blob at the
 * fixture's build-id path (that path in path, when not NULL); NULL (a failure
 * recorded) on error.
 */
struct ustack_symbolizer *utest_build_id_symbolizer(const char *name,
						    const struct utest_blob *blob,
						    char *path, size_t size);
/* A lookup that must succeed; false (a failure recorded) if it did not. */
bool utest_lookup(struct ustack_symbolizer *sym, const char *path, const unsigned char *id,
		  size_t id_size, unsigned long long offset, struct ustack_symbol *s);

/* The function f + delta in path_ resolves to f + delta, from the file `from`. */
#define CHECK_RESOLVED(sym, path_, id, id_size, f, delta, from) do { \
	struct ustack_symbol __s; \
	if (utest_lookup(sym, path_, id, id_size, (f)->offset + (delta), &__s) && \
	    UT_CHECK(__s.resolved, "%s+%#x in %s: unresolved", (f)->name, (delta), path_)) { \
		UT_CHECK_STR(__s.name, (f)->name); \
		UT_CHECK_ULL(__s.sym_offset, (delta)); \
		UT_CHECK_ULL(__s.addr, (f)->vaddr + (delta)); \
		UT_CHECK_STR(__s.file, from); \
		UT_CHECK_STR(__s.path, path_); \
	} \
} while (0)

/* The offset off in path_ is unresolved, and the result says what to print instead. */
#define CHECK_UNRESOLVED(sym, path_, id, id_size, off) do { \
	struct ustack_symbol __s; \
	if (utest_lookup(sym, path_, id, id_size, off, &__s)) { \
		UT_CHECK(!__s.resolved, "%#llx in %s resolved to %s from %s", \
			 (unsigned long long)(off), path_, __s.name, __s.file); \
		UT_CHECK(!__s.name && !__s.file, "unresolved with a name or file"); \
		UT_CHECK_STR(__s.path, path_); \
		UT_CHECK_ULL(__s.file_offset, off); \
	} \
} while (0)

#endif /* _UTEST_FIXTURE_ENV_H */
