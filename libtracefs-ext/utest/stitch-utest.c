// SPDX-License-Identifier: GPL-2.0
/*
 * Stitcher tests: events and stacks that arrive as the kernel writes them,
 * on one CPU or several, for one task or several; the raw view; stopping.
 * Traces are built by hand (trace-env.h); the tag of an event is the ip
 * field of its function event, to tell the order it was handed back in.
 */
#include <errno.h>
#include <string.h>

#include "trace-env.h"

#define SUITE	"stitcher"

static const struct ut_frame ut_sample[] = {
	{ 1, 0x1127 }, { 1, 0x1150 }, { 2, 0x11b9 }, { 0, 0x7ffd0000 }, { 2, 0x1000 },
};
static const char ut_sample_text[] =
	"  => /lib/libsample.so+0x1127\n"
	"  => /lib/libsample.so+0x1150\n"
	"  => /usr/bin/sample+0x11b9\n"
	"  => 0x7ffd0000\n"
	"  => /usr/bin/sample+0x1000\n";

static void ut_sample_files(struct ut_trace *t, int cpu)
{
	ut_file(t, cpu, 1, "/lib/libsample.so");
	ut_file(t, cpu, 2, "/usr/bin/sample");
}

static int ut_never(struct tep_event *event, struct tep_record *record, int cpu,
		    const struct ustack_info *info, void *context)
{
	(void)event, (void)record, (void)cpu, (void)info, (void)context;
	return 0;
}

static void test_alloc_args(void)
{
	struct tep_handle *tep = utest_tep(UT_FORMATS_ALL), *part;
	struct ut_stats stats;
	unsigned long long v;
	struct ustack_stitcher *st;
	struct tep_record rec = { 0 };

	if (!tep)
		return;
#define CHECK_ERR(call, err) do { \
	errno = 0; \
	UT_CHECK(!(call) && errno == (err), "%s: want errno %d, got %d", #call, err, errno); \
} while (0)
	CHECK_ERR(ustack_stitcher_alloc(NULL, 0, ut_never, NULL), EINVAL);
	CHECK_ERR(ustack_stitcher_alloc(tep, 0, NULL, NULL), EINVAL);
	CHECK_ERR(ustack_stitcher_alloc(tep, 0x80, ut_never, NULL), EINVAL);
	part = utest_tep(UT_FORMATS_COOKIE_ONLY);
	if (part)
		CHECK_ERR(ustack_stitcher_alloc(part, 0, ut_never, NULL), EPROTO);
	tep_free(part);
#undef CHECK_ERR

	st = ustack_stitcher_alloc(tep, USTACK_STITCH_RAW, ut_never, NULL);
	if (UT_CHECK(st, "alloc: %s", strerror(errno))) {
		errno = 0;
		UT_CHECK(ustack_stitcher_add(NULL, &rec, 0) == -1 && errno == EINVAL, "add(NULL)");
		errno = 0;
		UT_CHECK(ustack_stitcher_add(st, NULL, 0) == -1 && errno == EINVAL, "add(rec NULL)");
		errno = 0;
		UT_CHECK(ustack_stitcher_add(st, &rec, -1) == -1 && errno == EINVAL, "cpu -1");
		errno = 0;
		UT_CHECK(ustack_stitcher_add(st, &rec, 1 << 20) == -1 && errno == EINVAL, "cpu 2^20");
		/* no data at all: an event of no known type */
		UT_CHECK(ustack_stitcher_add(st, &rec, 3) == 0, "empty record");
		UT_CHECK(ustack_stitcher_flush(NULL) == -1 && errno == EINVAL, "flush(NULL)");
		UT_CHECK(ustack_stitcher_get_stat(st, USTACK_STAT_EVENTS, 0, NULL) == -1 &&
			 errno == EINVAL, "get_stat(NULL)");
		errno = 0;
		UT_CHECK(ustack_stitcher_get_stat(NULL, USTACK_STAT_EVENTS, 0, &v) == -1 &&
			 errno == EINVAL, "get_stat(NULL stitcher)");
		errno = 0;
		UT_CHECK(ustack_stitcher_get_stat(st, USTACK_STAT_LOST, UT_LOST_NR, &v) == -1 &&
			 errno == EINVAL, "a lost reason past the last");
		errno = 0;
		v = 1;
		UT_CHECK(!ustack_stitcher_get_stat(st, USTACK_STAT_STATE, USTACK_STATE_PENDING,
						   &v) && !v, "every state has a count: pending 0");
		errno = 0;
		UT_CHECK(ustack_stitcher_get_stat(st, USTACK_STAT_STATE, USTACK_STATE_PENDING + 1,
						  &v) == -1 && errno == EINVAL, "a state past the last");
		errno = 0;
		UT_CHECK(ustack_stitcher_get_stat(st, USTACK_STAT_EVENTS, 1, &v) == -1 &&
			 errno == EINVAL, "an index for a plain counter");
		errno = 0;
		UT_CHECK(ustack_stitcher_get_stat(st, (enum ustack_stat)999, 0, &v) == -1 &&
			 errno == EINVAL, "a counter of a newer library");
		UT_CHECK(ustack_stitcher_set_limits(NULL, 1, 1, 1) == -1, "limits(NULL)");
		if (UT_CHECK(!ut_get_stats(st, &stats), "stats"))
			UT_CHECK(stats.events == 1 && stats.states[USTACK_STATE_NONE] == 1,
				 "the empty record not handed back as an event without a stack");
	}
	ustack_stitcher_free(st);
	ustack_stitcher_free(NULL);
	tep_free(tep);
}

/* A trace of a kernel without the option: every event goes through, as it comes. */
static void test_pass_through(void)
{
	struct ut_stats stats;
	struct ut_trace t;
	int i;

	if (!ut_start(&t, UT_FORMATS_NO_USTACK, 0))
		return;
	for (i = 0; i < 10; i++) {
		ut_event(&t, i % 2, P, i);
		UT_SEEN(&t, i + 1);
		UT_EXPECT(&t, i, i, NONE, NONE);
	}
	/* what would be a cookie entry is an event of unknown type here */
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 10);
	UT_SEEN(&t, 12);
	UT_EXPECT(&t, 11, 10, NONE, NONE);
	UT_CHECK(t.seen[10].type == -1, "a type the tep does not know has an event");
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.peak_held == 0 && stats.peak_tasks == 0, "something was held");
	ut_end(&t);
}

/* The kernel's order: cookie, events, file, stack, all on one CPU. */
static void test_in_order(void)
{
	struct ut_stats stats;
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_cookie(&t, 1, P, K1);
	ut_event(&t, 1, P, 1);
	ut_event(&t, 1, P, 2);
	UT_SEEN(&t, 0);
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.held == 2 && stats.tasks == 1, "held %llu, tasks %llu", stats.held,
		 stats.tasks);
	ut_sample_files(&t, 1);
	ut_stack(&t, 1, P, K1, ut_sample, 5);
	UT_SEEN(&t, 2);
	UT_EXPECT(&t, 0, 1, STACK, NONE);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	if (t.nr_seen == 2) {
		UT_CHECK_STR(t.seen[0].text, ut_sample_text);
		UT_CHECK_STR(t.seen[1].text, ut_sample_text);
		UT_CHECK(t.seen[0].cookie == K1 && t.seen[0].pid == P && t.seen[0].cpu == 1 &&
			 t.seen[0].nr == 5, "cookie %#llx pid %d cpu %d nr %u", t.seen[0].cookie,
			 t.seen[0].pid, t.seen[0].cpu, t.seen[0].nr);
	}
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.held == 0 && stats.held_bytes == 0 && stats.stacks == 1 &&
		 stats.stacks_unmatched == 0 && stats.states[USTACK_STATE_STACK] == 2,
		 "stats: held %llu bytes %llu stacks %llu", stats.held, stats.held_bytes,
		 stats.stacks);
	UT_CHECK(!ustack_stitcher_flush(t.st), "flush");
	UT_SEEN(&t, 2);
	ut_end(&t);
}

/* Events on CPU 0, the task migrates, its stack comes on CPU 2. */
static void test_cross_cpu(void)
{
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	/* on CPU 2 the same entry says its cookie again */
	ut_cookie(&t, 2, P, K1);
	ut_event(&t, 2, P, 2);
	ut_event(&t, 0, R, 3);
	ut_sample_files(&t, 2);
	UT_SEEN(&t, 0);
	ut_stack(&t, 2, P, K1, ut_sample, 5);
	UT_SEEN(&t, 3);
	UT_EXPECT(&t, 0, 1, STACK, NONE);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	UT_EXPECT(&t, 2, 3, NONE, NONE);
	if (t.nr_seen == 3)
		UT_CHECK(t.seen[0].cpu == 0 && t.seen[1].cpu == 2, "cpus %d %d", t.seen[0].cpu,
			 t.seen[1].cpu);
	ut_end(&t);
}

/* Events of an entry after its stack (its task work traced) get it at once. */
static void test_after_stack(void)
{
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_cookie(&t, 0, P, K1);
	ut_sample_files(&t, 0);
	ut_stack(&t, 0, P, K1, ut_sample, 5);
	UT_SEEN(&t, 0);
	ut_event(&t, 0, P, 1);
	UT_SEEN(&t, 1);
	UT_EXPECT(&t, 0, 1, STACK, NONE);
	/* on another CPU too, once it says the cookie there */
	ut_cookie(&t, 1, P, K1);
	ut_event(&t, 1, P, 2);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	if (t.nr_seen == 2)
		UT_CHECK_STR(t.seen[1].text, ut_sample_text);
	/* the next entry of the task waits for its own stack */
	ut_cookie(&t, 1, P, K2);
	ut_event(&t, 1, P, 3);
	UT_SEEN(&t, 2);
	ustack_stitcher_flush(t.st);
	UT_EXPECT(&t, 2, 3, LOST, END);
	ut_end(&t);
}

/* Two tasks on two CPUs: the output stays in input order, each with its stack. */
static void test_two_tasks(void)
{
	static const struct ut_frame q_frames[] = { { 2, 0x2000 }, { 2, 0x1f00 } };
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_sample_files(&t, 0);
	ut_two_waiting(&t);
	ut_event(&t, 0, P, 3);
	ut_event(&t, 1, Q, 4);
	/* Q's stack first: its events are still behind P's first one */
	ut_stack(&t, 1, Q, K2, q_frames, 2);
	UT_SEEN(&t, 0);
	ut_stack(&t, 3, P, K1, ut_sample, 5);
	UT_SEEN(&t, 4);
	UT_EXPECT(&t, 0, 1, STACK, NONE);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	UT_EXPECT(&t, 2, 3, STACK, NONE);
	UT_EXPECT(&t, 3, 4, STACK, NONE);
	if (t.nr_seen == 4) {
		UT_CHECK_STR(t.seen[0].text, ut_sample_text);
		UT_CHECK_STR(t.seen[1].text, "  => /usr/bin/sample+0x2000\n"
					     "  => /usr/bin/sample+0x1f00\n");
		UT_CHECK(t.seen[1].cookie == K2 && t.seen[3].cookie == K2, "Q's cookie");
	}
	ut_end(&t);
}

/*
 * Another pid after a cookie entry on the CPU carries no cookie (a kernel
 * thread), nor does the task after its cookie 0; both queue behind held events.
 */
static void test_other_pid_cookie0(void)
{
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_event(&t, 0, P, 1);			/* no cookie entry yet */
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 2);
	ut_event(&t, 0, R, 3);			/* another pid */
	ut_cookie(&t, 1, Q, K2);
	ut_event(&t, 1, Q, 4);
	ut_cookie(&t, 1, Q, 0);			/* Q: no cookie from here */
	ut_event(&t, 1, Q, 5);
	UT_SEEN(&t, 1);
	UT_EXPECT(&t, 0, 1, NONE, NONE);
	ut_stack(&t, 0, P, K1, ut_sample, 2);
	UT_SEEN(&t, 5);
	UT_EXPECT(&t, 1, 2, STACK, NONE);
	UT_EXPECT(&t, 2, 3, NONE, NONE);
	UT_EXPECT(&t, 3, 4, LOST, NEXT_COOKIE);
	UT_EXPECT(&t, 4, 5, NONE, NONE);
	/* the late stack of Q finds nobody */
	ut_stack(&t, 1, Q, K2, ut_sample, 2);
	{
		struct ut_stats stats;

		ut_get_stats(t.st, &stats);
		UT_CHECK(stats.stacks == 2 && stats.stacks_unmatched == 1, "stacks %llu/%llu",
			 stats.stacks, stats.stacks_unmatched);
		UT_CHECK(stats.tasks == 1, "tasks %llu, want 1 (Q forgotten at its cookie 0)",
			 stats.tasks);
	}
	ut_end(&t);
}

/* The raw view: the entries themselves, in order, stacks decoded. */
static void test_raw(void)
{
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, USTACK_STITCH_RAW))
		return;
	ut_cookie(&t, 0, P, K1);
	UT_SEEN(&t, 1);
	ut_event(&t, 0, P, 1);
	ut_file(&t, 0, 1, "/lib/libsample.so");
	ut_file(&t, 0, 2, "/usr/bin/sample");
	UT_SEEN(&t, 1);
	ut_stack(&t, 0, P, K1, ut_sample, 5);
	UT_SEEN(&t, 5);
	if (t.nr_seen == 5) {
		UT_CHECK(t.seen[0].type == UT_ID_COOKIE && t.seen[0].state == USTACK_STATE_RAW &&
			 t.seen[0].cookie == K1, "cookie entry");
		UT_EXPECT(&t, 1, 1, STACK, NONE);
		UT_CHECK(t.seen[2].type == UT_ID_FILE && t.seen[2].state == USTACK_STATE_RAW,
			 "file entry");
		UT_CHECK(t.seen[3].type == UT_ID_FILE, "file entry");
		UT_CHECK(t.seen[4].type == UT_ID_STACK && t.seen[4].state == USTACK_STATE_RAW &&
			 t.seen[4].cookie == K1, "stack entry");
		UT_CHECK_STR(t.seen[4].text, ut_sample_text);
	}
	/* a stack nobody waits for is still decoded for the raw view */
	ut_stack(&t, 1, Q, K2, ut_sample, 1);
	if (UT_SEEN(&t, 6))
		UT_CHECK_STR(t.seen[5].text, "  => /lib/libsample.so+0x1127\n");
	ut_end(&t);
}

/* A callback that asks to stop: the rest stays held for the next call. */
static void test_stop(void)
{
	struct ut_stats stats;
	struct ut_trace t;
	int i;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	t.stop_at = 2;
	ut_cookie(&t, 0, P, K1);
	for (i = 1; i <= 4; i++)
		ut_event(&t, 0, P, i);
	UT_CHECK(ut_stack(&t, 0, P, K1, ut_sample, 1) == 1, "add did not say stop");
	UT_SEEN(&t, 2);
	/* stopped: a ready event queues behind the rest */
	t.stop_at = 3;
	UT_CHECK(ut_event(&t, 1, R, 5) == 1, "add did not say stop");
	UT_SEEN(&t, 3);
	t.stop_at = 0;
	UT_CHECK(ustack_stitcher_flush(t.st) == 0, "flush");
	UT_SEEN(&t, 5);
	for (i = 0; i < 4; i++)
		UT_EXPECT(&t, i, i + 1, STACK, NONE);
	UT_EXPECT(&t, 4, 5, NONE, NONE);
	ut_get_stats(t.st, &stats);
	UT_CHECK(stats.held == 0 && stats.events == 5, "held %llu, events %llu", stats.held,
		 stats.events);
	ut_end(&t);
}

/* Flush starts over: no CPU, task or file state survives it. */
static void test_flush_restart(void)
{
	struct ut_trace t;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ut_file(&t, 0, 1, "/lib/libsample.so");
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 1);
	ustack_stitcher_flush(t.st);
	ut_event(&t, 0, P, 2);
	ut_cookie(&t, 0, P, K1);
	ut_event(&t, 0, P, 3);
	ut_stack(&t, 0, P, K1, ut_sample, 1);
	UT_SEEN(&t, 3);
	UT_EXPECT(&t, 0, 1, LOST, END);
	UT_EXPECT(&t, 1, 2, NONE, NONE);
	UT_EXPECT(&t, 2, 3, STACK, NONE);
	if (t.nr_seen == 3)
		UT_CHECK_STR(t.seen[2].text, "  => file#1+0x1127\n");
	ut_end(&t);
}

static const size_t ut_extra[] = { 0, 400, 0, 0, 1000, 8, 0, 300, 0 };

struct ut_sizes {
	size_t	base;		/* the size of a function event */
	size_t	nr;		/* events handed back */
	size_t	bad;		/* of those, not as they were fed */
};

/* The i-th event is base + ut_extra[i] bytes, its padding all bytes i. */
static int ut_check_size(struct tep_event *event, struct tep_record *record, int cpu,
			 const struct ustack_info *info, void *context)
{
	struct ut_sizes *sz = context;
	const unsigned char *data = record->data;
	size_t i = sz->nr++, j;

	(void)event, (void)cpu;
	if (i >= UT_ARRAY_SIZE(ut_extra) || info->state != USTACK_STATE_STACK ||
	    (size_t)record->size != sz->base + ut_extra[i]) {
		sz->bad++;
		return 0;
	}
	for (j = sz->base; j < (size_t)record->size; j++) {
		if (data[j] != i) {
			sz->bad++;
			break;
		}
	}
	return 0;
}

/* Events of every size held in turn (the memory of one reused for the next), each whole. */
static void test_held_sizes(void)
{
	struct ut_sizes sz = { 0 };
	struct ut_trace t;
	size_t i, size;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ustack_stitcher_free(t.st);
	t.st = ustack_stitcher_alloc(t.tep, 0, ut_check_size, &sz);
	if (!UT_CHECK(t.st, "ustack_stitcher_alloc: %s", strerror(errno))) {
		ut_end(&t);
		return;
	}
	ut_sample_files(&t, 0);
	for (i = 0; i < UT_ARRAY_SIZE(ut_extra); i++) {
		/* one kernel entry per event: each is held until its stack */
		ut_cookie(&t, 0, P, K1 + 2 * i);
		size = ut_rec_event(t.buf, P, i + 1);
		sz.base = size;
		memset(t.buf + size, (int)i, ut_extra[i]);
		ut_add(&t, 0, size + ut_extra[i]);
		ut_stack(&t, 0, P, K1 + 2 * i, ut_sample, 5);
	}
	UT_CHECK(sz.nr == UT_ARRAY_SIZE(ut_extra) && !sz.bad, "%zu events back, %zu wrong",
		 sz.nr, sz.bad);
	ut_end(&t);
}

static int ut_keep(struct tep_event *event, struct tep_record *record, int cpu,
		   const struct ustack_info *info, void *context)
{
	const struct ustack_stack **kept = context;

	(void)event, (void)record, (void)cpu;
	if (info->stack && !*kept)
		*kept = ustack_stack_get(info->stack);
	return 0;
}

/* A stack kept past the callback outlives the stitcher, paths and build-ids with it. */
static void test_stack_kept(void)
{
	const struct ustack_stack *kept = NULL;
	char text[512];
	struct ut_trace t;
	int len;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ustack_stitcher_free(t.st);
	t.st = ustack_stitcher_alloc(t.tep, 0, ut_keep, &kept);
	if (!UT_CHECK(t.st, "ustack_stitcher_alloc: %s", strerror(errno))) {
		ut_end(&t);
		return;
	}
	ut_cookie(&t, 0, P, K1);
	ut_sample_files(&t, 0);
	ut_event(&t, 0, P, 1);
	ut_stack(&t, 0, P, K1, ut_sample, 5);
	/* the files are named again: the kept stack still has the old ones */
	ut_file(&t, 0, 1, "/lib/other.so");
	ut_file(&t, 0, 2, "/usr/bin/other");
	ustack_stitcher_flush(t.st);
	ut_end(&t);
	if (!UT_CHECK(kept, "no stack was handed back"))
		return;
	UT_CHECK(kept->nr == 5 && kept->cookie == K1, "nr %u cookie %llx", kept->nr,
		 kept->cookie);
	len = ustack_stack_format(kept, NULL, text, sizeof(text));
	if (UT_CHECK(len > 0, "ustack_stack_format: %d", len))
		UT_CHECK_STR(text, ut_sample_text);
	UT_CHECK(ustack_stack_get(kept) == kept, "ustack_stack_get returns its stack");
	ustack_stack_put(kept);
	ustack_stack_put(kept);
	ustack_stack_put(NULL);
}

/* The shared library exports the control and stitcher API, and none of its insides. */
static void test_exports(void)
{
	static const char * const api[] = {
		"ustack_option_is_supported", "ustack_option_enable", "ustack_option_disable",
		"ustack_option_is_enabled", "ustack_stitcher_alloc", "ustack_stitcher_free",
		"ustack_stitcher_set_limits", "ustack_stitcher_add", "ustack_stitcher_flush",
		"ustack_stitcher_get_stat", "ustack_stitch_instance", "ustack_stitch_tracecmd",
		"ustack_frame_format", "ustack_stack_format", "ustack_stack_get", "ustack_stack_put",
		"ustack_stack_fold", "ustack_file_table_alloc", "ustack_file_table_free",
		"ustack_file_table_set", "ustack_frames_decode", "ustack_stitcher_lookup",
		"ustack_stitcher_feed_instance", "ustack_stitcher_feed_tracecmd",
		"ustack_layout_alloc", "ustack_layout_free", "ustack_layout_set_event",
		"ustack_layout_set_field", "ustack_layout_set_big_endian",
		"ustack_stitcher_alloc_layout", "ustack_stitcher_add_data",
		"ustack_stitcher_add_event", "ustack_trace_open",
	};
	static const char * const hidden[] = {
		"ustack_uleb128", "ustack_stack_decode", "ustack_files_set", "ustack_rec_read",
		"ustack_task_add", "ustack_hand_back", "ustack_on_event", "ustack_run_record",
		"ustack_index_note", "ustack_index_reserve", "ustack_stitcher_new",
		"ustack_run_end", "ustack_entry_set_stack", "ustack_frameset_find",
	};
	utest_check_exports(api, UT_ARRAY_SIZE(api), hidden, UT_ARRAY_SIZE(hidden));
}

void utest_stitch_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "alloc_args", test_alloc_args);
	CU_add_test(suite, "pass_through", test_pass_through);
	CU_add_test(suite, "in_order", test_in_order);
	CU_add_test(suite, "cross_cpu", test_cross_cpu);
	CU_add_test(suite, "after_stack", test_after_stack);
	CU_add_test(suite, "two_tasks", test_two_tasks);
	CU_add_test(suite, "other_pid_cookie0", test_other_pid_cookie0);
	CU_add_test(suite, "raw", test_raw);
	CU_add_test(suite, "stop", test_stop);
	CU_add_test(suite, "flush_restart", test_flush_restart);
	CU_add_test(suite, "held_sizes", test_held_sizes);
	CU_add_test(suite, "stack_kept", test_stack_kept);
	CU_add_test(suite, "exports", test_exports);
}
