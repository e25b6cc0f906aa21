// SPDX-License-Identifier: GPL-2.0
/*
 * ustack_stitcher_add_event(): events fed by their CPU, pid and position,
 * without a record (what KernelShark's rows carry), are looked up as the
 * same events fed as records are. Traces built by hand (trace-env.h).
 */
#include <errno.h>
#include <string.h>

#include "trace-env.h"

static const struct ut_frame ut_frames[] = { { 1, 0x1127 }, { 0, 0x7ffd00 } };

enum ut_step_kind { UT_EV, UT_COOKIE, UT_STACK };

struct ut_step {
	enum ut_step_kind	kind;
	int			cpu;
	int			pid;
	unsigned long long	cookie;
	bool			missed;		/* events missed on the CPU right before */
};

/* Every state and reason a lookup gives, on two CPUs. */
static const struct ut_step ut_steps[] = {
	{ UT_EV, 0, P, 0, false },		/* before any cookie: none */
	{ UT_COOKIE, 0, P, K1, false },
	{ UT_EV, 0, P, 0, false },		/* K1's stack */
	{ UT_EV, 0, R, 0, false },		/* another task: none */
	{ UT_COOKIE, 1, Q, K2, false },
	{ UT_EV, 1, Q, 0, false },		/* lost: Q's next cookie came first */
	{ UT_EV, 0, P, 0, false },
	{ UT_EV, 1, Q, 0, true },		/* events missed: unknown */
	{ UT_STACK, 0, P, K1, false },
	{ UT_EV, 0, P, 0, false },		/* still K1 */
	{ UT_EV, 1, R, 0, false },		/* still unknown */
	{ UT_COOKIE, 1, Q, K2 + 0x200000000ULL, false },
	{ UT_EV, 1, Q, 0, false },		/* the end came first */
	{ UT_EV, 1, R, 0, false },		/* another task: none */
};

/* A stitcher with an index by timestamp and no callback. */
static bool ut_start_events(struct ut_trace *t)
{
	if (!ut_start(t, UT_FORMATS_ALL, 0))
		return false;
	ustack_stitcher_free(t->st);
	t->st = ustack_stitcher_alloc(t->tep, USTACK_STITCH_INDEX_TS, NULL, NULL);
	if (UT_CHECK(t->st, "alloc: %s", strerror(errno)))
		return true;
	ut_end(t);
	return false;
}

/* Feed the steps: the events as records, or by their fields. */
static void ut_feed(struct ut_trace *t, bool by_fields)
{
	const struct ut_step *s;
	size_t i;
	int ret;

	for (i = 0; i < UT_ARRAY_SIZE(ut_steps); i++) {
		s = &ut_steps[i];
		if (s->kind == UT_COOKIE) {
			ret = ut_cookie(t, s->cpu, s->pid, s->cookie);
		} else if (s->kind == UT_STACK) {
			ret = ut_stack(t, s->cpu, s->pid, s->cookie, ut_frames,
				       UT_ARRAY_SIZE(ut_frames));
		} else if (by_fields) {
			t->ts += 1000;
			ret = ustack_stitcher_add_event(t->st, s->cpu, s->pid, t->ts, s->missed);
		} else {
			t->missed[s->cpu] = s->missed ? -1 : 0;
			ret = ut_event(t, s->cpu, s->pid, i);
		}
		UT_CHECK(ret == 0, "step %zu (%s): %s", i, by_fields ? "fields" : "record",
			 strerror(errno));
	}
	ustack_stitcher_flush(t->st);
}

static void test_add_event_same(void)
{
	const struct ustack_info *a, *b;
	struct ut_trace rec, ev;
	unsigned int seen = 0;
	size_t i;

	if (!ut_start_events(&rec))
		return;
	if (!ut_start_events(&ev)) {
		ut_end(&rec);
		return;
	}
	ut_feed(&rec, false);
	ut_feed(&ev, true);
	for (i = 0; i < UT_ARRAY_SIZE(ut_steps); i++) {
		const struct ut_step *s = &ut_steps[i];
		unsigned long long pos = 1000 * (i + 1);

		if (s->kind != UT_EV)
			continue;
		a = ustack_stitcher_lookup(rec.st, s->cpu, s->pid, pos);
		b = ustack_stitcher_lookup(ev.st, s->cpu, s->pid, pos);
		if (!UT_CHECK(a && b, "step %zu: lookup", i))
			continue;
		seen |= 1U << b->state;
		UT_CHECK(a->state == b->state && a->lost == b->lost && a->cookie == b->cookie &&
			 !a->stack == !b->stack, "step %zu: record %d/%d/%#llx, fields %d/%d/%#llx",
			 i, a->state, a->lost, a->cookie, b->state, b->lost, b->cookie);
		if (a->stack && b->stack)
			UT_CHECK(a->stack->cookie == b->stack->cookie && b->stack->nr == 2,
				 "step %zu: stack %#llx", i, b->stack->cookie);
	}
	UT_CHECK(seen == (1U << USTACK_STATE_NONE | 1U << USTACK_STATE_STACK |
			  1U << USTACK_STATE_LOST | 1U << USTACK_STATE_UNKNOWN),
		 "states seen %#x", seen);
	ut_end(&rec);
	ut_end(&ev);
}

static void test_add_event_args(void)
{
	struct ut_trace t;

	errno = 0;
	UT_CHECK(ustack_stitcher_add_event(NULL, 0, P, 1, false) == -1 && errno == EINVAL,
		 "NULL stitcher");
	/* with a callback, events are handed back: they need their records */
	if (ut_start(&t, UT_FORMATS_ALL, USTACK_STITCH_INDEX_TS)) {
		errno = 0;
		UT_CHECK(ustack_stitcher_add_event(t.st, 0, P, 1, false) == -1 && errno == EINVAL,
			 "a stitcher with a callback");
		ut_end(&t);
	}
	if (ut_start(&t, UT_FORMATS_ALL, 0)) {
		errno = 0;
		UT_CHECK(ustack_stitcher_add_event(t.st, 0, P, 1, false) == -1 && errno == EINVAL,
			 "a stitcher without an index");
		ut_end(&t);
	}
	if (!ut_start_events(&t))
		return;
	UT_CHECK(!ustack_stitcher_add_event(t.st, 0, P, 5000, false), "add");
	errno = 0;
	UT_CHECK(ustack_stitcher_add_event(t.st, 0, P, 4000, false) == -1 && errno == EINVAL,
		 "a position going back");
	errno = 0;
	UT_CHECK(ustack_stitcher_add_event(t.st, -1, P, 6000, false) == -1 && errno == EINVAL,
		 "CPU -1");
	UT_CHECK(!ustack_stitcher_add_event(t.st, 1, P, 4000, false), "another CPU goes back");
	ut_end(&t);
}

void utest_index_event_register(void)
{
	CU_pSuite suite = CU_add_suite("index-event", NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "same", test_add_event_same);
	CU_add_test(suite, "args", test_add_event_args);
}
