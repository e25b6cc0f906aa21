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
 * address, "0x7f0123456789" (ustack_stack_format() names it from the perf
 * map of the stack's process); a frame in a file whose user_unwind_file
 * entry was not seen as "file#7+0x1234".
 *
 * With USTACK_SYMBOLIZE_SRCLINE, " at file.c:12" follows (the base name of
 * the source file). With USTACK_SYMBOLIZE_INLINES, the functions inlined at
 * the frame come first, innermost first, each as "name (inlined)" (and its
 * line) and a newline: the text then has several lines, the last being the
 * frame's own, with the line its inlined callee was called from. Like
 * snprintf(), the text is cut to fit @size (and ends with a NUL when @size
 * is not 0).
 *
 * Return: the length of the whole text, without the NUL; -1 with errno
 * EINVAL (@frame NULL, @buf NULL with a @size) or ENOMEM.
 */
int ustack_frame_format(const struct ustack_frame *frame, struct ustack_symbolizer *sym,
			char *buf, size_t size)
{
	if (!frame || (!buf && size)) {
		errno = EINVAL;
		return -1;
	}
	return ustack_frame_text(frame, -1, sym, "\n", buf, size);
}

/* Append like snprintf(): pos grows by the whole length, buf takes what fits. */
static void ustack_append(char *buf, size_t size, size_t *pos, const char *text)
{
	*pos += snprintf(*pos < size ? buf + *pos : NULL, *pos < size ? size - *pos : 0, "%s",
			 text);
}

static int ustack_append_frame(struct ustack_symbolizer *sym, const struct ustack_frame *frame,
			       int pid, char *buf, size_t size, size_t *pos)
{
	int len;

	ustack_append(buf, size, pos, "  => ");
	len = ustack_frame_text(frame, pid, sym, "\n  => ", *pos < size ? buf + *pos : NULL,
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
 * Functions inlined at a frame (USTACK_SYMBOLIZE_INLINES) get lines of their
 * own, "  => name (inlined)", before it. A frame in no file is looked up in
 * the perf map of the stack's process (ustack_symbolizer_lookup_addr()), and
 * prints as its address when it is not there.
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
		if (ustack_append_frame(sym, &stack->frames[i], stack->pid, buf, size, &pos))
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
