// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe-reg dl N: libustack-sframe-dl-a.so, -b.so, then -a.so
 * again, each dlopen()ed, called (N getppid calls through sr_dl_leaf <-
 * sr_dl_inner <- sr_dl_enter <- sr_dl_mode <- main) and dlclose()d. The
 * two libraries have the same functions with frames of other sizes and
 * usually load at the same address: a section left from the one before
 * gives wrong frames. Before -a.so is loaded again, the address both had
 * is taken by a placeholder mapping: it loads at another one. With -v 1|2|2p|3 the library's section is registered
 * after each dlopen(); dlclose() unmaps its text, which must remove it
 * (unregistering it afterwards says ENOENT).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "sframe-reg.h"

/* what is kept from the third load: up to this much from the old base */
#define SR_DL_HOLD	(1UL << 20)

/**
 * sr_dl_mode - dlopen/call/dlclose of the a, b and a libraries
 * @calls: getppid calls each time
 *
 * Return: 0, 1 when a library cannot be loaded.
 */
int sr_dl_mode(int calls)
{
	static const char * const libs[] = { "a", "b", "a" };
	char dir[PATH_MAX], path[PATH_MAX + 64];
	long (*enter)(int calls);
	struct sr_buf buf;
	size_t hold_size = 0, size;
	ssize_t len;
	Dl_info info;
	void *h, *hold = NULL;
	int i, n, ret;

	len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (len < 0)
		sr_die("/proc/self/exe");
	dir[len] = 0;
	*strrchr(dir, '/') = 0;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/libustack-sframe-dl-%s.so", dir, libs[i]);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		enter = h ? (long (*)(int))dlsym(h, "sr_dl_enter") : NULL;
		if (!enter || !dladdr((void *)enter, &info)) {
			fprintf(stderr, "ustack-sframe-reg: %s: %s\n", path, dlerror());
			return 1;
		}
		printf("dl %s at 0x%llx\n", libs[i], (unsigned long long)(uintptr_t)info.dli_fbase);
		n = sr_ver.version ? sr_register_objs("libustack-sframe-dl-", &buf, 1) : 0;
		enter(calls);
		asm volatile("" ::: "memory");
		dlclose(h);
		/* the next one elsewhere */
		for (size = SR_DL_HOLD; i == 1 && size >= 4096; size /= 4) {
			hold_size = size;
			hold = mmap(info.dli_fbase, size, PROT_NONE, MAP_PRIVATE |
				    MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (hold != MAP_FAILED)
				break;
			hold = NULL;
		}
		if (n) {
			ret = sr_unregister((uint64_t)buf.addr);
			printf("dl %s: unregister after dlclose: %s\n", libs[i],
			       ret == -ENOENT ? "ENOENT" : ret ? strerror(-ret) : "ok (still there)");
			sr_buf_free(&buf);
		}
	}
	if (hold)
		munmap(hold, hold_size);
	return 0;
}
