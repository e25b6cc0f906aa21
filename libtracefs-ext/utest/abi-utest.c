// SPDX-License-Identifier: GPL-2.0
/*
 * The accessors of LIBTRACEFS_EXT_1.1 (review [9]): a stack's frames by
 * index, checked against its number of frames, and words for any lost
 * reason, a newer library's included; and that they are exported at 1.1,
 * not 1.0. How a stack was found, in words, at 1.2 (issue 37).
 * tests/host/abi-1.0.sh runs a program built against the 1.0 header.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "trace-env.h"

#define SUITE	"abi"

static void test_stack_frame(void)
{
	static const struct ut_frame frames[] = { { 1, 0x5000 }, { 0, 0x7ffd00 }, { 1, 0x4000 } };
	struct ustack_file_table *table = ustack_file_table_alloc();
	const struct ustack_stack *s, *none = NULL;
	const struct ustack_frame *f;
	unsigned char enc[64];
	unsigned int i;
	size_t len;

	if (!UT_CHECK(table, "alloc") ||
	    !UT_CHECK(!ustack_file_table_set(table, 1, "/lib/a.so", NULL, 0), "set 1"))
		goto out;
	len = ut_encode(enc, frames, UT_ARRAY_SIZE(frames));
	s = ustack_frames_decode(enc, len, UT_ARRAY_SIZE(frames), 0, table);
	if (!UT_CHECK(s, "decode: %s", strerror(errno)))
		goto out;
	UT_CHECK(ustack_stack_nr_frames(s) == 3, "%d frames, want 3", ustack_stack_nr_frames(s));
	for (i = 0; i < 3; i++) {
		f = ustack_stack_frame(s, i);
		if (UT_CHECK(f == &s->frames[i], "frame %u: %p, want %p", i, (void *)f,
			     (void *)&s->frames[i]))
			UT_CHECK(f->offset == frames[i].offset, "frame %u: offset %#llx", i,
				 f->offset);
	}
	errno = 0;
	UT_CHECK(!ustack_stack_frame(s, 3) && errno == EINVAL, "frame 3 of 3");
	errno = 0;
	UT_CHECK(!ustack_stack_frame(s, UINT_MAX) && errno == EINVAL, "frame UINT_MAX");
	errno = 0;
	UT_CHECK(!ustack_stack_frame(NULL, 0) && errno == EINVAL, "frame of NULL");
	errno = 0;
	UT_CHECK(ustack_stack_nr_frames(NULL) == -1 && errno == EINVAL, "frames of NULL");
	ustack_stack_put(s);

	/* a stack the kernel could not walk has no frame 0 */
	none = ustack_frames_decode(enc, 0, 0, USTACK_STACK_NO_STACK, table);
	if (UT_CHECK(none, "decode an empty stack: %s", strerror(errno))) {
		UT_CHECK(ustack_stack_nr_frames(none) == 0, "%d frames, want 0",
			 ustack_stack_nr_frames(none));
		errno = 0;
		UT_CHECK(!ustack_stack_frame(none, 0) && errno == EINVAL, "frame 0 of none");
	}
	ustack_stack_put(none);
out:
	ustack_file_table_free(table);
}

static void test_lost_name(void)
{
	static const int unknown[] = { USTACK_LOST_LIMIT + 1, 999, -1, INT_MAX };
	const char *names[UT_LOST_NR];
	unsigned int i, j;

	for (i = 0; i < UT_LOST_NR; i++) {
		names[i] = ustack_lost_name((enum ustack_lost)i);
		if (!UT_CHECK(names[i] && names[i][0], "reason %u has no words", i))
			return;
		for (j = 0; j < i; j++)
			UT_CHECK(strcmp(names[i], names[j]), "reasons %u and %u: \"%s\"", j, i,
				 names[i]);
	}
	UT_CHECK_STR(ustack_lost_name(USTACK_LOST_END), "the trace ended first");
	/* a newer library's reason, or garbage: words still, not one of the known */
	for (i = 0; i < UT_ARRAY_SIZE(unknown); i++) {
		const char *name = ustack_lost_name((enum ustack_lost)unknown[i]);

		if (!UT_CHECK(name && name[0], "reason %d has no words", unknown[i]))
			continue;
		for (j = 0; j < UT_LOST_NR; j++)
			UT_CHECK(strcmp(name, names[j]), "reason %d reads as %u", unknown[i], j);
	}
}

/*
 * The kernel's method bits reach the stack through both decoders (the
 * stitcher's records and ustack_frames_decode()), and read as the kernel's
 * text output names them: a stack resting on frame pointers says "fp".
 */
static void test_stack_method(void)
{
	static const struct {
		unsigned int	flags;
		const char	*method;
	} cases[] = {
		{ 0, "unknown" },
		{ USTACK_STACK_NO_STACK, "unknown" },
		{ USTACK_STACK_FP, "fp" },
		{ USTACK_STACK_SFRAME, "sframe" },
		{ USTACK_STACK_FP | USTACK_STACK_SFRAME, "sframe+fp" },
		{ USTACK_STACK_FP | USTACK_STACK_SFRAME | USTACK_STACK_TRUNCATED, "sframe+fp" },
		{ USTACK_STACK_FP | 0x40 /* not a flag: dropped */, "fp" },
	};
	static const struct ut_frame frames[] = { { 1, 0x5000 }, { 1, 0x4000 } };
	const struct ustack_stack *s;
	unsigned char enc[64];
	unsigned int i, want;
	size_t len;

	UT_CHECK(USTACK_STACK_FP == 0x4 && USTACK_STACK_SFRAME == 0x8,
		 "the kernel's bits: fp %#x, sframe %#x", USTACK_STACK_FP, USTACK_STACK_SFRAME);
	len = ut_encode(enc, frames, UT_ARRAY_SIZE(frames));
	for (i = 0; i < UT_ARRAY_SIZE(cases); i++) {
		s = ustack_frames_decode(enc, len, UT_ARRAY_SIZE(frames), cases[i].flags, NULL);
		if (!UT_CHECK(s, "decode %#x: %s", cases[i].flags, strerror(errno)))
			continue;
		want = cases[i].flags & (USTACK_STACK_TRUNCATED | USTACK_STACK_NO_STACK |
					 USTACK_STACK_FP | USTACK_STACK_SFRAME);
		UT_CHECK(s->flags == want, "flags %#x kept as %#x, want %#x", cases[i].flags,
			 s->flags, want);
		UT_CHECK_STR(ustack_stack_method(s), cases[i].method);
		ustack_stack_put(s);
	}
	errno = 0;
	UT_CHECK(!ustack_stack_method(NULL) && errno == EINVAL, "method of NULL");
}

/* The same bits through a stitcher: an event's stack found by frame pointers and SFrame. */
static void test_stitched_method(void)
{
	static const struct ut_frame frames[] = { { 1, 0x1127 }, { 1, 0x1150 } };
	const unsigned int flags = USTACK_STACK_FP | USTACK_STACK_SFRAME;
	unsigned char enc[64];
	struct ut_trace t;
	size_t len;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	len = ut_encode(enc, frames, UT_ARRAY_SIZE(frames));
	ut_cookie(&t, 0, 100, 0x101);
	ut_event(&t, 0, 100, 1);
	ut_file(&t, 0, 1, "/lib/libsample.so");
	ut_add(&t, 0, ut_rec_stack(t.buf, 100, 0x101, UT_ARRAY_SIZE(frames), flags, enc, len));
	if (UT_CHECK(t.nr_seen == 1, "%zu events handed back, want 1", t.nr_seen))
		UT_CHECK(t.seen[0].state == USTACK_STATE_STACK && t.seen[0].flags == flags,
			 "state %d flags %#x, want a stack with %#x", t.seen[0].state,
			 t.seen[0].flags, flags);
	ut_end(&t);
}

/* The accessors are at LIBTRACEFS_EXT_1.1, which a 1.0 program never asks for. */
static void test_exports(void)
{
	static const char * const api[] = {
		"ustack_stack_nr_frames", "ustack_stack_frame", "ustack_lost_name",
		"ustack_stitcher_event_has_cookie",
	};
	void *lib = dlopen(UTEST_SO_PATH, RTLD_NOW | RTLD_LOCAL);
	unsigned int i;

	if (!UT_CHECK(lib, "dlopen %s: %s", UTEST_SO_PATH, dlerror()))
		return;
	for (i = 0; i < UT_ARRAY_SIZE(api); i++)
		UT_CHECK(dlvsym(lib, api[i], "LIBTRACEFS_EXT_1.1") &&
			 !dlvsym(lib, api[i], "LIBTRACEFS_EXT_1.0"), "%s not at LIBTRACEFS_EXT_1.1",
			 api[i]);
	UT_CHECK(dlvsym(lib, "ustack_stack_format", "LIBTRACEFS_EXT_1.0"),
		 "ustack_stack_format not at LIBTRACEFS_EXT_1.0");
	UT_CHECK(dlvsym(lib, "ustack_stack_method", "LIBTRACEFS_EXT_1.2") &&
		 !dlvsym(lib, "ustack_stack_method", "LIBTRACEFS_EXT_1.1"),
		 "ustack_stack_method not at LIBTRACEFS_EXT_1.2");
	dlclose(lib);
}

void utest_abi_register(void)
{
	CU_pSuite suite = CU_add_suite(SUITE, NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "stack_frame", test_stack_frame);
	CU_add_test(suite, "lost_name", test_lost_name);
	CU_add_test(suite, "stack_method", test_stack_method);
	CU_add_test(suite, "stitched_method", test_stitched_method);
	CU_add_test(suite, "exports", test_exports);
}
