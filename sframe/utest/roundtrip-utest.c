// SPDX-License-Identifier: LGPL-2.1
/*
 * Round trips over the .sframe that gas made (V1, binutils 2.40) for the
 * fixtures: V1 back to the same bytes; V1 -> V2 -> V3 -> V1 with every
 * lookup equal at each step; V2 with and without PCREL; both byte orders;
 * a section encoded for one address and decoded at another.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "utest.h"

static const char * const ut_fixtures[] = { "fixture-prog", "fixture-lib.so" };

struct ut_fix {
	void			*buf;
	size_t			size;
	uint64_t		vaddr;
	struct usf_section	sec;
};

static bool ut_fix_load(unsigned int i, struct ut_fix *fx)
{
	if (!ut_fixture(ut_fixtures[i], &fx->buf, &fx->size, &fx->vaddr))
		return false;
	if (!UT_CHECK(!usf_section_decode(fx->buf, fx->size, fx->vaddr, &fx->sec), "%s: %s",
		      ut_fixtures[i], usf_last_error())) {
		free(fx->buf);
		return false;
	}
	return UT_CHECK(fx->sec.version == 1 && fx->sec.nr_funcs > 3, "%s: V%u, %u functions",
			ut_fixtures[i], fx->sec.version, fx->sec.nr_funcs);
}

static void ut_fix_free(struct ut_fix *fx)
{
	usf_section_release(&fx->sec);
	free(fx->buf);
}

/* Encode @sec, decode it again at @vaddr into @out; false: failure recorded */
static bool ut_through(const struct usf_section *sec, unsigned int version, unsigned int flags,
		       uint64_t enc_vaddr, uint64_t dec_vaddr, struct usf_section *out,
		       void **bytes, size_t *size)
{
	void *buf = ut_encode(sec, version, flags, enc_vaddr, size);

	if (!buf)
		return false;
	if (!UT_CHECK(!usf_section_decode(buf, *size, dec_vaddr, out), "V%u flags %#x: %s",
		      version, flags, usf_last_error())) {
		free(buf);
		return false;
	}
	if (bytes)
		*bytes = buf;
	else
		free(buf);
	return true;
}

static void test_v1_identical(void)
{
	struct ut_fix fx;
	unsigned int i;
	size_t size;
	void *buf;

	for (i = 0; i < 2; i++) {
		if (!ut_fix_load(i, &fx))
			continue;
		buf = ut_encode(&fx.sec, 1, USF_ENC_KEEP_ADDR, fx.vaddr, &size);
		UT_CHECK(buf && size <= fx.size && !memcmp(buf, fx.buf, size),
			 "%s: V1 encoded again differs (%zu bytes, was %zu)", ut_fixtures[i], size,
			 fx.size);
		free(buf);
		ut_fix_free(&fx);
	}
}

static void test_v1_v2_v3_v1(void)
{
	struct usf_section v2, v3, v1;
	struct ut_fix fx;
	unsigned int i;
	size_t size;
	void *buf;

	for (i = 0; i < 2; i++) {
		if (!ut_fix_load(i, &fx))
			continue;
		if (ut_through(&fx.sec, 2, USF_ENC_KEEP_ADDR, fx.vaddr, fx.vaddr, &v2, NULL,
			       &size)) {
			ut_same_section(&fx.sec, &v2, 0, true);
			ut_same_lookups(&fx.sec, &v2, 0);
			if (ut_through(&v2, 3, USF_F_PCREL | USF_ENC_KEEP_ADDR, fx.vaddr, fx.vaddr,
				       &v3, NULL, &size)) {
				ut_same_lookups(&fx.sec, &v3, 0);
				if (ut_through(&v3, 1, USF_ENC_KEEP_ADDR, fx.vaddr, fx.vaddr, &v1,
					       &buf, &size)) {
					ut_same_lookups(&fx.sec, &v1, 0);
					UT_CHECK(size <= fx.size && !memcmp(buf, fx.buf, size),
						 "%s: V1 -> V2 -> V3 -> V1 bytes differ", ut_fixtures[i]);
					free(buf);
					usf_section_release(&v1);
				}
				usf_section_release(&v3);
			}
			usf_section_release(&v2);
		}
		ut_fix_free(&fx);
	}
}

static void test_v2_pcrel_or_not(void)
{
	struct usf_section out;
	struct ut_fix fx;
	unsigned int i, flags;
	size_t size;

	for (i = 0; i < 2; i++) {
		if (!ut_fix_load(i, &fx))
			continue;
		for (flags = 0; flags <= USF_F_PCREL; flags += USF_F_PCREL) {
			if (!ut_through(&fx.sec, 2, flags, fx.vaddr, fx.vaddr, &out, NULL, &size))
				continue;
			UT_CHECK(out.flags == (flags | USF_F_FDE_SORTED), "flags %#x", out.flags);
			ut_same_section(&fx.sec, &out, 0, true);
			ut_same_lookups(&fx.sec, &out, 0);
			usf_section_release(&out);
		}
		ut_fix_free(&fx);
	}
}

static void test_byte_orders(void)
{
	struct usf_section be, le;
	struct ut_fix fx;
	unsigned int i, v;
	size_t size;
	void *buf;

	for (i = 0; i < 2; i++) {
		if (!ut_fix_load(i, &fx))
			continue;
		for (v = 1; v <= 3; v++) {
			fx.sec.big_endian = true;
			if (!ut_through(&fx.sec, v, (v > 1 ? USF_F_PCREL : 0) | USF_ENC_KEEP_ADDR,
					fx.vaddr, fx.vaddr, &be, NULL, &size))
				continue;
			UT_CHECK(be.big_endian, "V%u: decoded as little endian", v);
			ut_same_section(&fx.sec, &be, 0, true);
			ut_same_lookups(&fx.sec, &be, 0);
			/* and back to little endian: the bytes gas wrote */
			be.big_endian = false;
			if (ut_through(&be, 1, USF_ENC_KEEP_ADDR, fx.vaddr, fx.vaddr, &le, &buf,
				       &size)) {
				UT_CHECK(!memcmp(buf, fx.buf, size), "V%u big endian -> V1: differs", v);
				free(buf);
				usf_section_release(&le);
			}
			usf_section_release(&be);
		}
		fx.sec.big_endian = false;
		ut_fix_free(&fx);
	}
}

/*
 * Encoded for address A, the section (and the text) loaded elsewhere: every
 * function moves with it, every rule stays the same relative to the text.
 */
static void test_relocated(void)
{
	static const int64_t deltas[] = { 0x10000, -0x1000, 0x7f0000000000LL };
	struct usf_section out;
	unsigned int i, d, v;
	struct ut_fix fx;
	size_t size;

	for (i = 0; i < 2; i++) {
		if (!ut_fix_load(i, &fx))
			continue;
		for (v = 1; v <= 3; v++) {
			for (d = 0; d < 3; d++) {
				unsigned int flags = v == 1 ? 0 : USF_F_PCREL;

				if (!ut_through(&fx.sec, v, flags, fx.vaddr, fx.vaddr + deltas[d], &out,
						NULL, &size))
					continue;
				ut_same_section(&fx.sec, &out, deltas[d], v == 3);
				ut_same_lookups(&fx.sec, &out, deltas[d]);
				usf_section_release(&out);
			}
		}
		ut_fix_free(&fx);
	}
}

/* A program re-encodes a table for a buffer of its own: same absolute starts. */
static void test_runtime_buffer(void)
{
	struct usf_section out;
	struct ut_fix fx;
	unsigned int v;
	ssize_t n;
	void *buf;

	if (!ut_fix_load(0, &fx))
		return;
	for (v = 2; v <= 3; v++) {
		n = usf_section_encode(&fx.sec, v, USF_F_PCREL, 0, NULL, 0);
		buf = n > 0 ? malloc(n) : NULL;
		if (!UT_CHECK(buf, "V%u: %s", v, usf_last_error()))
			continue;
		/* the starts of V2 are 32-bit: a heap far from the text may not fit */
		if (usf_section_encode(&fx.sec, v, USF_F_PCREL, (uintptr_t)buf, buf, n) != n) {
			UT_CHECK(v == 2 && errno == EOVERFLOW, "V%u at %p: %s", v, buf,
				 usf_last_error());
			free(buf);
			continue;
		}
		if (UT_CHECK(!usf_section_decode(buf, n, (uintptr_t)buf, &out), "%s",
			     usf_last_error())) {
			ut_same_section(&fx.sec, &out, 0, true);
			usf_section_release(&out);
		}
		free(buf);
	}
	ut_fix_free(&fx);
}

void usf_utest_roundtrip_register(void)
{
	CU_pSuite s = CU_add_suite("roundtrip", NULL, NULL);

	CU_add_test(s, "v1-identical", test_v1_identical);
	CU_add_test(s, "v1-v2-v3-v1", test_v1_v2_v3_v1);
	CU_add_test(s, "v2-pcrel-or-not", test_v2_pcrel_or_not);
	CU_add_test(s, "byte-orders", test_byte_orders);
	CU_add_test(s, "relocated", test_relocated);
	CU_add_test(s, "runtime-buffer", test_runtime_buffer);
}
