// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer tests on files that are not ELF, truncated, or damaged: every
 * lookup must succeed, unresolved or (where damage only removes data) with
 * the right name. The fixtures are described in fixture-env.h.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture-env.h"

#define SUITE	"damaged-elf"

/* Files that are not ELF, or not regular files. */
static void test_not_elf(void)
{
	static const unsigned char elf_magic_only[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
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

	utest_pathf(path, sizeof(path), "%s/empty", fx.tmp_dir);
	if (UT_CHECK(utest_write_file(path, "", 0), "write %s", path))
		CHECK_UNRESOLVED(sym, path, NULL, 0, 0);
	utest_pathf(path, sizeof(path), "%s/text", fx.tmp_dir);
	if (UT_CHECK(utest_write_file(path, "#!/bin/sh\necho hello\n", 21), "write %s", path))
		CHECK_UNRESOLVED(sym, path, NULL, 0, 4);
	utest_pathf(path, sizeof(path), "%s/noise", fx.tmp_dir);
	if (UT_CHECK(utest_write_file(path, noise, sizeof(noise)), "write %s", path))
		CHECK_UNRESOLVED(sym, path, NULL, 0, 0x100);
	utest_pathf(path, sizeof(path), "%s/magic-only", fx.tmp_dir);
	if (UT_CHECK(utest_write_file(path, elf_magic_only, sizeof(elf_magic_only)), "write %s", path))
		CHECK_UNRESOLVED(sym, path, NULL, 0, 0x10);
	CHECK_UNRESOLVED(sym, fx.tmp_dir, NULL, 0, 0);
	CHECK_UNRESOLVED(sym, "/dev/null", NULL, 0, 0);
	/* reading a FIFO without a writer would block */
	utest_pathf(path, sizeof(path), "%s/fifo", fx.tmp_dir);
	if (UT_CHECK(!mkfifo(path, 0600), "mkfifo %s: %s", path, strerror(errno)))
		CHECK_UNRESOLVED(sym, path, NULL, 0, 0);
	ustack_symbolizer_free(sym);
}

/*
 * Look up every fixture function in a damaged copy. Never a crash or an
 * error; with names_must_match, a resolved frame must also be right (damage
 * that only removes data can lose names, never invent them).
 */
static void lookup_damaged(const char *path, bool names_must_match, const char *what)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	struct ustack_symbol s;
	size_t i;

	if (!sym)
		return;
	for (i = 0; i < F_NR; i++) {
		if (!fx.funcs[i].found)
			continue;
		if (!UT_CHECK(!ustack_symbolizer_lookup(sym, path, NULL, 0, fx.funcs[i].offset, 0,
							&s),
			      "%s: lookup failed: %s", what, strerror(errno)))
			break;
		if (!s.resolved)
			continue;
		UT_CHECK(s.name && s.file, "%s: resolved without a name or file", what);
		if (names_must_match && s.name)
			UT_CHECK(!strcmp(s.name, fx.funcs[i].name), "%s: %s resolved to %s", what,
				 fx.funcs[i].name, s.name);
	}
	ustack_symbolizer_free(sym);
}

static void test_truncated(void)
{
	size_t size = utest_blob_so.size, len;
	char path[PATH_MAX], what[64];

	utest_pathf(path, sizeof(path), "%s/truncated.so", fx.tmp_dir);
	for (len = 0; len < size; len += len < 128 ? 1 : 61) {
		utest_pathf(what, sizeof(what), "truncated at %zu", len);
		if (!UT_CHECK(utest_write_file(path, utest_blob_so.data, len), "write %s", path))
			return;
		lookup_damaged(path, true, what);
	}
}

/* Bogus offsets, sizes and links in each section header in turn. */
static void test_bad_sections(void)
{
	const Elf64_Ehdr *ehdr = (const void *)utest_blob_so.data;
	size_t size = utest_blob_so.size;
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
	utest_pathf(path, sizeof(path), "%s/bad-section.so", fx.tmp_dir);

	for (i = 1; i < ehdr->e_shnum; i++) {
		for (kind = 0; kind < 6; kind++) {
			memcpy(copy, utest_blob_so.data, size);
			shdr = (Elf64_Shdr *)(copy + ehdr->e_shoff) + i;
			switch (kind) {
			case 0:
				shdr->sh_size = ~0ULL / 2;
				break;
			case 1:
				shdr->sh_size = size;
				break;
			case 2:
				shdr->sh_offset = size - 1;
				break;
			case 3:
				shdr->sh_offset = ~0ULL - 16;
				break;
			case 4:
				shdr->sh_link = 0xffff;
				break;
			default:
				shdr->sh_entsize = 0;
				shdr->sh_name = 0xfffffff;
				break;
			}
			utest_pathf(what, sizeof(what), "section %u damage %u", i, kind);
			if (!UT_CHECK(utest_write_file(path, copy, size), "write %s", path))
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
	const Elf64_Ehdr *ehdr = (const void *)utest_blob_so.data;
	unsigned int seed = 42, round, n;
	size_t size = utest_blob_so.size;
	char path[PATH_MAX], what[64];
	unsigned char *copy;
	size_t pos;

	copy = malloc(size);
	if (!UT_CHECK(copy, "malloc"))
		return;
	utest_pathf(path, sizeof(path), "%s/random-damage.so", fx.tmp_dir);
	for (round = 0; round < 300; round++) {
		memcpy(copy, utest_blob_so.data, size);
		for (n = 0; n < 1 + round % 8; n++) {
			seed = seed * 1103515245 + 12345;
			/* half in the ELF and program headers, half in the section headers */
			if (n % 2 || ehdr->e_shoff >= size)
				pos = (seed >> 8) % (size < 512 ? size : 512);
			else
				pos = ehdr->e_shoff + (seed >> 8) % (size - ehdr->e_shoff);
			copy[pos] ^= 1 << ((seed >> 4) % 8);
		}
		utest_pathf(what, sizeof(what), "damage round %u", round);
		if (!UT_CHECK(utest_write_file(path, copy, size), "write %s", path))
			break;
		lookup_damaged(path, false, what);
	}
	free(copy);
}

void utest_damage_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "not_elf", test_not_elf);
	CU_add_test(suite, "truncated", test_truncated);
	CU_add_test(suite, "bad_sections", test_bad_sections);
	CU_add_test(suite, "random_damage", test_random_damage);
}
