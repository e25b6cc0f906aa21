// SPDX-License-Identifier: GPL-2.0
/*
 * A user of the raw decoder with its own ftrace parser: built with nothing
 * but include/ustack.h on its include path (see the Makefile), so that the
 * build fails when the public header comes to need libtraceevent's,
 * libtracefs's or libtracecmd's headers.
 */
#include <ustack.h>

#include "header-alone.h"

/**
 * utest_alone_fold - decode frame data and fold it, by the public API alone
 * @data: the frame data of a user_unwind_stack entry
 * @size: its bytes
 * @nr: its nr field
 * @path: the path of its file id 1
 * @buf: where the folded line goes
 * @size_buf: the size of @buf
 *
 * Return: what ustack_stack_fold() returns; -1 when a step before fails.
 */
int utest_alone_fold(const void *data, size_t size, unsigned int nr, const char *path,
		     char *buf, size_t size_buf)
{
	struct ustack_file_table *table = ustack_file_table_alloc();
	const struct ustack_stack *stack;
	int ret = -1;

	if (!table || ustack_file_table_set(table, 1, path, NULL, 0))
		goto out;
	stack = ustack_frames_decode(data, size, nr, 0, table);
	if (!stack)
		goto out;
	ret = ustack_stack_fold(stack, NULL, "alone", buf, size_buf);
	ustack_stack_put(stack);
out:
	ustack_file_table_free(table);
	return ret;
}

/* Where the fields are, as the format files of utest/formats/ say. */
static const struct {
	const char	*event;
	const char	*field;
	unsigned int	offset;
	unsigned int	size;
} utest_alone_fields[] = {
	{ NULL, "common_type", 0, 2 }, { NULL, "common_pid", 4, 4 },
	{ "user_unwind_cookie", "cookie", 8, 8 },
	{ "user_unwind_stack", "cookie", 8, 8 }, { "user_unwind_stack", "next", 16, 8 },
	{ "user_unwind_stack", "nr", 24, 2 }, { "user_unwind_stack", "flags", 26, 2 },
	{ "user_unwind_stack", "frames", 28, 0 },
	{ "user_unwind_file", "id", 8, 4 }, { "user_unwind_file", "build_id_size", 12, 4 },
	{ "user_unwind_file", "build_id", 16, 20 }, { "user_unwind_file", "path", 36, 0 },
};

/**
 * utest_alone_lookup - stitch records given as bytes, and look one event up
 * @data: the records' data
 * @size: their sizes
 * @cpu: their CPUs
 * @nr: how many there are; record i has the timestamp 1000 * (i + 1)
 * @want_cpu: the CPU of the event to look up
 * @want_pid: its task
 * @want: its index in @data
 * @buf: its stack folded, when it has one; else ""
 * @size_buf: the size of @buf
 *
 * Return: its state (enum ustack_state); -1 when a step fails.
 */
int utest_alone_lookup(const void * const *data, const size_t *size, const int *cpu, size_t nr,
		       int want_cpu, int want_pid, size_t want, char *buf, size_t size_buf)
{
	struct ustack_layout *layout = ustack_layout_alloc();
	const struct ustack_info *info;
	struct ustack_stitcher *st = NULL;
	int ret = -1;
	size_t i;

	if (!layout || ustack_layout_set_event(layout, "user_unwind_cookie", 20) ||
	    ustack_layout_set_event(layout, "user_unwind_stack", 21) ||
	    ustack_layout_set_event(layout, "user_unwind_file", 22))
		goto out;
	for (i = 0; i < sizeof(utest_alone_fields) / sizeof(utest_alone_fields[0]); i++) {
		if (ustack_layout_set_field(layout, utest_alone_fields[i].event,
					    utest_alone_fields[i].field,
					    utest_alone_fields[i].offset, utest_alone_fields[i].size))
			goto out;
	}
	st = ustack_stitcher_alloc_layout(layout, USTACK_STITCH_INDEX_TS, NULL, NULL);
	if (!st)
		goto out;
	for (i = 0; i < nr; i++) {
		if (ustack_stitcher_add_data(st, cpu[i], 1000 * (i + 1), 0, data[i], size[i], false))
			goto out;
	}
	ustack_stitcher_flush(st);
	info = ustack_stitcher_lookup(st, want_cpu, want_pid, 1000 * (want + 1));
	if (!info)
		goto out;
	buf[0] = '\0';
	if (info->state == USTACK_STATE_STACK &&
	    ustack_stack_fold(info->stack, NULL, NULL, buf, size_buf) < 0)
		goto out;
	ret = info->state;
out:
	ustack_stitcher_free(st);
	ustack_layout_free(layout);
	return ret;
}
