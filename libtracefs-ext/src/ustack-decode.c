// SPDX-License-Identifier: LGPL-2.1
/*
 * The frame decoder without libtraceevent: for a tool with its own ftrace
 * parser (a Perfetto-style importer), which reads the fields of the
 * user_unwind_file and user_unwind_stack entries itself and needs only the
 * frame encoding (LEB128, zigzag and file ids, Documentation/trace/ftrace.rst)
 * undone. The stitcher decodes with the same code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-stitch-local.h"

struct ustack_file_table {
	struct ustack_files	files;
};

/**
 * ustack_file_table_alloc - allocate an empty file table
 *
 * The table keeps the user_unwind_file entries of a trace by id, for
 * ustack_frames_decode() to name the files of the frames.
 *
 * Return: the table, to be freed with ustack_file_table_free(); NULL with
 * errno ENOMEM.
 */
struct ustack_file_table *ustack_file_table_alloc(void)
{
	return calloc(1, sizeof(struct ustack_file_table));
}

/**
 * ustack_file_table_free - free a file table
 * @table: the table; NULL is allowed
 *
 * Stacks decoded with it keep their paths and build-ids until they are put.
 */
void ustack_file_table_free(struct ustack_file_table *table)
{
	if (!table)
		return;
	ustack_files_clear(&table->files);
	free(table);
}

/**
 * ustack_file_table_set - note a user_unwind_file entry
 * @table: the table
 * @id: the entry's id field, 1 to 16384
 * @path: its path field
 * @build_id: its build_id field; NULL when @build_id_size is 0
 * @build_id_size: its build_id_size field, 0 (none) to 20
 *
 * A later entry with the same id (the kernel numbers again after a buffer
 * reset) replaces the earlier one; stacks decoded before keep the earlier.
 *
 * Return: 0; -1 with errno EINVAL (@table or @path NULL, @id out of range,
 * @build_id_size above 20 or without @build_id) or ENOMEM, the table being
 * left as it was.
 */
int ustack_file_table_set(struct ustack_file_table *table, unsigned int id, const char *path,
			  const unsigned char *build_id, size_t build_id_size)
{
	if (!table || !path || (build_id_size && !build_id)) {
		errno = EINVAL;
		return -1;
	}
	return ustack_files_set(&table->files, id, build_id, build_id_size, path, strlen(path));
}

/**
 * ustack_frames_decode - decode the frames of a user_unwind_stack entry
 * @data: the entry's frame data: the bytes after its fixed fields, to the
 *	end of the record (padding included)
 * @size: the bytes of @data
 * @nr: the entry's nr field
 * @flags: its flags field (USTACK_STACK_TRUNCATED, USTACK_STACK_NO_STACK,
 *	USTACK_STACK_FP, USTACK_STACK_SFRAME; other bits are not kept)
 * @table: the files named so far; NULL to name none (frames then have a
 *	file id and no path)
 *
 * Nothing in @data is trusted: a number cut short or too long, a first
 * frame without a file, or fewer frames than @nr ends the decoding, and the
 * stack keeps the frames before the damage with USTACK_STACK_MALFORMED.
 * The stack's cookie and pid are 0: the caller has them from the entry.
 *
 * Return: the stack, innermost frame first, with one reference, to be put
 * with ustack_stack_put(); it stays valid whatever happens to @table. NULL
 * with errno EINVAL (@data NULL with a @size) or ENOMEM.
 */
const struct ustack_stack *ustack_frames_decode(const void *data, size_t size,
						unsigned int nr, unsigned int flags,
						struct ustack_file_table *table)
{
	static struct ustack_files none;

	if (!data && size) {
		errno = EINVAL;
		return NULL;
	}
	return ustack_stack_decode(table ? &table->files : &none, 0, 0, nr, flags,
				   data, size);
}
