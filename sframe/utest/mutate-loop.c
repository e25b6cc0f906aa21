// SPDX-License-Identifier: LGPL-2.1
/*
 * Mutate a section @n times; decode each copy (from a buffer of its exact
 * size, so that ASan sees a read past its end); when it decodes, look up
 * pcs in and around every function and encode it again in each version.
 * Whatever the input, nothing may crash, and what decodes must pass the
 * checks the encoder makes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutate-loop.h"

static int ut_accepted(const struct usf_section *sec, struct ut_mutate_stats *st)
{
	struct usf_frame fr;
	unsigned int v;
	uint32_t i;

	for (i = 0; i < sec->nr_funcs; i++) {
		const struct usf_func *f = &sec->funcs[i];
		uint64_t pcs[4] = { f->start - 1, f->start, f->start + f->size / 2,
				    f->start + f->size };
		unsigned int k;

		for (k = 0; k < 4; k++, st->looked_up++)
			usf_section_lookup(sec, pcs[k], &fr);
	}
	for (v = 1; v <= 3; v++) {
		ssize_t n = usf_section_encode(sec, v, v > 1 ? USF_F_PCREL : 0, sec->vaddr,
					       NULL, 0);

		/* V1/V2 may refuse FLEX functions and far starts, V3 nothing but
		 * functions of over 65535 rows: never a section it finds bad */
		if (n < 0 && v == 3 && errno != EOVERFLOW) {
			fprintf(stderr, "decoded, but V3 refuses it: %s\n", usf_last_error());
			return -1;
		}
	}
	return 0;
}

/**
 * ut_mutate_loop - mutate, decode, look up, encode
 * @buf: a valid section
 * @size: its size
 * @vaddr: its address
 * @seed: seed of the first mutation (then @seed + 1, ...)
 * @n: number of mutations
 * @st: counts, added to
 *
 * Return: 0, or -1 when a decoded section was one the encoder refused.
 */
int ut_mutate_loop(const void *buf, size_t size, uint64_t vaddr, uint64_t seed,
		   unsigned long n, struct ut_mutate_stats *st)
{
	unsigned char *tmp = malloc(size ? size : 1);
	struct usf_section sec;
	unsigned long i;
	int ret = 0;

	if (!tmp)
		return -1;
	for (i = 0; i < n && !ret; i++) {
		unsigned int c = USF_MUT_NR;
		ssize_t len = usf_mutate(buf, size, seed + i, tmp, size, &c);
		unsigned char *exact;

		if (len < 0)
			break;
		exact = malloc(len ? len : 1);
		if (!exact)
			break;
		memcpy(exact, tmp, len);
		st->made[c]++;
		if (usf_section_decode(exact, len, vaddr, &sec)) {
			st->rejected[c]++;
		} else {
			ret = ut_accepted(&sec, st);
			usf_section_release(&sec);
		}
		free(exact);
	}
	free(tmp);
	return ret;
}
