// SPDX-License-Identifier: GPL-2.0
/*
 * The stitcher's index (USTACK_STITCH_INDEX_TS, _OFFSET) and
 * ustack_stitcher_lookup(): what an event carries, asked after its record
 * was added, in any order; runs of events kept, not events; one stack
 * shared by all events of a kernel entry. Traces built by hand (trace-env.h),
 * whose records are 1000 ns apart: an event's position is its timestamp.
 */
#include <errno.h>
#include <string.h>

#include "trace-env.h"

static const struct ut_frame ut_frames[] = { { 1, 0x1127 }, { 1, 0x1150 }, { 0, 0x7ffd00 } };

/* A trace whose stitcher has an index, and a callback only when asked for. */
static bool ut_start_index(struct ut_trace *t, unsigned int flags, bool callback)
{
	if (!ut_start(t, UT_FORMATS_ALL, callback ? flags : 0))
		return false;
	if (callback)
		return true;
	ustack_stitcher_free(t->st);
	t->st = ustack_stitcher_alloc(t->tep, flags, NULL, NULL);
	if (UT_CHECK(t->st, "alloc without a callback: %s", strerror(errno)))
		return true;
	ut_end(t);
	return false;
}

/* The event just added: its position. */
static unsigned long long ut_ev(struct ut_trace *t, int cpu, int pid, unsigned long long tag)
{
	UT_CHECK(ut_event(t, cpu, pid, tag) == 0, "add event %llu: %s", tag, strerror(errno));
	return t->ts;
}

static unsigned long long ut_stat(struct ustack_stitcher *st, enum ustack_stat what)
{
	unsigned long long v = ~0ULL;

	ustack_stitcher_get_stat(st, what, 0, &v);
	return v;
}

#define UT_LOOKUP(t, cpu, pid, pos, want_state, want_lost) ({ \
	const struct ustack_info *__i = ustack_stitcher_lookup((t)->st, cpu, pid, pos); \
	UT_CHECK(__i && __i->state == USTACK_STATE_##want_state && \
		 __i->lost == USTACK_LOST_##want_lost, \
		 "lookup(%d, %d, %llu): state %d lost %d, want " #want_state " " #want_lost, \
		 cpu, pid, (unsigned long long)(pos), __i ? (int)__i->state : -1, \
		 __i ? (int)__i->lost : -1); \
	__i; \
})

/*
 * One kernel entry of P, its events on two CPUs, with events of R (no
 * cookie) in between: pending until the stack comes, then all with the one
 * stack; two runs kept for 200 events.
 */
static void test_index_pending(void)
{
	unsigned long long p0[100], p1[100], r[100];
	const struct ustack_info *a, *b;
	struct ut_trace t;
	int i;

	if (!ut_start_index(&t, USTACK_STITCH_INDEX_TS, false))
		return;
	ut_cookie(&t, 0, P, K1);
	ut_cookie(&t, 1, P, K1);
	for (i = 0; i < 100; i++) {
		p0[i] = ut_ev(&t, 0, P, i);
		r[i] = ut_ev(&t, 0, R, 1000 + i);
		p1[i] = ut_ev(&t, 1, P, 2000 + i);
	}
	UT_LOOKUP(&t, 0, P, p0[50], PENDING, NONE);
	UT_LOOKUP(&t, 1, P, p1[99], PENDING, NONE);
	UT_LOOKUP(&t, 0, R, r[50], NONE, NONE);
	UT_CHECK_ULL(ut_stat(t.st, USTACK_STAT_HELD), 0);

	ut_file(&t, 1, 1, "/lib/libsample.so");
	ut_stack(&t, 1, P, K1, ut_frames, UT_ARRAY_SIZE(ut_frames));
	a = UT_LOOKUP(&t, 0, P, p0[0], STACK, NONE);
	b = UT_LOOKUP(&t, 1, P, p1[99], STACK, NONE);
	if (a && b && a->stack && b->stack) {
		UT_CHECK(a->stack == b->stack, "the events of one entry share its stack");
		UT_CHECK(a->stack->nr == 3 && a->cookie == K1, "nr %u cookie %#llx",
			 a->stack->nr, a->cookie);
		UT_CHECK_STR(a->stack->frames[0].path, "/lib/libsample.so");
	}
	for (i = 0; i < 100; i += 7) {
		UT_LOOKUP(&t, 0, P, p0[i], STACK, NONE);
		UT_LOOKUP(&t, 0, R, r[i], NONE, NONE);
		UT_LOOKUP(&t, 1, P, p1[i], STACK, NONE);
	}
	UT_CHECK_ULL(ut_stat(t.st, USTACK_STAT_INDEX_SPANS), 2);
	UT_CHECK(ut_stat(t.st, USTACK_STAT_INDEX_BYTES) < 32 * 1024, "index bytes %llu",
		 ut_stat(t.st, USTACK_STAT_INDEX_BYTES));
	/* positions never added, CPUs never seen */
	UT_LOOKUP(&t, 0, P, 1, NONE, NONE);
	UT_LOOKUP(&t, 0, P, p1[99] + 1, NONE, NONE);
	UT_LOOKUP(&t, 7, P, p0[3], NONE, NONE);
	ut_end(&t);
}

/* Lost to the task's next cookie, and to the end of the input; unknown after missed events. */
static void test_index_lost(void)
{
	unsigned long long e1, e2, e3, e4, e5;
	const struct ustack_info *info;
	struct ut_trace t;

	if (!ut_start_index(&t, USTACK_STITCH_INDEX_TS, false))
		return;
	ut_cookie(&t, 0, P, K1);
	e1 = ut_ev(&t, 0, P, 1);
	ut_cookie(&t, 0, P, K1 + 0x200000000ULL);
	e2 = ut_ev(&t, 0, P, 2);
	info = UT_LOOKUP(&t, 0, P, e1, LOST, NEXT_COOKIE);
	if (info)
		UT_CHECK_ULL(info->cookie, K1);
	UT_LOOKUP(&t, 0, P, e2, PENDING, NONE);

	/* events missed on CPU 1: every task's events there unknown until a cookie entry */
	t.missed[1] = 5;
	e3 = ut_ev(&t, 1, Q, 3);
	e4 = ut_ev(&t, 1, R, 4);
	ut_cookie(&t, 1, Q, K2);
	e5 = ut_ev(&t, 1, Q, 5);
	UT_LOOKUP(&t, 1, Q, e3, UNKNOWN, NONE);
	UT_LOOKUP(&t, 1, R, e4, UNKNOWN, NONE);
	UT_LOOKUP(&t, 1, Q, e5, PENDING, NONE);

	/* the info of a lookup is updated as the input goes on */
	info = ustack_stitcher_lookup(t.st, 1, Q, e5);
	UT_CHECK(!ustack_stitcher_flush(t.st), "flush");
	UT_CHECK(info && info->state == USTACK_STATE_LOST && info->lost == USTACK_LOST_END,
		 "after the flush: state %d lost %d", info ? (int)info->state : -1,
		 info ? (int)info->lost : -1);
	UT_LOOKUP(&t, 0, P, e2, LOST, END);
	UT_LOOKUP(&t, 0, P, e1, LOST, NEXT_COOKIE);
	ut_end(&t);
}

/*
 * One CPU switching between two tasks with cookies: the runs do not overlap,
 * and an event of P that carried no cookie (the CPU said R's) between two
 * runs of P's one entry stays without one.
 */
static void test_index_switch(void)
{
	unsigned long long p1, r1, pn, p2, r2;
	const struct ustack_info *a, *b;
	struct ut_trace t;

	if (!ut_start_index(&t, USTACK_STITCH_INDEX_TS, false))
		return;
	ut_cookie(&t, 0, P, K1);
	p1 = ut_ev(&t, 0, P, 1);
	ut_cookie(&t, 0, R, K2);
	r1 = ut_ev(&t, 0, R, 2);
	pn = ut_ev(&t, 0, P, 3);
	ut_cookie(&t, 0, P, K1);
	p2 = ut_ev(&t, 0, P, 4);
	ut_cookie(&t, 0, R, K2);
	r2 = ut_ev(&t, 0, R, 5);
	UT_CHECK_ULL(ut_stat(t.st, USTACK_STAT_INDEX_SPANS), 4);
	ut_file(&t, 1, 1, "/lib/libsample.so");
	ut_stack(&t, 1, P, K1, ut_frames, 2);
	a = UT_LOOKUP(&t, 0, P, p1, STACK, NONE);
	b = UT_LOOKUP(&t, 0, P, p2, STACK, NONE);
	UT_CHECK(a == b, "the events of one entry have the one info");
	UT_LOOKUP(&t, 0, P, pn, NONE, NONE);
	UT_LOOKUP(&t, 0, R, r1, PENDING, NONE);
	UT_LOOKUP(&t, 0, R, r2, PENDING, NONE);
	UT_LOOKUP(&t, 0, R, p1, NONE, NONE);
	ut_end(&t);
}

/* With a callback too: what it is handed is what a lookup says. */
static void test_index_callback(void)
{
	unsigned long long pos[4];
	struct ut_trace t;
	size_t i;

	if (!ut_start_index(&t, USTACK_STITCH_INDEX_TS, true))
		return;
	ut_cookie(&t, 0, P, K1);
	pos[0] = ut_ev(&t, 0, P, 1);
	ut_cookie(&t, 1, Q, K2);
	pos[1] = ut_ev(&t, 1, Q, 2);
	pos[2] = ut_ev(&t, 0, R, 3);
	ut_file(&t, 1, 1, "/lib/libsample.so");
	ut_stack(&t, 1, P, K1, ut_frames, 2);
	t.missed[0] = 1;
	pos[3] = ut_ev(&t, 0, P, 4);
	UT_SEEN(&t, 1);
	UT_LOOKUP(&t, 1, Q, pos[1], PENDING, NONE);
	ustack_stitcher_flush(t.st);
	UT_SEEN(&t, 4);
	for (i = 0; i < t.nr_seen && i < 4; i++) {
		const struct ustack_info *info = ustack_stitcher_lookup(t.st, t.seen[i].cpu,
									t.seen[i].pid, pos[i]);

		UT_CHECK(info && info->state == t.seen[i].state && info->lost == t.seen[i].lost,
			 "event %zu: handed back %d/%d, looked up %d/%d", i, t.seen[i].state,
			 t.seen[i].lost, info ? (int)info->state : -1, info ? (int)info->lost : -1);
	}
	ut_end(&t);
}

/* Misuse: no index, a CPU out of range, going back on a CPU, wrong flags. */
static void test_index_args(void)
{
	struct tep_handle *tep = utest_tep(UT_FORMATS_ALL);
	unsigned long long v, e1;
	struct ustack_stitcher *st;
	struct ut_trace t;

	if (!tep)
		return;
#define CHECK_NULL(call) do { \
	errno = 0; \
	UT_CHECK(!(call) && errno == EINVAL, "%s: errno %d", #call, errno); \
} while (0)
	CHECK_NULL(ustack_stitcher_alloc(tep, 0, NULL, NULL));
	CHECK_NULL(ustack_stitcher_alloc(tep, USTACK_STITCH_INDEX_TS | USTACK_STITCH_INDEX_OFFSET,
					 ut_callback, NULL));
	CHECK_NULL(ustack_stitcher_alloc(tep, USTACK_STITCH_INDEX_TS | USTACK_STITCH_RAW, NULL,
					 NULL));
	st = ustack_stitcher_alloc(tep, 0, ut_callback, NULL);
	if (UT_CHECK(st, "alloc"))
		CHECK_NULL(ustack_stitcher_lookup(st, 0, P, 0));
	ustack_stitcher_free(st);
	tep_free(tep);
	CHECK_NULL(ustack_stitcher_lookup(NULL, 0, P, 0));

	if (!ut_start_index(&t, USTACK_STITCH_INDEX_TS, false))
		return;
	CHECK_NULL(ustack_stitcher_lookup(t.st, -1, P, 0));
	CHECK_NULL(ustack_stitcher_lookup(t.st, 1 << 20, P, 0));
	ut_cookie(&t, 0, P, K1);
	e1 = ut_ev(&t, 0, P, 1);
	/* a record before the CPU's last event is refused, and changes nothing */
	t.ts = e1 - 2000;
	errno = 0;
	UT_CHECK(ut_event(&t, 0, R, 2) == -1 && errno == EINVAL, "going back: errno %d", errno);
	UT_CHECK(!ustack_stitcher_get_stat(t.st, USTACK_STAT_INDEX_SPANS, 0, &v) && v == 1,
		 "spans %llu", v);
	/* the same position again is fine */
	t.ts = e1 - 1000;
	UT_CHECK(ut_event(&t, 0, P, 3) == 0, "the same position again");
	UT_LOOKUP(&t, 0, P, e1, PENDING, NONE);
	ut_end(&t);
#undef CHECK_NULL
}

/*
 * Many kernel entries of many tasks, by offset: the index grows by runs
 * (over a chunk of them), every lookup finds its own entry.
 */
static void test_index_many(void)
{
	enum { N = 600 };
	static unsigned long long pos[N];
	struct tep_record rec;
	struct ut_trace t;
	bool ok = true;
	int i;

	if (!ut_start_index(&t, USTACK_STITCH_INDEX_OFFSET, false))
		return;
	ut_file(&t, 0, 1, "/lib/libsample.so");
	for (i = 0; i < N; i++) {
		size_t size;

		/* task 1000 + i, cookie i + 1, one event, its stack right away */
		memset(&rec, 0, sizeof(rec));
		rec.data = t.buf;
		rec.ref_count = 1;
		rec.ts = 1000 + i;
		rec.offset = 4096 + 100 * i;
		rec.size = ut_rec_cookie(t.buf, 1000 + i, (unsigned long long)(i + 1) << 32);
		ok &= !ustack_stitcher_add(t.st, &rec, 0);
		rec.offset += 30;
		rec.size = ut_rec_event(t.buf, 1000 + i, i);
		ok &= !ustack_stitcher_add(t.st, &rec, 0);
		pos[i] = rec.offset;
		if (i % 3 == 0) {
			unsigned char enc[32];

			size = ut_encode(enc, ut_frames, 1 + i % 2);
			rec.offset += 30;
			rec.size = ut_rec_stack(t.buf, 1000 + i, (unsigned long long)(i + 1) << 32,
						1 + i % 2, 0, enc, size);
			ok &= !ustack_stitcher_add(t.st, &rec, 0);
		}
	}
	UT_CHECK(ok, "records added");
	UT_CHECK_ULL(ut_stat(t.st, USTACK_STAT_INDEX_SPANS), N);
	for (i = N - 1; i >= 0; i--) {
		const struct ustack_info *info = ustack_stitcher_lookup(t.st, 0, 1000 + i, pos[i]);

		if (!info || info->cookie != (unsigned long long)(i + 1) << 32 ||
		    info->state != (i % 3 ? USTACK_STATE_PENDING : USTACK_STATE_STACK) ||
		    (!(i % 3) && info->stack->nr != (unsigned int)(1 + i % 2))) {
			UT_CHECK(0, "event %d: state %d", i, info ? (int)info->state : -1);
			break;
		}
		/* another task at the same position, the record before */
		if (ustack_stitcher_lookup(t.st, 0, 999, pos[i])->state != USTACK_STATE_NONE ||
		    ustack_stitcher_lookup(t.st, 0, 1000 + i, pos[i] - 30)->state !=
		    USTACK_STATE_NONE) {
			UT_CHECK(0, "event %d: found for another task or position", i);
			break;
		}
	}
	ut_end(&t);
}

void utest_index_register(void)
{
	CU_pSuite suite = CU_add_suite("stitch-index", NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "pending", test_index_pending);
	CU_add_test(suite, "lost", test_index_lost);
	CU_add_test(suite, "switch", test_index_switch);
	CU_add_test(suite, "callback", test_index_callback);
	CU_add_test(suite, "args", test_index_args);
	CU_add_test(suite, "many", test_index_many);
}
