// SPDX-License-Identifier: GPL-2.0
/*
 * Stitcher tests: stacks that do not come (the task's next cookie first, the
 * end of the input, missed events), and the limits that keep the memory of
 * the stitcher bounded however many tasks wait.
 */
#include <errno.h>
#include <string.h>

#include "trace-env.h"

#define SUITE	"stitcher-lost"

static const struct ut_frame ut_one[] = { { 1, 0x1127 } };

static void test_next_cookie(void)
{
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	ut_event(&t, 0, P, 2);
	UT_SEEN(&t, 0);
	/* the task's next kernel entry, on another CPU: K1's stack will not come */
	ut_cookie(&t, 1, P, K2);
	UT_SEEN(&t, 2);
	UT_EXPECT(&t, 0, 1, LOST, NEXT_COOKIE);
	UT_EXPECT(&t, 1, 2, LOST, NEXT_COOKIE);
	if (t.nr_seen == 2)
		UT_CHECK(t.seen[0].cookie == K1, "cookie %#llx", t.seen[0].cookie);
	ut_event(&t, 1, P, 3);
	/* K1's stack late after all: nobody waits for it any more */
	ut_stack(&t, 1, P, K1, ut_one, 1);
	UT_SEEN(&t, 2);
	ut_stack(&t, 1, P, K2, ut_one, 1);
	UT_EXPECT(&t, 2, 3, STACK, NONE);
	ut_end(&t);
}

static void test_end(void)
{
	struct ut_stats stats;
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_two_waiting(&t);
	ut_stack(&t, 1, Q, K2, ut_one, 1);
	UT_SEEN(&t, 0);
	UT_CHECK(ustack_stitcher_flush(t.st) == 0, "flush");
	UT_SEEN(&t, 2);
	UT_EXPECT(&t, 0, 1, LOST, END);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.lost[USTACK_LOST_END] == 1 && stats.tasks == 0 && stats.held == 0,
		 "lost %llu tasks %llu held %llu", stats.lost[USTACK_LOST_END], stats.tasks,
		 stats.held);
	ut_end(&t);
}

/*
 * Missed events on a CPU: its events are unknown until its next cookie
 * entry; other CPUs are not affected. A stack awaited meanwhile and lost to
 * the next cookie is lost with "missed".
 */
static void test_missed(void)
{
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_two_waiting(&t);
	/* CPU 1 lost events: P's stack may have been among them */
	t.missed[1] = -1;
	ut_event(&t, 1, Q, 3);
	ut_event(&t, 0, Q, 4);		/* CPU 0 still knows: not P, no cookie */
	ut_stack(&t, 2, Q, K2, ut_one, 1);
	ut_cookie(&t, 0, P, 0x500000001ULL);
	UT_SEEN(&t, 4);
	UT_EXPECT(&t, 0, 1, LOST, MISSED);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	UT_EXPECT(&t, 2, 3, UNKNOWN, NONE);
	UT_EXPECT(&t, 3, 4, NONE, NONE);
	/* a cookie entry on CPU 1 makes it known again */
	ut_event(&t, 1, P, 5);
	ut_cookie(&t, 1, Q, K2);
	ut_event(&t, 1, Q, 6);
	ut_event(&t, 1, P, 7);
	UT_SEEN(&t, 7);
	UT_EXPECT(&t, 4, 5, UNKNOWN, NONE);
	UT_EXPECT(&t, 5, 6, STACK, NONE);
	UT_EXPECT(&t, 6, 7, NONE, NONE);
	/* without missed events, the same loss is "next cookie" */
	ut_cookie(&t, 2, Q, 0x500000002ULL);
	ut_event(&t, 2, Q, 8);
	ut_cookie(&t, 2, Q, 0x500000003ULL);
	UT_EXPECT(&t, 7, 8, LOST, NEXT_COOKIE);
	/* a count of missed events is as good as "some" */
	t.missed[2] = 12;
	ut_event(&t, 2, Q, 9);
	UT_EXPECT(&t, 8, 9, UNKNOWN, NONE);
	ut_end(&t);
}

/* An input that may start mid-stream knows nothing before the first cookie entry. */
static void test_start_unknown(void)
{
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, USTACK_STITCH_START_UNKNOWN))
		return;
	ut_event(&t, 0, P, 1);
	ut_cookie(&t, 0, Q, K1);
	ut_event(&t, 0, P, 2);
	ut_event(&t, 1, P, 3);
	UT_SEEN(&t, 3);
	UT_EXPECT(&t, 0, 1, UNKNOWN, NONE);
	UT_EXPECT(&t, 1, 2, NONE, NONE);
	UT_EXPECT(&t, 2, 3, UNKNOWN, NONE);
	ut_end(&t);
}

/*
 * 100000 tasks, each with an event waiting for a stack that never comes:
 * the stitcher never tracks more tasks, nor holds more events, than its
 * limits, and every event comes back, in order.
 */
static void test_many_tasks(void)
{
	struct ut_stats stats;
	struct ut_trace t;
	size_t i, n = 100000;
	bool order = true;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	for (i = 0; i < n; i++) {
		ut_cookie(&t, i % UT_CPUS, 1000 + i, 0x100000000ULL + i);
		ut_event(&t, i % UT_CPUS, 1000 + i, i);
	}
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.peak_tasks <= USTACK_STITCH_MAX_TASKS, "peak tasks %llu", stats.peak_tasks);
	UT_CHECK(stats.peak_held <= USTACK_STITCH_MAX_HELD, "peak held %llu", stats.peak_held);
	UT_CHECK(stats.peak_held_bytes <= USTACK_STITCH_MAX_HELD_BYTES, "peak bytes %llu",
		 stats.peak_held_bytes);
	UT_CHECK(stats.tasks == USTACK_STITCH_MAX_TASKS, "tasks %llu", stats.tasks);
	UT_CHECK(stats.held <= USTACK_STITCH_MAX_TASKS, "held %llu", stats.held);
	ustack_stitcher_flush(t.st);
	UT_SEEN(&t, (int)n);
	for (i = 0; i < t.nr_seen && order; i++)
		order = t.seen[i].tag == i;
	UT_CHECK(order, "event %zu out of order", i - 1);
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.lost[USTACK_LOST_LIMIT] == n - USTACK_STITCH_MAX_TASKS &&
		 stats.lost[USTACK_LOST_END] == USTACK_STITCH_MAX_TASKS,
		 "lost to the limit %llu, to the end %llu", stats.lost[USTACK_LOST_LIMIT],
		 stats.lost[USTACK_LOST_END]);
	UT_CHECK(stats.held == 0 && stats.held_bytes == 0 && stats.tasks == 0,
		 "left: held %llu bytes %llu tasks %llu", stats.held, stats.held_bytes,
		 stats.tasks);
	ut_end(&t);
}

/* Events queued behind one that waits long: the oldest go as lost beyond the limit. */
static void test_held_limit(void)
{
	struct ut_stats stats;
	struct ut_trace t;
	int i;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	UT_CHECK(!ustack_stitcher_set_limits(t.st, 0, 4, 0), "set_limits");
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	ut_event(&t, 0, P, 2);
	for (i = 3; i <= 6; i++)
		ut_event(&t, 1, Q, i);
	/* 6 held > 4: 1 and 2 go, lost; the others had no stack to wait for */
	UT_SEEN(&t, 6);
	UT_EXPECT(&t, 0, 1, LOST, LIMIT);
	UT_EXPECT(&t, 1, 2, LOST, LIMIT);
	if (t.nr_seen == 6)
		UT_CHECK(t.seen[0].cookie == K1, "cookie %#llx", t.seen[0].cookie);
	for (i = 3; i <= 6; i++)
		UT_EXPECT(&t, i - 1, i, NONE, NONE);
	/* the entry still waits: a later event of it gets the stack */
	ut_event(&t, 0, P, 7);
	ut_stack(&t, 0, P, K1, ut_one, 1);
	UT_EXPECT(&t, 6, 7, STACK, NONE);
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.peak_held == 5, "peak held %llu, want 5", stats.peak_held);

	/* the byte limit: each held event costs its record and more */
	UT_CHECK(!ustack_stitcher_set_limits(t.st, 0, 0, 1), "set_limits");
	ut_cookie(&t, 0, P, K2);
	ut_event(&t, 0, P, 8);
	UT_EXPECT(&t, 7, 8, LOST, LIMIT);
	ut_end(&t);
}

/*
 * An event over the byte limit by itself is not copied: the events held
 * before it go, as lost if they wait, then it goes, as lost, at once. The
 * bytes held never pass the limit.
 */
static void test_held_bytes_alone(void)
{
	const size_t limit = 1024;
	struct ut_stats stats;
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	UT_CHECK(!ustack_stitcher_set_limits(t.st, 0, 0, limit), "set_limits");
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	ut_event(&t, 1, Q, 2);
	UT_SEEN(&t, 0);
	ut_rec_event(t.buf, P, 3);
	ut_add(&t, 0, 2000);
	UT_SEEN(&t, 3);
	UT_EXPECT(&t, 0, 1, LOST, LIMIT);
	UT_EXPECT(&t, 1, 2, NONE, NONE);
	UT_EXPECT(&t, 2, 3, LOST, LIMIT);
	/* the entry still waits: a later event of it gets the stack */
	ut_stack(&t, 0, P, K1, ut_one, 1);
	ut_event(&t, 0, P, 4);
	UT_EXPECT(&t, 3, 4, STACK, NONE);
	/* with nothing to wait for, a long event is handed back as it is */
	ut_rec_event(t.buf, Q, 5);
	ut_add(&t, 1, 2000);
	UT_EXPECT(&t, 4, 5, NONE, NONE);
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.peak_held_bytes <= limit && stats.peak_held == 2,
		 "peak bytes %llu (limit %zu), peak held %llu", stats.peak_held_bytes, limit,
		 stats.peak_held);
	ut_end(&t);
}

/* Beyond the limit on tasks, the least recently active one is forgotten. */
static void test_task_limit(void)
{
	struct ut_stats stats;
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ustack_stitcher_set_limits(t.st, 2, 0, 0);
	ut_two_waiting(&t);
	ut_event(&t, 0, P, 3);			/* P is the more recent now */
	ut_cookie(&t, 2, R, 0x700000001ULL);	/* a third: Q goes */
	ut_event(&t, 2, R, 4);
	ut_stack(&t, 0, P, K1, ut_one, 1);
	UT_SEEN(&t, 3);
	UT_EXPECT(&t, 0, 1, STACK, NONE);
	UT_EXPECT(&t, 1, 2, LOST, LIMIT);
	UT_EXPECT(&t, 2, 3, STACK, NONE);
	ut_stack(&t, 2, R, 0x700000001ULL, ut_one, 1);
	UT_EXPECT(&t, 3, 4, STACK, NONE);
	/* Q's later events track it again (P, now least recently active, goes) */
	ut_event(&t, 1, Q, 5);
	ut_stack(&t, 1, Q, K2, ut_one, 1);
	UT_EXPECT(&t, 4, 5, STACK, NONE);
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.peak_tasks == 2, "peak tasks %llu", stats.peak_tasks);
	ut_end(&t);
}

void utest_stitch_lost_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "next_cookie", test_next_cookie);
	CU_add_test(suite, "end", test_end);
	CU_add_test(suite, "missed", test_missed);
	CU_add_test(suite, "start_unknown", test_start_unknown);
	CU_add_test(suite, "many_tasks", test_many_tasks);
	CU_add_test(suite, "held_limit", test_held_limit);
	CU_add_test(suite, "held_bytes_alone", test_held_bytes_alone);
	CU_add_test(suite, "task_limit", test_task_limit);
}
