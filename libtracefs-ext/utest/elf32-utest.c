// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer tests on a 32-bit build of the fixture (traced 32-bit programs
 * map ELFCLASS32 files). It cannot be loaded here, so the expected offsets
 * come from readelf and nm at build time (fixture32.expect): the segments
 * ("seg offset vaddr filesz") and the functions ("sym vaddr name").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture-env.h"

#define SUITE		"elf32"
#define ELF32_SEGS	8

struct elf32_seg {
	unsigned long long	offset;
	unsigned long long	vaddr;
	unsigned long long	filesz;
};

struct elf32_expect {
	struct elf32_seg	segs[ELF32_SEGS];
	unsigned int		nr_segs;
	struct utest_func	funcs[3];
	unsigned int		nr_funcs;
};

/* The file offset of a link-time address, from the readelf segments. */
static bool elf32_offset(const struct elf32_expect *ex, unsigned long long vaddr,
			 unsigned long long *offset)
{
	unsigned int i;

	for (i = 0; i < ex->nr_segs; i++) {
		const struct elf32_seg *s = &ex->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*offset = vaddr - s->vaddr + s->offset;
			return true;
		}
	}
	return false;
}

/* Parse fixture32.expect; false when there is no 32-bit fixture. */
static bool elf32_expect(struct elf32_expect *ex, char *names[3])
{
	char *text, *line, *save = NULL, name[64];
	unsigned long long a, b, c;
	struct utest_func *f;

	memset(ex, 0, sizeof(*ex));
	if (!utest_blob32_expect.size || !utest_blob32_so.size)
		return false;
	text = strndup((const char *)utest_blob32_expect.data, utest_blob32_expect.size);
	if (!UT_CHECK(text, "strndup"))
		return false;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "seg %llx %llx %llx", &a, &b, &c) == 3 &&
		    ex->nr_segs < ELF32_SEGS) {
			ex->segs[ex->nr_segs++] = (struct elf32_seg){ a, b, c };
		} else if (sscanf(line, "sym %llx %63s", &a, name) == 2 && ex->nr_funcs < 3) {
			f = &ex->funcs[ex->nr_funcs];
			names[ex->nr_funcs] = strdup(name);
			f->name = names[ex->nr_funcs];
			f->vaddr = a;
			f->found = f->name && elf32_offset(ex, a, &f->offset);
			ex->nr_funcs++;
		}
	}
	free(text);
	UT_CHECK(ex->nr_funcs == 3, "fixture32.expect names %u functions, want 3", ex->nr_funcs);
	return true;
}

static void elf32_free_names(char *names[3])
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		free(names[i]);
}

static void test_symtab(void)
{
	struct ustack_symbolizer *sym;
	char *names[3] = { NULL };
	struct elf32_expect ex;
	char path[PATH_MAX];
	unsigned int i;

	if (!elf32_expect(&ex, names)) {
		utest_skip("no 32-bit toolchain when the tests were built");
		return;
	}
	utest_pathf(path, sizeof(path), "%s/fixture32.so", fx.tmp_dir);
	sym = utest_symbolizer(fx.empty_dir);
	if (sym && UT_CHECK(utest_write_blob(path, &utest_blob32_so), "write")) {
		for (i = 0; i < ex.nr_funcs; i++) {
			if (!UT_CHECK(ex.funcs[i].found, "%s: no file offset", ex.funcs[i].name))
				continue;
			CHECK_RESOLVED(sym, path, NULL, 0, &ex.funcs[i], 0, path);
			CHECK_RESOLVED(sym, path, NULL, 0, &ex.funcs[i], 1, path);
		}
	}
	ustack_symbolizer_free(sym);
	elf32_free_names(names);
}

/* The stripped 32-bit copy finds its debug file through .gnu_debuglink. */
static void test_debuglink(void)
{
	char dir[PATH_MAX], lib[PATH_MAX], dbg[PATH_MAX];
	struct ustack_symbolizer *sym = NULL;
	char *names[3] = { NULL };
	struct elf32_expect ex;
	unsigned int i;

	if (!elf32_expect(&ex, names)) {
		utest_skip("no 32-bit toolchain when the tests were built");
		return;
	}
	if (UT_CHECK(utest_dir("elf32-link", dir, sizeof(dir)), "mkdir")) {
		utest_pathf(lib, sizeof(lib), "%s/lib32.so", dir);
		utest_pathf(dbg, sizeof(dbg), "%s/fixture32.debug", dir);
		if (UT_CHECK(utest_write_blob(lib, &utest_blob32_stripped) &&
			     utest_write_blob(dbg, &utest_blob32_debug), "write"))
			sym = utest_symbolizer(fx.empty_dir);
	}
	for (i = 0; sym && i < ex.nr_funcs; i++) {
		if (ex.funcs[i].found)
			CHECK_RESOLVED(sym, lib, NULL, 0, &ex.funcs[i], 2, dbg);
	}
	ustack_symbolizer_free(sym);
	elf32_free_names(names);
}

void utest_elf32_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, utest_fixture_setup, utest_fixture_cleanup);

	if (!suite)
		return;
	CU_add_test(suite, "symtab", test_symtab);
	CU_add_test(suite, "debuglink", test_debuglink);
}
