// SPDX-License-Identifier: LGPL-2.1
/*
 * usf_mutate(): the same seed makes the same bytes, every class is made and
 * mostly refused, and a short run of mutations over the fixture sections in
 * every version never crashes decode, lookup or encode (make mutate-long
 * runs 100,000 under ASan and UBSan).
 */
#include <stdlib.h>

#include "utest.h"
#include "mutate-loop.h"

#define UT_SHORT_RUN	2000

static void test_mutate_deterministic(void)
{
	struct usf_section sec;
	uint8_t *a, *b, *in;
	unsigned int ca, cb;
	ssize_t na, nb;
	size_t size;
	uint64_t s;

	ut_build_section(&sec, USF_ABI_AMD64_LE, true);
	in = ut_encode(&sec, 3, USF_F_PCREL, 0x1000, &size);
	usf_section_release(&sec);
	if (!in)
		return;
	a = malloc(size);
	b = malloc(size);
	for (s = 0; s < 200; s++) {
		ca = cb = USF_MUT_NR;
		na = usf_mutate(in, size, s, a, size, &ca);
		nb = usf_mutate(in, size, s, b, size, &cb);
		if (!UT_CHECK(na == nb && ca == cb && !memcmp(a, b, na), "seed %llu differs",
			      (unsigned long long)s))
			break;
	}
	UT_CHECK(usf_mutate(in, size, 1, a, size - 1, NULL) < 0, "no room: accepted");
	free(a);
	free(b);
	free(in);
}

static void test_mutate_classes(void)
{
	struct ut_mutate_stats st = { 0 };
	struct usf_section sec;
	unsigned int c, v;
	size_t size;
	uint8_t *in;

	for (v = 1; v <= 3; v++) {
		ut_build_section(&sec, USF_ABI_AMD64_LE, v == 3);
		in = ut_encode(&sec, v, v > 1 ? USF_F_PCREL : 0, 0x1000, &size);
		usf_section_release(&sec);
		if (!in)
			return;
		for (c = 0; c < USF_MUT_NR; c++) {
			uint8_t *out = malloc(size);
			unsigned int made;
			uint64_t s;

			for (s = 0; s < 50; s++) {
				ssize_t n;

				made = c;
				n = usf_mutate(in, size, s * 7919 + c, out, size, &made);
				st.made[made]++;
				if (usf_section_decode(out, n, 0x1000, &sec))
					st.rejected[made]++;
				else
					usf_section_release(&sec);
			}
			free(out);
		}
		free(in);
	}
	for (c = 0; c < USF_MUT_NR; c++)
		UT_CHECK(st.made[c] && st.rejected[c] * 2 >= st.made[c],
			 "class %s: %lu made, %lu refused", usf_mutate_name(c), st.made[c],
			 st.rejected[c]);
}

static void test_mutate_short_run(void)
{
	static const char * const names[] = { "fixture-prog", "fixture-lib.so" };
	struct ut_mutate_stats st = { 0 };
	struct usf_section sec;
	unsigned int i, v;
	uint64_t vaddr;
	size_t size, n;
	void *buf, *enc;

	for (i = 0; i < 2; i++) {
		if (!ut_fixture(names[i], &buf, &size, &vaddr))
			return;
		if (!UT_CHECK(!usf_section_decode(buf, size, vaddr, &sec), "%s", usf_last_error()))
			return;
		for (v = 1; v <= 3; v++) {
			sec.big_endian = v == 2;
			enc = ut_encode(&sec, v, v > 1 ? USF_F_PCREL : 0, vaddr, &n);
			if (enc)
				UT_CHECK(!ut_mutate_loop(enc, n, vaddr, v * 1000003ULL, UT_SHORT_RUN,
							 &st), "%s V%u: %s", names[i], v,
					 usf_last_error());
			free(enc);
		}
		usf_section_release(&sec);
		free(buf);
	}
	UT_CHECK(st.looked_up > 0, "no mutated section was ever accepted");
}

void usf_utest_mutate_register(void)
{
	CU_pSuite s = CU_add_suite("mutate", NULL, NULL);

	CU_add_test(s, "deterministic", test_mutate_deterministic);
	CU_add_test(s, "every-class-refused", test_mutate_classes);
	CU_add_test(s, "short-run", test_mutate_short_run);
}
