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
 *
 * A sample (ustack-sample.c) folds with its kernel stack after its user
 * stack, as FlameGraph's stackcollapse-perf.pl folds a system call: the
 * user frames lead to the kernel entry, the kernel frames go on from it.
 * Kernel frames are named as that script names them with --kernel:
 * "function_[k]".
 */
#include <errno.h>
#include <stdio.h>
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

/* A stack's marks and frames, outermost first, each after a ";" unless first on the line. */
static int ustack_fold_stack(const struct ustack_stack *stack, struct ustack_symbolizer *sym,
			     char *buf, size_t size, size_t *pos)
{
	unsigned int i;

	if (stack->flags & (USTACK_STACK_NO_STACK | USTACK_STACK_TRUNCATED |
			    USTACK_STACK_MALFORMED)) {
		if (*pos)
			ustack_fold_sep(buf, size, pos);
		if (stack->flags & USTACK_STACK_NO_STACK)
			ustack_fold_str(buf, size, pos, "[no user stack]");
		else if (stack->flags & USTACK_STACK_MALFORMED)
			ustack_fold_str(buf, size, pos, "[malformed]");
		else
			ustack_fold_str(buf, size, pos, "[truncated]");
	}
	for (i = stack->nr; i-- > 0;) {
		if (ustack_fold_frame(&stack->frames[i], stack->pid, sym, buf, size, pos))
			return -1;
	}
	return 0;
}

/* The length of a line, as an int. */
static int ustack_fold_end(size_t pos)
{
	if (pos > __INT_MAX__) {
		errno = ERANGE;
		return -1;
	}
	return pos;
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

	if (!stack || (stack->nr && !stack->frames) || (!buf && size)) {
		errno = EINVAL;
		return -1;
	}
	if (size)
		buf[0] = '\0';
	if (comm)
		ustack_fold_str(buf, size, &pos, comm);
	if (ustack_fold_stack(stack, sym, buf, size, &pos))
		return -1;
	return ustack_fold_end(pos);
}

/* A kernel address: "function_[k]", or "0xADDR_[k]" when the trace's kallsyms lacks it. */
static void ustack_fold_kernel(struct tep_handle *tep, unsigned long long addr, char *buf,
			       size_t size, size_t *pos)
{
	const char *func = tep ? tep_find_function(tep, addr) : NULL;
	char hex[24];

	if (*pos)
		ustack_fold_sep(buf, size, pos);
	if (func) {
		ustack_fold_str(buf, size, pos, func);
	} else {
		snprintf(hex, sizeof(hex), "0x%llx", addr);
		ustack_fold_put(buf, size, pos, hex, false);
	}
	ustack_fold_put(buf, size, pos, "_[k]", false);
}

/**
 * ustack_sample_fold - print a sample as one folded line, its kernel stack joined
 * @sample: the sample, from the sampler's callback
 * @sym: the symbolizer to name the user frames with; NULL to name them by file
 * @comm: the first element, usually the task's command name (or
 *	"comm-PID" for a graph per task); NULL or "" for none (every task's
 *	samples fold together)
 * @buf: where to print; may be NULL when @size is 0
 * @size: the size of @buf
 *
 * Prints @comm, the user stack as ustack_stack_fold() does, then the kernel
 * stack, outermost first, each frame named "function_[k]" from the trace's
 * kallsyms (the sample's tep), or "0xADDR_[k]" when they do not name it: the
 * order of the frames is the order of the calls, from the program's start to
 * the kernel function that recorded the event, the order flame graphs draw
 * a system call in ("sample;main;getppid;entry_SYSCALL_64_[k];..."). When
 * one of the two stacks is missing, the line has the other alone: an event
 * without a cookie (USTACK_STATE_NONE: a kernel thread, or the option was
 * off) has its kernel frames right after @comm; an event whose user stack
 * was lost has "[stack lost]" where the user frames would be, one whose
 * cookie was not known (events were missed on its CPU) "[stack unknown]",
 * each followed by the kernel frames when there are any. A sample with
 * neither a user stack nor one of those marks nor a kernel stack has
 * nothing to show: it prints nothing, not even @comm, and its length is 0
 * (leave it out of the counts). A ";" or a control character in a name or
 * in @comm prints as "_". Like snprintf(), the text is cut to fit @size
 * (and ends with a NUL when @size is not 0).
 *
 * Return: the length of the whole text, without the NUL; 0 when the sample
 * has nothing to show; -1 with errno EINVAL (@sample or its info NULL, its
 * kernel addresses NULL with a number of them; @buf NULL with a @size),
 * ERANGE (the text is longer than an int) or ENOMEM.
 */
int ustack_sample_fold(const struct ustack_sample *sample, struct ustack_symbolizer *sym,
		       const char *comm, char *buf, size_t size)
{
	const struct ustack_stack *stack = NULL;
	const char *mark = NULL;
	size_t pos = 0;
	unsigned int i;

	if (!sample || !sample->info || (sample->nr_kernel && !sample->kernel) ||
	    (!buf && size)) {
		errno = EINVAL;
		return -1;
	}
	if (sample->info->state == USTACK_STATE_STACK)
		stack = sample->info->stack;
	else if (sample->info->state == USTACK_STATE_LOST)
		mark = "[stack lost]";
	else if (sample->info->state == USTACK_STATE_UNKNOWN)
		mark = "[stack unknown]";
	if (stack && stack->nr && !stack->frames) {
		errno = EINVAL;
		return -1;
	}
	if (size)
		buf[0] = '\0';
	if (!stack && !mark && !sample->nr_kernel)
		return 0;
	if (comm)
		ustack_fold_str(buf, size, &pos, comm);
	if (stack && ustack_fold_stack(stack, sym, buf, size, &pos))
		return -1;
	if (mark) {
		if (pos)
			ustack_fold_sep(buf, size, &pos);
		ustack_fold_str(buf, size, &pos, mark);
	}
	for (i = sample->nr_kernel; i-- > 0;)
		ustack_fold_kernel(sample->tep, sample->kernel[i], buf, size, &pos);
	return ustack_fold_end(pos);
}
