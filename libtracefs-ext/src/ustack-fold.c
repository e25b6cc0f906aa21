// SPDX-License-Identifier: LGPL-2.1
/*
 * Stacks as one folded line, the input of flame graph tools (flamegraph.pl,
 * inferno, speedscope): "comm;outermost;...;innermost". The caller counts
 * equal lines and appends " count".
 *
 * Frames are named without offsets, so that every sample in a function
 * folds into one line: the symbol's name, or, when there is none, the
 * file's base name in brackets (the flame graph still shows which library
 * the time went to), or "[unknown]" when not even the file is known.
 */
#include <errno.h>
#include <string.h>

#include "ustack-stitch-local.h"

/*
 * Append like snprintf(): pos grows by the whole length, buf takes what
 * fits. A name may hold neither ";" (it separates the frames) nor a control
 * character (a line is one sample): those print as "_".
 */
static void ustack_fold_put(char *buf, size_t size, size_t *pos, const char *text, bool name)
{
	unsigned char c;

	for (; *text; text++, (*pos)++) {
		if (*pos + 1 >= size)
			continue;
		c = *text;
		buf[*pos] = name && (c == ';' || c < 0x20) ? '_' : c;
	}
	if (size)
		buf[*pos < size ? *pos : size - 1] = '\0';
}

static void ustack_fold_str(char *buf, size_t size, size_t *pos, const char *text)
{
	ustack_fold_put(buf, size, pos, text, true);
}

static void ustack_fold_sep(char *buf, size_t size, size_t *pos)
{
	ustack_fold_put(buf, size, pos, ";", false);
}

/* A frame's functions inlined at it, outermost first, each after a ";". */
static int ustack_fold_inlines(const struct ustack_frame *frame, struct ustack_symbolizer *sym,
			       char *buf, size_t size, size_t *pos)
{
	const struct ustack_source *src;
	int n;

	if (!(ustack_symbolizer_get_flags(sym) & USTACK_SYMBOLIZE_INLINES))
		return 0;
	n = ustack_frame_inlines(frame, sym, &src);
	if (n < 0)
		return -1;
	while (--n > 0) {
		ustack_fold_sep(buf, size, pos);
		ustack_fold_str(buf, size, pos, src[n - 1].function ? src[n - 1].function :
				"[unknown]");
	}
	return 0;
}

/* One frame's name, after a ";" unless it is the first thing on the line. */
static int ustack_fold_frame(const struct ustack_frame *frame, int pid,
			     struct ustack_symbolizer *sym, char *buf, size_t size, size_t *pos)
{
	struct ustack_symbol symbol;
	const char *base;

	if (*pos)
		ustack_fold_sep(buf, size, pos);
	if (frame->file_id && !frame->path) {
		ustack_fold_str(buf, size, pos, "[unknown]");
		return 0;
	}
	if (sym) {
		if (ustack_frame_lookup(frame, pid, sym, &symbol))
			return -1;
		if (symbol.resolved) {
			ustack_fold_str(buf, size, pos, symbol.name);
			return ustack_fold_inlines(frame, sym, buf, size, pos);
		}
	}
	if (!frame->file_id) {
		ustack_fold_str(buf, size, pos, "[unknown]");
		return 0;
	}
	base = strrchr(frame->path, '/');
	base = base && base[1] ? base + 1 : frame->path;
	ustack_fold_put(buf, size, pos, "[", false);
	ustack_fold_str(buf, size, pos, base);
	ustack_fold_put(buf, size, pos, "]", false);
	return 0;
}

/**
 * ustack_stack_fold - print a stack as one folded line, for flame graphs
 * @stack: the stack, from struct ustack_info
 * @sym: the symbolizer to name the frames with; NULL to name them by file
 * @comm: the first element, usually the task's command name; NULL or "" for
 *	none (every task's stacks fold together)
 * @buf: where to print; may be NULL when @size is 0
 * @size: the size of @buf
 *
 * Prints @comm, then the frames outermost first, separated by ";", with no
 * newline and no count: "sample;main;sample_outer;sample_middle". A frame is
 * named without an offset: by its symbol when @sym resolves it; by the base
 * name of its file in brackets when not ("[libc.so.6]"), or when @sym is
 * NULL; "[unknown]" when it is in no file or its file is not known (a frame
 * in no file is named from the perf map of the stack's process when it is
 * there, see ustack_symbolizer_lookup_addr()). With USTACK_SYMBOLIZE_INLINES
 * the functions inlined at a frame follow it as frames of their own. A stack
 * whose outer frames are missing has "[truncated]" (more frames than the
 * kernel recorded) or "[malformed]" (damaged frame data) where they would
 * be, right after @comm; a stack the kernel could not walk is
 * "[no user stack]". A ";" or a control character in a name or in @comm
 * prints as "_". Like snprintf(), the text is cut to fit @size (and ends
 * with a NUL when @size is not 0).
 *
 * Return: the length of the whole text, without the NUL; -1 with errno
 * EINVAL (@stack NULL, or its frames NULL with a number of them; @buf NULL
 * with a @size), ERANGE (the text is longer than an int) or ENOMEM.
 */
int ustack_stack_fold(const struct ustack_stack *stack, struct ustack_symbolizer *sym,
		      const char *comm, char *buf, size_t size)
{
	size_t pos = 0;
	unsigned int i;

	if (!stack || (stack->nr && !stack->frames) || (!buf && size)) {
		errno = EINVAL;
		return -1;
	}
	if (size)
		buf[0] = '\0';
	if (comm)
		ustack_fold_str(buf, size, &pos, comm);
	if (stack->flags & (USTACK_STACK_NO_STACK | USTACK_STACK_TRUNCATED |
			    USTACK_STACK_MALFORMED)) {
		if (pos)
			ustack_fold_sep(buf, size, &pos);
		if (stack->flags & USTACK_STACK_NO_STACK)
			ustack_fold_str(buf, size, &pos, "[no user stack]");
		else if (stack->flags & USTACK_STACK_MALFORMED)
			ustack_fold_str(buf, size, &pos, "[malformed]");
		else
			ustack_fold_str(buf, size, &pos, "[truncated]");
	}
	for (i = stack->nr; i-- > 0;) {
		if (ustack_fold_frame(&stack->frames[i], stack->pid, sym, buf, size, &pos))
			return -1;
	}
	if (pos > __INT_MAX__) {
		errno = ERANGE;
		return -1;
	}
	return pos;
}
