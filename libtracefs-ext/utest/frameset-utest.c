// SPDX-License-Identifier: GPL-2.0
/*
 * Frames shared by the stacks of kernel entries alike (ustack-frameset.c),
 * and file entries that repeat what their id already names: the memory of
 * a stitcher grows with the stacks that differ, not with the entries.
 */
#include <errno.h>
#include <string.h>

#include "trace-env.h"
#include "../include/ustack-stitch-local.h"

static const struct ut_frame ut_here[] = { { 1, 0x1127 }, { 1, 0x1150 }, { 2, 0x40 } };
static const struct ut_frame ut_there[] = { { 1, 0x2000 }, { 2, 0x40 } };

/* The same file again is the same file; another path or build-id replaces it. */
static void test_files_same(void)
{
	static const unsigned char bid[] = "0123456789abcdefghij";
	struct ustack_files files = { 0 };
	struct ustack_tfile *f;

	if (!UT_CHECK(!ustack_files_set(&files, 1, bid, 20, "/a.so", 5), "files_set"))
		return;
	f = files.by_id[0];
	UT_CHECK(!ustack_files_set(&files, 1, bid, 20, "/a.so", 5), "files_set again");
	UT_CHECK(files.by_id[0] == f && f->refs == 1, "the same entry replaced the file");
	UT_CHECK(!ustack_files_set(&files, 1, bid, 20, "/a.sox", 5), "files_set, padded path");
	UT_CHECK(files.by_id[0] == f, "a path cut at its length is the same");
	UT_CHECK(!ustack_files_set(&files, 1, bid, 19, "/a.so", 5), "another build-id size");
	UT_CHECK(files.by_id[0] != f, "a build-id of another size is another file");
	f = files.by_id[0];
	UT_CHECK(!ustack_files_set(&files, 1, bid, 19, "/a.s", 4), "another path");
	UT_CHECK(files.by_id[0] != f && !strcmp(files.by_id[0]->path, "/a.s"),
		 "another path is another file");
	f = files.by_id[0];
	UT_CHECK(!ustack_files_set(&files, 1, (const unsigned char *)"x123456789abcdefghij", 19,
				   "/a.s", 4), "another build-id");
	UT_CHECK(files.by_id[0] != f, "another build-id is another file");
	ustack_files_clear(&files);
}

static struct ustack_stack *ut_decode(struct ustack_files *files, unsigned long long cookie,
				      const struct ut_frame *frames, unsigned int nr)
{
	unsigned char enc[64];
	size_t len = ut_encode(enc, frames, nr);

	return ustack_stack_decode(files, cookie, P, nr, 0, enc, len);
}

/*
 * A sharing table: entries with the same bytes get the same frames, each
 * stack its own cookie; a change of the files starts over, and what was
 * decoded before keeps its files.
 */
static void test_share(void)
{
	struct ustack_stack *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
	struct ustack_files files = { .share = true };
	unsigned char bad[] = { 0x03, 0x01, 0x84 };

	if (!UT_CHECK(!ustack_files_set(&files, 1, NULL, 0, "/a.so", 5) &&
		      !ustack_files_set(&files, 2, NULL, 0, "/b.so", 5), "files_set"))
		return;
	a = ut_decode(&files, K1, ut_here, UT_ARRAY_SIZE(ut_here));
	b = ut_decode(&files, K2, ut_here, UT_ARRAY_SIZE(ut_here));
	c = ut_decode(&files, K2, ut_there, UT_ARRAY_SIZE(ut_there));
	if (!UT_CHECK(a && b && c, "decode: %s", strerror(errno)))
		goto out;
	UT_CHECK(a->frames == b->frames, "entries alike: frames not shared");
	UT_CHECK(a->cookie == K1 && b->cookie == K2 && a->nr == 3 && b->nr == 3,
		 "cookies %#llx %#llx, nr %u %u", a->cookie, b->cookie, a->nr, b->nr);
	UT_CHECK(c->frames != a->frames && c->nr == 2, "other frames shared");
	UT_CHECK_STR(b->frames[2].path, "/b.so");

	/* the same file entry again changes nothing */
	UT_CHECK(!ustack_files_set(&files, 2, NULL, 0, "/b.so", 5), "files_set");
	d = ut_decode(&files, K1, ut_here, UT_ARRAY_SIZE(ut_here));
	UT_CHECK(d && d->frames == a->frames, "the same file again: frames not shared");
	ustack_stack_put(d);

	/* another file for id 2: decoded anew; the stacks before keep theirs */
	UT_CHECK(!ustack_files_set(&files, 2, NULL, 0, "/c.so", 5), "files_set");
	d = ut_decode(&files, K1, ut_here, UT_ARRAY_SIZE(ut_here));
	if (UT_CHECK(d, "decode")) {
		UT_CHECK(d->frames != a->frames, "frames of a replaced file shared");
		UT_CHECK_STR(d->frames[2].path, "/c.so");
	}
	UT_CHECK_STR(a->frames[2].path, "/b.so");
	/* a dropped file: frames of its id name no file from then on */
	ustack_files_drop(&files, 2);
	e = ut_decode(&files, K1, ut_here, UT_ARRAY_SIZE(ut_here));
	UT_CHECK(e && e != d && e->frames != d->frames && !e->frames[2].path,
		 "frames of a dropped file shared");
	ustack_stack_put(e);

	/* damaged entries are not shared */
	e = ustack_stack_decode(&files, K1, P, 3, 0, bad, sizeof(bad));
	ustack_stack_put(d);
	d = ustack_stack_decode(&files, K2, P, 3, 0, bad, sizeof(bad));
	UT_CHECK(d && e && d->frames != e->frames && (d->flags & USTACK_STACK_MALFORMED) &&
		 d->nr == 1, "damaged entry: nr %u flags %#x", d ? d->nr : 0, d ? d->flags : 0);
	ustack_stack_put(e);
	/* stacks outlive the table: their frames stay */
	ustack_files_clear(&files);
	UT_CHECK(files.share && !files.sets, "clear: share %d", files.share);
	UT_CHECK_STR(b->frames[0].path, "/a.so");
out:
	ustack_stack_put(a);
	ustack_stack_put(b);
	ustack_stack_put(c);
	ustack_stack_put(d);
	ustack_files_clear(&files);
}

/*
 * A sharing table hands its stacks out of blocks (ustack-stacks.c): stacks
 * of several blocks, the table cleared between them, put in any order (the
 * last of a block frees it: the ASan run finds a block leaked or freed
 * early); each stack stays whole until its own last reference goes.
 */
static void test_stack_blocks(void)
{
	struct ustack_files files = { .share = true };
	struct ustack_stack *st[3000];
	size_t i, n = 0, bad = 0;

	if (!UT_CHECK(!ustack_files_set(&files, 1, NULL, 0, "/a.so", 5) &&
		      !ustack_files_set(&files, 2, NULL, 0, "/b.so", 5), "files_set"))
		return;
	for (i = 0; i < UT_ARRAY_SIZE(st); i++) {
		st[i] = ut_decode(&files, K1 + i, ut_here, UT_ARRAY_SIZE(ut_here));
		if (!st[i])
			break;
		n++;
		if (i == 1000) {
			/* a flush: the table starts again, with new blocks */
			ustack_files_clear(&files);
			ustack_files_set(&files, 1, NULL, 0, "/a.so", 5);
			ustack_files_set(&files, 2, NULL, 0, "/b.so", 5);
		}
	}
	UT_CHECK(n == UT_ARRAY_SIZE(st), "decoded %zu stacks: %s", n, strerror(errno));
	ustack_files_clear(&files);
	/* every other one first, kept ones with a second reference */
	for (i = 0; i < n; i += 2) {
		if (i % 6 == 0)
			ustack_stack_get(st[i]);
		ustack_stack_put(st[i]);
	}
	for (i = 1; i < n; i += 2) {
		bad += st[i]->cookie != K1 + i || st[i]->nr != 3;
		ustack_stack_put(st[i]);
	}
	for (i = 0; i < n; i += 6) {
		bad += st[i]->cookie != K1 + i || strcmp(st[i]->frames[2].path, "/b.so");
		ustack_stack_put(st[i]);
	}
	UT_CHECK(!bad, "%zu stacks changed before their last reference went", bad);
}

/* A table without sharing (ustack_frames_decode()'s) decodes every entry. */
static void test_no_share(void)
{
	struct ustack_files files = { 0 };
	struct ustack_stack *a, *b;

	a = ut_decode(&files, K1, ut_there, UT_ARRAY_SIZE(ut_there));
	b = ut_decode(&files, K1, ut_there, UT_ARRAY_SIZE(ut_there));
	UT_CHECK(a && b && a->frames != b->frames && !files.sets, "shared without share");
	ustack_stack_put(a);
	ustack_stack_put(b);
	ustack_files_clear(&files);
}

/*
 * Through a stitcher: a task's kernel entries with the same stack, the
 * files named again before each as the kernel does after a buffer reset,
 * share their frames; every event still has its own entry's cookie.
 */
static void test_stitcher_share(void)
{
	const struct ustack_stack *first = NULL;
	unsigned long long cookie;
	struct ut_trace t;
	size_t i, shared = 0;

	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	for (i = 0; i < 50; i++) {
		cookie = K1 + i;
		ut_file(&t, 0, 1, "/bin/prog");
		ut_file(&t, 0, 2, "/lib/libc.so.6");
		ut_cookie(&t, 0, P, cookie);
		ut_event(&t, 0, P, i);
		ut_stack(&t, 0, P, cookie, ut_here, UT_ARRAY_SIZE(ut_here));
	}
	ustack_stitcher_flush(t.st);
	UT_SEEN(&t, 50);
	for (i = 0; i < t.nr_seen; i++) {
		const struct ut_seen *s = &t.seen[i];

		UT_CHECK(s->state == USTACK_STATE_STACK && s->cookie == K1 + i && s->nr == 3,
			 "event %zu: state %d cookie %#llx", i, s->state, s->cookie);
	}
	ut_end(&t);

	/* the stacks themselves, kept through the index */
	if (!ut_start(&t, UT_FORMATS_ALL, 0))
		return;
	ustack_stitcher_free(t.st);
	t.st = ustack_stitcher_alloc(t.tep, USTACK_STITCH_INDEX_TS, NULL, NULL);
	if (!UT_CHECK(t.st, "alloc: %s", strerror(errno))) {
		ut_end(&t);
		return;
	}
	for (i = 0; i < 50; i++) {
		const struct ustack_info *info;

		cookie = K1 + i;
		ut_file(&t, 0, 1, "/bin/prog");
		ut_file(&t, 0, 2, "/lib/libc.so.6");
		ut_cookie(&t, 0, P, cookie);
		ut_event(&t, 0, P, i);
		ut_stack(&t, 0, P, cookie, ut_here, UT_ARRAY_SIZE(ut_here));
		info = ustack_stitcher_lookup(t.st, 0, P, t.ts - 1000);
		if (!info || info->state != USTACK_STATE_STACK || info->stack->cookie != cookie)
			continue;
		if (!first)
			first = info->stack;
		shared += info->stack->frames == first->frames;
	}
	UT_CHECK(shared == 50, "%zu of 50 stacks share their frames", shared);
	ut_end(&t);
}

void utest_frameset_register(void)
{
	CU_pSuite suite = CU_add_suite("frameset", NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "files_same", test_files_same);
	CU_add_test(suite, "share", test_share);
	CU_add_test(suite, "no_share", test_no_share);
	CU_add_test(suite, "stack_blocks", test_stack_blocks);
	CU_add_test(suite, "stitcher_share", test_stitcher_share);
}
