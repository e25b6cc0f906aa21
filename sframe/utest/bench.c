// SPDX-License-Identifier: LGPL-2.1
/*
 * usf-bench ELF-FILE...: for the .sframe of each file, the section size in
 * V1, V2, V2 PCREL and V3, and the time to decode each (best of 5 rounds)
 * and to look up every function's middle pc (make bench).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "usf.h"

static double ub_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void ub_version(const char *name, const struct usf_section *sec, unsigned int v,
		       unsigned int flags)
{
	double best = 1e30, t, lbest = 1e30;
	struct usf_section back;
	struct usf_frame fr;
	unsigned int round, reps;
	uint32_t i;
	ssize_t n;
	void *buf;

	n = usf_section_encode(sec, v, flags, sec->vaddr, NULL, 0);
	if (n < 0) {
		printf("  %-28s V%u%s: %s\n", name, v, flags ? " PCREL" : "", usf_last_error());
		return;
	}
	buf = malloc(n);
	usf_section_encode(sec, v, flags, sec->vaddr, buf, n);
	reps = 1 + 200000 / (sec->nr_funcs + 1);
	for (round = 0; round < 5; round++) {
		t = ub_now();
		for (i = 0; i < reps; i++) {
			if (usf_section_decode(buf, n, sec->vaddr, &back))
				exit(1);
			usf_section_release(&back);
		}
		t = (ub_now() - t) / reps;
		best = t < best ? t : best;
	}
	for (round = 0; round < 5; round++) {
		t = ub_now();
		for (i = 0; i < sec->nr_funcs; i++)
			usf_section_lookup(sec, sec->funcs[i].start + sec->funcs[i].size / 2, &fr);
		t = (ub_now() - t) / (sec->nr_funcs ? sec->nr_funcs : 1);
		lbest = t < lbest ? t : lbest;
	}
	printf("  %-28s V%u%-6s %8zd bytes  decode %9.1f us (%5.1f ns/function)  lookup %5.1f ns\n",
	       name, v, flags ? " PCREL" : "", n, best / 1e3, best / (sec->nr_funcs ? sec->nr_funcs : 1),
	       lbest);
	free(buf);
}

int main(int argc, char **argv)
{
	struct usf_section sec;
	uint64_t vaddr, rows;
	size_t size;
	void *buf;
	uint32_t i;
	int a;

	for (a = 1; a < argc; a++) {
		const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];

		if (usf_elf_find_sframe(argv[a], &buf, &size, &vaddr) ||
		    usf_section_decode(buf, size, vaddr, &sec)) {
			fprintf(stderr, "%s: %s\n", argv[a], usf_last_error());
			return 1;
		}
		for (rows = 0, i = 0; i < sec.nr_funcs; i++)
			rows += sec.funcs[i].nr_rows;
		printf("%s: %u functions, %llu rows\n", name, sec.nr_funcs,
		       (unsigned long long)rows);
		ub_version(name, &sec, 1, 0);
		ub_version(name, &sec, 2, 0);
		ub_version(name, &sec, 2, USF_F_PCREL);
		ub_version(name, &sec, 3, USF_F_PCREL);
		usf_section_release(&sec);
		free(buf);
	}
	return 0;
}
