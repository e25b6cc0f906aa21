// SPDX-License-Identifier: GPL-2.0
/*
 * The sorted symbol index (src/ustack-symtab.c) against libdwfl itself, on
 * real files of this machine: the C library this test runs with (with its
 * separate debug file when one is installed, as Debian's libc6-dbg puts it
 * in /usr/lib/debug) and python3 (a large .dynsym). For a sample of the code
 * symbols of each, addresses at the start, in the middle, at the last byte
 * and just past the end are looked up both ways: by
 * ustack_symbolizer_lookup() and by dwfl_module_addrinfo() on a Dwfl of the
 * test's own, which reads the same symbol table.
 *
 * The answers must be equal (name and offset), but for the differences the
 * index makes on purpose (ustack-symbolizer(3)), each counted and shown:
 *  - nested: where sized symbols nest, the index takes the innermost, which
 *    libdwfl takes only when it is not a local symbol inside a global one;
 *  - data: libdwfl may answer with a data symbol, which is not code: the
 *    index answers with the code symbol there, or nothing;
 *  - segment: no symbol reaches into another segment than its own.
 * Anything else fails the test. A file that is not there is a skip.
 *
 * And libc_exit: the return address past the end of the real libc's exit(),
 * which ends in a call, named as the caller frame it is.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "fixture-env.h"
#include "../include/ustack-local.h"

#define SUITE		"symtab-dwfl"
/* symbols sampled per file: libdwfl searches its table linearly per lookup */
#define UT_SAMPLES	4000

struct ut_tally {
	unsigned long	probes;
	unsigned long	equal;
	unsigned long	nested;
	unsigned long	data;
	unsigned long	segment;
	unsigned long	wrong;
};

/* The reference: a Dwfl on one file, with libdwfl's own debug file search. */
struct ut_ref {
	Dwfl		*dwfl;
	Dwfl_Module	*mod;
	Elf		*elf;		/* the main file */
	GElf_Addr	bias;
	char		*debuginfo_path;
};

static int ut_ref_open(struct ut_ref *ref, const char *path, const char *debug_root)
{
	static Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};

	memset(ref, 0, sizeof(*ref));
	/* libdwfl's format: no CRC check ("-"), then the debug root */
	if (asprintf(&ref->debuginfo_path, "-:.debug:%s", debug_root) < 0)
		return -1;
	cb.debuginfo_path = &ref->debuginfo_path;
	ref->dwfl = dwfl_begin(&cb);
	if (!ref->dwfl)
		return -1;
	dwfl_report_begin(ref->dwfl);
	ref->mod = dwfl_report_elf(ref->dwfl, path, path, -1, 0, false);
	dwfl_report_end(ref->dwfl, NULL, NULL);
	if (!ref->mod)
		return -1;
	ref->elf = dwfl_module_getelf(ref->mod, &ref->bias);
	return ref->elf && dwfl_module_getsymtab(ref->mod) > 1 ? 0 : -1;
}

static void ut_ref_close(struct ut_ref *ref)
{
	if (ref->dwfl)
		dwfl_end(ref->dwfl);
	free(ref->debuginfo_path);
}

/* The PT_LOAD segment of the main file holding link-time address @a; false if none. */
static bool ut_segment(Elf *elf, GElf_Addr a, GElf_Phdr *seg)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(elf, i, seg) && seg->p_type == PT_LOAD &&
		    a >= seg->p_vaddr && a - seg->p_vaddr < seg->p_filesz)
			return true;
	}
	return false;
}

/*
 * The next symbol of @ref named @name, from index *@i on (start at 1): its
 * entry and value; *@i moves past it. False when there is none left.
 */
static bool ut_ref_next(struct ut_ref *ref, const char *name, int *i, GElf_Sym *sym,
			GElf_Addr *value)
{
	int n = dwfl_module_getsymtab(ref->mod);
	const char *s;

	while (*i < n) {
		s = dwfl_module_getsym_info(ref->mod, (*i)++, sym, value, NULL, NULL, NULL);
		if (s && !strcmp(s, name))
			return true;
	}
	return false;
}

/* Is @a inside the sized symbol of @ref named @name, starting at @start? */
static bool ut_ref_contains(struct ut_ref *ref, const char *name, GElf_Addr start, GElf_Addr a)
{
	GElf_Addr value;
	GElf_Sym sym;
	int i = 1;

	while (ut_ref_next(ref, name, &i, &sym, &value)) {
		if (value == start && sym.st_size)
			return a - start < sym.st_size;
	}
	return false;
}

/* Look @a up both ways and count the outcome; show the first few that differ. */
static void ut_probe(struct ut_ref *ref, struct ustack_symbolizer *sym, const char *path,
		     GElf_Addr a, struct ut_tally *t)
{
	GElf_Addr link = a - ref->bias, bias;
	GElf_Phdr seg, sym_seg;
	struct ustack_symbol s;
	const char *name;
	GElf_Word shndx;
	GElf_Off off;
	GElf_Sym rs;
	Elf *elf = NULL;
	bool code;

	if (!ut_segment(ref->elf, link, &seg))
		return;
	if (!utest_lookup(sym, path, NULL, 0, link - seg.p_vaddr + seg.p_offset, &s))
		return;
	t->probes++;
	name = dwfl_module_addrinfo(ref->mod, a, &off, &rs, &shndx, &elf, &bias);
	code = name && ustack_sym_is_code(&rs, elf, shndx, name);
	if (code && s.resolved && !strcmp(s.name, name) && s.sym_offset == off) {
		t->equal++;
		return;
	}
	if (!code && !name && !s.resolved) {
		t->equal++;
		return;
	}
	if (name && !code) {
		t->data++;
		return;
	}
	if (code && !s.resolved && ut_segment(ref->elf, link - off, &sym_seg) &&
	    sym_seg.p_vaddr != seg.p_vaddr) {
		t->segment++;
		return;
	}
	/* the index's symbol starts later inside libdwfl's, and holds a */
	if (code && s.resolved && s.sym_offset < off && rs.st_size && off < rs.st_size &&
	    ut_ref_contains(ref, s.name, a - s.sym_offset, a)) {
		t->nested++;
		return;
	}
	if (t->wrong++ < 5)
		UT_CHECK(false, "%s: %#llx: index %s+%#llx, libdwfl %s+%#llx%s", path,
			 (unsigned long long)link, s.resolved ? s.name : "none", s.sym_offset,
			 name ? name : "none", (unsigned long long)(name ? off : 0),
			 code || !name ? "" : " (not code)");
}

static void ut_compare(const char *path, const char *debug_root, const char *want_debug)
{
	struct ustack_symbolizer *sym;
	struct ut_tally t = { 0 };
	const char *debug_file = NULL;
	struct ut_ref ref;
	GElf_Addr value;
	GElf_Word shndx;
	GElf_Sym rs;
	int i, n, step;
	Elf *elf;
	const char *name;

	if (access(path, R_OK)) {
		utest_skip("%s: %s", path, strerror(errno));
		return;
	}
	if (!UT_CHECK(!ut_ref_open(&ref, path, debug_root), "%s: libdwfl: %s", path,
		      dwfl_errmsg(-1)))
		goto out_ref;
	dwfl_module_info(ref.mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug_file);
	if (want_debug && !debug_file) {
		utest_skip("%s: no debug file in %s", path, debug_root);
		goto out_ref;
	}
	sym = utest_symbolizer(debug_root);
	if (!sym)
		goto out_ref;
	ustack_symbolizer_set_flags(sym, USTACK_SYMBOLIZE_MANGLED);

	n = dwfl_module_getsymtab(ref.mod);
	step = n / UT_SAMPLES > 1 ? n / UT_SAMPLES : 1;
	for (i = 1; i < n; i += step) {
		elf = NULL;
		name = dwfl_module_getsym_info(ref.mod, i, &rs, &value, &shndx, &elf, NULL);
		if (!name || !ustack_sym_is_code(&rs, elf, shndx, name))
			continue;
		ut_probe(&ref, sym, path, value, &t);
		ut_probe(&ref, sym, path, value + rs.st_size / 2, &t);
		if (rs.st_size) {
			ut_probe(&ref, sym, path, value + rs.st_size - 1, &t);
			ut_probe(&ref, sym, path, value + rs.st_size, &t);
		} else {
			ut_probe(&ref, sym, path, value + 1, &t);
		}
	}
	ustack_symbolizer_free(sym);
	printf("  %s%s%s: %lu addresses, %lu equal; by design: %lu nested, %lu data, %lu segment\n",
	       path, debug_file ? " with " : "", debug_file ? debug_file : "", t.probes, t.equal,
	       t.nested, t.data, t.segment);
	UT_CHECK(t.probes >= 100, "%s: only %lu addresses compared", path, t.probes);
	UT_CHECK(!t.wrong, "%s: %lu of %lu addresses differ from libdwfl", path, t.wrong,
		 t.probes);
	/* the differences by design are rare: most answers must be libdwfl's own */
	UT_CHECK(t.equal * 10 >= t.probes * 9, "%s: only %lu of %lu equal", path, t.equal,
		 t.probes);
out_ref:
	ut_ref_close(&ref);
}

/* The path of the C library this process runs with. */
static int ut_libc_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	if (base && !strncmp(base, "/libc.so.", 9)) {
		snprintf(data, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* Its own .dynsym. */
static void test_libc(void)
{
	char path[PATH_MAX] = "";

	dl_iterate_phdr(ut_libc_cb, path);
	if (!*path) {
		utest_skip("no libc.so.* mapped");
		return;
	}
	ut_compare(path, fx.empty_dir, NULL);
}

/* Its .symtab, from the debug file (libc6-dbg). */
static void test_libc_debug(void)
{
	char path[PATH_MAX] = "";

	dl_iterate_phdr(ut_libc_cb, path);
	if (!*path) {
		utest_skip("no libc.so.* mapped");
		return;
	}
	ut_compare(path, "/usr/lib/debug", "debug file");
}

/* The file offset of link-time address @a of @ref's main file; false if in no segment. */
static bool ut_file_offset(struct ut_ref *ref, GElf_Addr a, unsigned long long *off)
{
	GElf_Phdr seg;

	if (!ut_segment(ref->elf, a, &seg))
		return false;
	*off = a - seg.p_vaddr + seg.p_offset;
	return true;
}

/* The link-time address and size of the function @name of @ref; false if none. */
static bool ut_ref_func(struct ut_ref *ref, const char *name, GElf_Addr *start, GElf_Xword *size)
{
	GElf_Addr value;
	GElf_Sym sym;
	int i = 1;

	while (ut_ref_next(ref, name, &i, &sym, &value)) {
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
			*start = value - ref->bias;
			*size = sym.st_size;
			return true;
		}
	}
	return false;
}

/*
 * Issue 19's case on the real C library: Debian 12's exit() ends with its
 * call of the noreturn __run_exit_handlers(), so exit's frame in every stack
 * through exit() has a return address one past exit's end. As a caller frame
 * (USTACK_LOOKUP_RETURN) it is exit, at the offset recorded; looked up as it
 * is, it is not exit. A libc whose exit() does not end in a call is a skip.
 */
static void test_libc_exit(void)
{
	unsigned long long end_off = 0, call_off = 0;
	char path[PATH_MAX] = "";
	struct ustack_symbolizer *sym;
	struct ustack_symbol s;
	unsigned char op = 0;
	GElf_Xword size = 0;
	GElf_Addr start = 0;
	struct ut_ref ref;
	int fd;

	dl_iterate_phdr(ut_libc_cb, path);
	if (!*path) {
		utest_skip("no libc.so.* mapped");
		return;
	}
	if (!UT_CHECK(!ut_ref_open(&ref, path, fx.empty_dir), "%s: libdwfl: %s", path,
		      dwfl_errmsg(-1)))
		goto out_ref;
	if (!UT_CHECK(ut_ref_func(&ref, "exit", &start, &size) && size >= 5,
		      "%s: no exit function", path))
		goto out_ref;
	if (!UT_CHECK(ut_file_offset(&ref, start + size - 5, &call_off) &&
		      ut_file_offset(&ref, start + size, &end_off), "%s: exit outside the segments",
		      path))
		goto out_ref;
	/* its last instruction: call rel32 (0xe8 and 4 bytes) */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, &op, 1, call_off) != 1)
		op = 0;
	if (fd >= 0)
		close(fd);
	if (op != 0xe8) {
		utest_skip("%s: exit() does not end in a call (%#x)", path, op);
		goto out_ref;
	}
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		goto out_ref;
	memset(&s, 0xa5, sizeof(s));
	if (UT_CHECK(!ustack_symbolizer_lookup(sym, path, NULL, 0, end_off, USTACK_LOOKUP_RETURN,
					       &s), "lookup %#llx: %s", end_off, strerror(errno)) &&
	    UT_CHECK(s.resolved, "%s: return address %#llx past exit unresolved", path, end_off)) {
		UT_CHECK_STR(s.name, "exit");
		UT_CHECK_ULL(s.sym_offset, size);
		UT_CHECK_ULL(s.file_offset, end_off);
	}
	/* the same offset as an innermost frame: past exit, so not exit */
	if (utest_lookup(sym, path, NULL, 0, end_off, &s))
		UT_CHECK(!s.resolved || strcmp(s.name, "exit"),
			 "%s: %#llx as it is: exit+%#llx, want anything else", path, end_off,
			 s.sym_offset);
	ustack_symbolizer_free(sym);
out_ref:
	ut_ref_close(&ref);
}

static void test_python3(void)
{
	char *path = realpath("/usr/bin/python3", NULL);

	if (!path) {
		utest_skip("/usr/bin/python3: %s", strerror(errno));
		return;
	}
	ut_compare(path, fx.empty_dir, NULL);
	free(path);
}

void utest_symtab_dwfl_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "libc", test_libc);
	CU_add_test(suite, "libc_debug", test_libc_debug);
	CU_add_test(suite, "libc_exit", test_libc_exit);
	CU_add_test(suite, "python3", test_python3);
}
