// SPDX-License-Identifier: LGPL-2.1
/*
 * The validator: one test per class of corruption, each made by hand on a
 * good section (the hand-built one of build-utest.c, V2 or V3, little
 * endian), each refused with EINVAL and a message that says what is wrong.
 */
#include <errno.h>
#include <stdlib.h>

#include "utest.h"
#include "usf-local.h"

#define UT_FRES_V2	(USF_HEADER_SIZE + 5 * USF_FDE_V2_SIZE)	/* 5 functions */

struct ut_good {
	uint8_t		*b;
	size_t		size;
};

static bool ut_good(struct ut_good *g, unsigned int version)
{
	struct usf_section sec;

	if (!UT_CHECK(!ut_build_section(&sec, USF_ABI_AMD64_LE, version == 3), "%s",
		      usf_last_error()))
		return false;
	g->b = ut_encode(&sec, version, 0, 0x1000, &g->size);
	usf_section_release(&sec);
	/* room for bytes added at the end */
	if (g->b)
		g->b = realloc(g->b, g->size + 16);
	return g->b;
}

/* @g's bytes (first @size of them) must be refused, saying @why */
static void ut_refused(struct ut_good *g, size_t size, const char *why, const char *what)
{
	struct usf_section sec;
	uint8_t *exact = malloc(size ? size : 1);

	memcpy(exact, g->b, size);
	if (!usf_section_decode(exact, size, 0x1000, &sec)) {
		UT_CHECK(false, "%s: accepted", what);
		usf_section_release(&sec);
	} else {
		UT_CHECK(errno == EINVAL && (!why || strstr(usf_last_error(), why)),
			 "%s: errno %d, \"%s\" (want \"%s\")", what, errno, usf_last_error(),
			 why ? why : "");
	}
	free(exact);
}

static uint8_t *ut_fde(struct ut_good *g, unsigned int version, unsigned int i)
{
	return g->b + USF_HEADER_SIZE + i * usf_fde_size(version);
}

static void ut_set32(uint8_t *p, uint32_t v)
{
	usf_put32(p, v, false);
}

#define UT_CORRUPT(name, version, body)				\
static void test_##name(void)					\
{								\
	struct ut_good g;					\
								\
	if (!ut_good(&g, version))				\
		return;						\
	body							\
	free(g.b);						\
}

UT_CORRUPT(truncated, 2,
	ut_refused(&g, USF_HEADER_SIZE - 1, "shorter than", "in the header");
	ut_refused(&g, USF_HEADER_SIZE + 30, "FDEs at offset", "in the FDEs");
	ut_refused(&g, g.size - 1, "FRE sub-section", "in the FREs");)

UT_CORRUPT(bad_magic, 2,
	g.b[0] ^= 0x10;
	ut_refused(&g, g.size, "magic", "magic");)

UT_CORRUPT(bad_version, 2,
	g.b[USF_H_VERSION] = 0;
	ut_refused(&g, g.size, "version 0", "version 0");
	g.b[USF_H_VERSION] = 4;
	ut_refused(&g, g.size, "version 4", "version 4");)

UT_CORRUPT(bad_flags, 3,
	g.b[USF_H_FLAGS] |= USF_F_FRAME_POINTER;
	ut_refused(&g, g.size, "undefined in version 3", "FRAME_POINTER in V3");
	g.b[USF_H_FLAGS] = 0x81;
	ut_refused(&g, g.size, "undefined", "flag 0x80");)

UT_CORRUPT(bad_auxhdr, 2,
	g.b[USF_H_AUXHDR_LEN] = 0xff;
	ut_refused(&g, g.size, "auxiliary header", "auxhdr_len 255");)

UT_CORRUPT(absurd_counts, 2,
	uint32_t nfres = usf_get32(g.b + USF_H_NUM_FRES, false);

	ut_set32(g.b + USF_H_NUM_FDES, 0x10000000);
	ut_refused(&g, g.size, "run past", "num_fdes");
	ut_set32(g.b + USF_H_NUM_FDES, 5);
	ut_set32(g.b + USF_H_NUM_FRES, nfres - 1);
	ut_refused(&g, g.size, "the header says", "num_fres");
	ut_set32(g.b + USF_H_NUM_FRES, 0xffffffff);
	ut_refused(&g, g.size, NULL, "num_fres huge");
	ut_set32(g.b + USF_H_NUM_FRES, nfres);
	ut_set32(g.b + USF_H_FRE_LEN, usf_get32(g.b + USF_H_FRE_LEN, false) + 1);
	ut_refused(&g, g.size, "runs past", "fre_len");)

UT_CORRUPT(overlapping_subsections, 2,
	ut_set32(g.b + USF_H_FREOFF, USF_FDE_V2_SIZE);
	ut_refused(&g, g.size, "overlap", "FREs from FDE 1 on");)

UT_CORRUPT(unsorted, 2,
	uint8_t tmp[USF_FDE_V2_SIZE];

	memcpy(tmp, ut_fde(&g, 2, 0), sizeof(tmp));
	memcpy(ut_fde(&g, 2, 0), ut_fde(&g, 2, 1), sizeof(tmp));
	memcpy(ut_fde(&g, 2, 1), tmp, sizeof(tmp));
	ut_refused(&g, g.size, "not above", "FDEs 0 and 1 swapped");)

UT_CORRUPT(overlapping_functions, 2,
	ut_set32(ut_fde(&g, 2, 0) + 4, 0x100);
	ut_refused(&g, g.size, "overlaps", "function 0 over function 1");)

UT_CORRUPT(fre_offset_out_of_range, 2,
	ut_set32(ut_fde(&g, 2, 2) + 8, usf_get32(g.b + USF_H_FRE_LEN, false) + 5);
	ut_refused(&g, g.size, "past", "FRE offset past the end");)

UT_CORRUPT(shared_fres, 2,
	/* function 4 (2 rows, 1-byte starts) reads function 0's first two */
	ut_set32(ut_fde(&g, 2, 4) + 8, 0);
	ut_refused(&g, g.size, "share FRE bytes", "two FDEs, one block");)

UT_CORRUPT(cyclic_fres, 2,
	uint32_t a = usf_get32(ut_fde(&g, 2, 0) + 8, false);

	ut_set32(ut_fde(&g, 2, 0) + 8, usf_get32(ut_fde(&g, 2, 1) + 8, false));
	ut_set32(ut_fde(&g, 2, 1) + 8, a);
	ut_refused(&g, g.size, NULL, "FRE offsets of FDEs 0 and 1 swapped");)

UT_CORRUPT(unclaimed_fre_bytes, 2,
	ut_set32(g.b + USF_H_FRE_LEN, usf_get32(g.b + USF_H_FRE_LEN, false) + 4);
	memset(g.b + g.size, 0, 4);
	ut_refused(&g, g.size + 4, "belong to no function", "4 bytes more");)

/* Function 0's FREs: 0 sp+8 (3 bytes), 1 sp+16 (3), 4 fp+16 c-16 (4), 0x30 */
UT_CORRUPT(fre_start_order, 2,
	g.b[UT_FRES_V2 + 3] = 0;
	ut_refused(&g, g.size, "not above", "second FRE at 0");)

UT_CORRUPT(fre_start_outside, 2,
	g.b[UT_FRES_V2 + 10] = 0x50;
	ut_refused(&g, g.size, "outside the function", "FRE at 0x50 of 0x40");)

UT_CORRUPT(fre_item_count, 2,
	g.b[UT_FRES_V2 + 1] = USF_FRE_INFO(1, 7, 0, 0);
	ut_refused(&g, g.size, "data items", "7 items");
	g.b[UT_FRES_V2 + 1] = USF_FRE_INFO(1, 3, 0, 0);
	ut_refused(&g, g.size, "at most 2", "3 items on AMD64");)

UT_CORRUPT(fre_item_size, 2,
	g.b[UT_FRES_V2 + 1] |= 0x60;
	ut_refused(&g, g.size, "size code 3", "item size 8");)

UT_CORRUPT(fre_type, 2,
	ut_fde(&g, 2, 0)[16] |= 3;
	ut_refused(&g, g.size, "FRE type", "FRE type 3");)

UT_CORRUPT(pcmask_rep_size, 2,
	ut_fde(&g, 2, 3)[17] = 0;
	ut_refused(&g, g.size, "repeat size of 0", "PCMASK, rep_size 0");)

UT_CORRUPT(v3_attributes, 3,
	ut_set32(ut_fde(&g, 3, 5) + 12, usf_get32(g.b + USF_H_FRE_LEN, false) - 2);
	ut_refused(&g, g.size, "attributes", "attributes at the end");)

UT_CORRUPT(v3_fde_type, 3,
	uint32_t at = usf_get32(ut_fde(&g, 3, 0) + 12, false);
	uint8_t *fres = g.b + USF_HEADER_SIZE + 6 * USF_FDE_V3_SIZE;

	fres[at + 3] = 5;
	ut_refused(&g, g.size, "unknown FDE type", "FDE type 5");)

UT_CORRUPT(v3_flex_rule, 3,
	uint32_t at = usf_get32(ut_fde(&g, 3, 5) + 12, false);
	uint8_t *fres = g.b + USF_HEADER_SIZE + 6 * USF_FDE_V3_SIZE;

	/* FLEX row 0: start, info, CFA control word: drop its register bit */
	fres[at + USF_ATTR_V3_SIZE + 2] &= ~1;
	ut_refused(&g, g.size, "names no register", "CFA control word, no register");)

void usf_utest_corrupt_register(void)
{
	CU_pSuite s = CU_add_suite("corrupt", NULL, NULL);

	CU_add_test(s, "truncated", test_truncated);
	CU_add_test(s, "bad-magic", test_bad_magic);
	CU_add_test(s, "bad-version", test_bad_version);
	CU_add_test(s, "bad-flags", test_bad_flags);
	CU_add_test(s, "bad-auxhdr", test_bad_auxhdr);
	CU_add_test(s, "absurd-counts", test_absurd_counts);
	CU_add_test(s, "overlapping-subsections", test_overlapping_subsections);
	CU_add_test(s, "unsorted", test_unsorted);
	CU_add_test(s, "overlapping-functions", test_overlapping_functions);
	CU_add_test(s, "fre-offset-out-of-range", test_fre_offset_out_of_range);
	CU_add_test(s, "shared-fres", test_shared_fres);
	CU_add_test(s, "cyclic-fres", test_cyclic_fres);
	CU_add_test(s, "unclaimed-fre-bytes", test_unclaimed_fre_bytes);
	CU_add_test(s, "fre-start-order", test_fre_start_order);
	CU_add_test(s, "fre-start-outside", test_fre_start_outside);
	CU_add_test(s, "fre-item-count", test_fre_item_count);
	CU_add_test(s, "fre-item-size", test_fre_item_size);
	CU_add_test(s, "fre-type", test_fre_type);
	CU_add_test(s, "pcmask-rep-size", test_pcmask_rep_size);
	CU_add_test(s, "v3-attributes", test_v3_attributes);
	CU_add_test(s, "v3-fde-type", test_v3_fde_type);
	CU_add_test(s, "v3-flex-rule", test_v3_flex_rule);
}
