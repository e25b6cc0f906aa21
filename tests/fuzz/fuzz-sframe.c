// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: usf_section_decode() of libusf (sframe/) on any bytes,
 * then what a decoded section must survive: lookups in and around every
 * function, the dump, and encoding in V1, V2 and V3, each of which must
 * decode again (V3 always can: a decoded section is one the encoder takes).
 *
 * Input: one byte choosing the section address (0, a PIE-like address, the
 * top of the address space), the rest the section, in a buffer of its own
 * size so that ASan sees any read past it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usf.h"

static void fz_encode(const struct usf_section *sec, unsigned int v, unsigned int flags)
{
	struct usf_section back;
	ssize_t n = usf_section_encode(sec, v, flags, sec->vaddr, NULL, 0);
	void *buf;

	if (n < 0) {
		/* V1/V2 may not hold FLEX functions or far starts; V3 holds all
		 * but functions of over 65535 rows */
		if (v == 3 && errno != EOVERFLOW)
			abort();
		return;
	}
	buf = malloc(n);
	if (!buf || usf_section_encode(sec, v, flags, sec->vaddr, buf, n) != n)
		abort();
	if (usf_section_decode(buf, n, sec->vaddr, &back))
		abort();
	if (back.nr_funcs != sec->nr_funcs)
		abort();
	usf_section_release(&back);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t vaddrs[] = { 0, 0x555555554000ULL, 0xfffffffffffff000ULL };
	static FILE *null;
	struct usf_section sec;
	struct usf_frame fr;
	uint64_t vaddr;
	uint8_t *buf;
	uint32_t i;

	if (!size)
		return 0;
	if (!null)
		null = fopen("/dev/null", "w");
	vaddr = vaddrs[data[0] % 3];
	buf = malloc(size - 1 ? size - 1 : 1);
	memcpy(buf, data + 1, size - 1);
	if (usf_section_decode(buf, size - 1, vaddr, &sec)) {
		if (!usf_last_error()[0])
			abort();	/* every refusal says why */
		free(buf);
		return 0;
	}
	for (i = 0; i < sec.nr_funcs; i++) {
		const struct usf_func *f = &sec.funcs[i];

		usf_section_lookup(&sec, f->start - 1, &fr);
		usf_section_lookup(&sec, f->start + f->size / 2, &fr);
		if (f->nr_rows && f->rows[0].start == 0 && usf_section_lookup(&sec, f->start, &fr))
			abort();	/* a row at 0 covers the first pc */
	}
	if (null)
		usf_section_dump(&sec, null);
	fz_encode(&sec, 1, 0);
	fz_encode(&sec, 2, USF_F_PCREL);
	fz_encode(&sec, 3, USF_F_PCREL);
	usf_section_release(&sec);
	free(buf);
	return 0;
}
