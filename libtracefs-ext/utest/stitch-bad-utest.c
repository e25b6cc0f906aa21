// SPDX-License-Identifier: GPL-2.0
/*
 * Stitcher tests on damaged entries: frames cut or corrupt, file entries
 * without their path's end, records too short for their fields, unknown
 * and reused file ids, and random bytes. Never a crash, never a read past a
 * record (valgrind: make memcheck); the damage is said, not hidden.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace-env.h"

#define SUITE	"stitcher-damaged"

static const char ut_malformed_line[] = "  => [malformed frame data]\n";

/* A stack entry with these frame bytes and nr, for one held event of P. */
static void ut_stack_bytes(struct ut_trace *t, unsigned int nr, const unsigned char *bytes,
			   size_t len)
{
	size_t size = ut_rec_stack(t->buf, P, K1, nr, 0, bytes, len);

	ut_add(t, 0, size);
}

static bool ut_ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

static void test_nr_too_large(void)
{
	static const struct ut_frame two[] = { { 1, 0x1000 }, { 1, 0x1010 } };
	unsigned char enc[64];
	struct ut_trace t;
	size_t len;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_file(&t, 0, 1, "/lib/a.so");
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	len = ut_encode(enc, two, 2);
	ut_stack_bytes(&t, 1000, enc, len);
	if (UT_SEEN(&t, 1)) {
		UT_EXPECT(&t, 0, 1, STACK, NONE);
		/* the padding of the record decodes as frames, until the data ends */
		UT_CHECK(t.seen[0].nr >= 2 && t.seen[0].nr <= 5, "nr %u", t.seen[0].nr);
		UT_CHECK(t.seen[0].flags & USTACK_STACK_MALFORMED, "flags %#x", t.seen[0].flags);
		UT_CHECK(!strncmp(t.seen[0].text, "  => /lib/a.so+0x1000\n  => /lib/a.so+0x1010\n",
				  44), "%s", t.seen[0].text);
		UT_CHECK(ut_ends_with(t.seen[0].text, ut_malformed_line), "%s", t.seen[0].text);
	}
	ut_end(&t);
}

/* The data ends in the middle of a number: a continuation byte is the last one. */
static void test_cut_number(void)
{
	static const struct ut_frame one[] = { { 0, 0x7fff1000 } };
	unsigned char enc[64];
	struct ut_trace t;
	size_t len;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	len = ut_encode(enc, one, 1);
	do {
		enc[len++] = 0x80;
	} while ((20 + len) % 4);
	ut_stack_bytes(&t, 2, enc, len);
	if (UT_SEEN(&t, 1)) {
		UT_CHECK(t.seen[0].nr == 1 && (t.seen[0].flags & USTACK_STACK_MALFORMED),
			 "nr %u flags %#x", t.seen[0].nr, t.seen[0].flags);
		UT_CHECK_STR(t.seen[0].text, "  => 0x7fff1000\n  => [malformed frame data]\n");
	}
	ut_end(&t);
}

/* Numbers longer than 10 bytes, and a first frame without a mapping. */
static void test_long_number(void)
{
	unsigned char enc[12];
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	memset(enc, 0x81, 11);
	enc[11] = 0x00;
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	ut_stack_bytes(&t, 1, enc, 12);
	if (UT_SEEN(&t, 1))
		UT_CHECK_STR(t.seen[0].text, ut_malformed_line);
	enc[0] = 0x04;
	ut_cookie(&t, 0, P, K2);
	ut_event(&t, 0, P, 2);
	ut_add(&t, 0, ut_rec_stack(t.buf, P, K2, 1, 0, enc, 1));
	if (UT_SEEN(&t, 2))
		UT_CHECK(t.seen[1].nr == 0 && t.seen[1].flags == USTACK_STACK_MALFORMED,
			 "nr %u flags %#x", t.seen[1].nr, t.seen[1].flags);
	ut_end(&t);
}

/*
 * A file entry whose path has no end replaces its id, but cannot be read:
 * frames with the id are unknown files. So are ids never named.
 */
static void test_file_cut_unknown(void)
{
	static const struct ut_frame frames[] = { { 1, 0x10 }, { 9, 0x20 } };
	struct ut_stats stats;
	struct ut_trace t;
	size_t size;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_file(&t, 0, 1, "/lib/old.so");
	size = ut_rec_file(t.buf, 1, 1, 20, "/lib/new.so");
	memset(t.buf + 36, 'x', size - 36);
	ut_add(&t, 0, size);
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	ut_stack(&t, 0, P, K1, frames, 2);
	if (UT_SEEN(&t, 1))
		UT_CHECK_STR(t.seen[0].text, "  => file#1+0x10\n  => file#9+0x20\n");
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.malformed == 1, "malformed %llu", stats.malformed);
	ut_end(&t);
}

/* Records too short for their fields; sizes and ids out of range. */
static void test_short_records(void)
{
	struct ut_stats stats;
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	/* a stack cut in its cookie: ignored */
	ut_add(&t, 0, ut_rec_stack(t.buf, P, K1, 0, 0, NULL, 0) - 16);
	/* a file entry cut in its build-id, then one with no path at all */
	ut_rec_file(t.buf, 1, 3, 20, "/x");
	ut_add(&t, 0, 20);
	ut_rec_file(t.buf, 1, 3, 20, "/x");
	ut_add(&t, 0, 36);
	/* build-id sizes beyond the field, ids 0 and beyond the table */
	ut_add(&t, 0, ut_rec_file(t.buf, 1, 4, 21, "/y"));
	ut_add(&t, 0, ut_rec_file(t.buf, 1, 0, 20, "/y"));
	ut_add(&t, 0, ut_rec_file(t.buf, 1, 1U << 20, 20, "/y"));
	UT_SEEN(&t, 0);
	/* a cookie entry cut short: the CPU no longer knows */
	ut_add(&t, 0, ut_rec_cookie(t.buf, P, K2) - 4);
	ut_event(&t, 0, P, 2);
	/* a record shorter than the common fields, on a CPU that knows */
	ut_add(&t, 1, 3);
	ustack_stitcher_flush(t.st);
	UT_SEEN(&t, 3);
	UT_EXPECT(&t, 0, 1, LOST, END);
	UT_EXPECT(&t, 1, 2, UNKNOWN, NONE);
	if (t.nr_seen == 3)
		UT_CHECK(t.seen[2].type == -1 && t.seen[2].state == USTACK_STATE_NONE,
			 "a short record");
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.malformed == 7, "malformed %llu, want 7", stats.malformed);
	ut_end(&t);
}

/*
 * Ids start again after a buffer reset: a later entry with an id replaces
 * the earlier one, and stacks decoded before keep the file they named.
 */
static void test_ids_reused(void)
{
	static const struct ut_frame one[] = { { 1, 0x42 } };
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_two_waiting(&t);
	ut_file(&t, 1, 1, "/before/reset.so");
	ut_stack(&t, 1, Q, K2, one, 1);	/* ready, but behind P's event */
	ut_file(&t, 0, 1, "/after/reset.so");
	ut_stack(&t, 0, P, K1, one, 1);
	UT_SEEN(&t, 2);
	if (t.nr_seen == 2) {
		UT_CHECK_STR(t.seen[0].text, "  => /after/reset.so+0x42\n");
		UT_CHECK_STR(t.seen[1].text, "  => /before/reset.so+0x42\n");
	}
	ut_end(&t);
}

/* A record with a size but no data is refused, not copied, while events are held. */
static void test_no_data(void)
{
	struct tep_record rec = { .size = 64 };
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	errno = 0;
	UT_CHECK(ustack_stitcher_add(t.st, &rec, 0) == -1 && errno == EINVAL,
		 "a record without data: errno %d", errno);
	ut_stack(&t, 0, P, K1, (const struct ut_frame []){ { 0, 0x1000 } }, 1);
	UT_SEEN(&t, 1);
	UT_EXPECT(&t, 0, 1, STACK, NONE);
	ut_end(&t);
}

/* A record of @size bytes (its data in @data) fed on @cpu, as libtracecmd gives it. */
static int ut_add_sized(struct ut_trace *t, int cpu, void *data, int size)
{
	struct tep_record rec = {
		.ts		= t->ts += 1000,
		.size		= size,
		.record_size	= size + 8,
		.data		= data,
		.cpu		= cpu,
		.ref_count	= 1,
	};

	return ustack_stitcher_add(t->st, &rec, cpu);
}

/*
 * Records longer than a page: a damaged length, which libtracecmd 3.1.6
 * passes on (two bytes of a trace made one 1954048356 bytes long, in a
 * 4 KiB page). They are neither read nor copied, nor handed back: counted
 * as malformed, their CPU unknown until its next cookie entry. The most a
 * page holds (less its 16-byte header and the event's 4) is a record like
 * any other.
 */
static void test_over_page(void)
{
	static const struct ut_frame one[] = { { 0, 0x1000 } };
	const int most = UT_PAGE - 16 - 4;
	struct ut_stats stats;
	unsigned char *big;
	struct ut_trace t;

	big = calloc(2, UT_PAGE);
	if (!UT_CHECK(big, "calloc") || !ut_start(&t, UT_FORMATS_ALL, 0)) {
		free(big);
		return;
	}
	ut_rec_event(big, Q, 1);
	UT_CHECK(!ut_add_sized(&t, 1, big, most), "a record a page holds");
	UT_EXPECT(&t, 0, 1, NONE, NONE);

	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 2);			/* held: it waits for K1's stack */
	ut_rec_event(big, P, 3);
	UT_CHECK(!ut_add_sized(&t, 0, big, most + 1), "one byte more");
	ut_get_stats(t.st, &stats);
	if (!UT_CHECK(stats.malformed == 1 && stats.held == 1,
		      "malformed %llu held %llu, want 1 and 1", stats.malformed, stats.held))
		goto out;

	/* the review's record, in a buffer of 4 KiB: copied, it would crash */
	ut_rec_event(t.buf, P, 4);
	UT_CHECK(!ut_add_sized(&t, 0, t.buf, 1954048356), "1.95 GB in a page");
	ut_event(&t, 0, P, 5);			/* CPU 0 does not know now */
	ut_stack(&t, 0, P, K1, one, 1);
	UT_SEEN(&t, 3);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	UT_EXPECT(&t, 2, 5, UNKNOWN, NONE);
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.malformed == 2 && stats.held == 0 && stats.peak_held_bytes < UT_PAGE,
		 "malformed %llu held %llu peak bytes %llu", stats.malformed, stats.held,
		 stats.peak_held_bytes);
out:
	ut_end(&t);
	free(big);
}

/* Random bytes in stack and file entries, and random sizes: no crash. */
static void test_noise(void)
{
	unsigned int seed = 7, i, j, id;
	struct ut_trace t;
	size_t size;
	int pid;

	if (!ut_start(&t, UT_FORMATS_ALL, USTACK_STITCH_RAW))
		return;
	for (i = 0; i < 3000; i++) {
		pid = P + i % 5;
		id = 1 + i % 3;
		ut_cookie(&t, i % 3, pid, K1 + i / 4);
		ut_event(&t, i % 3, pid, i);

		seed = seed * 1103515245 + 12345;
		size = 8 + (seed >> 16) % 200;
		for (j = 8; j < size; j++) {
			seed = seed * 1103515245 + 12345;
			t.buf[j] = seed >> 16;
		}
		/* a stack or file entry of the task, its cookie or a known id now and then */
		memset(t.buf, 0, 8);
		t.buf[0] = i % 2 ? UT_ID_STACK : UT_ID_FILE;
		memcpy(t.buf + 4, &pid, 4);
		if (i % 2 && i % 3 == 0 && size >= 16)
			memcpy(t.buf + 8, &(unsigned long long){ K1 + i / 4 }, 8);
		else if (i % 7 == 0 && size >= 12)
			memcpy(t.buf + 8, &id, 4);
		ut_add(&t, i % 3, size);
	}
	ustack_stitcher_flush(t.st);
	UT_CHECK(t.nr_seen >= 3000, "%zu handed back", t.nr_seen);
	ut_end(&t);
}

void utest_stitch_bad_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "nr_too_large", test_nr_too_large);
	CU_add_test(suite, "cut_number", test_cut_number);
	CU_add_test(suite, "long_number", test_long_number);
	CU_add_test(suite, "file_cut_unknown", test_file_cut_unknown);
	CU_add_test(suite, "short_records", test_short_records);
	CU_add_test(suite, "ids_reused", test_ids_reused);
	CU_add_test(suite, "no_data", test_no_data);
	CU_add_test(suite, "over_page", test_over_page);
	CU_add_test(suite, "noise", test_noise);
}
