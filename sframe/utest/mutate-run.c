// SPDX-License-Identifier: LGPL-2.1
/*
 * usf-mutate-run N FILE...: N mutations of the .sframe of each ELF FILE in
 * each version (V1, V2 big endian, V3), into decode, lookup and encode
 * (make mutate-long: under ASan and UBSan, a finding aborts). Prints what
 * each class did; exit status 1 when the loop found a problem.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mutate-loop.h"

int main(int argc, char **argv)
{
	struct ut_mutate_stats st = { 0 };
	unsigned long n, total = 0;
	struct usf_section sec;
	unsigned int v, c;
	uint64_t vaddr;
	size_t size;
	void *buf;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s N ELF-FILE...\n", argv[0]);
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	for (i = 2; i < argc; i++) {
		if (usf_elf_find_sframe(argv[i], &buf, &size, &vaddr) ||
		    usf_section_decode(buf, size, vaddr, &sec)) {
			fprintf(stderr, "%s: %s\n", argv[i], usf_last_error());
			return 1;
		}
		for (v = 1; v <= 3; v++) {
			ssize_t len;
			void *enc;

			sec.big_endian = v == 2;
			len = usf_section_encode(&sec, v, v > 1 ? USF_F_PCREL : 0, vaddr, NULL, 0);
			enc = malloc(len);
			usf_section_encode(&sec, v, v > 1 ? USF_F_PCREL : 0, vaddr, enc, len);
			if (ut_mutate_loop(enc, len, vaddr, (uint64_t)i << 40 | (uint64_t)v << 32,
					   n / ((argc - 2) * 3) + 1, &st)) {
				fprintf(stderr, "%s V%u: a decoded section failed a check\n",
					argv[i], v);
				return 1;
			}
			free(enc);
		}
		usf_section_release(&sec);
		free(buf);
	}
	for (c = 0; c < USF_MUT_NR; c++) {
		printf("  %-12s %7lu made, %7lu refused\n", usf_mutate_name(c), st.made[c],
		       st.rejected[c]);
		total += st.made[c];
	}
	printf("mutate: %lu mutations, %lu lookups, no crash\n", total, st.looked_up);
	return 0;
}
