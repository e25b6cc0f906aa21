// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-mremap LIB [mprotect]: the same SFrame call chain before and after
 * its library moved (the 2026-11-28 review's N12, tests/guest/sframe-mremap.sh).
 *
 * Built with frame pointers and without .sframe, it dlopen()s LIB
 * (libustack-mremap.so: -fomit-frame-pointer, .sframe), calls mr_entry
 * once (a getppid system call at the end of the chain), then moves every
 * mapping of LIB with mremap(MREMAP_MAYMOVE | MREMAP_FIXED) by one delta
 * to a free range, keeping their layout (headers, text and .sframe where
 * they were to each other), and calls mr_entry again at its new address.
 * Two getppid calls in all; the second stack must be the first's. With
 * "mprotect", the moved text is made not executable and executable again
 * with mprotect() before the second call (the test's control: an mprotect
 * that adds PROT_EXEC to a file mapping makes the kernel look at the mm's
 * mappings again). Prints what it did:
 *   before ADDR
 *   moved N mappings by DELTA
 *   after ADDR
 * and ends with _exit(): ld.so's view of the library is the old one, so
 * its destructors are not run.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_MAPS	32

struct map {
	unsigned long	start, end;
};

/* The mappings of @path, in address order, and their protection; their number, or -1. */
static int lib_maps(const char *path, struct map *m, char (*perms)[8])
{
	char line[PATH_MAX + 128], name[PATH_MAX];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		char p[8];

		name[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %s", &s, &e, p, name) < 3)
			continue;
		if (strcmp(name, path))
			continue;
		if (n == MAX_MAPS) {
			n = -1;
			break;
		}
		memcpy(perms[n], p, sizeof(p));
		m[n++] = (struct map) { s, e };
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX], perms[MAX_MAPS][8];
	struct map m[MAX_MAPS];
	long (*entry)(long);
	unsigned long span, delta;
	void *lib, *to;
	int n, i;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "mprotect")) ||
	    !realpath(argv[1], path)) {
		fprintf(stderr, "usage: ustack-mremap LIB [mprotect]\n");
		return 2;
	}
	lib = dlopen(path, RTLD_NOW);
	entry = lib ? (long (*)(long))dlsym(lib, "mr_entry") : NULL;
	if (!entry) {
		fprintf(stderr, "ustack-mremap: %s\n", dlerror());
		return 1;
	}
	printf("before %p\n", (void *)entry);
	fflush(stdout);
	entry(1);

	n = lib_maps(path, m, perms);
	if (n <= 0) {
		fprintf(stderr, "ustack-mremap: no mappings of %s\n", path);
		return 1;
	}
	/* a free range for the whole layout, then each mapping into its place */
	span = m[n - 1].end - m[0].start;
	to = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	delta = (unsigned long)to - m[0].start;
	for (i = 0; i < n; i++) {
		void *at = (void *)(m[i].start + delta);

		if (mremap((void *)m[i].start, m[i].end - m[i].start, m[i].end - m[i].start,
			   MREMAP_MAYMOVE | MREMAP_FIXED, at) != at) {
			perror("mremap");
			_exit(1);
		}
	}
	for (i = 0; argc == 3 && i < n; i++) {
		int prot = (perms[i][0] == 'r' ? PROT_READ : 0) |
			   (perms[i][1] == 'w' ? PROT_WRITE : 0) |
			   (perms[i][2] == 'x' ? PROT_EXEC : 0);

		if (!(prot & PROT_EXEC))
			continue;
		if (mprotect((void *)(m[i].start + delta), m[i].end - m[i].start,
			     prot & ~PROT_EXEC) ||
		    mprotect((void *)(m[i].start + delta), m[i].end - m[i].start, prot)) {
			perror("mprotect");
			_exit(1);
		}
	}
	entry = (long (*)(long))((unsigned long)entry + delta);
	printf("moved %d mappings by %#lx%s\n", n, delta, argc == 3 ? ", mprotect()ed" : "");
	printf("after %p\n", (void *)entry);
	fflush(stdout);
	entry(1);
	_exit(0);
}
