// SPDX-License-Identifier: LGPL-2.1
/*
 * The decoder against sections written byte by byte here, from the format's
 * layout, not by our encoder: V1, V2 with and without PCREL, V3 with a FLEX
 * function, each in both byte orders.
 */
#include <errno.h>
#include <stdlib.h>

#include "utest.h"
#include "usf-local.h"

struct ut_bytes {
	uint8_t		b[256];
	size_t		n;
	bool		be;
};

static void ut_put(struct ut_bytes *o, uint64_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		o->b[o->n + i] = v >> (8 * (o->be ? size - 1 - i : i));
	o->n += size;
}

static void ut_header(struct ut_bytes *o, unsigned int version, unsigned int flags,
		      uint32_t nfdes, uint32_t nfres, uint32_t fre_len, uint32_t freoff)
{
	ut_put(o, 0xdee2, 2);
	ut_put(o, version, 1);
	ut_put(o, flags, 1);
	ut_put(o, USF_ABI_AMD64_LE, 1);
	ut_put(o, 0, 1);		/* fixed FP offset: none */
	ut_put(o, (uint8_t)-8, 1);	/* fixed RA offset */
	ut_put(o, 0, 1);
	ut_put(o, nfdes, 4);
	ut_put(o, nfres, 4);
	ut_put(o, fre_len, 4);
	ut_put(o, 0, 4);
	ut_put(o, freoff, 4);
}

/* FREs of function 0 (addr1): 0 sp+8; 1 sp+16; 4 fp+16 fp c-16 (3 + 3 + 4 bytes) */
static void ut_fres0(struct ut_bytes *o)
{
	ut_put(o, 0, 1); ut_put(o, 0x03, 1); ut_put(o, 8, 1);
	ut_put(o, 1, 1); ut_put(o, 0x03, 1); ut_put(o, 16, 1);
	ut_put(o, 4, 1); ut_put(o, 0x04, 1); ut_put(o, 16, 1); ut_put(o, (uint8_t)-16, 1);
}

/* FREs of function 1 (addr2, 2-byte items): 0 sp+8; 0x180 sp+0x1234 (5 + 5 bytes) */
static void ut_fres1(struct ut_bytes *o)
{
	ut_put(o, 0, 2); ut_put(o, 0x23, 1); ut_put(o, 8, 2);
	ut_put(o, 0x180, 2); ut_put(o, 0x23, 1); ut_put(o, 0x1234, 2);
}

static void ut_check_common(const struct usf_section *s, uint64_t f0, uint64_t f1)
{
	const struct usf_func *f;

	if (!UT_CHECK(s->nr_funcs == 2, "%u functions", s->nr_funcs))
		return;
	f = &s->funcs[0];
	UT_CHECK(f->start == f0 && f->size == 0x20 && f->nr_rows == 3, "function 0: %#llx %u %u",
		 (unsigned long long)f->start, f->size, f->nr_rows);
	UT_CHECK(f->nr_rows == 3 && f->rows[2].start == 4 && f->rows[2].cfa_base == USF_BASE_FP &&
		 f->rows[2].cfa_offset == 16 && (f->rows[2].flags & USF_ROW_FP) &&
		 f->rows[2].fp_offset == -16, "function 0 row 2");
	f = &s->funcs[1];
	UT_CHECK(f->start == f1 && f->size == 0x200 && f->nr_rows == 2 &&
		 f->rows[1].start == 0x180 && f->rows[1].cfa_offset == 0x1234,
		 "function 1: %#llx %u rows %u", (unsigned long long)f->start, f->size,
		 f->nr_rows);
}

/* V1, V2: header, two FDEs, FREs; starts as given */
static void ut_v12(struct ut_bytes *o, unsigned int v, unsigned int flags, int32_t s0, int32_t s1)
{
	unsigned int fde = v == 1 ? 17 : 20;

	ut_header(o, v, flags, 2, 5, 20, 2 * fde);
	ut_put(o, (uint32_t)s0, 4); ut_put(o, 0x20, 4); ut_put(o, 0, 4); ut_put(o, 3, 4);
	ut_put(o, 0x00, 1);
	if (v == 2) {
		ut_put(o, 0, 1); ut_put(o, 0, 2);
	}
	ut_put(o, (uint32_t)s1, 4); ut_put(o, 0x200, 4); ut_put(o, 10, 4); ut_put(o, 2, 4);
	ut_put(o, 0x01, 1);
	if (v == 2) {
		ut_put(o, 0, 1); ut_put(o, 0, 2);
	}
	ut_fres0(o);
	ut_fres1(o);
}

static void test_decode_v1(void)
{
	struct usf_section s;
	int be;

	for (be = 0; be < 2; be++) {
		struct ut_bytes o = { .be = be };

		/* section at 0x3000: functions at 0x1000, 0x1100 (section-relative) */
		ut_v12(&o, 1, USF_F_FDE_SORTED, -0x2000, -0x1f00);
		if (!UT_CHECK(!usf_section_decode(o.b, o.n, 0x3000, &s), "be %d: %s", be,
			      usf_last_error()))
			continue;
		UT_CHECK(s.version == 1 && s.big_endian == be && s.size == o.n, "header");
		ut_check_common(&s, 0x1000, 0x1100);
		usf_section_release(&s);
	}
}

static void test_decode_v2(void)
{
	struct usf_section s;
	int be, pcrel;

	for (be = 0; be < 2; be++) {
		for (pcrel = 0; pcrel < 2; pcrel++) {
			struct ut_bytes o = { .be = be };

			/* PCREL: from the field (FDE 0 at 28, FDE 1 at 48) */
			if (pcrel)
				ut_v12(&o, 2, USF_F_FDE_SORTED | USF_F_PCREL, -0x2000 - 28,
				       -0x1f00 - 48);
			else
				ut_v12(&o, 2, USF_F_FDE_SORTED, -0x2000, -0x1f00);
			if (!UT_CHECK(!usf_section_decode(o.b, o.n, 0x3000, &s), "be %d pcrel %d: %s",
				      be, pcrel, usf_last_error()))
				continue;
			ut_check_common(&s, 0x1000, 0x1100);
			usf_section_release(&s);
		}
	}
}

static void test_decode_v3(void)
{
	const struct usf_row *r;
	struct usf_section s;
	int be;

	for (be = 0; be < 2; be++) {
		struct ut_bytes o = { .be = be };

		/* 2 FDEs of 16 bytes; FREs: attr 5 + 10, attr 5 + 1 + 1 + 5 */
		ut_header(&o, 3, USF_F_FDE_SORTED | USF_F_PCREL, 2, 4, 27, 32);
		ut_put(&o, (uint64_t)(-0x2000 - 28), 8); ut_put(&o, 0x20, 4); ut_put(&o, 0, 4);
		ut_put(&o, (uint64_t)(-0x1f00 - 44), 8); ut_put(&o, 0x40, 4); ut_put(&o, 15, 4);
		ut_put(&o, 3, 2); ut_put(&o, 0x80, 1); ut_put(&o, 0, 1); ut_put(&o, 0, 1);
		ut_fres0(&o);
		/* FLEX: row 0 CFA = *(r6 - 8), padding, FP c-16 */
		ut_put(&o, 1, 2); ut_put(&o, 0x00, 1); ut_put(&o, 1, 1); ut_put(&o, 0, 1);
		ut_put(&o, 0, 1); ut_put(&o, 5 << 1, 1);
		ut_put(&o, USF_CTRL(6, 1, 1), 1); ut_put(&o, (uint8_t)-8, 1); ut_put(&o, 0, 1);
		ut_put(&o, USF_CTRL(0, 1, 0), 1); ut_put(&o, (uint8_t)-16, 1);
		if (!UT_CHECK(!usf_section_decode(o.b, o.n, 0x3000, &s), "be %d: %s", be,
			      usf_last_error()))
			continue;
		UT_CHECK(s.nr_funcs == 2 && s.funcs[0].start == 0x1000 &&
			 (s.funcs[0].flags & USF_FUNC_SIGNAL) && s.funcs[1].start == 0x1100 &&
			 s.funcs[1].kind == USF_FDE_FLEX, "functions");
		r = s.nr_funcs == 2 ? s.funcs[1].rows : NULL;
		UT_CHECK(r && s.funcs[1].nr_rows == 1 && r->cfa_ctrl == USF_CTRL(6, 1, 1) &&
			 r->cfa_offset == -8 && r->flags == USF_ROW_FP && r->fp_offset == -16,
			 "FLEX row");
		usf_section_release(&s);
	}
}

/* Lookup: rows by pc, PCMASK modulo, gaps, outermost */
static void test_decode_lookup(void)
{
	struct usf_section sec;
	struct usf_frame fr;

	if (!UT_CHECK(!ut_build_section(&sec, USF_ABI_AMD64_LE, true), "%s", usf_last_error()))
		return;
	UT_CHECK(!usf_section_lookup(&sec, 0x401005, &fr) && fr.row == 2 &&
		 fr.cfa.kind == USF_RULE_REG && fr.cfa.reg == 6 && fr.cfa.offset == 16 &&
		 fr.fp.kind == USF_RULE_CFA && fr.fp.offset == -16 && fr.ra.offset == -8,
		 "0x401005");
	UT_CHECK(!usf_section_lookup(&sec, 0x401000 + 0x30000 + 16 + 12, &fr) && fr.row == 1,
		 "PCMASK second block, row 1");
	UT_CHECK(!usf_section_lookup(&sec, 0x401000 + 0x30000 + 32 + 3, &fr) && fr.row == 0,
		 "PCMASK third block, row 0");
	UT_CHECK(usf_section_lookup(&sec, 0x400fff, &fr) && errno == ENOENT, "below");
	UT_CHECK(usf_section_lookup(&sec, 0x401000 + 0x340, &fr) && errno == ENOENT, "gap");
	UT_CHECK(!usf_section_lookup(&sec, 0x401000 + 0x30040, &fr) &&
		 fr.ra.kind == USF_RULE_UNDEFINED, "outermost");
	UT_CHECK(!usf_section_lookup(&sec, 0x401000 + 0x30108, &fr) && fr.signal &&
		 fr.cfa.kind == USF_RULE_REG && fr.cfa.deref && fr.cfa.reg == 6, "FLEX *(fp-8)");
	usf_section_release(&sec);
}

void usf_utest_decode_register(void)
{
	CU_pSuite s = CU_add_suite("decode", NULL, NULL);

	CU_add_test(s, "v1-by-hand", test_decode_v1);
	CU_add_test(s, "v2-by-hand-pcrel-or-not", test_decode_v2);
	CU_add_test(s, "v3-by-hand-flex", test_decode_v3);
	CU_add_test(s, "lookup", test_decode_lookup);
}
