// SPDX-License-Identifier: LGPL-2.1
/*
 * The gas-made .sframe of the fixtures, read through the ELF finder: what
 * the code shapes of the fixtures must show in the rows (a CFA based on the
 * frame pointer for alloca and the aligned stack, PLT stubs as PCMASK), and
 * the rules at the entry of every function.
 */
#include <errno.h>
#include <stdlib.h>

#include "utest.h"
#include "usf-local.h"

static bool ut_load(const char *name, struct usf_section *sec)
{
	uint64_t vaddr;
	size_t size;
	void *buf;
	int ret;

	if (!ut_fixture(name, &buf, &size, &vaddr))
		return false;
	ret = usf_section_decode(buf, size, vaddr, sec);
	free(buf);
	return UT_CHECK(!ret, "%s: %s", name, usf_last_error());
}

static void ut_shapes(const char *name, unsigned int want_fp_based, bool want_plt)
{
	unsigned int fp_based = 0, masks = 0;
	struct usf_section sec;
	struct usf_frame fr;
	uint32_t i, j;

	if (!ut_load(name, &sec))
		return;
	UT_CHECK(sec.abi == USF_ABI_AMD64_LE && sec.cfa_fixed_ra_offset == -8 &&
		 !sec.cfa_fixed_fp_offset && (sec.flags & USF_F_FDE_SORTED), "%s: header", name);
	for (i = 0; i < sec.nr_funcs; i++) {
		const struct usf_func *f = &sec.funcs[i];

		masks += f->pc_type == USF_PC_MASK;
		for (j = 0; j < f->nr_rows; j++)
			fp_based += f->rows[j].cfa_base == USF_BASE_FP;
		/* PLT stubs, and PLT0 before them, push before they jump */
		if (f->pc_type == USF_PC_MASK || (i + 1 < sec.nr_funcs &&
		    sec.funcs[i + 1].pc_type == USF_PC_MASK))
			continue;
		/* at the entry: the return address was just pushed */
		if (UT_CHECK(!usf_section_lookup(&sec, f->start, &fr), "%s: %s", name,
			     usf_last_error()))
			UT_CHECK(fr.cfa.kind == USF_RULE_REG && fr.cfa.reg == 7 &&
				 fr.cfa.offset == 8 && fr.ra.kind == USF_RULE_CFA &&
				 fr.ra.offset == -8 && fr.fp.kind == USF_RULE_SAME,
				 "%s: function %u entry: cfa r%u%+d", name, i, fr.cfa.reg,
				 fr.cfa.offset);
	}
	UT_CHECK(fp_based >= want_fp_based, "%s: %u rows with an FP-based CFA (alloca, aligned stack)",
		 name, fp_based);
	UT_CHECK(!want_plt || masks >= 1, "%s: no PCMASK function (.plt)", name);
	usf_section_release(&sec);
}

static void test_fixture_lib(void)
{
	ut_shapes("fixture-lib.so", 2, false);
}

static void test_fixture_prog(void)
{
	ut_shapes("fixture-prog", 1, true);
}

static void test_fixture_missing(void)
{
	uint64_t vaddr;
	size_t size;
	void *buf;

	UT_CHECK(usf_elf_find_sframe("/nonexistent/file", &buf, &size, &vaddr) && errno == ENOENT,
		 "missing file: %s", usf_last_error());
	UT_CHECK(usf_elf_find_sframe("/proc/self/status", &buf, &size, &vaddr) &&
		 errno == EINVAL, "not ELF: %s", usf_last_error());
}

void usf_utest_fixture_register(void)
{
	CU_pSuite s = CU_add_suite("fixture", NULL, NULL);

	CU_add_test(s, "shared-library", test_fixture_lib);
	CU_add_test(s, "pie-program", test_fixture_prog);
	CU_add_test(s, "no-sframe", test_fixture_missing);
}
