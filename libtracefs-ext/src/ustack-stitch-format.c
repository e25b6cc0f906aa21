// SPDX-License-Identifier: LGPL-2.1
/*
 * Frames and stacks of the stitcher as text, symbolized when a symbolizer
 * is given. The stitcher itself keeps frames as file + offset: symbolizing
 * is the caller's choice (and cost).
 */
#include <errno.h>
#include <stdio.h>

#include "ustack-stitch-local.h"

/**
 * ustack_frame_format - print a frame as text
 * @frame: the frame
 * @sym: the symbolizer to look the frame up with; NULL to print it as the
 *	kernel's trace file does
 * @buf: where to print; may be NULL when @size is 0
 * @size: the size of @buf
 *
 * A frame in a file prints, with @sym, as ustack_symbol_format() prints its
 * symbol: "name+0x1a (/path/to/file)", or "[unknown] (/path/to/file+0x1234)";
 * a frame with USTACK_FRAME_RETURN (a caller's) is looked up as a return
 * address (USTACK_LOOKUP_RETURN), and still prints its own offset;
 * without @sym as "/path/to/file+0x1234". A frame in no file prints as its
 * address, "0x7f0123456789"; a frame in a file whose user_unwind_file entry
 * was not seen as "file#7+0x1234". Like snprintf(), the text is cut to fit
 * @size (and ends with a NUL when @size is not 0).
 *
 * Return: the length of the whole text, without the NUL; -1 with errno
 * EINVAL (@frame NULL, @buf NULL with a @size) or ENOMEM.
 */
int ustack_frame_format(const struct ustack_frame *frame, struct ustack_symbolizer *sym,
			char *buf, size_t size)
{
	struct ustack_symbol symbol;

	if (!frame || (!buf && size)) {
		errno = EINVAL;
		return -1;
	}
	if (!frame->file_id)
		return snprintf(buf, size, "0x%llx", frame->offset);
	if (!frame->path)
		return snprintf(buf, size, "file#%u+0x%llx", frame->file_id, frame->offset);
	if (!sym)
		return snprintf(buf, size, "%s+0x%llx", frame->path, frame->offset);
	if (ustack_symbolizer_lookup(sym, frame->path, frame->build_id, frame->build_id_size,
				     frame->offset, frame->flags & USTACK_FRAME_RETURN ?
				     USTACK_LOOKUP_RETURN : 0, &symbol))
		return -1;
	return ustack_symbol_format(&symbol, buf, size);
}

/* Append like snprintf(): pos grows by the whole length, buf takes what fits. */
static void ustack_append(char *buf, size_t size, size_t *pos, const char *text)
{
	*pos += snprintf(*pos < size ? buf + *pos : NULL, *pos < size ? size - *pos : 0, "%s",
			 text);
}

static int ustack_append_frame(struct ustack_symbolizer *sym, const struct ustack_frame *frame,
			       char *buf, size_t size, size_t *pos)
{
	int len;

	ustack_append(buf, size, pos, "  => ");
	len = ustack_frame_format(frame, sym, *pos < size ? buf + *pos : NULL,
				  *pos < size ? size - *pos : 0);
	if (len < 0)
		return -1;
	*pos += len;
	ustack_append(buf, size, pos, "\n");
	return 0;
}

/**
 * ustack_stack_format - print a stack as text, a line per frame
 * @stack: the stack, from struct ustack_info
 * @sym: the symbolizer to look the frames up with; NULL for none
 * @buf: where to print; may be NULL when @size is 0
 * @size: the size of @buf
 *
 * Every frame, innermost first, prints as "  => " and the frame as
 * ustack_frame_format() prints it, and a newline:
 *
 *     => sample_middle+0x1a (/path/to/ustack-sample)
 *
 * A stack the kernel could not walk prints "  => [no user stack]", a
 * truncated one ends with "  => [more frames not recorded]", one with damaged
 * frame data with "  => [malformed frame data]". Like snprintf(), the text
 * is cut to fit @size (and ends with a NUL when @size is not 0).
 *
 * Return: the length of the whole text, without the NUL; -1 with errno
 * EINVAL (@stack NULL, or its frames NULL with a number of them; @buf NULL
 * with a @size), ERANGE (the text is longer than an int) or ENOMEM.
 */
int ustack_stack_format(const struct ustack_stack *stack, struct ustack_symbolizer *sym,
			char *buf, size_t size)
{
	size_t pos = 0;
	unsigned int i;

	if (!stack || (stack->nr && !stack->frames) || (!buf && size)) {
		errno = EINVAL;
		return -1;
	}
	if (size)
		buf[0] = '\0';
	if (stack->flags & USTACK_STACK_NO_STACK)
		ustack_append(buf, size, &pos, "  => [no user stack]\n");
	for (i = 0; i < stack->nr; i++) {
		if (ustack_append_frame(sym, &stack->frames[i], buf, size, &pos))
			return -1;
	}
	if (stack->flags & USTACK_STACK_TRUNCATED)
		ustack_append(buf, size, &pos, "  => [more frames not recorded]\n");
	if (stack->flags & USTACK_STACK_MALFORMED)
		ustack_append(buf, size, &pos, "  => [malformed frame data]\n");
	if (pos > __INT_MAX__) {
		errno = ERANGE;
		return -1;
	}
	return pos;
}
