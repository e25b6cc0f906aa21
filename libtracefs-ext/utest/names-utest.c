// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer tests of names and places: C++ and Rust names demangled, a
 * sysroot, JIT frames from perf maps, and the vDSO. The fixtures are
 * described in fixture-env.h; fixture-cxx.cc is the g++ one.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <libelf.h>
#include <gelf.h>

#include "fixture-env.h"

#define SUITE	"symbolizer-names"

/* The name a lookup of path+offset gives; false (a failure recorded) if unresolved. */
static bool ut_name_is(struct ustack_symbolizer *sym, const char *path, unsigned long long off,
		       const char *want)
{
	struct ustack_symbol s;

	if (!utest_lookup(sym, path, NULL, 0, off, &s) ||
	    !UT_CHECK(s.resolved, "%s+%#llx unresolved, want %s", path, off, want))
		return false;
	return UT_CHECK_STR(s.name, want);
}

/* The offset of a function of a dlopen()ed file, by its (mangled) name. */
static bool ut_offset_of(void *handle, const char *path, const char *name,
			 unsigned long long *off)
{
	void *addr = dlsym(handle, name);

	return UT_CHECK(addr, "dlsym %s: %s", name, dlerror()) &&
	       UT_CHECK(utest_map_offset(addr, path, off), "%s not in the maps", name);
}

static void test_demangle_cxx(void)
{
	static const char * const names[][2] = {
		{ "_ZN6ustack4demo5innerEi", "ustack::demo::inner(int)" },
		{ "_ZN6ustack4demo6widget4pokeEi", "ustack::demo::widget::poke(int)" },
		{ "_ZN6ustack4demo5twiceIlEET_S2_", "long ustack::demo::twice<long>(long)" },
		{ "utest_cxx_entry", "utest_cxx_entry" },
	};
	struct ustack_symbolizer *sym = NULL;
	unsigned long long off[4];
	char path[PATH_MAX];
	void *handle = NULL;
	unsigned int i;

	if (!UT_CHECK(utest_pathf(path, sizeof(path), "%s/fixture-cxx.so", fx.tmp_dir) &&
		      utest_write_blob(path, &utest_blob_cxx), "write"))
		return;
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!UT_CHECK(handle, "dlopen %s: %s", path, dlerror()))
		return;
	for (i = 0; i < UT_ARRAY_SIZE(names); i++) {
		if (!ut_offset_of(handle, path, names[i][0], &off[i]))
			goto out;
	}
	sym = utest_symbolizer(fx.empty_dir);
	for (i = 0; sym && i < UT_ARRAY_SIZE(names); i++)
		ut_name_is(sym, path, off[i] + 1, names[i][1]);
	/* as in the symbol table, on request */
	if (sym && UT_CHECK(!ustack_symbolizer_set_flags(sym, USTACK_SYMBOLIZE_MANGLED), "flags")) {
		for (i = 0; i < UT_ARRAY_SIZE(names); i++)
			ut_name_is(sym, path, off[i] + 1, names[i][0]);
	}
out:
	ustack_symbolizer_free(sym);
	dlclose(handle);
}

/* Rust's two manglings, made by hand in fixture.c: the legacy one loses its hash. */
static void test_demangle_rust(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	unsigned long long legacy, v0;

	if (sym && ut_offset_of(fx.handle, fx.so, "_ZN6ustack4rust6legacy17h0123456789abcdefE",
				&legacy) &&
	    ut_offset_of(fx.handle, fx.so, "_RNvCs1234_6ustack2v0", &v0)) {
		ut_name_is(sym, fx.so, legacy, "ustack::rust::legacy");
		ut_name_is(sym, fx.so, v0 + 2, "ustack::v0");
	}
	ustack_symbolizer_free(sym);
}

/* The trace's paths, and debug links, under the sysroot; its own path given back. */
static void test_sysroot(void)
{
	char root[PATH_MAX], dir[PATH_MAX], lib[PATH_MAX], strip[PATH_MAX], dbg[PATH_MAX];
	struct ustack_symbolizer *sym;

	if (!UT_CHECK(utest_dir("sysroot", root, sizeof(root)) &&
		      utest_pathf(dir, sizeof(dir), "%s/opt/app", root) && utest_make_dirs(dir),
		      "mkdir") ||
	    !UT_CHECK(utest_pathf(lib, sizeof(lib), "%s/lib.so", dir) &&
		      utest_pathf(strip, sizeof(strip), "%s/strip.so", dir) &&
		      utest_pathf(dbg, sizeof(dbg), "%s/fixture.debug", dir) &&
		      utest_write_blob(lib, &utest_blob_so) &&
		      utest_write_blob(strip, &utest_blob_stripped) &&
		      utest_write_blob(dbg, &utest_blob_debug), "write"))
		return;
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		return;
	UT_CHECK(!ustack_symbolizer_get_sysroot(sym), "a sysroot by default");
	CHECK_UNRESOLVED(sym, "/opt/app/lib.so", NULL, 0, fx.funcs[F_ALPHA].offset);
	if (UT_CHECK(!ustack_symbolizer_set_sysroot(sym, root), "set_sysroot")) {
		UT_CHECK_STR(ustack_symbolizer_get_sysroot(sym), root);
		CHECK_RESOLVED(sym, "/opt/app/lib.so", NULL, 0, &fx.funcs[F_ALPHA], 2, lib);
		CHECK_RESOLVED(sym, "/opt/app/strip.so", fx.build_id, fx.build_id_size,
			       &fx.funcs[F_GAMMA], 1, dbg);
	}
	UT_CHECK(!ustack_symbolizer_set_sysroot(sym, "/") && !ustack_symbolizer_get_sysroot(sym),
		 "sysroot / is none");
	errno = 0;
	UT_CHECK(ustack_symbolizer_set_sysroot(sym, "") == -1 && errno == EINVAL, "empty sysroot");
	ustack_symbolizer_free(sym);
}

/* Frames in no file, named from /tmp/perf-PID.map under the sysroot. */
static void test_jit(void)
{
	static const char map[] = "7f0000001000 100 jit_alpha\n"
				  "not a line\n"
				  "0x7f0000001100 80 LazyCompile:~beta app.js:3\n"
				  "7f0000002000 10\n";
	char root[PATH_MAX], tmp[PATH_MAX], path[PATH_MAX], buf[PATH_MAX];
	struct ustack_frame frame = { .offset = 0x7f0000001010 };
	struct ustack_stack stack = { .pid = 4242, .nr = 1, .frames = &frame };
	struct ustack_symbolizer *sym;
	struct ustack_symbol s;

	if (!UT_CHECK(utest_dir("jit-root", root, sizeof(root)) &&
		      utest_pathf(tmp, sizeof(tmp), "%s/tmp", root) && utest_make_dirs(tmp) &&
		      utest_pathf(path, sizeof(path), "%s/perf-4242.map", tmp) &&
		      utest_write_file(path, map, strlen(map)), "write") ||
	    !UT_CHECK(!mkfifo(strcat(tmp, "/perf-4243.map"), 0600), "mkfifo: %s", strerror(errno)))
		return;
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym || !UT_CHECK(!ustack_symbolizer_set_sysroot(sym, root), "set_sysroot"))
		goto out;
	if (UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4242, 0x7f0000001010, 0, &s), "lookup") &&
	    UT_CHECK(s.resolved, "unresolved")) {
		UT_CHECK_STR(s.name, "jit_alpha");
		UT_CHECK_ULL(s.sym_offset, 0x10);
		UT_CHECK_STR(s.path, "/tmp/perf-4242.map");
		UT_CHECK_STR(s.file, path);
	}
	/* a name with spaces; a return address one past the end of the one before */
	if (!ustack_symbolizer_lookup_addr(sym, 4242, 0x7f0000001104, 0, &s))
		UT_CHECK_STR(s.name, "LazyCompile:~beta app.js:3");
	if (!ustack_symbolizer_lookup_addr(sym, 4242, 0x7f0000001100, USTACK_LOOKUP_RETURN, &s)) {
		UT_CHECK_STR(s.name, "jit_alpha");
		UT_CHECK_ULL(s.sym_offset, 0x100);
	}
	/* past the end, an empty name, another process, a FIFO for a map: nothing */
	UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4242, 0x7f0000001180, 0, &s) && !s.resolved,
		 "past the end resolved");
	UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4242, 0x7f0000002000, 0, &s) && !s.resolved,
		 "empty name resolved");
	UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4244, 0x7f0000001010, 0, &s) && !s.resolved,
		 "another process resolved");
	UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4243, 0x7f0000001010, 0, &s) && !s.resolved,
		 "a FIFO resolved");
	errno = 0;
	UT_CHECK(ustack_symbolizer_lookup_addr(sym, 4242, 0, 0x2, &s) == -1 && errno == EINVAL,
		 "unknown flag taken");
	/* in a stack, which knows its process */
	ustack_stack_format(&stack, sym, buf, sizeof(buf));
	UT_CHECK_STR(buf, "  => jit_alpha+0x10 (/tmp/perf-4242.map)\n");
	ustack_stack_fold(&stack, sym, NULL, buf, sizeof(buf));
	UT_CHECK_STR(buf, "jit_alpha");
	ustack_frame_format(&frame, sym, buf, sizeof(buf));
	UT_CHECK_STR(buf, "0x7f0000001010");
out:
	ustack_symbolizer_free(sym);
}

/* Lines of a perf map: "START 10 NAME\n", NAME padded with 'x' to NAME_LEN. */
static size_t ut_map_line(char *buf, unsigned long long start, const char *name, size_t name_len)
{
	size_t n = sprintf(buf, "%llx 10 %s", start, name);

	while (n < name_len + 16)
		buf[n++] = 'x';
	buf[n++] = '\n';
	return n;
}

/*
 * A perf map is anyone's file: a line of more than 4096 bytes is skipped
 * (one of 4096 is not), and reading stops after 2^21 functions. An empty
 * map is read too.
 */
static void test_jit_bounds(void)
{
	const unsigned int max_syms = 1U << 21;
	char root[PATH_MAX], tmp[PATH_MAX], path[PATH_MAX];
	struct ustack_symbolizer *sym = NULL;
	struct ustack_symbol s;
	size_t len = 0, n;
	unsigned int i;
	char *map;

	/* the lines are 13 bytes, "1000000 1 f\n" and on */
	map = malloc((size_t)(max_syms + 1) * 16 + 3 * 8192);
	if (!UT_CHECK(map, "malloc"))
		return;
	/* "7f0000003000 10 " is 16 bytes: 4079 x make 4095, the newline 4096 */
	len += ut_map_line(map + len, 0x7f0000003000ULL, "long", 4079);
	len += ut_map_line(map + len, 0x7f0000004000ULL, "longer", 4080);
	len += ut_map_line(map + len, 0x7f0000005000ULL, "after", 0);
	for (i = 0; i <= max_syms; i++)
		len += sprintf(map + len, "%x 1 f\n", 0x1000000 + i);
	if (!UT_CHECK(utest_dir("jit-bounds", root, sizeof(root)) &&
		      utest_pathf(tmp, sizeof(tmp), "%s/tmp", root) && utest_make_dirs(tmp) &&
		      utest_pathf(path, sizeof(path), "%s/perf-4245.map", tmp) &&
		      utest_write_file(path, map, len), "write"))
		goto out;
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym || !UT_CHECK(!ustack_symbolizer_set_sysroot(sym, root), "set_sysroot"))
		goto out;
	if (UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4245, 0x7f0000003004, 0, &s), "lookup") &&
	    UT_CHECK(s.resolved, "a line of 4096 bytes skipped")) {
		n = strlen(s.name);
		UT_CHECK(n == 4079 && !strncmp(s.name, "longxx", 6), "name of %zu bytes", n);
	}
	UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4245, 0x7f0000004004, 0, &s) && !s.resolved,
		 "a line of 4097 bytes read");
	if (UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4245, 0x7f0000005004, 0, &s) &&
		     s.resolved, "the line after the long one lost"))
		UT_CHECK_STR(s.name, "after");
	/* two functions before them: the last one read is line max_syms - 3 */
	UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4245, 0x1000000 + max_syms - 3, 0, &s) &&
		 s.resolved, "the last function within the bound unresolved");
	UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4245, 0x1000000 + max_syms - 2, 0, &s) &&
		 !s.resolved, "a function past 2^21 read");
	/* an empty map (UBSan: no NULL array to qsort()) */
	if (UT_CHECK(utest_pathf(path, sizeof(path), "%s/perf-4246.map", tmp) &&
		     utest_write_file(path, "", 0), "write"))
		UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4246, 0x1000, 0, &s) && !s.resolved,
			 "an empty map resolved");
out:
	ustack_symbolizer_free(sym);
	free(map);
}

/*
 * A map with 300 MiB of NUL bytes after its first line (a sparse file, a
 * line with no newline that strlen() sees as empty): reading stops at 256
 * MiB of the file, so the line after them is not read.
 */
static void test_jit_nul_bytes(void)
{
	static const char first[] = "7f0000001000 10 first\n";
	static const char past[] = "\n7f0000002000 10 past\n";
	const off_t hole = 300LL << 20;
	char root[PATH_MAX], tmp[PATH_MAX], path[PATH_MAX];
	struct ustack_symbolizer *sym = NULL;
	struct ustack_symbol s;
	bool written;
	int fd;

	if (!UT_CHECK(utest_dir("jit-nul", root, sizeof(root)) &&
		      utest_pathf(tmp, sizeof(tmp), "%s/tmp", root) && utest_make_dirs(tmp) &&
		      utest_pathf(path, sizeof(path), "%s/perf-4247.map", tmp), "dirs"))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	written = fd >= 0 && write(fd, first, strlen(first)) == (ssize_t)strlen(first) &&
		  pwrite(fd, past, strlen(past), hole) == (ssize_t)strlen(past);
	if (fd >= 0)
		close(fd);
	if (!UT_CHECK(written, "write %s", path))
		goto out;
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym || !UT_CHECK(!ustack_symbolizer_set_sysroot(sym, root), "set_sysroot"))
		goto out;
	if (UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4247, 0x7f0000001004, 0, &s) &&
		     s.resolved, "the first line lost"))
		UT_CHECK_STR(s.name, "first");
	UT_CHECK(!ustack_symbolizer_lookup_addr(sym, 4247, 0x7f0000002004, 0, &s) && !s.resolved,
		 "a line past 256 MiB of NUL bytes read");
out:
	ustack_symbolizer_free(sym);
	unlink(path);
}

/* This process's vDSO: its build-id and the offset of __vdso_clock_gettime. */
#define ut_ehdr		ElfW(Ehdr)

static bool ut_vdso(unsigned char *id, size_t *id_size, unsigned long long *off)
{
	const ut_ehdr *ehdr = (const void *)getauxval(AT_SYSINFO_EHDR);
	Elf *elf = NULL;
	bool found = false, have_id = false;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	GElf_Sym gsym;
	Elf_Data *data;
	GElf_Nhdr nhdr;
	size_t i, next, name_off, desc_off;

	if (ehdr)
		elf = elf_memory((char *)ehdr, ehdr->e_shoff + ehdr->e_shnum * ehdr->e_shentsize);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		data = gelf_getshdr(scn, &shdr) ? elf_getdata(scn, NULL) : NULL;
		if (!data)
			continue;
		for (i = 0, next = 0; shdr.sh_type == SHT_NOTE; i = next) {
			next = gelf_getnote(data, i, &nhdr, &name_off, &desc_off);
			if (!next)
				break;
			if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_descsz <= USTACK_BUILD_ID_MAX) {
				memcpy(id, (char *)data->d_buf + desc_off, nhdr.n_descsz);
				*id_size = nhdr.n_descsz;
				have_id = true;
			}
		}
		for (i = 0; shdr.sh_type == SHT_DYNSYM && gelf_getsym(data, i, &gsym); i++) {
			const char *name = elf_strptr(elf, shdr.sh_link, gsym.st_name);

			/* the vDSO's segment starts at offset 0 and address 0 */
			if (name && !strcmp(name, "__vdso_clock_gettime")) {
				*off = gsym.st_value;
				found = true;
			}
		}
	}
	elf_end(elf);
	return found && have_id;
}

/* "[vdso]" frames, from this process's own vDSO when the build-id is its own. */
static void test_vdso(void)
{
	unsigned char id[USTACK_BUILD_ID_MAX];
	struct ustack_symbolizer *sym;
	unsigned long long off = 0;
	struct ustack_symbol s;
	size_t id_size = 0;

	elf_version(EV_CURRENT);
	if (!ut_vdso(id, &id_size, &off)) {
		utest_skip("no vDSO with a build-id and __vdso_clock_gettime here");
		return;
	}
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		return;
	if (utest_lookup(sym, "[vdso]", id, id_size, off + 1, &s) &&
	    UT_CHECK(s.resolved, "[vdso]+%#llx unresolved", off + 1)) {
		UT_CHECK_STR(s.name, "__vdso_clock_gettime");
		UT_CHECK_ULL(s.sym_offset, 1);
		UT_CHECK_STR(s.file, "[vdso]");
	}
	/* without a build-id: the running one, no sysroot being set */
	ut_name_is(sym, "[vdso]", off, "__vdso_clock_gettime");
	/* another build-id, and no image of it anywhere */
	id[0] ^= 0xff;
	CHECK_UNRESOLVED(sym, "[vdso]", id, id_size, off);
	ustack_symbolizer_free(sym);
}

/*
 * "[vdso]" of a trace from another machine: the image its kernel build
 * installed, SYSROOT/lib/modules/RELEASE/vdso/vdso64.so, found by the
 * trace's build-id (the fixture stands in for it). Without a build-id, a
 * sysroot says the trace is not of this machine: nothing, not this vDSO.
 */
static void test_vdso_sysroot(void)
{
	char root[PATH_MAX], dir[PATH_MAX], image[PATH_MAX];
	struct ustack_symbolizer *sym;
	struct utsname uts;

	if (!UT_CHECK(!uname(&uts), "uname: %s", strerror(errno)) ||
	    !UT_CHECK(utest_dir("vdso-root", root, sizeof(root)) &&
		      utest_pathf(dir, sizeof(dir), "%s/lib/modules/%s/vdso", root, uts.release) &&
		      utest_make_dirs(dir) &&
		      utest_pathf(image, sizeof(image), "%s/vdso64.so", dir) &&
		      utest_write_blob(image, &utest_blob_so), "write"))
		return;
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		return;
	/* not under the sysroot: no image of that build-id */
	CHECK_UNRESOLVED(sym, "[vdso]", fx.build_id, fx.build_id_size, fx.funcs[F_ALPHA].offset);
	if (UT_CHECK(!ustack_symbolizer_set_sysroot(sym, root), "set_sysroot")) {
		CHECK_RESOLVED(sym, "[vdso]", fx.build_id, fx.build_id_size, &fx.funcs[F_ALPHA], 2,
			       image);
		CHECK_UNRESOLVED(sym, "[vdso]", NULL, 0, fx.funcs[F_ALPHA].offset);
	}
	ustack_symbolizer_free(sym);
}

/* A relocatable object with the fixture's segments: no module, nothing resolved. */
static void test_not_loadable(void)
{
	struct ustack_symbolizer *sym;
	struct utest_blob blob;
	unsigned char *copy;
	char path[PATH_MAX];

	copy = malloc(utest_blob_so.size);
	if (!UT_CHECK(copy, "malloc"))
		return;
	memcpy(copy, utest_blob_so.data, utest_blob_so.size);
	/* e_type, in the file's byte order: the fixture is little-endian here */
	copy[16] = ET_REL;
	copy[17] = 0;
	blob = (struct utest_blob){ copy, utest_blob_so.size };
	sym = utest_symbolizer(fx.empty_dir);
	if (sym && UT_CHECK(utest_pathf(path, sizeof(path), "%s/rel.o", fx.tmp_dir) &&
			    utest_write_blob(path, &blob), "write"))
		CHECK_UNRESOLVED(sym, path, NULL, 0, fx.funcs[F_ALPHA].offset);
	ustack_symbolizer_free(sym);
	free(copy);
}

void utest_names_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "demangle_cxx", test_demangle_cxx);
	CU_add_test(suite, "demangle_rust", test_demangle_rust);
	CU_add_test(suite, "sysroot", test_sysroot);
	CU_add_test(suite, "jit", test_jit);
	CU_add_test(suite, "jit_bounds", test_jit_bounds);
	CU_add_test(suite, "jit_nul_bytes", test_jit_nul_bytes);
	CU_add_test(suite, "vdso", test_vdso);
	CU_add_test(suite, "vdso_sysroot", test_vdso_sysroot);
	CU_add_test(suite, "not_loadable", test_not_loadable);
}
