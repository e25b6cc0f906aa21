// SPDX-License-Identifier: GPL-2.0
/*
 * The frame decoder and the file table (library internals, linked from the
 * static library), and the text of frames and stacks, symbolized with the
 * fixtures of the symbolizer tests (fixture-env.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "fixture-env.h"
#include "trace-env.h"
#include "../include/ustack-stitch-local.h"

static void test_uleb128(void)
{
	static const struct {
		unsigned char		bytes[12];
		size_t			len;
		int			ret;
		unsigned long long	val;
	} cases[] = {
		{ { 0x00 }, 1, 0, 0 },
		{ { 0x7f }, 1, 0, 127 },
		{ { 0x80, 0x01 }, 2, 0, 128 },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10, 0, ~0ULL },
		{ { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 }, 10, 0,
		  1ULL << 63 },
		/* a 10th byte above 1 does not fit 64 bits; an 11th byte never does */
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 }, 10, -1, 0 },
		{ { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }, 11, -1, 0 },
		/* cut short */
		{ { 0x80 }, 1, -1, 0 },
		{ { 0xff, 0xff }, 2, -1, 0 },
		{ { 0 }, 0, -1, 0 },
	};
	unsigned long long val;
	size_t i, pos;
	int ret;

	for (i = 0; i < UT_ARRAY_SIZE(cases); i++) {
		pos = 0;
		val = 0x5a5a;
		ret = ustack_uleb128(cases[i].bytes, cases[i].len, &pos, &val);
		if (!UT_CHECK(ret == cases[i].ret, "case %zu: returned %d", i, ret))
			continue;
		if (ret)
			UT_CHECK(pos == 0 && val == 0x5a5a, "case %zu: moved on an error", i);
		else
			UT_CHECK(pos == cases[i].len && val == cases[i].val,
				 "case %zu: pos %zu val %#llx", i, pos, val);
	}
}

/* Offsets going down, raw addresses, mappings left and entered again. */
static void test_decode(void)
{
	static const struct ut_frame frames[] = {
		{ 1, 0x5000 }, { 1, 0x4000 }, { 0, 0xffffffffffff0000ULL }, { 1, 0x10 },
		{ 1, 0 }, { 2, ~0ULL }, { 2, 0 },
	};
	struct ustack_files files = { 0 };
	unsigned char enc[256];
	struct ustack_stack *s;
	size_t len, i;

	UT_CHECK(!ustack_files_set(&files, 1, (const unsigned char *)"0123456789abcdefghij", 20,
				   "/a.so", 5), "files_set");
	UT_CHECK(!ustack_files_set(&files, 2, NULL, 0, "/b.so+", 5), "files_set");
	len = ut_encode(enc, frames, UT_ARRAY_SIZE(frames));
	/* the padding after the frames is no frame */
	memset(enc + len, 0, 3);
	s = ustack_stack_decode(&files, 7, 42, UT_ARRAY_SIZE(frames), 1, enc, len + 3);
	if (!UT_CHECK(s, "decode: %s", strerror(errno)))
		goto out;
	UT_CHECK(s->nr == UT_ARRAY_SIZE(frames) && s->flags == USTACK_STACK_TRUNCATED &&
		 s->cookie == 7 && s->pid == 42, "nr %u flags %#x", s->nr, s->flags);
	for (i = 0; i < s->nr && i < UT_ARRAY_SIZE(frames); i++) {
		UT_CHECK(s->frames[i].offset == frames[i].offset && s->frames[i].file_id ==
			 frames[i].id, "frame %zu: %u+%#llx", i, s->frames[i].file_id,
			 s->frames[i].offset);
	}
	UT_CHECK_STR(s->frames[0].path, "/a.so");
	UT_CHECK(s->frames[0].build_id_size == 20 &&
		 !memcmp(s->frames[0].build_id, "0123456789abcdefghij", 20), "build-id");
	UT_CHECK(!s->frames[2].path && !s->frames[2].build_id, "an address with a file");
	UT_CHECK_STR(s->frames[5].path, "/b.so");
	UT_CHECK(!s->frames[5].build_id && !s->frames[5].build_id_size, "a build-id of none");

	/* a file replaced (ids start again after a reset) stays in stacks decoded before */
	UT_CHECK(!ustack_files_set(&files, 1, NULL, 0, "/c.so", 5), "files_set");
	ustack_files_drop(&files, 2);
	ustack_files_drop(&files, 999);
	UT_CHECK_STR(s->frames[0].path, "/a.so");
	UT_CHECK_STR(s->frames[6].path, "/b.so");
	ustack_stack_put(s);
	s = ustack_stack_decode(&files, 7, 42, UT_ARRAY_SIZE(frames), 0, enc, len);
	if (UT_CHECK(s, "decode")) {
		UT_CHECK_STR(s->frames[0].path, "/c.so");
		UT_CHECK(!s->frames[5].path && s->frames[5].file_id == 2, "a dropped file is known");
		ustack_stack_put(ustack_stack_get(s));
		ustack_stack_put(s);
	}
	errno = 0;
	UT_CHECK(ustack_files_set(&files, 0, NULL, 0, "/x", 2) == -1 && errno == EINVAL, "id 0");
	UT_CHECK(ustack_files_set(&files, USTACK_FILE_ID_MAX + 1, NULL, 0, "/x", 2) == -1,
		 "id above the maximum");
	UT_CHECK(ustack_files_set(&files, 3, NULL, 21, "/x", 2) == -1, "build-id of 21 bytes");
out:
	ustack_files_clear(&files);
}

/* Damage ends the decoding, keeping the frames before it. */
static void test_decode_damage(void)
{
	static const struct ut_frame two[] = { { 1, 0x1000 }, { 1, 0x1010 } };
	struct ustack_files files = { 0 };
	unsigned char enc[64];
	struct ustack_stack *s;
	size_t len;

	len = ut_encode(enc, two, 2);
	/* more frames than bytes */
	s = ustack_stack_decode(&files, 1, 1, 60000, 0, enc, len);
	if (UT_CHECK(s, "decode")) {
		UT_CHECK(s->nr == 2 && s->flags == USTACK_STACK_MALFORMED, "nr %u flags %#x",
			 s->nr, s->flags);
		ustack_stack_put(s);
	}
	/* a number cut in the middle */
	enc[len] = 0x84;
	s = ustack_stack_decode(&files, 1, 1, 3, 0, enc, len + 1);
	if (UT_CHECK(s, "decode")) {
		UT_CHECK(s->nr == 2 && (s->flags & USTACK_STACK_MALFORMED), "nr %u", s->nr);
		ustack_stack_put(s);
	}
	/* the first frame starts no mapping */
	enc[0] = 0x02;
	s = ustack_stack_decode(&files, 1, 1, 1, 0, enc, 1);
	if (UT_CHECK(s, "decode")) {
		UT_CHECK(s->nr == 0 && (s->flags & USTACK_STACK_MALFORMED), "nr %u", s->nr);
		ustack_stack_put(s);
	}
	/* a file id beyond 32 bits */
	len = ut_uleb128(enc, 1);
	len += ut_uleb128(enc + len, 1ULL << 32);
	s = ustack_stack_decode(&files, 1, 1, 1, 0, enc, len);
	if (UT_CHECK(s, "decode")) {
		UT_CHECK(s->nr == 0 && (s->flags & USTACK_STACK_MALFORMED), "nr %u", s->nr);
		ustack_stack_put(s);
	}
	/* no frames, no data: the kernel's "no stack" */
	s = ustack_stack_decode(&files, 1, 1, 0, USTACK_STACK_NO_STACK | 0x8000, NULL, 0);
	if (UT_CHECK(s, "decode")) {
		UT_CHECK(s->nr == 0 && s->flags == USTACK_STACK_NO_STACK, "flags %#x", s->flags);
		ustack_stack_put(s);
	}
	ustack_stack_put(NULL);
	ustack_files_clear(&files);
}

static void test_frame_format(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	struct ustack_frame f = { 0 };
	char buf[PATH_MAX + 64], want[PATH_MAX + 64];
	int len;

	if (!sym)
		return;
	errno = 0;
	UT_CHECK(ustack_frame_format(NULL, sym, buf, 8) == -1 && errno == EINVAL, "NULL frame");
	UT_CHECK(ustack_frame_format(&f, sym, NULL, 8) == -1 && errno == EINVAL, "NULL buf");

	f.offset = 0x7ffd1234;
	ustack_frame_format(&f, sym, buf, sizeof(buf));
	UT_CHECK_STR(buf, "0x7ffd1234");
	f.file_id = 7;
	ustack_frame_format(&f, sym, buf, sizeof(buf));
	UT_CHECK_STR(buf, "file#7+0x7ffd1234");

	f.path = fx.so;
	f.build_id = fx.build_id;
	f.build_id_size = fx.build_id_size;
	f.offset = fx.funcs[F_ALPHA].offset + 2;
	len = ustack_frame_format(&f, sym, buf, sizeof(buf));
	utest_pathf(want, sizeof(want), "utest_alpha+0x2 (%s)", fx.so);
	UT_CHECK_STR(buf, want);
	UT_CHECK(len == (int)strlen(want), "length %d", len);
	UT_CHECK(ustack_frame_format(&f, sym, NULL, 0) == len, "length without a buffer");
	ustack_frame_format(&f, sym, buf, 6);
	UT_CHECK_STR(buf, "utest");

	ustack_frame_format(&f, NULL, buf, sizeof(buf));
	utest_pathf(want, sizeof(want), "%s+0x%llx", fx.so, f.offset);
	UT_CHECK_STR(buf, want);
	f.offset = 0x7fffff;
	ustack_frame_format(&f, sym, buf, sizeof(buf));
	utest_pathf(want, sizeof(want), "[unknown] (%s+0x7fffff)", fx.so);
	UT_CHECK_STR(buf, want);
	ustack_symbolizer_free(sym);
}

static void test_stack_format(void)
{
	struct ustack_symbolizer *sym = utest_symbolizer(fx.empty_dir);
	struct ustack_frame frames[2] = {
		{ .path = fx.so, .file_id = 1, .offset = fx.funcs[F_GAMMA].offset + 1 },
		{ .offset = 0x1000 },
	};
	struct ustack_stack s = { .nr = 2, .frames = frames };
	char buf[2 * PATH_MAX], want[2 * PATH_MAX];
	int len;

	if (!sym)
		return;
	utest_pathf(want, sizeof(want), "  => utest_gamma+0x1 (%s)\n  => 0x1000\n", fx.so);
	len = ustack_stack_format(&s, sym, buf, sizeof(buf));
	UT_CHECK_STR(buf, want);
	UT_CHECK(len == (int)strlen(want), "length %d, want %zu", len, strlen(want));
	/* cut anywhere, like snprintf */
	UT_CHECK(ustack_stack_format(&s, sym, NULL, 0) == len, "length without a buffer");
	UT_CHECK(ustack_stack_format(&s, sym, buf, 10) == len, "length when cut");
	UT_CHECK_STR(buf, "  => utes");
	UT_CHECK(ustack_stack_format(&s, sym, buf, len) == len, "length when cut by one");
	UT_CHECK(strlen(buf) == (size_t)len - 1 && !strncmp(buf, want, len - 1), "cut by one");

	s.flags = USTACK_STACK_TRUNCATED | USTACK_STACK_MALFORMED;
	s.nr = 1;
	frames[0].path = NULL;
	ustack_stack_format(&s, NULL, buf, sizeof(buf));
	utest_pathf(want, sizeof(want), "  => file#1+0x%llx\n  => [more frames not recorded]\n"
		    "  => [malformed frame data]\n", frames[0].offset);
	UT_CHECK_STR(buf, want);
	s.flags = USTACK_STACK_NO_STACK;
	s.nr = 0;
	ustack_stack_format(&s, NULL, buf, sizeof(buf));
	UT_CHECK_STR(buf, "  => [no user stack]\n");
	errno = 0;
	UT_CHECK(ustack_stack_format(NULL, NULL, buf, 4) == -1 && errno == EINVAL, "NULL stack");
	UT_CHECK(ustack_stack_format(&s, NULL, NULL, 4) == -1 && errno == EINVAL, "NULL buf");
	ustack_symbolizer_free(sym);
}

/*
 * A decoded stack: the innermost frame is where the task was, every other one
 * a return address. Both frames here are at the first byte of
 * utest_after_noreturn, which is also where the call ending utest_noreturn
 * returns to: the innermost prints as utest_after_noreturn, the caller as
 * utest_noreturn.
 */
static void test_stack_return_address(void)
{
	const struct utest_func *after = &fx.funcs[F_AFTER_NORETURN];
	const struct ut_frame frames[] = { { 1, after->offset }, { 1, after->offset } };
	char buf[2 * PATH_MAX], want[2 * PATH_MAX];
	struct ustack_files files = { 0 };
	struct ustack_symbolizer *sym;
	unsigned char enc[64];
	struct ustack_stack *s;
	size_t len;

	if (!after->found || !fx.funcs[F_NORETURN].found) {
		utest_skip("no assembly fixture functions on this architecture");
		return;
	}
	sym = utest_symbolizer(fx.empty_dir);
	if (!sym)
		return;
	if (!UT_CHECK(!ustack_files_set(&files, 1, NULL, 0, fx.so, strlen(fx.so)), "files_set"))
		goto out;
	len = ut_encode(enc, frames, 2);
	s = ustack_stack_decode(&files, 1, 1, 2, 0, enc, len);
	if (!UT_CHECK(s && s->nr == 2, "decode"))
		goto out;
	UT_CHECK(s->frames[0].flags == 0, "innermost flags %#x", s->frames[0].flags);
	UT_CHECK(s->frames[1].flags == USTACK_FRAME_RETURN, "caller flags %#x",
		 s->frames[1].flags);
	utest_pathf(want, sizeof(want), "  => utest_after_noreturn+0x0 (%s)\n"
		    "  => utest_noreturn+0x6 (%s)\n", fx.so, fx.so);
	ustack_stack_format(s, sym, buf, sizeof(buf));
	UT_CHECK_STR(buf, want);
	/* without a symbolizer, the offsets as recorded */
	utest_pathf(want, sizeof(want), "  => %s+0x%llx\n  => %s+0x%llx\n", fx.so, after->offset,
		    fx.so, after->offset);
	ustack_stack_format(s, NULL, buf, sizeof(buf));
	UT_CHECK_STR(buf, want);
	ustack_stack_put(s);
out:
	ustack_files_clear(&files);
	ustack_symbolizer_free(sym);
}

/* A stack that says it has frames, without them: refused, not read. */
static void test_stack_format_no_frames(void)
{
	struct ustack_stack s = { .nr = 2 };
	char buf[64];

	errno = 0;
	UT_CHECK(ustack_stack_format(&s, NULL, buf, sizeof(buf)) == -1 && errno == EINVAL,
		 "frames NULL: errno %d", errno);
}

/* Threads that get and put a shared stack, and put stacks of their own. */
#define UT_REF_THREADS	4
#define UT_REF_STACKS	10000	/* per thread */
#define UT_REF_LATE	10000	/* decoded meanwhile by the main thread */
#define UT_REF_GETS	64	/* references to the shared stack got, then put, per round */

struct ut_ref_arg {
	const struct ustack_stack	*shared;
	struct ustack_stack		**mine;
	const int			*go;
};

static void *ut_ref_worker(void *data)
{
	struct ut_ref_arg *arg = data;
	unsigned int i, j;

	/* all threads start together, so that their counts do race */
	while (!__atomic_load_n(arg->go, __ATOMIC_ACQUIRE))
		sched_yield();
	for (i = 0; i < UT_REF_STACKS; i++) {
		for (j = 0; j < UT_REF_GETS; j++)
			ustack_stack_get(arg->shared);
		for (j = 0; j < UT_REF_GETS; j++)
			ustack_stack_put(arg->shared);
		ustack_stack_put(arg->mine[i]);
	}
	return NULL;
}

/* Start a ut_ref_worker() per thread, waiting on @go; the number started. */
static unsigned int ut_ref_start(pthread_t *threads, struct ut_ref_arg *args,
				 const struct ustack_stack *shared,
				 struct ustack_stack *(*mine)[UT_REF_STACKS], const int *go)
{
	unsigned int i;

	for (i = 0; i < UT_REF_THREADS; i++) {
		args[i] = (struct ut_ref_arg){ shared, mine[i], go };
		if (pthread_create(&threads[i], NULL, ut_ref_worker, &args[i]))
			break;
	}
	return i;
}

/*
 * Kept stacks handed to worker threads: the counts of the stack and of the
 * file its frames are in end right while the main thread decodes more
 * stacks of that file (plain counts lose updates here).
 */
static void test_refs_threads(void)
{
	static const struct ut_frame frames[] = { { 1, 0x20 }, { 1, 0x10 } };
	static struct ustack_stack *mine[UT_REF_THREADS][UT_REF_STACKS], *late[UT_REF_LATE];
	struct ut_ref_arg args[UT_REF_THREADS];
	pthread_t threads[UT_REF_THREADS];
	struct ustack_files files = { 0 };
	struct ustack_stack *shared;
	unsigned int i, j, started;
	unsigned char enc[32];
	bool ok = true;
	int go = 0;
	size_t len;

	if (!UT_CHECK(!ustack_files_set(&files, 1, NULL, 0, "/a.so", 5), "files_set"))
		return;
	len = ut_encode(enc, frames, UT_ARRAY_SIZE(frames));
	shared = ustack_stack_decode(&files, 1, 42, 2, 0, enc, len);
	ok = shared;
	for (i = 0; i < UT_REF_THREADS; i++) {
		for (j = 0; j < UT_REF_STACKS; j++) {
			mine[i][j] = ustack_stack_decode(&files, 2, 42, 2, 0, enc, len);
			ok = ok && mine[i][j];
		}
	}
	if (!UT_CHECK(ok, "decode: %s", strerror(errno)))
		goto out;
	started = ut_ref_start(threads, args, shared, mine, &go);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < UT_REF_LATE; i++)
		late[i] = ustack_stack_decode(&files, 3, 42, 2, 0, enc, len);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	if (UT_CHECK(started == UT_REF_THREADS, "%u threads started", started)) {
		UT_CHECK(ustack_stack_refs(shared) == 1, "shared stack: %u references, want 1",
			 ustack_stack_refs(shared));
		for (i = 0; i < UT_REF_LATE; i++)
			ok = ok && late[i];
		/* the table's reference, and one per frame of the stacks still there */
		if (UT_CHECK(ok, "decode"))
			UT_CHECK(files.by_id[0]->refs == 1 + 2 * (1 + UT_REF_LATE),
				 "file: %u references, want %u", files.by_id[0]->refs,
				 1 + 2 * (1 + UT_REF_LATE));
	} else {
		/* not started: put their stacks here */
		for (i = started; i < UT_REF_THREADS; i++)
			for (j = 0; j < UT_REF_STACKS; j++)
				ustack_stack_put(mine[i][j]);
	}
	for (i = 0; i < UT_REF_LATE; i++)
		ustack_stack_put(late[i]);
	ustack_stack_put(shared);
	ustack_files_clear(&files);
	return;
out:
	ustack_stack_put(shared);
	for (i = 0; i < UT_REF_THREADS; i++)
		for (j = 0; j < UT_REF_STACKS; j++)
			ustack_stack_put(mine[i][j]);
	ustack_files_clear(&files);
}

/* Late stacks of a sharing table, put by two threads as soon as they are decoded. */
#define UT_LATE_THREADS	2
#define UT_ANCHORS	256	/* blocks of stacks (of 16 to 1024 stacks) */

struct ut_late_arg {
	struct ustack_stack	**late;
	unsigned int		first;		/* its stacks: first, + UT_LATE_THREADS, ... */
	const unsigned int	*published;
};

static void *ut_late_worker(void *data)
{
	struct ut_late_arg *arg = data;
	unsigned int i = arg->first;

	while (i < UT_REF_LATE) {
		if (i < __atomic_load_n(arg->published, __ATOMIC_ACQUIRE)) {
			ustack_stack_put(arg->late[i]);
			i += UT_LATE_THREADS;
		} else {
			sched_yield();
		}
	}
	return NULL;
}

/* The first stack of each block of a sharing table, kept to read the block's count. */
struct ut_anchors {
	const struct ustack_stack	*stack[UT_ANCHORS];
	unsigned int			nr;
	bool				overflow;
};

/*
 * A stack of a sharing table for another thread to put. Decoded alone, the
 * first stack of a block counts 2 (the table and itself), any later one 3 or
 * more (its anchor too): a first one is kept as the anchor of its block.
 */
static struct ustack_stack *ut_decode_anchored(struct ustack_files *files,
					       const unsigned char *enc, size_t len,
					       struct ut_anchors *anchors)
{
	struct ustack_stack *s;

	for (;;) {
		s = ustack_stack_decode(files, 2, 42, 2, 0, enc, len);
		if (!s || ustack_stack_block_refs(s) != 2)
			return s;
		if (anchors->nr == UT_ANCHORS) {
			anchors->overflow = true;
			return s;
		}
		anchors->stack[anchors->nr++] = s;
	}
}

/*
 * The same with a stitcher's table, which shares one frameset among the
 * stacks of entries alike and hands stacks out of blocks (ustack-frameset.c,
 * ustack-stacks.c). The threads' stacks are decoded in turns, so that they
 * put stacks of one block at once; two more threads put stacks of the block
 * the main thread is filling meanwhile. In the end the frameset counts its
 * holders, and each block its first stack, the one left (plain counts lose
 * updates here: the frameset or a block is leaked, or freed in use).
 */
static void test_refs_threads_shared(void)
{
	static const struct ut_frame frames[] = { { 1, 0x20 }, { 1, 0x10 } };
	static struct ustack_stack *mine[UT_REF_THREADS][UT_REF_STACKS], *late[UT_REF_LATE];
	struct ut_late_arg late_args[UT_LATE_THREADS];
	pthread_t threads[UT_REF_THREADS + UT_LATE_THREADS];
	struct ustack_files files = { .share = true };
	struct ut_ref_arg args[UT_REF_THREADS];
	static struct ut_anchors anchors;
	unsigned int i, j, started, late_started = 0;
	unsigned int published = 0;
	struct ustack_frameset *set;
	struct ustack_stack *shared;
	unsigned char enc[32];
	unsigned int refs;
	bool ok;
	int go = 0;
	size_t len;

	memset(&anchors, 0, sizeof(anchors));
	memset(mine, 0, sizeof(mine));
	if (!UT_CHECK(!ustack_files_set(&files, 1, NULL, 0, "/a.so", 5), "files_set"))
		return;
	len = ut_encode(enc, frames, UT_ARRAY_SIZE(frames));
	/* the first stack of the first block: its anchor */
	shared = ustack_stack_decode(&files, 1, 42, 2, 0, enc, len);
	ok = shared;
	for (j = 0; ok && j < UT_REF_STACKS; j++) {
		for (i = 0; ok && i < UT_REF_THREADS; i++) {
			mine[i][j] = ut_decode_anchored(&files, enc, len, &anchors);
			ok = mine[i][j] && mine[i][j]->frames == shared->frames;
		}
	}
	if (!UT_CHECK(ok, "decode, frames shared: %s", strerror(errno)))
		goto out;
	set = container_of((struct ustack_frame *)shared->frames, struct ustack_frameset,
			   frames[0]);
	started = ut_ref_start(threads, args, shared, mine, &go);
	for (i = 0; started == UT_REF_THREADS && i < UT_LATE_THREADS; i++) {
		late_args[i] = (struct ut_late_arg){ late, i, &published };
		if (pthread_create(&threads[UT_REF_THREADS + i], NULL, ut_late_worker,
				   &late_args[i]))
			break;
		late_started++;
	}
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < UT_REF_LATE; i++) {
		late[i] = ut_decode_anchored(&files, enc, len, &anchors);
		ok = ok && late[i];
		__atomic_store_n(&published, i + 1, __ATOMIC_RELEASE);
	}
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (i = 0; i < late_started; i++)
		pthread_join(threads[UT_REF_THREADS + i], NULL);
	/* what the threads that did not start did not put */
	for (i = started; i < UT_REF_THREADS; i++)
		for (j = 0; j < UT_REF_STACKS; j++)
			ustack_stack_put(mine[i][j]);
	for (i = 0; i < UT_REF_LATE; i++) {
		if (i % UT_LATE_THREADS >= late_started)
			ustack_stack_put(late[i]);
	}
	/* the table fills no block any more: each counts its anchor alone */
	ustack_stacks_release(&files);
	if (UT_CHECK(started == UT_REF_THREADS && late_started == UT_LATE_THREADS,
		     "%u and %u threads started", started, late_started) &&
	    UT_CHECK(ok && !anchors.overflow, "late decode, %u anchors", anchors.nr)) {
		UT_CHECK(ustack_stack_refs(shared) == 1, "shared stack: %u references, want 1",
			 ustack_stack_refs(shared));
		/* the table's slot, the shared stack and the anchors */
		refs = __atomic_load_n(&set->refs, __ATOMIC_RELAXED);
		UT_CHECK(refs == 2 + anchors.nr, "frameset: %u references, want %u", refs,
			 2 + anchors.nr);
		UT_CHECK(ustack_stack_block_refs(shared) == 1, "first block: %u live, want 1",
			 ustack_stack_block_refs(shared));
		for (i = 0; i < anchors.nr; i++) {
			refs = ustack_stack_block_refs(anchors.stack[i]);
			if (!UT_CHECK(refs == 1, "block %u of %u: %u live, want 1", i + 1,
				      anchors.nr, refs))
				break;
		}
		/* the table's reference, and one per frame of the one frameset */
		UT_CHECK(files.by_id[0]->refs == 1 + 2, "file: %u references, want 3",
			 files.by_id[0]->refs);
	}
	goto put;
out:
	for (i = 0; i < UT_REF_THREADS; i++)
		for (j = 0; j < UT_REF_STACKS; j++)
			ustack_stack_put(mine[i][j]);
put:
	for (i = 0; i < anchors.nr; i++)
		ustack_stack_put(anchors.stack[i]);
	ustack_stack_put(shared);
	ustack_files_clear(&files);
}

void utest_frames_register(void)
{
	CU_pSuite suite = CU_add_suite("frames", NULL, NULL);

	if (suite) {
		CU_add_test(suite, "uleb128", test_uleb128);
		CU_add_test(suite, "decode", test_decode);
		CU_add_test(suite, "decode_damage", test_decode_damage);
		CU_add_test(suite, "refs_threads", test_refs_threads);
		CU_add_test(suite, "refs_threads_shared", test_refs_threads_shared);
		CU_add_test(suite, "stack_format_no_frames", test_stack_format_no_frames);
	}
	suite = CU_add_suite("stack-format", utest_fixture_setup, utest_fixture_cleanup);
	if (suite) {
		CU_add_test(suite, "frame_format", test_frame_format);
		CU_add_test(suite, "stack_format", test_stack_format);
		CU_add_test(suite, "return_address", test_stack_return_address);
	}
}
