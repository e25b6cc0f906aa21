// SPDX-License-Identifier: GPL-2.0
/*
 * The raw frame decoder, ustack_frames_decode(), and its file table: the
 * public API only, on frame data encoded as the kernel does (ut_encode()).
 */
#include <errno.h>
#include <string.h>

#include "header-alone.h"
#include "trace-env.h"

static const unsigned char ut_build_id[20] = "0123456789abcdefghij";

/* Files named, offsets going down and up, an address in no file. */
static void test_decode_table(void)
{
	static const struct ut_frame frames[] = {
		{ 1, 0x5000 }, { 1, 0x4000 }, { 0, 0x7ffd00 }, { 2, 0x10 }, { 3, 0x20 },
	};
	struct ustack_file_table *table = ustack_file_table_alloc();
	const struct ustack_stack *s;
	unsigned char enc[64];
	char buf[256];
	size_t len;

	if (!UT_CHECK(table, "alloc"))
		return;
	UT_CHECK(!ustack_file_table_set(table, 1, "/lib/a.so", ut_build_id, 20), "set 1");
	UT_CHECK(!ustack_file_table_set(table, 2, "/lib/b.so", NULL, 0), "set 2");
	len = ut_encode(enc, frames, UT_ARRAY_SIZE(frames));
	/* padding to 4 bytes, as in the ring buffer */
	memset(enc + len, 0, 3);
	s = ustack_frames_decode(enc, len + 3, UT_ARRAY_SIZE(frames), USTACK_STACK_TRUNCATED |
				 0x40 /* not a flag: dropped */, table);
	if (!UT_CHECK(s, "decode: %s", strerror(errno)))
		goto out;
	UT_CHECK(s->nr == 5 && s->flags == USTACK_STACK_TRUNCATED && !s->cookie && !s->pid,
		 "nr %u flags %#x", s->nr, s->flags);
	if (s->nr == 5) {
		UT_CHECK_STR(s->frames[0].path, "/lib/a.so");
		UT_CHECK(s->frames[0].build_id_size == 20 &&
			 !memcmp(s->frames[0].build_id, ut_build_id, 20), "build-id");
		UT_CHECK(s->frames[1].offset == 0x4000 && s->frames[1].flags == USTACK_FRAME_RETURN,
			 "frame 1: %#llx flags %#x", s->frames[1].offset, s->frames[1].flags);
		UT_CHECK(!s->frames[0].flags, "innermost flags %#x", s->frames[0].flags);
		UT_CHECK(!s->frames[2].file_id && s->frames[2].offset == 0x7ffd00 &&
			 !s->frames[2].path, "an address in no file");
		UT_CHECK(s->frames[3].path && !s->frames[3].build_id, "no build-id");
		UT_CHECK(s->frames[4].file_id == 3 && !s->frames[4].path, "an unknown file");
	}
	/* the stack outlives its table, and an id named again */
	UT_CHECK(!ustack_file_table_set(table, 1, "/lib/c.so", NULL, 0), "set 1 again");
	ustack_file_table_free(table);
	table = NULL;
	ustack_stack_format(s, NULL, buf, sizeof(buf));
	UT_CHECK_STR(buf, "  => /lib/a.so+0x5000\n  => /lib/a.so+0x4000\n  => 0x7ffd00\n"
		     "  => /lib/b.so+0x10\n  => file#3+0x20\n  => [more frames not recorded]\n");
	ustack_stack_put(s);
out:
	ustack_file_table_free(table);
}

/* No table; damaged data; what is refused. */
static void test_decode_args(void)
{
	static const struct ut_frame frames[] = { { 1, 0x5000 }, { 1, 0x5010 } };
	struct ustack_file_table *table = ustack_file_table_alloc();
	const struct ustack_stack *s;
	unsigned char enc[64];
	size_t len;

	if (!UT_CHECK(table, "alloc"))
		return;
	len = ut_encode(enc, frames, UT_ARRAY_SIZE(frames));
	s = ustack_frames_decode(enc, len, 2, 0, NULL);
	if (UT_CHECK(s, "decode without a table")) {
		UT_CHECK(s->nr == 2 && s->frames[0].file_id == 1 && !s->frames[0].path &&
			 s->frames[1].offset == 0x5010, "nr %u", s->nr);
		ustack_stack_put(s);
	}
	/* more frames claimed than there are: the ones there, said damaged */
	s = ustack_frames_decode(enc, len, 3, 0, table);
	if (UT_CHECK(s, "decode")) {
		UT_CHECK(s->nr == 2 && s->flags == USTACK_STACK_MALFORMED, "nr %u flags %#x",
			 s->nr, s->flags);
		ustack_stack_put(s);
	}
	/* cut inside the second frame */
	s = ustack_frames_decode(enc, len - 1, 2, 0, table);
	if (UT_CHECK(s, "decode")) {
		UT_CHECK(s->nr == 1 && s->flags == USTACK_STACK_MALFORMED, "nr %u flags %#x",
			 s->nr, s->flags);
		ustack_stack_put(s);
	}
	/* no data: a stack the kernel could not walk */
	s = ustack_frames_decode(NULL, 0, 0, USTACK_STACK_NO_STACK, table);
	if (UT_CHECK(s, "decode")) {
		UT_CHECK(!s->nr && s->flags == USTACK_STACK_NO_STACK, "flags %#x", s->flags);
		ustack_stack_put(s);
	}

	errno = 0;
	UT_CHECK(!ustack_frames_decode(NULL, 4, 1, 0, table) && errno == EINVAL, "NULL data");
	errno = 0;
	UT_CHECK(ustack_file_table_set(NULL, 1, "/x", NULL, 0) == -1 && errno == EINVAL,
		 "NULL table");
	errno = 0;
	UT_CHECK(ustack_file_table_set(table, 1, NULL, NULL, 0) == -1 && errno == EINVAL,
		 "NULL path");
	errno = 0;
	UT_CHECK(ustack_file_table_set(table, 0, "/x", NULL, 0) == -1 && errno == EINVAL, "id 0");
	errno = 0;
	UT_CHECK(ustack_file_table_set(table, 16385, "/x", NULL, 0) == -1 && errno == EINVAL,
		 "id 16385");
	errno = 0;
	UT_CHECK(ustack_file_table_set(table, 1, "/x", ut_build_id, 21) == -1 && errno == EINVAL,
		 "build-id of 21 bytes");
	errno = 0;
	UT_CHECK(ustack_file_table_set(table, 1, "/x", NULL, 20) == -1 && errno == EINVAL,
		 "a build-id size without one");
	UT_CHECK(!ustack_file_table_set(table, 16384, "/x", NULL, 0), "id 16384");
	ustack_file_table_free(table);
	ustack_file_table_free(NULL);
}

/* The same from a file built without the tracing libraries' headers. */
static void test_decode_header_alone(void)
{
	static const struct ut_frame frames[] = { { 0, 0x7ffd00 }, { 1, 0x20 }, { 1, 0x10 } };
	unsigned char enc[64];
	char buf[128];
	size_t len;
	int ret;

	len = ut_encode(enc, frames, UT_ARRAY_SIZE(frames));
	ret = utest_alone_fold(enc, len, UT_ARRAY_SIZE(frames), "/usr/lib/libx.so.1", buf,
			       sizeof(buf));
	UT_CHECK(ret == (int)strlen("alone;[libx.so.1];[libx.so.1];[unknown]"), "ret %d", ret);
	UT_CHECK_STR(buf, "alone;[libx.so.1];[libx.so.1];[unknown]");
}

void utest_decode_register(void)
{
	CU_pSuite suite = CU_add_suite("frames-decode", NULL, NULL);

	if (!suite)
		return;
	CU_add_test(suite, "table", test_decode_table);
	CU_add_test(suite, "args", test_decode_args);
	CU_add_test(suite, "header_alone", test_decode_header_alone);
}
