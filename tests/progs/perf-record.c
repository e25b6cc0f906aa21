// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-perf-record ID [CALLS]: check PERF_RECORD_CALLCHAIN_DEFERRED word
 * by word against mainline's layout (c69993ecdd):
 *
 *   { header (misc PERF_RECORD_MISC_USER); u64 cookie; u64 nr;
 *     u64 ips[nr] (the raw user frames, no context word); sample_id }
 *
 * Opens tracepoint ID (syscalls:sys_enter_getppid) on this task with
 * defer_callchain and defer_output and no kernel callchain, makes CALLS
 * (default 5) getppid calls from a known chain of its own frames
 * (main -> rec_outer -> rec_middle -> rec_inner -> rec_raw, which makes
 * the call), and reads the records back from the ring buffer. Prints one
 * PASS: or FAIL: line per check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "perf-defer.h"
#include "raw-syscall.h"

#define NOINLINE	__attribute__((noinline, noclone))
#define RING_PAGES	64
#define MAX_CALLS	64
#define RECORD_DEFERRED	22	/* PERF_RECORD_CALLCHAIN_DEFERRED */
/* A return address lies this close after the start of its (small) caller. */
#define NEAR		0x200

long rec_raw(long nr, long a1, long a2, long a3);
asm(".text\n" USTACK_RAW_SYSCALL_ASM("rec_raw"));

int main(int argc, char **argv);

static int failed;

static void result(int ok, const char *what, const char *why)
{
	if (ok) {
		printf("PASS: perf record layout: %s\n", what);
	} else {
		printf("FAIL: perf record layout: %s: %s\n", what, why);
		failed = 1;
	}
}

NOINLINE static long rec_inner(void)
{
	long ret = rec_raw(SYS_getppid, 0, 0, 0);

	asm volatile("" ::: "memory");
	return ret;
}

NOINLINE static long rec_middle(void)
{
	long ret = rec_inner();

	asm volatile("" ::: "memory");
	return ret;
}

NOINLINE static long rec_outer(int calls)
{
	long ret = 0;
	int i;

	for (i = 0; i < calls; i++)
		ret += rec_middle();
	asm volatile("" ::: "memory");
	return ret;
}

struct sample {
	uint64_t cookie;
	int matched;
};

static struct sample samples[MAX_CALLS];
static int nr_samples, nr_records, bad_samples;
static char why[512];

/* Is @ip a return address into @fn (just after a call in it)? */
static int returns_into(uint64_t ip, void *fn)
{
	uint64_t start = (uint64_t)(uintptr_t)fn;

	return ip > start && ip - start < NEAR;
}

/* sample_type TID | TIME | CALLCHAIN: pid, tid, time, nr, ips[] */
static void read_sample(const uint64_t *w, size_t words)
{
	uint64_t nr;

	if (words < 4 || (nr = w[2]) != 2 || words < 3 + nr) {
		bad_samples++;
		snprintf(why, sizeof(why), "sample callchain of %llu words",
			 words < 3 ? 0ULL : (unsigned long long)w[2]);
		return;
	}
	/* no kernel chain asked: the marker and the cookie, nothing else */
	if (w[3] != (uint64_t)PERF_CONTEXT_USER_DEFERRED || !w[4]) {
		bad_samples++;
		snprintf(why, sizeof(why), "sample callchain %#llx %#llx",
			 (unsigned long long)w[3], (unsigned long long)w[4]);
		return;
	}
	if (nr_samples < MAX_CALLS)
		samples[nr_samples++].cookie = w[4];
}

/* The record, after its header: cookie, nr, ips[nr], pid/tid, time. */
static void read_deferred(const struct perf_event_header *h, const uint64_t *w)
{
	size_t words = (h->size - sizeof(*h)) / 8;
	uint64_t cookie, nr, i;
	int s, found = 0;
	char what[64];

	nr_records++;
	snprintf(what, sizeof(what), "record %d", nr_records);
	if (words < 2) {
		result(0, what, "shorter than cookie and nr");
		return;
	}
	cookie = w[0];
	nr = w[1];
	result(h->misc == PERF_RECORD_MISC_USER, "header.misc is PERF_RECORD_MISC_USER",
	       "another misc");
	/* header, cookie, nr, nr frames, sample_id (tid, time): nothing else */
	if (h->size != sizeof(*h) + 16 + nr * 8 + 16) {
		snprintf(why, sizeof(why), "size %u for nr %llu", h->size,
			 (unsigned long long)nr);
		result(0, "size is header + cookie + nr + nr frames + sample_id", why);
		return;
	}
	result(1, "size is header + cookie + nr + nr frames + sample_id", "");
	for (i = 0; i < nr; i++) {
		if (w[2 + i] >= (uint64_t)PERF_CONTEXT_MAX)
			break;
	}
	snprintf(why, sizeof(why), "ips[%llu] = %#llx", (unsigned long long)i,
		 i < nr ? (unsigned long long)w[2 + i] : 0ULL);
	result(i == nr, "nr counts frames only, no context word among the ips", why);
	snprintf(why, sizeof(why), "nr %llu: %#llx %#llx %#llx %#llx %#llx",
		 (unsigned long long)nr, nr > 0 ? (unsigned long long)w[2] : 0ULL,
		 nr > 1 ? (unsigned long long)w[3] : 0ULL,
		 nr > 2 ? (unsigned long long)w[4] : 0ULL,
		 nr > 3 ? (unsigned long long)w[5] : 0ULL,
		 nr > 4 ? (unsigned long long)w[6] : 0ULL);
	result(nr >= 5 && returns_into(w[2], rec_raw) && returns_into(w[3], rec_inner) &&
	       returns_into(w[4], rec_middle) && returns_into(w[5], rec_outer) &&
	       returns_into(w[6], main),
	       "ips[0..4] are rec_raw, rec_inner, rec_middle, rec_outer, main", why);
	result((uint32_t)w[2 + nr + 0] == (uint32_t)getpid() &&
	       (uint32_t)(w[2 + nr + 0] >> 32) == (uint32_t)syscall(SYS_gettid),
	       "sample_id has this task's pid and tid", "another task");
	for (s = 0; s < nr_samples; s++) {
		if (samples[s].cookie == cookie) {
			found = !samples[s].matched++;
			break;
		}
	}
	snprintf(why, sizeof(why), "cookie %#llx", (unsigned long long)cookie);
	result(found, "its cookie is one sample's, and only this record's", why);
}

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE), len = (RING_PAGES + 1) * page;
	struct perf_event_mmap_page *meta;
	struct perf_event_attr attr;
	uint64_t head, pos, flags;
	char *ring, what[600];
	int calls, fd, s;

	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACEPOINT-ID [CALLS]\n", argv[0]);
		return 2;
	}
	calls = argc > 2 ? atoi(argv[2]) : 5;
	if (calls < 1 || calls > MAX_CALLS)
		calls = 5;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = strtoull(argv[1], NULL, 0);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	attr.sample_id_all = 1;
	attr.exclude_callchain_kernel = 1;
	attr.disabled = 1;
	memcpy(&flags, (char *)&attr + ATTR_FLAGS_OFFSET, sizeof(flags));
	flags |= ATTR_DEFER_CALLCHAIN | ATTR_DEFER_OUTPUT;
	memcpy((char *)&attr + ATTR_FLAGS_OFFSET, &flags, sizeof(flags));

	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		printf("FAIL: perf record layout: perf_event_open: %s\n", strerror(errno));
		return 1;
	}
	ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		printf("FAIL: perf record layout: mmap: %s\n", strerror(errno));
		return 1;
	}
	meta = (struct perf_event_mmap_page *)ring;

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	rec_outer(calls);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	if (head > RING_PAGES * page) {
		printf("FAIL: perf record layout: the ring wrapped (%llu bytes)\n",
		       (unsigned long long)head);
		return 1;
	}
	for (pos = 0; pos + sizeof(struct perf_event_header) <= head;) {
		struct perf_event_header *h = (void *)(ring + page + pos);
		const uint64_t *w = (const uint64_t *)(h + 1);

		if (h->size < sizeof(*h) || pos + h->size > head)
			break;
		if (h->type == PERF_RECORD_SAMPLE)
			read_sample(w, (h->size - sizeof(*h)) / 8);
		else if (h->type == RECORD_DEFERRED)
			read_deferred(h, w);
		pos += h->size;
	}

	snprintf(what, sizeof(what), "%d samples, %d bad (%s)", nr_samples, bad_samples, why);
	result(nr_samples == calls && !bad_samples,
	       "every sample ends with PERF_CONTEXT_USER_DEFERRED and its cookie", what);
	snprintf(why, sizeof(why), "%d records for %d calls", nr_records, calls);
	result(nr_records == calls, "one CALLCHAIN_DEFERRED record per call", why);
	for (s = 0; s < nr_samples && samples[s].matched == 1; s++)
		;
	result(s == nr_samples, "every sample's cookie has its record", "a sample without one");
	return failed;
}
