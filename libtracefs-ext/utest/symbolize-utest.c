// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the symbolizer against a shared object with known functions
 * (fixture.c), its stripped copy, its --only-keep-debug file and a rebuilt
 * copy with another build-id, all built into this binary (fixtures.S) and
 * written to a temporary directory by the suite setup.
 *
 * The expected file offsets are not read from the ELF: the setup dlopen()s
 * the fixture and computes, from /proc/self/maps, the offset each function has
 * in the mapped file, the way the kernel records a user stack frame
 * (ip - vma_start + vm_pgoff * page_size). The fixture is linked with
 * -Ttext-segment, so link-time addresses differ from file offsets.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <ustack.h>
#include "utest.h"

#define SUITE	"symbolizer"

extern const unsigned char utest_fixture_so[], utest_fixture_so_end[];
extern const unsigned char utest_fixture_debug[], utest_fixture_debug_end[];
extern const unsigned char utest_fixture_stripped_so[], utest_fixture_stripped_so_end[];
extern const unsigned char utest_fixture_other_so[], utest_fixture_other_so_end[];

/* A function of the fixture: where it is in the file and at link time. */
struct utest_func {
	const char		*name;
	unsigned long long	offset;
	unsigned long long	vaddr;
	bool			found;
};

enum { F_ALPHA, F_BETA, F_GAMMA, F_NOSIZE, F_NR };

static struct utest_func funcs[F_NR] = {
	[F_ALPHA]	= { .name = "utest_alpha" },
	[F_BETA]	= { .name = "utest_beta" },
	[F_GAMMA]	= { .name = "utest_gamma" },
	[F_NOSIZE]	= { .name = "utest_nosize" },
};

static char tmp_dir[PATH_MAX];
static char fixture_so[PATH_MAX];	/* unstripped */
static char stripped_so[PATH_MAX];	/* stripped, with a debug link to fixture.debug, */
static char stripped_dir[PATH_MAX];	/* alone in this directory */
static char fixture_dbg[PATH_MAX];	/* objcopy --only-keep-debug */
static char other_so[PATH_MAX];	/* another build-id */
static char empty_dir[PATH_MAX];	/* a debug root with nothing in it */
static unsigned char build_id[USTACK_BUILD_ID_MAX];
static size_t build_id_size;
static char build_id_hex[2 * USTACK_BUILD_ID_MAX + 1];
static void *fixture_handle;

/* ---- helpers ---- */

/* snprintf() for paths: true when the whole path fit */
static bool pathf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

static bool write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(data, 1, len, f) == len;
	return !fclose(f) && ok;
}

#define BLOB(name)	name, (size_t)(name##_end - name)

/* mkdir -p */
static bool make_dirs(const char *dir)
{
	char path[PATH_MAX];
	char *p;

	pathf(path, sizeof(path), "%s", dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return false;
		*p = '/';
	}
	return !mkdir(path, 0755) || errno == EEXIST;
}

/* A fresh directory tmp_dir/name, and its path. */
static const char *test_dir(const char *name, char *buf, size_t size)
{
	pathf(buf, size, "%s/%s", tmp_dir, name);
	return make_dirs(buf) ? buf : NULL;
}

/* The build-id debug path of the fixture under root. */
static void build_id_path(const char *root, char *buf, size_t size)
{
	pathf(buf, size, "%s/.build-id/%.2s/%s.debug", root, build_id_hex, build_id_hex + 2);
}

/* Put data where a debug root keeps the fixture's build-id debug file. */
static bool put_build_id_file(const char *root, const void *data, size_t len)
{
	char path[PATH_MAX], dir[PATH_MAX];

	pathf(dir, sizeof(dir), "%s/.build-id/%.2s", root, build_id_hex);
	build_id_path(root, path, sizeof(path));
	return make_dirs(dir) && write_file(path, data, len);
}

static struct ustack_symbolizer *new_symbolizer(const char *debug_dir)
{
	struct ustack_symbolizer *sym = ustack_symbolizer_alloc();

	if (!UT_CHECK(sym, "ustack_symbolizer_alloc: %s", strerror(errno)))
		return NULL;
	if (!UT_CHECK(!ustack_symbolizer_set_debug_dir(sym, debug_dir),
		      "set_debug_dir(%s): %s", debug_dir, strerror(errno))) {
		ustack_symbolizer_free(sym);
		return NULL;
	}
	return sym;
}

static bool lookup(struct ustack_symbolizer *sym, const char *path, const unsigned char *id,
		   size_t id_size, unsigned long long offset, struct ustack_symbol *s)
{
	memset(s, 0xa5, sizeof(*s));
	return UT_CHECK(!ustack_symbolizer_lookup(sym, path, id, id_size, offset, s),
			"lookup(%s, %#llx): %s", path, offset, strerror(errno));
}

/* The function f + delta in path resolves to f + delta from the file `from`. */
#define CHECK_RESOLVED(sym, path_, id, id_size, f, delta, from) do { \
	struct ustack_symbol __s; \
	if (lookup(sym, path_, id, id_size, (f)->offset + (delta), &__s) && \
	    UT_CHECK(__s.resolved, "%s+%#x in %s: unresolved", (f)->name, (delta), path_)) { \
		UT_CHECK_STR(__s.name, (f)->name); \
		UT_CHECK_ULL(__s.sym_offset, (delta)); \
		UT_CHECK_ULL(__s.addr, (f)->vaddr + (delta)); \
		UT_CHECK_STR(__s.file, from); \
		UT_CHECK_STR(__s.path, path_); \
	} \
} while (0)

#define CHECK_UNRESOLVED(sym, path_, id, id_size, off) do { \
	struct ustack_symbol __s; \
	if (lookup(sym, path_, id, id_size, off, &__s)) { \
		UT_CHECK(!__s.resolved, "%#llx in %s resolved to %s from %s", \
			 (unsigned long long)(off), path_, __s.name, __s.file); \
		UT_CHECK(!__s.name && !__s.file, "unresolved with a name or file"); \
		UT_CHECK_STR(__s.path, path_); \
		UT_CHECK_ULL(__s.file_offset, off); \
	} \
} while (0)

/* ---- suite setup: fixtures on disk, expected offsets from the loaded fixture ---- */

/* The offset of addr in the file mapped there, from /proc/self/maps. */
static bool map_offset(const void *addr, const char *path, unsigned long long *offset)
{
	unsigned long long start, end, pgoff, a = (unsigned long)addr;
	char line[PATH_MAX + 128], file[PATH_MAX];
	bool found = false;
	FILE *maps;

	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return false;
	while (!found && fgets(line, sizeof(line), maps)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &pgoff,
			   file) < 3)
			continue;
		if (a < start || a >= end || strcmp(file, path))
			continue;
		*offset = a - start + pgoff;
		found = true;
	}
	fclose(maps);
	return found;
}

struct note_search {
	const char	*path;
	bool		found;
};

/* Copy the GNU build-id note of the loaded fixture. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	struct note_search *ns = data;
	const char *p, *end;
	int i;

	(void)size;
	if (!info->dlpi_name || strcmp(info->dlpi_name, ns->path))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		end = p + info->dlpi_phdr[i].p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3U);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && n->n_descsz <= USTACK_BUILD_ID_MAX) {
				memcpy(build_id, desc, n->n_descsz);
				build_id_size = n->n_descsz;
				ns->found = true;
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3U);
		}
	}
	return 0;
}

static int setup(void)
{
	struct note_search ns = { .path = fixture_so };
	const char *tmp = getenv("TMPDIR");
	struct link_map *lm;
	void *addr;
	size_t i;

	/* short enough for every path the tests make in it */
	if (!pathf(tmp_dir, 256, "%s/ustack-utest.XXXXXX", tmp && *tmp ? tmp : "/tmp") ||
	    !mkdtemp(tmp_dir))
		return -1;
	pathf(fixture_so, sizeof(fixture_so), "%s/fixture.so", tmp_dir);
	if (!test_dir("stripped", stripped_dir, sizeof(stripped_dir)))
		return -1;
	pathf(stripped_so, sizeof(stripped_so), "%s/fixture-stripped.so", stripped_dir);
	pathf(fixture_dbg, sizeof(fixture_dbg), "%s/fixture.debug", tmp_dir);
	pathf(other_so, sizeof(other_so), "%s/fixture-other.so", tmp_dir);
	if (!write_file(fixture_so, BLOB(utest_fixture_so)) ||
	    !write_file(stripped_so, BLOB(utest_fixture_stripped_so)) ||
	    !write_file(fixture_dbg, BLOB(utest_fixture_debug)) ||
	    !write_file(other_so, BLOB(utest_fixture_other_so)) ||
	    !test_dir("empty-debug", empty_dir, sizeof(empty_dir)))
		return -1;

	fixture_handle = dlopen(fixture_so, RTLD_NOW | RTLD_LOCAL);
	if (!fixture_handle || dlinfo(fixture_handle, RTLD_DI_LINKMAP, &lm))
		return -1;

	for (i = 0; i < F_NR; i++) {
		if (i == F_GAMMA)
			addr = ((void *(*)(void))dlsym(fixture_handle, "utest_gamma_addr"))();
		else
			addr = dlsym(fixture_handle, funcs[i].name);
		if (!addr)
			continue;
		if (!map_offset(addr, fixture_so, &funcs[i].offset))
			return -1;
		/* l_addr is the load bias: run-time address minus link-time address */
		funcs[i].vaddr = (unsigned long)addr - lm->l_addr;
		funcs[i].found = true;
	}
	if (!funcs[F_ALPHA].found || !funcs[F_BETA].found || !funcs[F_GAMMA].found)
		return -1;

	dl_iterate_phdr(find_build_id, &ns);
	if (!ns.found || build_id_size < 2)
		return -1;
	for (i = 0; i < build_id_size; i++)
		sprintf(build_id_hex + 2 * i, "%02x", build_id[i]);
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static int cleanup(void)
{
	if (fixture_handle)
		dlclose(fixture_handle);
	fixture_handle = NULL;
	if (tmp_dir[0] && strcmp(tmp_dir + strlen(tmp_dir) - 6, "XXXXXX"))
		nftw(tmp_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* ---- tests ---- */

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
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);
	unsigned char id[USTACK_BUILD_ID_MAX + 1] = { 0 };
	struct ustack_symbol s = { .path = "/lib.so" };
	char buf[8];

	if (!sym)
		return;
#define CHECK_EINVAL(call) do { \
	errno = 0; \
	UT_CHECK((call) == -1 && errno == EINVAL, "%s: want -1/EINVAL, errno %d", #call, errno); \
} while (0)
	CHECK_EINVAL(ustack_symbolizer_lookup(NULL, fixture_so, NULL, 0, 0, &s));
	CHECK_EINVAL(ustack_symbolizer_lookup(sym, NULL, NULL, 0, 0, &s));
	CHECK_EINVAL(ustack_symbolizer_lookup(sym, fixture_so, NULL, 0, 0, NULL));
	CHECK_EINVAL(ustack_symbolizer_lookup(sym, fixture_so, NULL, 20, 0, &s));
	CHECK_EINVAL(ustack_symbolizer_lookup(sym, fixture_so, id, sizeof(id), 0, &s));
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
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);

	if (!sym)
		return;
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), empty_dir);
	UT_CHECK(!ustack_symbolizer_set_debug_dir(sym, NULL), "set_debug_dir(NULL)");
	UT_CHECK_STR(ustack_symbolizer_get_debug_dir(sym), USTACK_DEBUG_DIR);
	ustack_symbolizer_free(sym);
}

/* Functions of the unstripped file resolve from its .symtab, static ones too. */
static void test_symtab(void)
{
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);

	if (!sym)
		return;
	CHECK_RESOLVED(sym, fixture_so, NULL, 0, &funcs[F_ALPHA], 0, fixture_so);
	CHECK_RESOLVED(sym, fixture_so, NULL, 0, &funcs[F_ALPHA], 2, fixture_so);
	/* utest_beta_alias shares the address: the plainer name wins */
	CHECK_RESOLVED(sym, fixture_so, NULL, 0, &funcs[F_BETA], 0, fixture_so);
	CHECK_RESOLVED(sym, fixture_so, NULL, 0, &funcs[F_BETA], 1, fixture_so);
	CHECK_RESOLVED(sym, fixture_so, NULL, 0, &funcs[F_GAMMA], 0, fixture_so);
	CHECK_RESOLVED(sym, fixture_so, NULL, 0, &funcs[F_GAMMA], 3, fixture_so);
	UT_CHECK(funcs[F_ALPHA].vaddr != funcs[F_ALPHA].offset,
		 "fixture not linked with its addresses away from its offsets");
	ustack_symbolizer_free(sym);
}

/* A symbol without a size covers the addresses up to the next symbol. */
static void test_no_size(void)
{
	struct ustack_symbolizer *sym;

	if (!funcs[F_NOSIZE].found) {
		utest_skip("no assembly function without a size on this architecture");
		return;
	}
	sym = new_symbolizer(empty_dir);
	if (!sym)
		return;
	CHECK_RESOLVED(sym, fixture_so, NULL, 0, &funcs[F_NOSIZE], 0, fixture_so);
	CHECK_RESOLVED(sym, fixture_so, NULL, 0, &funcs[F_NOSIZE], 8, fixture_so);
	CHECK_RESOLVED(sym, fixture_so, NULL, 0, &funcs[F_NOSIZE], 16, fixture_so);
	ustack_symbolizer_free(sym);
}

static void test_outside_segments(void)
{
	unsigned long long size = utest_fixture_so_end - utest_fixture_so;
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);
	struct ustack_symbol s;

	if (!sym)
		return;
	CHECK_UNRESOLVED(sym, fixture_so, NULL, 0, size + 0x10000);
	CHECK_UNRESOLVED(sym, fixture_so, NULL, 0, ~0ULL);
	/* the ELF header is in a segment, but no code is there */
	CHECK_UNRESOLVED(sym, fixture_so, NULL, 0, 0);
	if (lookup(sym, fixture_so, NULL, 0, size + 0x10000, &s))
		UT_CHECK_ULL(s.addr, 0);
	ustack_symbolizer_free(sym);
}

static void test_missing_file(void)
{
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);
	char path[PATH_MAX];

	if (!sym)
		return;
	pathf(path, sizeof(path), "%s/no-such-file.so", tmp_dir);
	CHECK_UNRESOLVED(sym, path, NULL, 0, funcs[F_ALPHA].offset);
	CHECK_UNRESOLVED(sym, path, build_id, build_id_size, funcs[F_ALPHA].offset);
	CHECK_UNRESOLVED(sym, "[vdso]", NULL, 0, 0x1000);
	CHECK_UNRESOLVED(sym, "", NULL, 0, 0x1000);
	ustack_symbolizer_free(sym);
}

/* Files that are not ELF, or not regular files. */
static void test_not_elf(void)
{
	static const unsigned char elf_magic_only[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);
	unsigned char noise[4096];
	char path[PATH_MAX];
	unsigned int seed = 1;
	size_t i;

	if (!sym)
		return;
	for (i = 0; i < sizeof(noise); i++) {
		seed = seed * 1103515245 + 12345;
		noise[i] = seed >> 16;
	}

	pathf(path, sizeof(path), "%s/empty", tmp_dir);
	if (UT_CHECK(write_file(path, "", 0), "write %s", path))
		CHECK_UNRESOLVED(sym, path, NULL, 0, 0);
	pathf(path, sizeof(path), "%s/text", tmp_dir);
	if (UT_CHECK(write_file(path, "#!/bin/sh\necho hello\n", 21), "write %s", path))
		CHECK_UNRESOLVED(sym, path, NULL, 0, 4);
	pathf(path, sizeof(path), "%s/noise", tmp_dir);
	if (UT_CHECK(write_file(path, noise, sizeof(noise)), "write %s", path))
		CHECK_UNRESOLVED(sym, path, NULL, 0, 0x100);
	pathf(path, sizeof(path), "%s/magic-only", tmp_dir);
	if (UT_CHECK(write_file(path, elf_magic_only, sizeof(elf_magic_only)), "write %s", path))
		CHECK_UNRESOLVED(sym, path, NULL, 0, 0x10);
	CHECK_UNRESOLVED(sym, tmp_dir, NULL, 0, 0);
	CHECK_UNRESOLVED(sym, "/dev/null", NULL, 0, 0);
	ustack_symbolizer_free(sym);
}

/*
 * Look up every fixture function in a damaged copy. Never a crash or an
 * error; with names_must_match, a resolved frame must also be right (damage
 * that only removes data can lose names, never invent them).
 */
static void lookup_damaged(const char *path, bool names_must_match, const char *what)
{
	struct ustack_symbolizer *sym = ustack_symbolizer_alloc();
	struct ustack_symbol s;
	size_t i;

	if (!UT_CHECK(sym, "alloc") || !UT_CHECK(!ustack_symbolizer_set_debug_dir(sym, empty_dir),
						 "set_debug_dir")) {
		ustack_symbolizer_free(sym);
		return;
	}
	for (i = 0; i < F_NR; i++) {
		if (!funcs[i].found)
			continue;
		if (!UT_CHECK(!ustack_symbolizer_lookup(sym, path, NULL, 0, funcs[i].offset, &s),
			      "%s: lookup failed: %s", what, strerror(errno)))
			break;
		if (!s.resolved)
			continue;
		UT_CHECK(s.name && s.file, "%s: resolved without a name or file", what);
		if (names_must_match && s.name)
			UT_CHECK(!strcmp(s.name, funcs[i].name), "%s: %s resolved to %s", what,
				 funcs[i].name, s.name);
	}
	ustack_symbolizer_free(sym);
}

static void test_truncated(void)
{
	size_t size = utest_fixture_so_end - utest_fixture_so, len;
	char path[PATH_MAX], what[64];

	pathf(path, sizeof(path), "%s/truncated.so", tmp_dir);
	for (len = 0; len < size; len += len < 128 ? 1 : 61) {
		pathf(what, sizeof(what), "truncated at %zu", len);
		if (!UT_CHECK(write_file(path, utest_fixture_so, len), "write %s", path))
			return;
		lookup_damaged(path, true, what);
	}
}

/* Bogus offsets, sizes and links in each section header in turn. */
static void test_bad_sections(void)
{
	size_t size = utest_fixture_so_end - utest_fixture_so;
	const Elf64_Ehdr *ehdr = (const void *)utest_fixture_so;
	char path[PATH_MAX], what[64];
	unsigned char *copy;
	Elf64_Shdr *shdr;
	unsigned int i, kind;

	if (ehdr->e_ident[EI_CLASS] != ELFCLASS64 || ehdr->e_ident[EI_DATA] != ELFDATA2LSB ||
	    ehdr->e_shoff + (unsigned long long)ehdr->e_shnum * sizeof(*shdr) > size) {
		utest_skip("the fixture is not a little-endian ELF64 file");
		return;
	}
	copy = malloc(size);
	if (!UT_CHECK(copy, "malloc"))
		return;
	pathf(path, sizeof(path), "%s/bad-section.so", tmp_dir);

	for (i = 1; i < ehdr->e_shnum; i++) {
		for (kind = 0; kind < 6; kind++) {
			memcpy(copy, utest_fixture_so, size);
			shdr = (Elf64_Shdr *)(copy + ehdr->e_shoff) + i;
			switch (kind) {
			case 0: shdr->sh_size = ~0ULL / 2; break;
			case 1: shdr->sh_size = size; break;
			case 2: shdr->sh_offset = size - 1; break;
			case 3: shdr->sh_offset = ~0ULL - 16; break;
			case 4: shdr->sh_link = 0xffff; break;
			case 5: shdr->sh_entsize = 0; shdr->sh_name = 0xfffffff; break;
			}
			pathf(what, sizeof(what), "section %u damage %u", i, kind);
			if (!UT_CHECK(write_file(path, copy, size), "write %s", path))
				goto out;
			lookup_damaged(path, true, what);
		}
	}
out:
	free(copy);
}

/* Random bytes changed in the headers: anything may resolve, nothing may crash. */
static void test_random_damage(void)
{
	size_t size = utest_fixture_so_end - utest_fixture_so;
	const Elf64_Ehdr *ehdr = (const void *)utest_fixture_so;
	char path[PATH_MAX], what[64];
	unsigned int seed = 42, round, n;
	unsigned char *copy;
	size_t pos;

	copy = malloc(size);
	if (!UT_CHECK(copy, "malloc"))
		return;
	pathf(path, sizeof(path), "%s/random-damage.so", tmp_dir);
	for (round = 0; round < 300; round++) {
		memcpy(copy, utest_fixture_so, size);
		for (n = 0; n < 1 + round % 8; n++) {
			seed = seed * 1103515245 + 12345;
			/* half in the ELF and program headers, half in the section headers */
			if (n % 2 || ehdr->e_shoff >= size)
				pos = (seed >> 8) % (size < 512 ? size : 512);
			else
				pos = ehdr->e_shoff + (seed >> 8) % (size - ehdr->e_shoff);
			copy[pos] ^= 1 << ((seed >> 4) % 8);
		}
		pathf(what, sizeof(what), "damage round %u", round);
		if (!UT_CHECK(write_file(path, copy, size), "write %s", path))
			break;
		lookup_damaged(path, false, what);
	}
	free(copy);
}

/* Stripped, no debug file anywhere: only the exported functions, from .dynsym. */
static void test_stripped_dynsym(void)
{
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);
	struct ustack_symbol s;

	if (!sym)
		return;
	CHECK_RESOLVED(sym, stripped_so, NULL, 0, &funcs[F_ALPHA], 2, stripped_so);
	CHECK_RESOLVED(sym, stripped_so, NULL, 0, &funcs[F_BETA], 0, stripped_so);
	if (lookup(sym, stripped_so, NULL, 0, funcs[F_GAMMA].offset, &s))
		UT_CHECK(!s.resolved || strcmp(s.name, "utest_gamma"),
			 "static function found without its debug file");
	ustack_symbolizer_free(sym);
}

/* Stripped, debug file at DEBUGDIR/.build-id/xx/yyyy.debug. */
static void test_debug_build_id(void)
{
	char root[PATH_MAX], path[PATH_MAX];
	struct ustack_symbolizer *sym;

	if (!UT_CHECK(test_dir("dbg-build-id", root, sizeof(root)), "mkdir") ||
	    !UT_CHECK(put_build_id_file(root, BLOB(utest_fixture_debug)), "write debug file"))
		return;
	build_id_path(root, path, sizeof(path));
	sym = new_symbolizer(root);
	if (!sym)
		return;
	CHECK_RESOLVED(sym, stripped_so, NULL, 0, &funcs[F_GAMMA], 3, path);
	CHECK_RESOLVED(sym, stripped_so, NULL, 0, &funcs[F_ALPHA], 0, path);
	/* the same with the build-id given, as the kernel would record it */
	CHECK_RESOLVED(sym, stripped_so, build_id, build_id_size, &funcs[F_GAMMA], 3, path);
	ustack_symbolizer_free(sym);
}

/* A file at the build-id path with another build-id is not the debug file. */
static void test_debug_build_id_wrong(void)
{
	struct ustack_symbolizer *sym;
	char root[PATH_MAX];

	if (!UT_CHECK(test_dir("dbg-wrong-id", root, sizeof(root)), "mkdir") ||
	    !UT_CHECK(put_build_id_file(root, BLOB(utest_fixture_other_so)), "write"))
		return;
	sym = new_symbolizer(root);
	if (!sym)
		return;
	CHECK_UNRESOLVED(sym, stripped_so, NULL, 0, funcs[F_GAMMA].offset);
	ustack_symbolizer_free(sym);
}

/*
 * Stripped copy as dir/lib.so with the debug file where .gnu_debuglink
 * points: sub is "" (same directory) or ".debug"; with root, under
 * root/<dir>/ instead. bad_crc changes one byte of the debug file.
 */
static void check_debuglink(const char *name, const char *sub, bool under_root, bool bad_crc)
{
	char dir[PATH_MAX], lib[PATH_MAX], dbg_dir[PATH_MAX], dbg[PATH_MAX], root[PATH_MAX];
	size_t size = utest_fixture_debug_end - utest_fixture_debug;
	struct ustack_symbolizer *sym;
	unsigned char *copy;

	if (!UT_CHECK(test_dir(name, dir, sizeof(dir)), "mkdir"))
		return;
	pathf(lib, sizeof(lib), "%s/lib.so", dir);
	pathf(root, sizeof(root), "%s/%s-root", tmp_dir, name);
	if (under_root)
		pathf(dbg_dir, sizeof(dbg_dir), "%s%s", root, dir);
	else
		pathf(dbg_dir, sizeof(dbg_dir), "%s%s%s", dir, *sub ? "/" : "", sub);
	pathf(dbg, sizeof(dbg), "%s/fixture.debug", dbg_dir);

	copy = calloc(1, size + 1);
	if (!UT_CHECK(copy, "malloc"))
		return;
	memcpy(copy, utest_fixture_debug, size);
	/* one more byte at the end: the same ELF file, another CRC */
	if (bad_crc)
		size++;
	if (UT_CHECK(make_dirs(root) && make_dirs(dbg_dir), "mkdir") &&
	    UT_CHECK(write_file(lib, BLOB(utest_fixture_stripped_so)), "write") &&
	    UT_CHECK(write_file(dbg, copy, size), "write")) {
		sym = new_symbolizer(root);
		if (sym && bad_crc) {
			CHECK_RESOLVED(sym, lib, NULL, 0, &funcs[F_ALPHA], 0, lib);
			CHECK_UNRESOLVED(sym, lib, NULL, 0, funcs[F_GAMMA].offset);
		} else if (sym) {
			CHECK_RESOLVED(sym, lib, NULL, 0, &funcs[F_GAMMA], 1, dbg);
			CHECK_RESOLVED(sym, lib, NULL, 0, &funcs[F_BETA], 0, dbg);
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

static void test_build_id_match(void)
{
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);

	if (!sym)
		return;
	CHECK_RESOLVED(sym, fixture_so, build_id, build_id_size, &funcs[F_ALPHA], 2, fixture_so);
	CHECK_RESOLVED(sym, fixture_so, build_id, build_id_size, &funcs[F_GAMMA], 0, fixture_so);
	ustack_symbolizer_free(sym);
}

/*
 * fixture-other.so has the functions at the same places; told the build-id
 * of fixture.so, the symbolizer must not believe it.
 */
static void test_build_id_mismatch(void)
{
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);
	struct ustack_symbol s;

	if (!sym)
		return;
	if (lookup(sym, other_so, NULL, 0, funcs[F_ALPHA].offset, &s))
		UT_CHECK(s.resolved && !strcmp(s.name, "utest_alpha"),
			 "fixture-other.so without a build-id should resolve utest_alpha");
	CHECK_UNRESOLVED(sym, other_so, build_id, build_id_size, funcs[F_ALPHA].offset);
	CHECK_UNRESOLVED(sym, other_so, build_id, build_id_size, funcs[F_GAMMA].offset);
	/* one byte off */
	build_id[build_id_size - 1] ^= 1;
	CHECK_UNRESOLVED(sym, fixture_so, build_id, build_id_size, funcs[F_ALPHA].offset);
	build_id[build_id_size - 1] ^= 1;
	ustack_symbolizer_free(sym);
}

/* Mismatch with an --only-keep-debug file: it lost the file layout. */
static void test_build_id_mismatch_keep_debug(void)
{
	struct ustack_symbolizer *sym;
	char root[PATH_MAX];

	if (!UT_CHECK(test_dir("dbg-keep-only", root, sizeof(root)), "mkdir") ||
	    !UT_CHECK(put_build_id_file(root, BLOB(utest_fixture_debug)), "write"))
		return;
	sym = new_symbolizer(root);
	if (!sym)
		return;
	CHECK_UNRESOLVED(sym, other_so, build_id, build_id_size, funcs[F_GAMMA].offset);
	ustack_symbolizer_free(sym);
}

/* Mismatch, or file gone, with an unstripped copy at the build-id path. */
static void test_build_id_mismatch_full_copy(void)
{
	char root[PATH_MAX], path[PATH_MAX], gone[PATH_MAX];
	struct ustack_symbolizer *sym;

	if (!UT_CHECK(test_dir("dbg-full", root, sizeof(root)), "mkdir") ||
	    !UT_CHECK(put_build_id_file(root, BLOB(utest_fixture_so)), "write"))
		return;
	build_id_path(root, path, sizeof(path));
	pathf(gone, sizeof(gone), "%s/gone.so", tmp_dir);
	sym = new_symbolizer(root);
	if (!sym)
		return;
	CHECK_RESOLVED(sym, other_so, build_id, build_id_size, &funcs[F_GAMMA], 3, path);
	CHECK_RESOLVED(sym, gone, build_id, build_id_size, &funcs[F_ALPHA], 2, path);
	CHECK_UNRESOLVED(sym, gone, NULL, 0, funcs[F_ALPHA].offset);
	ustack_symbolizer_free(sym);
}

/* A maps line of a file deleted while mapped says "path (deleted)". */
static void test_deleted_suffix(void)
{
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);
	char path[PATH_MAX];

	if (!sym)
		return;
	pathf(path, sizeof(path), "%s (deleted)", fixture_so);
	CHECK_RESOLVED(sym, path, NULL, 0, &funcs[F_ALPHA], 0, fixture_so);
	ustack_symbolizer_free(sym);
}

/* A file is read once: the second lookup answers from the cache, file gone or not. */
static void test_cache(void)
{
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);
	struct ustack_symbol a, b;
	char path[PATH_MAX];
	unsigned int i;

	if (!sym)
		return;
	pathf(path, sizeof(path), "%s/cached.so", tmp_dir);
	if (!UT_CHECK(write_file(path, BLOB(utest_fixture_so)), "write") ||
	    !lookup(sym, path, NULL, 0, funcs[F_GAMMA].offset + 1, &a) ||
	    !UT_CHECK(a.resolved, "first lookup unresolved"))
		goto out;
	unlink(path);

	if (lookup(sym, path, NULL, 0, funcs[F_GAMMA].offset + 1, &b)) {
		UT_CHECK(b.resolved, "cached lookup unresolved");
		UT_CHECK(a.name == b.name && a.file == b.file && a.path == b.path,
			 "cached lookup returned other strings");
		UT_CHECK(!memcmp(&a, &b, sizeof(a)), "cached lookup returned another result");
	}
	/* another build-id is another cache entry: that file is gone */
	CHECK_UNRESOLVED(sym, path, build_id, build_id_size, funcs[F_GAMMA].offset);

	/* many more files (the cache grows), then the first one is still cached */
	for (i = 0; i < 300; i++) {
		char other[PATH_MAX];

		pathf(other, sizeof(other), "%s/missing-%u.so", tmp_dir, i);
		CHECK_UNRESOLVED(sym, other, NULL, 0, 0x1000);
	}
	if (lookup(sym, path, NULL, 0, funcs[F_GAMMA].offset + 1, &b))
		UT_CHECK(b.resolved && b.name == a.name, "entry lost when the cache grew");
	CHECK_RESOLVED(sym, path, NULL, 0, &funcs[F_ALPHA], 0, path);
out:
	ustack_symbolizer_free(sym);
}

/* Changing the debug directory drops the cache, and lookups still work. */
static void test_debug_dir_flush(void)
{
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);
	char root[PATH_MAX], path[PATH_MAX];

	if (!sym)
		return;
	CHECK_UNRESOLVED(sym, stripped_so, NULL, 0, funcs[F_GAMMA].offset);
	if (UT_CHECK(test_dir("dbg-flush", root, sizeof(root)), "mkdir") &&
	    UT_CHECK(put_build_id_file(root, BLOB(utest_fixture_debug)), "write") &&
	    UT_CHECK(!ustack_symbolizer_set_debug_dir(sym, root), "set_debug_dir")) {
		build_id_path(root, path, sizeof(path));
		CHECK_RESOLVED(sym, stripped_so, NULL, 0, &funcs[F_GAMMA], 0, path);
	}
	ustack_symbolizer_free(sym);
}

static void test_format(void)
{
	struct ustack_symbolizer *sym = new_symbolizer(empty_dir);
	char buf[PATH_MAX + 64], want[PATH_MAX + 64];
	struct ustack_symbol s;
	int len;

	if (!sym)
		return;
	if (lookup(sym, fixture_so, NULL, 0, funcs[F_ALPHA].offset + 0x2, &s)) {
		pathf(want, sizeof(want), "utest_alpha+0x2 (%s)", fixture_so);
		len = ustack_symbol_format(&s, buf, sizeof(buf));
		UT_CHECK_STR(buf, want);
		UT_CHECK_ULL(len, strlen(want));
		/* cut like snprintf: the full length back, the rest dropped */
		len = ustack_symbol_format(&s, buf, 6);
		UT_CHECK_STR(buf, "utest");
		UT_CHECK_ULL(len, strlen(want));
		UT_CHECK_ULL(ustack_symbol_format(&s, NULL, 0), strlen(want));
	}
	if (lookup(sym, fixture_so, NULL, 0, 0x1234567, &s)) {
		pathf(want, sizeof(want), "[unknown] (%s+0x1234567)", fixture_so);
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
	if (!UT_CHECK(test_dir("dbg-example", root, sizeof(root)), "mkdir") ||
	    !UT_CHECK(put_build_id_file(root, BLOB(utest_fixture_debug)), "write"))
		return;
	pathf(cmd, sizeof(cmd), "'%s' -d '%s' -b %s '%s' %#llx 0x7fffffff 2>&1",
		 UTEST_EXAMPLE_PATH, root, build_id_hex, stripped_so,
		 funcs[F_GAMMA].offset + 1);
	out = popen(cmd, "r");
	if (!UT_CHECK(out, "popen: %s", strerror(errno)))
		return;
	while (fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		if (n == 0)
			pathf(want, sizeof(want), "utest_gamma+0x1 (%s)", stripped_so);
		else
			pathf(want, sizeof(want), "[unknown] (%s+0x7fffffff)", stripped_so);
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
		"ustack_symbolizer_lookup", "ustack_symbol_format",
	};
	static const char * const hidden[] = {
		"ustack_elf_open", "ustack_symtab_load", "ustack_symtab_find",
		"ustack_debug_file_open",
	};
	void *lib = dlopen(UTEST_SO_PATH, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!UT_CHECK(lib, "dlopen %s: %s", UTEST_SO_PATH, dlerror()))
		return;
	for (i = 0; i < sizeof(api) / sizeof(api[0]); i++)
		UT_CHECK(dlsym(lib, api[i]), "%s not exported", api[i]);
	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		UT_CHECK(!dlsym(lib, hidden[i]), "%s exported", hidden[i]);
	dlclose(lib);
}

void utest_symbolize_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, setup, cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "alloc_free", test_alloc_free);
	CU_add_test(suite, "bad_args", test_bad_args);
	CU_add_test(suite, "debug_dir", test_debug_dir);
	CU_add_test(suite, "symtab", test_symtab);
	CU_add_test(suite, "no_size", test_no_size);
	CU_add_test(suite, "outside_segments", test_outside_segments);
	CU_add_test(suite, "missing_file", test_missing_file);
	CU_add_test(suite, "not_elf", test_not_elf);
	CU_add_test(suite, "truncated", test_truncated);
	CU_add_test(suite, "bad_sections", test_bad_sections);
	CU_add_test(suite, "random_damage", test_random_damage);
	CU_add_test(suite, "stripped_dynsym", test_stripped_dynsym);
	CU_add_test(suite, "debug_build_id", test_debug_build_id);
	CU_add_test(suite, "debug_build_id_wrong", test_debug_build_id_wrong);
	CU_add_test(suite, "debuglink_same_dir", test_debuglink_same_dir);
	CU_add_test(suite, "debuglink_subdir", test_debuglink_subdir);
	CU_add_test(suite, "debuglink_debug_dir", test_debuglink_debug_dir);
	CU_add_test(suite, "debuglink_bad_crc", test_debuglink_bad_crc);
	CU_add_test(suite, "build_id_match", test_build_id_match);
	CU_add_test(suite, "build_id_mismatch", test_build_id_mismatch);
	CU_add_test(suite, "build_id_mismatch_keep_debug", test_build_id_mismatch_keep_debug);
	CU_add_test(suite, "build_id_mismatch_full_copy", test_build_id_mismatch_full_copy);
	CU_add_test(suite, "deleted_suffix", test_deleted_suffix);
	CU_add_test(suite, "cache", test_cache);
	CU_add_test(suite, "debug_dir_flush", test_debug_dir_flush);
	CU_add_test(suite, "format", test_format);
	CU_add_test(suite, "example", test_example);
	CU_add_test(suite, "exports", test_exports);
}
