// SPDX-License-Identifier: GPL-2.0
/*
 * The list of debug directories: ustack_symbolizer_set_debug_dir() adds its
 * directories before /usr/lib/debug and keeps it; every directory of the list
 * is searched, in order; ustack_symbolizer_set_debug_path() sets the list
 * alone. With libc6-dbg installed, a static function of the libc of this
 * process is still found from /usr/lib/debug after a directory is added.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture-env.h"

#define SUITE		"debug-dirs"
#define LIBC_STATIC	"__libc_start_call_main"

/*
 * A symbolizer with ustack_symbolizer_set_debug_dir(dirs): the default kept.
 * (utest_symbolizer() sets its directory alone.)
 */
static struct ustack_symbolizer *debug_dirs_symbolizer(const char *dirs)
{
	struct ustack_symbolizer *sym = ustack_symbolizer_alloc();

	if (!UT_CHECK(sym, "ustack_symbolizer_alloc: %s", strerror(errno)))
		return NULL;
	if (!UT_CHECK(!ustack_symbolizer_set_debug_dir(sym, dirs), "set_debug_dir(%s): %s",
		      dirs, strerror(errno))) {
		ustack_symbolizer_free(sym);
		return NULL;
	}
	return sym;
}

static void test_dirs_list(void)
{
	struct ustack_symbolizer *sym = debug_dirs_symbolizer("/a:/b");
	char want[PATH_MAX];

	if (!sym)
		return;
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), "/a:/b:" USTACK_DEBUG_DIR);
	/* named by the caller, the default is where the caller put it, once */
	UT_CHECK(!ustack_symbolizer_set_debug_dir(sym, "/a:" USTACK_DEBUG_DIR ":/b"), "set");
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), "/a:" USTACK_DEBUG_DIR ":/b");
	UT_CHECK(!ustack_symbolizer_set_debug_dir(sym, fx.empty_dir), "set");
	utest_pathf(want, sizeof(want), "%s:%s", fx.empty_dir, USTACK_DEBUG_DIR);
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), want);
	/* set_debug_path: the list alone */
	UT_CHECK(!ustack_symbolizer_set_debug_path(sym, "/a:/b"), "set_debug_path");
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), "/a:/b");
	UT_CHECK(!ustack_symbolizer_set_debug_path(sym, ""), "set_debug_path(\"\")");
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), "");
	UT_CHECK(!ustack_symbolizer_set_debug_path(sym, NULL), "set_debug_path(NULL)");
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), USTACK_DEBUG_DIR);
	errno = 0;
	UT_CHECK(ustack_symbolizer_set_debug_path(NULL, "/a") == -1 && errno == EINVAL,
		 "set_debug_path(NULL sym) must fail with EINVAL");
	ustack_symbolizer_free(sym);
}

/* The debug file in the second directory of the list, empty entries skipped. */
static void test_dirs_second(void)
{
	char root[PATH_MAX], list[2 * PATH_MAX + 8], path[PATH_MAX];
	struct ustack_symbolizer *sym;

	if (!UT_CHECK(utest_dir("dbg-second", root, sizeof(root)), "mkdir") ||
	    !UT_CHECK(utest_put_build_id_file(root, &utest_blob_debug), "write"))
		return;
	utest_build_id_path(root, path, sizeof(path));
	utest_pathf(list, sizeof(list), "%s::%s:", fx.empty_dir, root);
	sym = debug_dirs_symbolizer(list);
	if (!sym)
		return;
	CHECK_RESOLVED(sym, fx.stripped, NULL, 0, &fx.funcs[F_GAMMA], 3, path);
	CHECK_RESOLVED(sym, fx.stripped, fx.build_id, fx.build_id_size, &fx.funcs[F_GAMMA], 3,
		       path);
	/* the list without it: not found */
	if (UT_CHECK(!ustack_symbolizer_set_debug_path(sym, fx.empty_dir), "set_debug_path"))
		CHECK_UNRESOLVED(sym, fx.stripped, NULL, 0, fx.funcs[F_GAMMA].offset);
	ustack_symbolizer_free(sym);
}

/* Find the path of the libc of this process. */
static int debug_dirs_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	if (!base || strncmp(base, "/libc.so.", strlen("/libc.so.")))
		return 0;
	utest_pathf(data, PATH_MAX, "%s", info->dlpi_name);
	return 1;
}

/* The value of a symbol in the .symtab of a file; 0 when it has none. */
static GElf_Addr debug_dirs_sym_value(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	GElf_Addr value = 0;
	Elf_Data *data;
	GElf_Shdr shdr;
	GElf_Sym s;
	Elf *elf;
	size_t i;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !value && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB ||
		    !shdr.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < shdr.sh_size / shdr.sh_entsize; i++) {
			if (gelf_getsym(data, i, &s) &&
			    !strcmp(elf_strptr(elf, shdr.sh_link, s.st_name), name)) {
				value = s.st_value;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return value;
}

/* The file offset of a virtual address of a file, from its PT_LOAD headers. */
static bool debug_dirs_offset(const char *path, GElf_Addr vaddr, unsigned long long *offset)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool found = false;
	GElf_Phdr ph;
	size_t n, i;
	Elf *elf;

	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (i = 0; i < n && !found; i++) {
			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
			    vaddr < ph.p_vaddr || vaddr >= ph.p_vaddr + ph.p_filesz)
				continue;
			*offset = vaddr - ph.p_vaddr + ph.p_offset;
			found = true;
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/*
 * The review's case: a debug directory of the user's, and libc's debug file
 * in /usr/lib/debug (libc6-dbg) still found.
 */
static void test_dirs_default_kept(void)
{
	char libc[PATH_MAX] = "", debug[PATH_MAX], hex[2 * USTACK_BUILD_ID_MAX + 1];
	struct ustack_symbolizer *sym;
	unsigned long long offset = 0;
	const unsigned char *id;
	struct ustack_symbol s;
	GElf_Addr value;
	ssize_t len, i;
	Elf *elf;
	int fd;

	dl_iterate_phdr(debug_dirs_libc, libc);
	fd = libc[0] ? open(libc, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		utest_skip("no libc.so.* mapped");
		return;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	len = 0;
	if (elf) {
		Elf_Scn *scn = NULL;
		GElf_Shdr shdr;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off, name_off, desc_off;

		while (!len && (scn = elf_nextscn(elf, scn))) {
			if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE ||
			    !(data = elf_getdata(scn, NULL)))
				continue;
			off = 0;
			while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
				if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz > USTACK_BUILD_ID_MAX)
					continue;
				id = (const unsigned char *)data->d_buf + desc_off;
				for (i = 0; i < (ssize_t)nh.n_descsz; i++)
					sprintf(hex + 2 * i, "%02x", id[i]);
				len = nh.n_descsz;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	if (len < 2) {
		utest_skip("%s has no build-id", libc);
		return;
	}
	utest_pathf(debug, sizeof(debug), "%s/.build-id/%.2s/%s.debug", USTACK_DEBUG_DIR, hex,
		    hex + 2);
	value = debug_dirs_sym_value(debug, LIBC_STATIC);
	if (!value) {
		utest_skip("no %s in %s (libc6-dbg not installed)", LIBC_STATIC, debug);
		return;
	}
	if (debug_dirs_sym_value(libc, LIBC_STATIC)) {
		utest_skip("%s is not stripped", libc);
		return;
	}
	if (!UT_CHECK(debug_dirs_offset(libc, value, &offset), "%s: no PT_LOAD at %#llx", libc,
		      (unsigned long long)value))
		return;
	sym = debug_dirs_symbolizer(fx.empty_dir);
	if (!sym)
		return;
	if (utest_lookup(sym, libc, NULL, 0, offset + 1, &s))
		UT_CHECK(s.resolved && !strcmp(s.name, LIBC_STATIC) && s.sym_offset == 1,
			 "%s+1 with -d %s: %s", LIBC_STATIC, fx.empty_dir,
			 s.resolved ? s.name : "unresolved");
	/* the caller leaving the default out: not found, so the test above means something */
	if (UT_CHECK(!ustack_symbolizer_set_debug_path(sym, fx.empty_dir), "set_debug_path") &&
	    utest_lookup(sym, libc, NULL, 0, offset + 1, &s))
		UT_CHECK(!s.resolved || strcmp(s.name, LIBC_STATIC),
			 "%s found without %s", LIBC_STATIC, USTACK_DEBUG_DIR);
	ustack_symbolizer_free(sym);
}

void utest_debug_dirs_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "dirs_list", test_dirs_list);
	CU_add_test(suite, "dirs_second", test_dirs_second);
	CU_add_test(suite, "dirs_default_kept", test_dirs_default_kept);
}
