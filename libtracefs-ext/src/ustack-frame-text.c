// SPDX-License-Identifier: LGPL-2.1
/*
 * One frame of a stack looked up and printed, for ustack_frame_format(),
 * ustack_stack_format() and ustack_stack_fold().
 *
 * A frame in a file is looked up in it; a frame in no file (file id 0) in
 * the perf map of its process, when the process is known (a stack knows its
 * pid, a frame alone does not). With the symbolizer's USTACK_SYMBOLIZE_*
 * flags, a frame gets its source line ("at file.c:12", the file's base
 * name), and the functions inlined at it print before it, innermost first,
 * each as "name (inlined)" and a separator.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ustack-stitch-local.h"

/**
 * ustack_frame_lookup - look a frame up
 * @frame: the frame, in a file (with a path) or in none
 * @pid: its process; -1 when not known
 * @sym: the symbolizer
 * @symbol: filled in
 *
 * Return: 0, @symbol->path NULL for a frame in no file that was not looked
 * up; -1 with errno.
 */
int ustack_frame_lookup(const struct ustack_frame *frame, int pid, struct ustack_symbolizer *sym,
			struct ustack_symbol *symbol)
{
	unsigned int flags = frame->flags & USTACK_FRAME_RETURN ? USTACK_LOOKUP_RETURN : 0;

	if (frame->file_id)
		return ustack_symbolizer_lookup(sym, frame->path, frame->build_id,
						frame->build_id_size, frame->offset, flags, symbol);
	memset(symbol, 0, sizeof(*symbol));
	if (pid < 0)
		return 0;
	return ustack_symbolizer_lookup_addr(sym, pid, frame->offset, flags, symbol);
}

/**
 * ustack_frame_inlines - the source of a frame in a file, as the flags want it
 * @frame: the frame, in a file with a path
 * @sym: the symbolizer
 * @src: set to the functions at the frame, innermost first
 *
 * Return: their number; 0 when the symbolizer wants neither lines nor
 * inlined calls, or there is no DWARF; -1 with errno.
 */
int ustack_frame_inlines(const struct ustack_frame *frame, struct ustack_symbolizer *sym,
			 const struct ustack_source **src)
{
	*src = NULL;
	if (!frame->file_id || !frame->path ||
	    !(ustack_symbolizer_get_flags(sym) &
	      (USTACK_SYMBOLIZE_SRCLINE | USTACK_SYMBOLIZE_INLINES)))
		return 0;
	return ustack_symbolizer_lookup_source(sym, frame->path, frame->build_id,
					       frame->build_id_size, frame->offset,
					       frame->flags & USTACK_FRAME_RETURN ?
					       USTACK_LOOKUP_RETURN : 0, src);
}

/* Append like snprintf(): pos grows by the whole length, buf takes what fits. */
static void ustack_text_str(char *buf, size_t size, size_t *pos, const char *str)
{
	int n = snprintf(*pos < size ? buf + *pos : NULL, *pos < size ? size - *pos : 0, "%s",
			 str);

	if (n > 0)
		*pos += n;
}

/* " at file.c:12" for an entry with a line */
static void ustack_text_line(char *buf, size_t size, size_t *pos,
			     const struct ustack_source *src)
{
	const char *base;
	int n;

	if (!src->file || !src->line)
		return;
	base = strrchr(src->file, '/');
	n = snprintf(*pos < size ? buf + *pos : NULL, *pos < size ? size - *pos : 0,
		     " at %s:%u", base ? base + 1 : src->file, src->line);
	if (n > 0)
		*pos += n;
}

/**
 * ustack_frame_text - a frame as text, as ustack_frame_format() documents
 * @frame: the frame
 * @pid: its process; -1 when not known
 * @sym: the symbolizer; NULL for none
 * @sep: what goes between an inlined function and the next line
 * @buf: where to print; may be NULL when @size is 0
 * @size: the size of @buf
 *
 * Return: the length of the whole text; -1 with errno.
 */
int ustack_frame_text(const struct ustack_frame *frame, int pid, struct ustack_symbolizer *sym,
		      const char *sep, char *buf, size_t size)
{
	unsigned int flags = ustack_symbolizer_get_flags(sym);
	const struct ustack_source *src;
	struct ustack_symbol symbol;
	size_t pos = 0;
	int n, nr, i;

	if (frame->file_id && !frame->path)
		return snprintf(buf, size, "file#%u+0x%llx", frame->file_id, frame->offset);
	if (!sym && frame->file_id)
		return snprintf(buf, size, "%s+0x%llx", frame->path, frame->offset);
	if (!sym || ustack_frame_lookup(frame, pid, sym, &symbol))
		return sym ? -1 : snprintf(buf, size, "0x%llx", frame->offset);
	if (!frame->file_id && !symbol.resolved)
		return snprintf(buf, size, "0x%llx", frame->offset);

	nr = ustack_frame_inlines(frame, sym, &src);
	if (nr < 0)
		return -1;
	for (i = 0; (flags & USTACK_SYMBOLIZE_INLINES) && i < nr - 1; i++) {
		ustack_text_str(buf, size, &pos, src[i].function ? src[i].function : "[unknown]");
		ustack_text_str(buf, size, &pos, " (inlined)");
		if (flags & USTACK_SYMBOLIZE_SRCLINE)
			ustack_text_line(buf, size, &pos, &src[i]);
		ustack_text_str(buf, size, &pos, sep);
	}
	n = ustack_symbol_format(&symbol, pos < size ? buf + pos : NULL, pos < size ? size - pos : 0);
	if (n < 0)
		return -1;
	pos += n;
	/* the frame's line: its own, or where its inlined callee was called (i) */
	if ((flags & USTACK_SYMBOLIZE_SRCLINE) && nr > 0)
		ustack_text_line(buf, size, &pos, &src[i]);
	if (pos > __INT_MAX__) {
		errno = ERANGE;
		return -1;
	}
	return pos;
}
