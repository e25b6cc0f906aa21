// SPDX-License-Identifier: GPL-2.0
/*
 * Stitcher tests: stack entries with a next cookie, which give the task
 * that cookie on their CPU, so that its next kernel entry there needs no
 * cookie entry. The tests pick next cookies the way the kernel makes them
 * (NEXT()), but the stitcher only compares cookies.
 */
#include <errno.h>
#include <string.h>

#include "trace-env.h"

#define SUITE	"stitcher-next"

#define NEXT(k)		((k) + (2ULL << 32))

static const struct ut_frame ut_a[] = { { 0, 0x7000a } };
static const struct ut_frame ut_b[] = { { 0, 0x7000b } };
static const struct ut_frame ut_c[] = { { 0, 0x7000c } };

/* A stack entry that gives its task the next cookie on its CPU. */
static int ut_stack_next(struct ut_trace *t, int cpu, int pid, unsigned long long cookie,
			 const struct ut_frame *frames)
{
	unsigned char enc[64];
	size_t len = ut_encode(enc, frames, 1);

	return ut_add(t, cpu, ut_rec_stack_next(t->buf, pid, cookie, NEXT(cookie), 1, 0, enc, len));
}

/* P's kernel entry K1 on CPU 1: its cookie entry, event 1, its stack with next. */
static bool ut_start_k1(struct ut_trace *t)
{
	if (!ut_start(t, UT_FORMATS_ALL, 0))
		return false;
	ut_cookie(t, 1, P, K1);
	ut_event(t, 1, P, 1);
	ut_stack_next(t, 1, P, K1, ut_a);
	return true;
}

static void ut_check_stack(struct ut_trace *t, size_t i, unsigned long long cookie,
			   const char *text)
{
	if (i >= t->nr_seen)
		return;
	UT_CHECK(t->seen[i].cookie == cookie, "event %zu: cookie %#llx, want %#llx", i,
		 t->seen[i].cookie, cookie);
	UT_CHECK_STR(t->seen[i].text, text);
}

/* A task in a system call loop on CPU 1: one cookie entry, then stacks only. */
static void test_loop(void)
{
	struct ut_trace t;

	if (!ut_start_k1(&t))
		return;
	ut_event(&t, 1, P, 2);
	ut_event(&t, 1, P, 3);
	UT_SEEN(&t, 1);
	ut_stack_next(&t, 1, P, NEXT(K1), ut_b);
	ut_event(&t, 1, P, 4);
	ut_stack_next(&t, 1, P, NEXT(NEXT(K1)), ut_c);
	UT_SEEN(&t, 4);
	UT_EXPECT(&t, 0, 1, STACK, NONE);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	UT_EXPECT(&t, 2, 3, STACK, NONE);
	UT_EXPECT(&t, 3, 4, STACK, NONE);
	ut_check_stack(&t, 0, K1, "  => 0x7000a\n");
	ut_check_stack(&t, 1, NEXT(K1), "  => 0x7000b\n");
	ut_check_stack(&t, 2, NEXT(K1), "  => 0x7000b\n");
	ut_check_stack(&t, 3, NEXT(NEXT(K1)), "  => 0x7000c\n");
	ut_end(&t);
}

/*
 * Events of the task work after the stack entry belong to its entry: the
 * kernel writes the cookie entry again for them, and they get the stack at
 * once. The next entry, its cookie said again, waits for its own.
 */
static void test_task_work(void)
{
	struct ut_trace t;

	if (!ut_start_k1(&t))
		return;
	ut_cookie(&t, 1, P, K1);
	ut_event(&t, 1, P, 2);
	UT_SEEN(&t, 2);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	ut_check_stack(&t, 1, K1, "  => 0x7000a\n");
	ut_cookie(&t, 1, P, NEXT(K1));
	ut_event(&t, 1, P, 3);
	UT_SEEN(&t, 2);
	ut_stack_next(&t, 1, P, NEXT(K1), ut_b);
	UT_SEEN(&t, 3);
	ut_check_stack(&t, 2, NEXT(K1), "  => 0x7000b\n");
	ut_end(&t);
}

/* Another pid after the stack entry carries no cookie; the task's stays. */
static void test_other_pid(void)
{
	struct ut_trace t;

	if (!ut_start_k1(&t))
		return;
	ut_event(&t, 1, R, 2);
	ut_event(&t, 1, P, 3);
	ut_stack_next(&t, 1, P, NEXT(K1), ut_b);
	UT_SEEN(&t, 3);
	UT_EXPECT(&t, 1, 2, NONE, NONE);
	UT_EXPECT(&t, 2, 3, STACK, NONE);
	ut_check_stack(&t, 2, NEXT(K1), "  => 0x7000b\n");
	ut_end(&t);
}

/*
 * The task runs an entry on CPU 2 in between; back on CPU 1, the cookie the
 * stack entry there gave it still holds (no other cookie was made there).
 */
static void test_back_to_cpu(void)
{
	struct ut_trace t;

	if (!ut_start_k1(&t))
		return;
	ut_cookie(&t, 2, P, K2);
	ut_event(&t, 2, P, 2);
	ut_stack_next(&t, 2, P, K2, ut_b);
	ut_event(&t, 1, P, 3);
	UT_SEEN(&t, 2);
	ut_stack_next(&t, 1, P, NEXT(K1), ut_c);
	UT_SEEN(&t, 3);
	ut_check_stack(&t, 1, K2, "  => 0x7000b\n");
	UT_EXPECT(&t, 2, 3, STACK, NONE);
	ut_check_stack(&t, 2, NEXT(K1), "  => 0x7000c\n");
	ut_end(&t);
}

/*
 * Events missed on a CPU: unknown until a stack entry there says the
 * cookie again. A stack entry too short to read makes the CPU unknown: it
 * may have said one.
 */
static void test_missed_and_cut(void)
{
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_cookie(&t, 1, P, K1);
	t.missed[1] = 5;
	ut_event(&t, 1, P, 1);
	ut_stack_next(&t, 1, P, K1, ut_a);
	ut_event(&t, 1, P, 2);
	ut_stack_next(&t, 1, P, NEXT(K1), ut_b);
	ut_add(&t, 1, ut_rec_stack_next(t.buf, P, NEXT(NEXT(K1)), NEXT(NEXT(NEXT(K1))), 0, 0,
					 NULL, 0) - 16);
	ut_event(&t, 1, P, 3);
	UT_SEEN(&t, 3);
	UT_EXPECT(&t, 0, 1, UNKNOWN, NONE);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	ut_check_stack(&t, 1, NEXT(K1), "  => 0x7000b\n");
	UT_EXPECT(&t, 2, 3, UNKNOWN, NONE);
	ut_end(&t);
}

/* next 0: the stack entry says nothing about the CPU. */
static void test_no_next(void)
{
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_cookie(&t, 1, P, K1);
	ut_event(&t, 1, P, 1);
	ut_stack(&t, 1, P, K1, ut_a, 1);
	/* the task work of K1, traced: K1's stack */
	ut_event(&t, 1, P, 2);
	UT_SEEN(&t, 2);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	ut_check_stack(&t, 1, K1, "  => 0x7000a\n");
	ut_end(&t);
}

/*
 * The next cookie is whatever the entry says: the stitcher never computes
 * one from another (a stack written on another CPU than its cookie's).
 */
static void test_any_next(void)
{
	const unsigned long long next = 0x7770000000bULL;
	unsigned char enc[64];
	size_t len = ut_encode(enc, ut_a, 1);
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_cookie(&t, 2, P, K1);
	ut_event(&t, 2, P, 1);
	ut_add(&t, 3, ut_rec_stack_next(t.buf, P, K1, next, 1, 0, enc, len));
	ut_event(&t, 3, P, 2);
	ut_stack(&t, 3, P, next, ut_b, 1);
	UT_SEEN(&t, 2);
	UT_EXPECT(&t, 0, 1, STACK, NONE);
	ut_check_stack(&t, 0, K1, "  => 0x7000a\n");
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	ut_check_stack(&t, 1, next, "  => 0x7000b\n");
	ut_end(&t);
}

/* The i-th event handed back is an entry of that type, with no cookie. */
static void ut_check_none(struct ut_trace *t, size_t i, int type)
{
	if (i >= t->nr_seen)
		return;
	UT_CHECK(t->seen[i].type == type && t->seen[i].state == USTACK_STATE_NONE &&
		 !t->seen[i].cookie, "event %zu: type %d state %d cookie %#llx, want type %d, none",
		 i, t->seen[i].type, t->seen[i].state, t->seen[i].cookie, type);
}

/*
 * Entries of ftrace with no cookie of their own (kernel_stack, func_repeats)
 * after a stack entry that gave the task its next cookie: handed back at once
 * without one, and the task stays at its entry, so the events of its task
 * work (a cookie entry of K1 again) still get K1's stack. A print entry (a
 * trace_marker line) carries the cookie like any event. On the next entry,
 * a kernel_stack entry after a print waits behind it, still without a cookie.
 */
static void test_no_cookie_entries(void)
{
	unsigned long long kstack[] = { 0xffffffff81000410ULL };
	struct ut_trace t;

	if (!ut_start_k1(&t))
		return;
	UT_SEEN(&t, 1);
	ut_add(&t, 1, ut_rec_kernel_stack(t.buf, P, 1, kstack, 1));
	ut_add(&t, 1, ut_rec_repeats(t.buf, P, 2));
	UT_SEEN(&t, 3);
	ut_check_none(&t, 1, UT_ID_KSTACK);
	ut_check_none(&t, 2, UT_ID_REPEATS);
	UT_EXPECT(&t, 2, 2, NONE, NONE);

	ut_cookie(&t, 1, P, K1);
	ut_event(&t, 1, P, 3);
	ut_add(&t, 1, ut_rec_print(t.buf, P, 4, "marker\n"));
	UT_SEEN(&t, 5);
	UT_EXPECT(&t, 3, 3, STACK, NONE);
	UT_EXPECT(&t, 4, 4, STACK, NONE);
	ut_check_stack(&t, 3, K1, "  => 0x7000a\n");
	ut_check_stack(&t, 4, K1, "  => 0x7000a\n");
	if (t.nr_seen > 4)
		UT_CHECK(t.seen[4].type == UT_ID_PRINT, "event 4: type %d", t.seen[4].type);

	ut_cookie(&t, 1, P, K2);
	ut_add(&t, 1, ut_rec_print(t.buf, P, 5, "marker\n"));
	ut_add(&t, 1, ut_rec_kernel_stack(t.buf, P, 1, kstack, 1));
	UT_SEEN(&t, 5);
	ut_stack_next(&t, 1, P, K2, ut_b);
	UT_SEEN(&t, 7);
	UT_EXPECT(&t, 5, 5, STACK, NONE);
	ut_check_stack(&t, 5, K2, "  => 0x7000b\n");
	ut_check_none(&t, 6, UT_ID_KSTACK);
	ut_end(&t);
}

/*
 * The rule of test_no_cookie_entries asked by id: the ftrace entries without
 * a cookie and the three carry none, function, print and tracepoints carry
 * one; the same in a trace without the option (the rule of the event).
 */
static void test_event_has_cookie(void)
{
	static const struct {
		int	id;
		int	want;
	} ids[] = {
		{ UT_ID_FUNCTION, 1 }, { UT_ID_KSTACK, 0 }, { UT_ID_PRINT, 1 },
		{ UT_ID_REPEATS, 0 }, { UT_ID_COOKIE, 0 }, { UT_ID_STACK, 0 }, { UT_ID_FILE, 0 },
		{ UT_ID_GETPPID, 1 }, { 0, 1 }, { 65535, 1 },
	};
	static const enum ut_formats which[] = { UT_FORMATS_ALL, UT_FORMATS_NO_USTACK };
	struct ustack_stitcher *st;
	struct tep_handle *tep;
	unsigned int i, j;
	int got;

	for (i = 0; i < UT_ARRAY_SIZE(which); i++) {
		tep = utest_tep(which[i]);
		st = tep ? ustack_stitcher_alloc(tep, 0, ut_callback, NULL) : NULL;
		if (!UT_CHECK(st, "formats %u: %s", which[i], strerror(errno))) {
			tep_free(tep);
			continue;
		}
		for (j = 0; j < UT_ARRAY_SIZE(ids); j++) {
			/* without the option, the three are ids of no event */
			if (which[i] == UT_FORMATS_NO_USTACK &&
			    ids[j].id >= UT_ID_COOKIE && ids[j].id <= UT_ID_FILE)
				continue;
			got = ustack_stitcher_event_has_cookie(st, ids[j].id);
			UT_CHECK(got == ids[j].want, "formats %u, id %d: %d, want %d", which[i],
				 ids[j].id, got, ids[j].want);
		}
		errno = 0;
		UT_CHECK(ustack_stitcher_event_has_cookie(st, -1) == -1 && errno == EINVAL,
			 "id -1: errno %d", errno);
		ustack_stitcher_free(st);
		tep_free(tep);
	}
	errno = 0;
	UT_CHECK(ustack_stitcher_event_has_cookie(NULL, UT_ID_FUNCTION) == -1 && errno == EINVAL,
		 "NULL stitcher: errno %d", errno);
}

void utest_stitch_next_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "loop", test_loop);
	CU_add_test(suite, "task_work", test_task_work);
	CU_add_test(suite, "other_pid", test_other_pid);
	CU_add_test(suite, "back_to_cpu", test_back_to_cpu);
	CU_add_test(suite, "missed_and_cut", test_missed_and_cut);
	CU_add_test(suite, "no_next", test_no_next);
	CU_add_test(suite, "any_next", test_any_next);
	CU_add_test(suite, "no_cookie_entries", test_no_cookie_entries);
	CU_add_test(suite, "event_has_cookie", test_event_has_cookie);
}
