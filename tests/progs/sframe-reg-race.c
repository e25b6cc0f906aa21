// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe-reg droprace: a section found corrupt must be dropped only
 * if it is still the one registered for its text (the 2026-11-28 review's
 * N12: "sframe_drop() does not recheck the mapping").
 *
 * A JIT copy of sr_jit_a gets a registered section A whose buffer is then
 * dropped and registered with userfaultfd (missing pages, not SIGBUS). A
 * thread calls the copy: the deferred walk of that call, at the return to
 * user space, looks the topmost frame up in A and faults on its buffer,
 * where it waits for us. Meanwhile A is unregistered, the text unmapped
 * and mapped again at the same address with a new copy of sr_jit_a (the
 * thread returns into it), and a section B registered for it. Then A's
 * buffer is given back corrupt (its FDE's FRE offset past the FRE
 * sub-section): the waiting walk finds A corrupt and drops it. What is
 * registered for that text by then is B: it must stay, so that our own
 * calls of the copy afterwards are walked by it (exact). A kernel that
 * dropped whatever was at the address dropped B: those calls, called with
 * no frame pointer, then had no frame past the copy's.
 *
 * Prints "droprace: ..." lines for each step, and the expect lines of
 * sr_jit_call() for the calls after.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
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

/* Milliseconds to wait for the walk's fault: a bound, not a delay */
#define SR_RACE_WAIT_MS		20000

/* V3 header fields (the SFrame format): */
#define SR_HDR_SIZE		28
#define SR_HDR_AUX_LEN		7
#define SR_HDR_FDEOFF		20
#define SR_V3_FDE_FRE_OFF	12

static uint8_t *sr_race_x;

static void *sr_race_thread(void *arg)
{
	uint64_t ra;

	sr_call_nofp(sr_race_x, &ra, 0);
	return NULL;
}

/* Make @page (a copy of a V3 section) corrupt: its first FDE's FRE offset */
static void sr_race_corrupt(uint8_t *sec)
{
	uint32_t fdeoff, bad = UINT32_MAX;
	size_t fde;

	memcpy(&fdeoff, sec + SR_HDR_FDEOFF, sizeof(fdeoff));
	fde = SR_HDR_SIZE + sec[SR_HDR_AUX_LEN] + fdeoff;
	memcpy(sec + fde + SR_V3_FDE_FRE_OFF, &bad, sizeof(bad));
}

/* Open a userfaultfd and register @buf's pages, dropped, with it. */
static int sr_race_hold(struct sr_buf *buf, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	int uffd;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		sr_die("userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		sr_die("UFFDIO_API");
	if (madvise(buf->addr, len, MADV_DONTNEED))
		sr_die("madvise(MADV_DONTNEED)");
	reg.range.start = (uintptr_t)buf->addr;
	reg.range.len = len;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		sr_die("UFFDIO_REGISTER");
	return uffd;
}

/* Wait for the fault on @buf; 0 when it came. */
static int sr_race_wait_fault(int uffd, struct sr_buf *buf, size_t len)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;
	uint64_t at;

	if (poll(&pfd, 1, SR_RACE_WAIT_MS) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg))
		return -1;
	at = msg.arg.pagefault.address;
	if (msg.event != UFFD_EVENT_PAGEFAULT || at < (uintptr_t)buf->addr ||
	    at >= (uintptr_t)buf->addr + len)
		return -1;
	return 0;
}

/**
 * sr_droprace_mode - the drop of a corrupt section against a new one
 *
 * Return: 0 when every step was done, 1 otherwise.
 */
int sr_droprace_mode(void)
{
	uint64_t a = (uint64_t)sr_jit_a, alen = sr_asm.jit_a_end - a;
	size_t page = sysconf(_SC_PAGESIZE), len;
	struct uffdio_copy copy = { 0 };
	struct sr_buf bufa, bufb;
	uint8_t *bad;
	pthread_t t;
	int uffd, ret, i;

	if (sr_ver.version != 3) {
		fprintf(stderr, "ustack-sframe-reg: droprace corrupts V3 sections only\n");
		return 1;
	}
	sr_race_x = sr_jit_map(NULL);
	sr_jit_place(sr_race_x, sr_jit_a, alen);
	sr_jit_register(a, alen, sr_race_x, &bufa);
	len = (bufa.map_size + page - 1) & ~(page - 1);
	bad = aligned_alloc(page, len);
	if (!bad)
		sr_die("aligned_alloc");
	memcpy(bad, bufa.addr, len);
	sr_race_corrupt(bad);
	uffd = sr_race_hold(&bufa, len);

	if (pthread_create(&t, NULL, sr_race_thread, NULL))
		sr_die("pthread_create");
	if (sr_race_wait_fault(uffd, &bufa, len)) {
		printf("droprace: no fault on section A's buffer\n");
		return 1;
	}
	printf("droprace: the walk waits on section A's buffer\n");

	ret = sr_unregister((uint64_t)bufa.addr);
	printf("droprace: A unregistered: %s\n", ret ? strerror(-ret) : "ok");
	munmap(sr_race_x, page);
	if (sr_jit_map(sr_race_x) != sr_race_x)
		sr_die("mmap at the same address");
	sr_jit_place(sr_race_x, sr_jit_a, alen);
	sr_jit_register(a, alen, sr_race_x, &bufb);
	printf("droprace: B registered for the same text\n");

	copy.dst = (uintptr_t)bufa.addr;
	copy.src = (uintptr_t)bad;
	copy.len = len;
	if (ioctl(uffd, UFFDIO_COPY, &copy))
		sr_die("UFFDIO_COPY");
	pthread_join(t, NULL);
	printf("droprace: A given back corrupt, the walk done\n");

	for (i = 0; i < 3; i++)
		sr_jit_call("droprace-b", "exact", sr_race_x, sr_asm.jit_a_sys - a, 0);
	ret = sr_unregister((uint64_t)bufb.addr);
	printf("droprace: B unregistered at the end: %s\n", ret ? strerror(-ret) : "ok");
	close(uffd);
	free(bad);
	return ret ? 1 : 0;
}
