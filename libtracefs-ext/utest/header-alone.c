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
