// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-sframe-reg wide KIB: a frame rule whose two words lie KIB KiB
 * apart (review 2026-11-28, N8). A thread running on a stack of its own
 * (1 MiB of anonymous memory, untouched below its top) calls a JIT copy
 * of sr_jit_a whose registered section says its caller's frame pointer
 * is saved KIB KiB below the CFA. The traced getppid walks that frame:
 * the walk may fault in the frame pointer's word and the return
 * address's, and nothing of what lies between them.
 *
 * Prints "wide KIB resident BEFORE AFTER tid TID": the pages of the thread's
 * stack below its stack pointer that were resident before and after the
 * call (mincore()), and the usual "expect" line of the call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sframe-reg.h"

#define SR_WIDE_STACK	(1UL << 20)

static uint8_t *sr_wide_stack;

/* Resident pages of the thread's stack from its bottom to @below. */
static long sr_wide_resident(uintptr_t below)
{
	size_t page = sysconf(_SC_PAGESIZE), n, i;
	unsigned char vec[SR_WIDE_STACK / 4096];
	long count = 0;

	n = (below - (uintptr_t)sr_wide_stack) / page;
	if (n > sizeof(vec))
		n = sizeof(vec);
	if (mincore(sr_wide_stack, n * page, vec))
		sr_die("mincore");
	for (i = 0; i < n; i++)
		count += vec[i] & 1;
	return count;
}

static void *sr_wide_thread(void *arg)
{
	long kib = *(long *)arg;
	uint64_t a = (uint64_t)sr_jit_a, alen = sr_asm.jit_a_end - a;
	struct usf_section sec;
	struct sr_buf buf;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uint64_t ra;
	long before, after;
	uint32_t i, j;
	uint8_t *x;
	int ret;

	x = sr_jit_map(NULL);
	sr_jit_place(x, sr_jit_a, alen);
	sr_jit_section(a, alen, (uint64_t)x, &sec);
	/* every row: the caller's frame pointer saved far below the CFA */
	for (i = 0; i < sec.nr_funcs; i++) {
		for (j = 0; j < sec.funcs[i].nr_rows; j++) {
			sec.funcs[i].rows[j].flags |= USF_ROW_FP;
			sec.funcs[i].rows[j].fp_offset = -(int32_t)(kib * 1024);
		}
	}
	if (sr_encode_near(&sec, &sr_ver, (uint64_t)x, &buf)) {
		fprintf(stderr, "ustack-sframe-reg: encoding: %s\n", usf_last_error());
		exit(1);
	}
	usf_section_release(&sec);
	ret = sr_register((uint64_t)buf.addr, buf.len, (uint64_t)x, alen);
	if (ret) {
		errno = -ret;
		sr_die("SFRAME_IOC_REGISTER (wide)");
	}
	/* two pages below this frame: what the call itself touches */
	before = sr_wide_resident(sp - 2 * 4096);
	sr_call_nofp(x, &ra, 0);
	after = sr_wide_resident(sp - 2 * 4096);
	printf("wide %ld resident %ld %ld tid %d\n", kib, before, after, gettid());
	sr_unregister((uint64_t)buf.addr);
	sr_buf_free(&buf);
	return NULL;
}

/**
 * sr_wide_mode - a frame rule with its words @kib KiB apart
 * @kib: how far below the CFA the frame pointer is said to be saved
 *
 * Return: the exit status.
 */
int sr_wide_mode(long kib)
{
	pthread_attr_t attr;
	pthread_t t;

	sr_wide_stack = mmap(NULL, SR_WIDE_STACK, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sr_wide_stack == MAP_FAILED)
		sr_die("mmap stack");
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstack(&attr, sr_wide_stack, SR_WIDE_STACK) ||
	    pthread_create(&t, &attr, sr_wide_thread, &kib) || pthread_join(t, NULL))
		sr_die("pthread");
	return 0;
}
