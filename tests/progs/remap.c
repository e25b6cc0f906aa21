// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-remap DIR: one stack, the same addresses, another file.
 *
 * Writes a function that makes a getppid system call into two files,
 * DIR/ustack-remap-a and DIR/ustack-remap-b, maps them in turn at the same
 * address and calls it from the same place: four kernel entries, a, b, a,
 * b, whose user stacks have the very same addresses, but whose topmost
 * frame (offset 0x7 of the file, after the syscall instruction) is in
 * another file each time. A tracer that reuses what it resolved for an
 * earlier stack must notice that the mappings changed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const unsigned char code[] = {
	0xb8, 0x6e, 0x00, 0x00, 0x00,	/* mov $110, %eax: getppid */
	0x0f, 0x05,			/* syscall */
	0xc3,				/* ret */
};

static int write_code(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	if (fd < 0)
		return -1;
	if (write(fd, code, sizeof(code)) != sizeof(code)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Map @path at @at (NULL: anywhere); NULL on failure. */
static void *map_code(const char *path, void *at)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(at, getpagesize(), PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | (at ? MAP_FIXED : 0), fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* The one call site of every call. */
static __attribute__((noinline)) long call_code(void *p)
{
	long (*fn)(void) = (long (*)(void))p;

	return fn();
}

int main(int argc, char **argv)
{
	char path[2][4096];
	void *at = NULL, *p;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: ustack-remap DIR\n");
		return 2;
	}
	for (i = 0; i < 2; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/ustack-remap-%c", argv[1], 'a' + i);
		if (write_code(path[i])) {
			perror(path[i]);
			return 1;
		}
	}
	for (i = 0; i < 4; i++) {
		p = map_code(path[i % 2], at);
		if (!p) {
			perror("mmap");
			return 1;
		}
		at = p;
		if (call_code(p) <= 0) {
			fprintf(stderr, "ustack-remap: the mapped code misbehaved\n");
			return 1;
		}
		munmap(p, getpagesize());
	}
	printf("ustack-remap: 4 calls at %p\n", at);
	return 0;
}
