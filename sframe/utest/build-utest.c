// SPDX-License-Identifier: LGPL-2.1
/*
 * Helpers of the tests (a hand-built section with every kind of function
 * and row, comparisons of sections and of lookups), and the tests of
 * building sections by hand: each ABI, each version, both byte orders.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "utest.h"
#include "usf-local.h"

#define UT_BASE	0x401000ULL

static struct usf_row *ut_row(struct usf_func *f, uint32_t start, uint8_t base, int32_t cfa)
{
	struct usf_row *r = usf_func_add_row(f, start);

	if (r) {
		r->cfa_base = base;
		r->cfa_offset = cfa;
	}
	return r;
}

static void ut_saved(const struct usf_section *sec, struct usf_row *r, bool ra, bool fp)
{
	if (ra && usf_ra_tracked(sec)) {
		r->flags |= USF_ROW_RA;
		r->ra_offset = -8;
	}
	if (fp && usf_fp_tracked(sec)) {
		r->flags |= USF_ROW_FP;
		r->fp_offset = -16;
	}
}

static void ut_flex(struct usf_section *sec, uint64_t start)
{
	struct usf_func *f = usf_section_add_func(sec, start, 0x40);
	struct usf_row *r;

	f->kind = USF_FDE_FLEX;
	f->flags = USF_FUNC_SIGNAL;
	r = ut_row(f, 0, 0, 8);				/* CFA = sp + 8 */
	r->cfa_ctrl = USF_CTRL(usf_abi_sp(sec->abi), 0, 1);
	r = ut_row(f, 8, 0, -8);			/* CFA = *(fp - 8), FP saved */
	r->cfa_ctrl = USF_CTRL(usf_abi_fp(sec->abi), 1, 1);
	r->flags = USF_ROW_FP;
	r->fp_ctrl = USF_CTRL(0, 1, 0);
	r->fp_offset = -16;
	r = ut_row(f, 0x10, 0, 0);			/* CFA = r10, RA and FP saved */
	r->cfa_ctrl = USF_CTRL(10, 0, 1);
	r->flags = USF_ROW_RA | USF_ROW_FP;
	r->ra_ctrl = USF_CTRL(0, 1, 0);
	r->ra_offset = -8;
	r->fp_ctrl = USF_CTRL(0, 1, 0);
	r->fp_offset = -24;
	r = ut_row(f, 0x18, 0, 300);			/* a 2-byte control word */
	r->cfa_ctrl = USF_CTRL(40, 0, 1);
	r->flags = USF_ROW_RA;
	r->ra_ctrl = USF_CTRL(30, 0, 1);		/* RA in a register */
	r->ra_offset = 0;
}

/*
 * Functions: small (1-byte starts, FP-based rows), 2-byte and 4-byte
 * starts and items, a PCMASK stub, an outermost row; with @v3 a FLEX
 * signal frame too.
 */
int ut_build_section(struct usf_section *sec, uint8_t abi, bool v3)
{
	struct usf_func *f;
	struct usf_row *r;

	usf_section_init(sec, abi);
	f = usf_section_add_func(sec, UT_BASE, 0x40);
	ut_row(f, 0, USF_BASE_SP, 8);
	ut_row(f, 1, USF_BASE_SP, 16);
	ut_saved(sec, ut_row(f, 4, USF_BASE_FP, 16), true, true);
	ut_saved(sec, ut_row(f, 0x30, USF_BASE_SP, 8), false, true);
	f = usf_section_add_func(sec, UT_BASE + 0x40, 0x300);
	if (abi == USF_ABI_AARCH64_LE || abi == USF_ABI_AARCH64_BE)
		f->flags |= USF_FUNC_PAUTH_B;
	ut_row(f, 0, USF_BASE_SP, 8);
	r = ut_row(f, 0x120, USF_BASE_SP, 0x1000);
	ut_saved(sec, r, true, false);
	if (abi == USF_ABI_AARCH64_LE)
		r->flags |= USF_ROW_MANGLED_RA;
	ut_row(f, 0x200, USF_BASE_SP, 0x12345);
	f = usf_section_add_func(sec, UT_BASE + 0x1000, 0x20000);
	ut_row(f, 0, USF_BASE_SP, 8);
	ut_row(f, 0x10010, USF_BASE_SP, -0x40000);
	f = usf_section_add_func(sec, UT_BASE + 0x30000, 48);
	f->pc_type = USF_PC_MASK;
	f->rep_size = 16;
	ut_row(f, 0, USF_BASE_SP, 8);
	ut_row(f, 11, USF_BASE_SP, 16);
	f = usf_section_add_func(sec, UT_BASE + 0x30040, 0x10);
	r = ut_row(f, 0, USF_BASE_SP, 0);
	r->flags = USF_ROW_OUTERMOST;
	ut_row(f, 4, USF_BASE_SP, 8);
	if (v3)
		ut_flex(sec, UT_BASE + 0x30100);
	return usf_section_check(sec);
}

bool ut_fixture(const char *name, void **buf, size_t *size, uint64_t *vaddr)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", USF_FIXTURE_DIR, name);
	return UT_CHECK(!usf_elf_find_sframe(path, buf, size, vaddr), "%s: %s", path,
			usf_last_error());
}

void *ut_encode(const struct usf_section *sec, unsigned int version, unsigned int flags,
		uint64_t vaddr, size_t *size)
{
	ssize_t n = usf_section_encode(sec, version, flags, vaddr, NULL, 0);
	void *buf;

	if (!UT_CHECK(n > 0, "encode V%u flags %#x: %s", version, flags, usf_last_error()))
		return NULL;
	buf = malloc(n);
	if (!UT_CHECK(buf && usf_section_encode(sec, version, flags, vaddr, buf, n) == n,
		      "encode V%u again: %s", version, usf_last_error())) {
		free(buf);
		return NULL;
	}
	*size = n;
	return buf;
}

static bool ut_same_row(const struct usf_row *a, const struct usf_row *b, uint32_t fi,
			uint32_t ri)
{
	return UT_CHECK(a->start == b->start && a->cfa_base == b->cfa_base &&
			a->flags == b->flags && a->cfa_offset == b->cfa_offset &&
			(!(a->flags & USF_ROW_RA) || a->ra_offset == b->ra_offset) &&
			(!(a->flags & USF_ROW_FP) || a->fp_offset == b->fp_offset) &&
			a->cfa_ctrl == b->cfa_ctrl && a->ra_ctrl == b->ra_ctrl &&
			a->fp_ctrl == b->fp_ctrl,
			"function %u row %u differs: start %#x/%#x base %u/%u flags %#x/%#x cfa "
			"%d/%d ra %d/%d fp %d/%d ctrl %#x/%#x", fi, ri, a->start, b->start,
			a->cfa_base, b->cfa_base, a->flags, b->flags, a->cfa_offset,
			b->cfa_offset, a->ra_offset, b->ra_offset, a->fp_offset, b->fp_offset,
			a->cfa_ctrl, b->cfa_ctrl);
}

bool ut_same_section(const struct usf_section *a, const struct usf_section *b, int64_t delta,
		     bool check_signal)
{
	uint8_t mask = check_signal ? 0xff : (uint8_t)~USF_FUNC_SIGNAL;
	uint32_t i, j;

	if (!UT_CHECK(a->nr_funcs == b->nr_funcs && a->abi == b->abi &&
		      a->cfa_fixed_ra_offset == b->cfa_fixed_ra_offset &&
		      a->cfa_fixed_fp_offset == b->cfa_fixed_fp_offset,
		      "%u/%u functions, abi %u/%u", a->nr_funcs, b->nr_funcs, a->abi, b->abi))
		return false;
	for (i = 0; i < a->nr_funcs; i++) {
		const struct usf_func *fa = &a->funcs[i], *fb = &b->funcs[i];

		if (!UT_CHECK(fa->start + delta == fb->start && fa->size == fb->size &&
			      fa->pc_type == fb->pc_type && fa->kind == fb->kind &&
			      (fa->flags & mask) == (fb->flags & mask) &&
			      fa->nr_rows == fb->nr_rows &&
			      (fa->pc_type != USF_PC_MASK || fa->rep_size == fb->rep_size),
			      "function %u: start %#llx/%#llx size %u/%u rows %u/%u flags %#x/%#x",
			      i, (unsigned long long)fa->start, (unsigned long long)fb->start,
			      fa->size, fb->size, fa->nr_rows, fb->nr_rows, fa->flags, fb->flags))
			return false;
		for (j = 0; j < fa->nr_rows; j++)
			if (!ut_same_row(&fa->rows[j], &fb->rows[j], i, j))
				return false;
	}
	return true;
}

static bool ut_same_rule(const struct usf_rule *a, const struct usf_rule *b)
{
	return a->kind == b->kind && a->deref == b->deref && a->reg == b->reg &&
	       a->offset == b->offset;
}

bool ut_same_lookups(const struct usf_section *a, const struct usf_section *b, int64_t delta)
{
	struct usf_frame fa, fb;
	uint32_t i;
	uint64_t pc;

	for (i = 0; i < a->nr_funcs; i++) {
		const struct usf_func *f = &a->funcs[i];

		for (pc = f->start; pc < f->start + f->size; pc++) {
			int ra = usf_section_lookup(a, pc, &fa);
			int rb = usf_section_lookup(b, pc + delta, &fb);

			if (!UT_CHECK(ra == rb, "pc %#llx: lookup %d, %d after", (unsigned long long)pc,
				      ra, rb))
				return false;
			if (ra)
				continue;
			if (!UT_CHECK(fa.func == fb.func && fa.row == fb.row &&
				      fa.func_start + delta == fb.func_start &&
				      fa.mangled_ra == fb.mangled_ra && ut_same_rule(&fa.cfa, &fb.cfa) &&
				      ut_same_rule(&fa.ra, &fb.ra) && ut_same_rule(&fa.fp, &fb.fp),
				      "pc %#llx: function %u row %u, then %u row %u",
				      (unsigned long long)pc, fa.func, fa.row, fb.func, fb.row))
				return false;
		}
	}
	return true;
}

/* Each ABI, each version, each byte order: encode, decode, same section. */
static void test_build_versions(void)
{
	static const uint8_t abis[] = {
		USF_ABI_AMD64_LE, USF_ABI_AARCH64_LE, USF_ABI_AARCH64_BE, USF_ABI_S390X_BE,
	};
	struct usf_section sec, back;
	unsigned int a, v, order;
	size_t size;
	void *buf;

	for (a = 0; a < sizeof(abis); a++) {
		for (v = 1; v <= 3; v++) {
			for (order = 0; order < 2; order++) {
				if (!UT_CHECK(!ut_build_section(&sec, abis[a], v == 3), "abi %u: %s",
					      abis[a], usf_last_error()))
					return;
				sec.big_endian = order;
				buf = ut_encode(&sec, v, v > 1 ? USF_F_PCREL : 0, 0x7000, &size);
				if (buf && UT_CHECK(!usf_section_decode(buf, size, 0x7000, &back),
						    "abi %u V%u order %u: %s", abis[a], v, order,
						    usf_last_error())) {
					UT_CHECK(back.big_endian == order && back.version == v,
						 "abi %u V%u: order %d", abis[a], v, back.big_endian);
					ut_same_section(&sec, &back, 0, v == 3);
					ut_same_lookups(&sec, &back, 0);
					usf_section_release(&back);
				}
				free(buf);
				usf_section_release(&sec);
			}
		}
	}
}

/* What V1 and V2 cannot hold is refused, with a reason. */
static void test_build_refused(void)
{
	struct usf_section sec;

	if (!UT_CHECK(!ut_build_section(&sec, USF_ABI_AMD64_LE, true), "%s", usf_last_error()))
		return;
	UT_CHECK(usf_section_encode(&sec, 2, 0, 0, NULL, 0) < 0 && errno == EINVAL &&
		 strstr(usf_last_error(), "FLEX"), "V2 with a FLEX function: %s",
		 usf_last_error());
	UT_CHECK(usf_section_encode(&sec, 1, USF_F_PCREL, 0, NULL, 0) < 0 && errno == EINVAL,
		 "V1 with PCREL");
	UT_CHECK(usf_section_encode(&sec, 4, 0, 0, NULL, 0) < 0 && errno == EINVAL, "V4");
	UT_CHECK(usf_section_encode(&sec, 3, USF_F_FRAME_POINTER, 0, NULL, 0) < 0,
		 "V3 with FRAME_POINTER");
	usf_section_release(&sec);
	ut_build_section(&sec, USF_ABI_AMD64_LE, false);
	/* 4 GiB away: beyond the 32-bit starts of V1 and V2, fine in V3 */
	UT_CHECK(usf_section_encode(&sec, 2, USF_F_PCREL, 0x500000000ULL, NULL, 0) < 0 &&
		 errno == EOVERFLOW, "V2 start 4 GiB away: %s", usf_last_error());
	UT_CHECK(usf_section_encode(&sec, 3, USF_F_PCREL, 0x500000000ULL, NULL, 0) > 0,
		 "V3 start 4 GiB away: %s", usf_last_error());
	usf_section_release(&sec);
}

/* Smallest FRE starts, or those the decoder saw with USF_ENC_KEEP_ADDR */
static void test_build_keep_addr(void)
{
	struct usf_section sec, back;
	size_t small, kept;
	void *a, *b;

	if (!UT_CHECK(!ut_build_section(&sec, USF_ABI_AMD64_LE, false), "%s", usf_last_error()))
		return;
	sec.funcs[0].addr_bytes = 2;	/* 4 rows, 0x40 bytes: 1-byte starts do */
	a = ut_encode(&sec, 2, 0, 0x1000, &small);
	b = ut_encode(&sec, 2, USF_ENC_KEEP_ADDR, 0x1000, &kept);
	UT_CHECK(a && b && kept == small + sec.funcs[0].nr_rows, "%zu bytes kept, %zu smallest",
		 kept, small);
	if (b && UT_CHECK(!usf_section_decode(b, kept, 0x1000, &back), "%s", usf_last_error())) {
		UT_CHECK(back.funcs[0].addr_bytes == 2 && back.funcs[1].addr_bytes == 2 &&
			 back.funcs[2].addr_bytes == 4, "decoded start sizes %u %u %u",
			 back.funcs[0].addr_bytes, back.funcs[1].addr_bytes,
			 back.funcs[2].addr_bytes);
		ut_same_section(&sec, &back, 0, false);
		usf_section_release(&back);
	}
	free(a);
	free(b);
	usf_section_release(&sec);
}

void usf_utest_build_register(void)
{
	CU_pSuite s = CU_add_suite("build", NULL, NULL);

	CU_add_test(s, "versions-abis-byte-orders", test_build_versions);
	CU_add_test(s, "refused", test_build_refused);
	CU_add_test(s, "keep-addr", test_build_keep_addr);
}
