// SPDX-License-Identifier: GPL-2.0
/*
 * A stitcher without a tep handle (ustack_stitcher_alloc_layout()), fed
 * records as bytes (ustack_stitcher_add_data()): what a tool with its own
 * ring buffer reader and format parser uses. The same records give the same
 * lookups as through a tep stitcher; big endian records; a layout refused
 * when incomplete; and the whole path from a file that has only ustack.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "header-alone.h"
#include "trace-env.h"

static const struct ut_frame ut_frames[] = { { 1, 0x1127 }, { 1, 0x1150 }, { 0, 0x7ffd00 } };

static const char * const ut_events[] = {
	"user_unwind_cookie", "user_unwind_stack", "user_unwind_file",
};

static const char * const ut_fields[][5] = {
	{ "cookie" },
	{ "cookie", "next", "nr", "flags", "frames" },
	{ "id", "build_id_size", "build_id", "path" },
};

/* A layout with every offset and id taken from the tep, as an importer takes them from format files. */
static struct ustack_layout *ut_layout_from(struct tep_handle *tep, bool with_events)
{
	struct ustack_layout *layout = ustack_layout_alloc();
	struct tep_format_field *f;
	struct tep_event *event;
	bool ok = layout != NULL;
	unsigned int i, j;

	event = tep_find_event_by_name(tep, "ftrace", "user_unwind_cookie");
	f = event ? tep_find_common_field(event, "common_type") : NULL;
	ok &= f && !ustack_layout_set_field(layout, NULL, "common_type", f->offset, f->size);
	f = event ? tep_find_common_field(event, "common_pid") : NULL;
	ok &= f && !ustack_layout_set_field(layout, NULL, "common_pid", f->offset, f->size);
	for (i = 0; with_events && i < 3; i++) {
		event = tep_find_event_by_name(tep, "ftrace", ut_events[i]);
		ok &= event && !ustack_layout_set_event(layout, ut_events[i], event->id);
		for (j = 0; ok && j < 5 && ut_fields[i][j]; j++) {
			f = tep_find_field(event, ut_fields[i][j]);
			ok &= f && !ustack_layout_set_field(layout, ut_events[i], ut_fields[i][j],
							    f->offset, f->size);
		}
	}
	if (!UT_CHECK(ok, "layout from the tep")) {
		ustack_layout_free(layout);
		return NULL;
	}
	return layout;
}

/* A record of the trace: its CPU and bytes. */
struct ut_rec {
	int		cpu;
	int		pid;
	bool		event;
	bool		missed;
	size_t		size;
	unsigned char	data[128];
};

/* The trace: P on CPU 0 and 1, its stack on 1; Q lost at the end; missed events on CPU 1. */
static size_t ut_records(struct ut_rec *r)
{
	unsigned char enc[32];
	size_t n = 0, len;

#define REC(c, p, ev, call) \
	(r[n].cpu = (c), r[n].pid = (p), r[n].event = (ev), r[n].missed = false, \
	 r[n].size = call, n++)
	REC(0, P, false, ut_rec_cookie(r[n].data, P, K1));
	REC(0, P, true, ut_rec_event(r[n].data, P, 1));
	REC(1, Q, false, ut_rec_cookie(r[n].data, Q, K2));
	REC(1, Q, true, ut_rec_event(r[n].data, Q, 2));
	REC(0, R, true, ut_rec_event(r[n].data, R, 3));
	REC(1, P, false, ut_rec_file(r[n].data, P, 1, 20, "/lib/libsample.so"));
	len = ut_encode(enc, ut_frames, UT_ARRAY_SIZE(ut_frames));
	REC(1, P, false, ut_rec_stack(r[n].data, P, K1, 3, 0, enc, len));
	REC(0, P, true, ut_rec_event(r[n].data, P, 4));
	REC(1, R, true, ut_rec_event(r[n].data, R, 5));
	r[n - 1].missed = true;
#undef REC
	return n;
}

/* Swap the numbers of a record made by ut_rec_*() (little endian) in place. */
static void ut_swap(unsigned char *d, size_t at, size_t size)
{
	unsigned char t;
	size_t i;

	for (i = 0; i < size / 2; i++) {
		t = d[at + i];
		d[at + i] = d[at + size - 1 - i];
		d[at + size - 1 - i] = t;
	}
}

static void ut_big_endian(struct ut_rec *r)
{
	unsigned int type = r->data[0] | r->data[1] << 8;

	ut_swap(r->data, 0, 2);
	ut_swap(r->data, 4, 4);
	if (type == UT_ID_COOKIE) {
		ut_swap(r->data, 8, 8);
	} else if (type == UT_ID_STACK) {
		ut_swap(r->data, 8, 8);
		ut_swap(r->data, 16, 8);
		ut_swap(r->data, 24, 2);
		ut_swap(r->data, 26, 2);
	} else if (type == UT_ID_FILE) {
		ut_swap(r->data, 8, 4);
		ut_swap(r->data, 12, 4);
	}
}

/* Feed the records to a layout stitcher and a tep one; every event looks up the same. */
static void ut_compare(bool big_endian)
{
	struct tep_handle *tep = utest_tep(UT_FORMATS_ALL);
	struct ustack_stitcher *st = NULL, *ref = NULL;
	struct ustack_layout *layout = NULL;
	const struct ustack_info *a, *b;
	struct tep_record rec;
	struct ut_rec r[16];
	size_t n, i;
	int stacks = 0;

	if (!tep)
		return;
	layout = ut_layout_from(tep, true);
	if (!layout || (big_endian && !UT_CHECK(!ustack_layout_set_big_endian(layout, true), "BE")))
		goto out;
	st = ustack_stitcher_alloc_layout(layout, USTACK_STITCH_INDEX_TS, NULL, NULL);
	ref = ustack_stitcher_alloc(tep, USTACK_STITCH_INDEX_TS, NULL, NULL);
	if (!UT_CHECK(st && ref, "alloc: %s", strerror(errno)))
		goto out;
	/* the stitcher has its copy */
	ustack_layout_free(layout);
	layout = NULL;

	n = ut_records(r);
	for (i = 0; i < n; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.ts = 1000 * (i + 1);
		rec.data = r[i].data;
		rec.size = r[i].size;
		rec.missed_events = r[i].missed;
		rec.ref_count = 1;
		UT_CHECK(!ustack_stitcher_add(ref, &rec, r[i].cpu), "add %zu", i);
		if (big_endian)
			ut_big_endian(&r[i]);
		UT_CHECK(!ustack_stitcher_add_data(st, r[i].cpu, rec.ts, 0, r[i].data, r[i].size,
						   r[i].missed), "add_data %zu: %s", i,
			 strerror(errno));
	}
	ustack_stitcher_flush(st);
	ustack_stitcher_flush(ref);
	for (i = 0; i < n; i++) {
		if (!r[i].event)
			continue;
		a = ustack_stitcher_lookup(st, r[i].cpu, r[i].pid, 1000 * (i + 1));
		b = ustack_stitcher_lookup(ref, r[i].cpu, r[i].pid, 1000 * (i + 1));
		if (!UT_CHECK(a && b, "lookup %zu", i))
			continue;
		UT_CHECK(a->state == b->state && a->lost == b->lost && a->cookie == b->cookie,
			 "event %zu: %d/%d/%#llx, with the tep %d/%d/%#llx", i, a->state, a->lost,
			 a->cookie, b->state, b->lost, b->cookie);
		if (a->state == USTACK_STATE_STACK && b->state == USTACK_STATE_STACK) {
			stacks++;
			UT_CHECK(a->stack->nr == 3 && a->stack->frames[1].offset == 0x1150 &&
				 a->stack->frames[0].path &&
				 !strcmp(a->stack->frames[0].path, "/lib/libsample.so"),
				 "event %zu: the stack", i);
		}
	}
	UT_CHECK(stacks == 2, "%d events with a stack, want 2", stacks);
	a = ustack_stitcher_lookup(st, 1, R, 9000);
	UT_CHECK(a && a->state == USTACK_STATE_UNKNOWN, "missed events: state %d",
		 a ? (int)a->state : -1);
out:
	ustack_layout_free(layout);
	ustack_stitcher_free(st);
	ustack_stitcher_free(ref);
	tep_free(tep);
}

static void test_layout_same(void)
{
	ut_compare(false);
}

static void test_layout_big_endian(void)
{
	ut_compare(true);
}

/* A layout of the common fields only: a trace without the option, every event passes. */
static void test_layout_pass_through(void)
{
	struct tep_handle *tep = utest_tep(UT_FORMATS_ALL);
	struct ustack_layout *layout;
	struct ustack_stitcher *st;
	struct ut_trace t;
	unsigned char buf[64];
	size_t size;

	if (!tep)
		return;
	layout = ut_layout_from(tep, false);
	tep_free(tep);
	if (!layout)
		return;
	memset(&t, 0, sizeof(t));
	st = ustack_stitcher_alloc_layout(layout, 0, ut_callback, &t);
	ustack_layout_free(layout);
	if (!UT_CHECK(st, "alloc: %s", strerror(errno)))
		return;
	size = ut_rec_cookie(buf, P, K1);
	UT_CHECK(!ustack_stitcher_add_data(st, 0, 1000, 0, buf, size, false), "cookie");
	size = ut_rec_event(buf, P, 1);
	UT_CHECK(!ustack_stitcher_add_data(st, 0, 2000, 0, buf, size, false), "event");
	UT_CHECK(t.nr_seen == 2 && t.seen[0].state == USTACK_STATE_NONE &&
		 t.seen[1].state == USTACK_STATE_NONE && t.seen[1].type == -1,
		 "%zu handed back, without an event", t.nr_seen);
	ustack_stitcher_free(st);
	free(t.seen);
}

/*
 * An ftrace entry without a cookie named in the layout: a kernel_stack entry
 * of P, on the CPU whose cookie entry says K1 for P, is handed back without
 * a cookie; the func_repeats entry, not named, as any event (with K1).
 */
static void test_layout_nocookie(void)
{
	static const unsigned long long kstack[] = { 0xffffffff81000410ULL };
	struct tep_handle *tep = utest_tep(UT_FORMATS_ALL);
	struct ustack_layout *layout;
	struct ustack_stitcher *st;
	unsigned char buf[128], enc[32];
	struct ut_trace t;
	size_t size, len;

	if (!tep)
		return;
	layout = ut_layout_from(tep, true);
	tep_free(tep);
	if (!layout)
		return;
	UT_CHECK(!ustack_layout_set_event(layout, "kernel_stack", UT_ID_KSTACK), "kernel_stack");
	memset(&t, 0, sizeof(t));
	st = ustack_stitcher_alloc_layout(layout, 0, ut_callback, &t);
	ustack_layout_free(layout);
	if (!UT_CHECK(st, "alloc: %s", strerror(errno)))
		return;
	/* the rule by id: the entries named, the three; func_repeats is not named */
	UT_CHECK(ustack_stitcher_event_has_cookie(st, UT_ID_KSTACK) == 0, "kernel_stack: a cookie");
	UT_CHECK(ustack_stitcher_event_has_cookie(st, UT_ID_STACK) == 0, "user_unwind_stack");
	UT_CHECK(ustack_stitcher_event_has_cookie(st, UT_ID_REPEATS) == 1, "func_repeats: none");
	UT_CHECK(ustack_stitcher_event_has_cookie(st, UT_ID_GETPPID) == 1, "getppid: none");
	size = ut_rec_cookie(buf, P, K1);
	ustack_stitcher_add_data(st, 0, 1000, 0, buf, size, false);
	size = ut_rec_kernel_stack(buf, P, 1, kstack, 1);
	ustack_stitcher_add_data(st, 0, 2000, 0, buf, size, false);
	size = ut_rec_repeats(buf, P, 7);
	ustack_stitcher_add_data(st, 0, 3000, 0, buf, size, false);
	len = ut_encode(enc, ut_frames, UT_ARRAY_SIZE(ut_frames));
	size = ut_rec_stack(buf, P, K1, 3, 0, enc, len);
	ustack_stitcher_add_data(st, 0, 4000, 0, buf, size, false);
	UT_CHECK(t.nr_seen == 2, "%zu handed back, want 2", t.nr_seen);
	if (t.nr_seen == 2) {
		UT_CHECK(t.seen[0].state == USTACK_STATE_NONE && !t.seen[0].cookie,
			 "kernel_stack: state %d cookie %#llx", t.seen[0].state, t.seen[0].cookie);
		UT_CHECK(t.seen[1].state == USTACK_STATE_STACK && t.seen[1].cookie == K1,
			 "func_repeats: state %d cookie %#llx", t.seen[1].state, t.seen[1].cookie);
	}
	ustack_stitcher_free(st);
	free(t.seen);
}

static void test_layout_args(void)
{
	struct ustack_layout *layout = ustack_layout_alloc();
	struct tep_handle *tep;
	struct ustack_stitcher *st;

	if (!UT_CHECK(layout, "alloc"))
		return;
#define CHECK_ERR(call) do { \
	errno = 0; \
	UT_CHECK((call) == -1 && errno == EINVAL, "%s: errno %d", #call, errno); \
} while (0)
	CHECK_ERR(ustack_layout_set_event(NULL, "user_unwind_stack", 21));
	CHECK_ERR(ustack_layout_set_event(layout, "sys_enter_getppid", 21));
	CHECK_ERR(ustack_layout_set_event(layout, NULL, 21));
	CHECK_ERR(ustack_layout_set_event(layout, "user_unwind_stack", -1));
	CHECK_ERR(ustack_layout_set_event(layout, "kernel_stack", -1));
	CHECK_ERR(ustack_layout_set_event(NULL, "kernel_stack", 4));
	CHECK_ERR(ustack_layout_set_event(layout, "function", 1));
	CHECK_ERR(ustack_layout_set_field(NULL, NULL, "common_pid", 4, 4));
	CHECK_ERR(ustack_layout_set_field(layout, NULL, "common_flags", 2, 1));
	CHECK_ERR(ustack_layout_set_field(layout, NULL, "common_pid", 4, 9));
	CHECK_ERR(ustack_layout_set_field(layout, "user_unwind_stack", "common_pid", 4, 4));
	CHECK_ERR(ustack_layout_set_field(layout, "user_unwind_stack", "cookie", 8, 4));
	CHECK_ERR(ustack_layout_set_field(layout, "user_unwind_stack", "nr", 24, 4));
	CHECK_ERR(ustack_layout_set_field(layout, "user_unwind_file", "next", 16, 8));
	CHECK_ERR(ustack_layout_set_field(layout, "user_unwind_file", NULL, 16, 8));
	CHECK_ERR(ustack_layout_set_big_endian(NULL, true));
#undef CHECK_ERR
	errno = 0;
	UT_CHECK(!ustack_stitcher_alloc_layout(NULL, 0, ut_callback, NULL) && errno == EINVAL,
		 "NULL layout");
	errno = 0;
	UT_CHECK(!ustack_stitcher_alloc_layout(layout, 0, ut_callback, NULL) && errno == EINVAL,
		 "no common fields");
	ustack_layout_free(layout);

	/* complete: taken; not without a callback nor an index */
	tep = utest_tep(UT_FORMATS_ALL);
	layout = tep ? ut_layout_from(tep, true) : NULL;
	tep_free(tep);
	if (!layout)
		return;
	st = ustack_stitcher_alloc_layout(layout, USTACK_STITCH_INDEX_OFFSET, NULL, NULL);
	UT_CHECK(st, "complete: %s", strerror(errno));
	ustack_stitcher_free(st);
	errno = 0;
	UT_CHECK(!ustack_stitcher_alloc_layout(layout, 0, NULL, NULL) && errno == EINVAL,
		 "no callback and no index");
	/* a stitcher without a tep reads no instance */
	st = ustack_stitcher_alloc_layout(layout, USTACK_STITCH_INDEX_OFFSET, NULL, NULL);
	errno = 0;
	UT_CHECK(st && ustack_stitcher_feed_instance(st, NULL) == -1 && errno == EINVAL,
		 "feed_instance without a tep");
	errno = 0;
	UT_CHECK(st && ustack_stitcher_add_data(st, 0, 0, 0, NULL, 4, false) == -1 &&
		 errno == EINVAL, "add_data: NULL data with a size");
	ustack_stitcher_free(st);
	ustack_layout_free(layout);
	layout = ustack_layout_alloc();
	if (!layout)
		return;
	ustack_layout_set_field(layout, NULL, "common_type", 0, 2);
	ustack_layout_set_field(layout, NULL, "common_pid", 4, 4);
	ustack_layout_set_event(layout, "user_unwind_cookie", 20);
	ustack_layout_set_field(layout, "user_unwind_cookie", "cookie", 8, 8);
	errno = 0;
	UT_CHECK(!ustack_stitcher_alloc_layout(layout, 0, ut_callback, NULL) && errno == EINVAL,
		 "one event of three");
	ustack_layout_free(layout);
	ustack_layout_free(NULL);
}

/* The same from a file built with only ustack.h: layout, feeding, lookup, fold. */
static void test_layout_header_alone(void)
{
	struct ut_rec r[16];
	const void *data[16];
	size_t size[16];
	int cpu[16];
	char buf[256];
	size_t n, i;
	int ret;

	n = ut_records(r);
	for (i = 0; i < n; i++) {
		data[i] = r[i].data;
		size[i] = r[i].size;
		cpu[i] = r[i].cpu;
	}
	/* the last event of P (record 7, on CPU 0), and Q's, lost at the end */
	ret = utest_alone_lookup(data, size, cpu, n, 0, P, 7, buf, sizeof(buf));
	UT_CHECK(ret == USTACK_STATE_STACK, "state %d", ret);
	UT_CHECK_STR(buf, "[unknown];[libsample.so];[libsample.so]");
	ret = utest_alone_lookup(data, size, cpu, n, 1, Q, 3, buf, sizeof(buf));
	UT_CHECK(ret == USTACK_STATE_LOST, "state %d", ret);
}

void utest_layout_register(void)
{
	CU_pSuite suite = CU_add_suite("stitch-layout", NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "same", test_layout_same);
	CU_add_test(suite, "big_endian", test_layout_big_endian);
	CU_add_test(suite, "pass_through", test_layout_pass_through);
	CU_add_test(suite, "nocookie", test_layout_nocookie);
	CU_add_test(suite, "args", test_layout_args);
	CU_add_test(suite, "header_alone", test_layout_header_alone);
}
