// SPDX-License-Identifier: GPL-2.0
/*
 * Registered sections the kernel cannot read for a while (the 2026-11-28
 * review's N12): the pages of each section's buffer are dropped and
 * registered with userfaultfd in SIGBUS mode, so that every read of them,
 * the kernel's included, fails with EFAULT while the buffer stays mapped
 * and readable, as a fault that runs out of memory or meets a fatal
 * signal does. Then the pages are given back with their old contents.
 * A walk that meets such a fault must only fall back for that frame,
 * never drop the section: after the pages are back, the same calls must
 * be walked by it again.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "sframe-reg.h"

static int sr_uffd = -1;
static uint8_t *sr_saved[SR_UFFD_MAX];

/* The whole pages of @buf: what is dropped, registered and saved */
static size_t sr_uffd_len(const struct sr_buf *buf)
{
	size_t page = sysconf(_SC_PAGESIZE);

	return (buf->map_size + page - 1) & ~(page - 1);
}

/* Open the userfaultfd in SIGBUS mode: a fault in its ranges fails at once. */
static void sr_uffd_open(void)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_SIGBUS };

	sr_uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (sr_uffd < 0)
		sr_die("userfaultfd");
	if (ioctl(sr_uffd, UFFDIO_API, &api))
		sr_die("UFFDIO_API with UFFD_FEATURE_SIGBUS");
}

/**
 * sr_uffd_hold - make the kernel's reads of the buffers fail with EFAULT
 * @bufs: the buffers of registered sections
 * @n: how many (at most SR_UFFD_MAX)
 *
 * Keeps a copy of each buffer, drops its pages and registers them with
 * the userfaultfd: until sr_uffd_release(), nobody can read them.
 */
void sr_uffd_hold(struct sr_buf *bufs, int n)
{
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	int i;

	if (n > SR_UFFD_MAX)
		sr_die("too many buffers to hold");
	sr_uffd_open();
	for (i = 0; i < n; i++) {
		size_t len = sr_uffd_len(&bufs[i]);

		sr_saved[i] = malloc(len);
		if (!sr_saved[i])
			sr_die("malloc");
		memcpy(sr_saved[i], bufs[i].addr, len);
		if (madvise(bufs[i].addr, len, MADV_DONTNEED))
			sr_die("madvise(MADV_DONTNEED)");
		reg.range.start = (uintptr_t)bufs[i].addr;
		reg.range.len = len;
		if (ioctl(sr_uffd, UFFDIO_REGISTER, &reg))
			sr_die("UFFDIO_REGISTER");
	}
	printf("held %d\n", n);
}

/**
 * sr_uffd_release - give the buffers back with their old contents
 * @bufs: the buffers sr_uffd_hold() held
 * @n: how many
 */
void sr_uffd_release(struct sr_buf *bufs, int n)
{
	struct uffdio_range range;
	int i;

	for (i = 0; i < n; i++) {
		size_t len = sr_uffd_len(&bufs[i]);

		range.start = (uintptr_t)bufs[i].addr;
		range.len = len;
		if (ioctl(sr_uffd, UFFDIO_UNREGISTER, &range))
			sr_die("UFFDIO_UNREGISTER");
		if (mprotect(bufs[i].addr, len, PROT_READ | PROT_WRITE))
			sr_die("mprotect");
		memcpy(bufs[i].addr, sr_saved[i], len);
		mprotect(bufs[i].addr, len, PROT_READ);
		free(sr_saved[i]);
		sr_saved[i] = NULL;
	}
	close(sr_uffd);
	sr_uffd = -1;
	printf("released %d\n", n);
}
