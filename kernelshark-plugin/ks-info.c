// SPDX-License-Identifier: LGPL-2.1
/*
 * The Info column: an event's own text, then its user stack, a line per
 * frame, symbolized, and how the kernel found it, or why it was lost.
 *
 * KernelShark formats the Info of a row when it shows the row, through the
 * stream's get_info, which the plugin wraps (the text is KernelShark's to
 * free). KernelShark 2.2.1 shows all the lines of the selected row and of
 * the marked ones, the first line elsewhere, and its search finds events by
 * any text of the Info, frames too.
 *
 * One symbolizer serves every stream (the files it reads are the same);
 * it is not thread safe, and the rows are formatted in the GUI thread while
 * the dialogs may format in another: a lock guards it. Settings from the
 * environment, read when it is made:
 *   USTACK_DEBUG_DIR   where separate debug files are: a colon list searched
 *                      before /usr/lib/debug
 *   USTACK_SYSROOT     the root the trace's paths are under
 *   USTACK_NOSYM=1     frames as file+offset, no symbols looked up
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks-ustack.h"

static pthread_mutex_t ksu_sym_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ustack_symbolizer *ksu_sym;
static bool ksu_sym_tried;

/**
 * ksu_lost_why - why an event's stack is not there, in words
 * @info: the event's info, in state USTACK_STATE_LOST or _UNKNOWN
 *
 * Return: a static string.
 */
const char *ksu_lost_why(const struct ustack_info *info)
{
	if (info->state == USTACK_STATE_UNKNOWN)
		return "events were dropped on its CPU, its cookie is not known";
	if (info->lost != USTACK_LOST_NONE)
		return ustack_lost_name(info->lost);
	return "not known";
}

/* The symbolizer, made at its first use; NULL: frames as file+offset. Under ksu_sym_lock. */
static struct ustack_symbolizer *ksu_symbolizer(void)
{
	const char *nosym = getenv("USTACK_NOSYM");
	const char *dir;

	if (ksu_sym_tried)
		return ksu_sym;
	ksu_sym_tried = true;
	if (nosym && !strcmp(nosym, "1"))
		return NULL;
	ksu_sym = ustack_symbolizer_alloc();
	if (!ksu_sym)
		return NULL;
	dir = getenv("USTACK_DEBUG_DIR");
	if (dir && *dir)
		ustack_symbolizer_set_debug_dir(ksu_sym, dir);
	dir = getenv("USTACK_SYSROOT");
	if (dir && *dir)
		ustack_symbolizer_set_sysroot(ksu_sym, dir);
	return ksu_sym;
}

/**
 * ksu_symbolizer_free - free the symbolizer (the plugin's last stream closed)
 */
void ksu_symbolizer_free(void)
{
	pthread_mutex_lock(&ksu_sym_lock);
	ustack_symbolizer_free(ksu_sym);
	ksu_sym = NULL;
	ksu_sym_tried = false;
	pthread_mutex_unlock(&ksu_sym_lock);
}

/*
 * How the kernel found a stack, as a last line: "  => [unwind: sframe]", or
 * with frame pointers "  => [unwind: fp, frame pointers may be a guess]":
 * through code that does not keep them the walk guesses. None when the
 * entry does not say (a kernel before the method bits).
 */
static char *ksu_unwind_line(const struct ustack_stack *stack, char *buf, size_t size)
{
	const char *method = ustack_stack_method(stack);

	buf[0] = '\0';
	if (method && (stack->flags & (USTACK_STACK_FP | USTACK_STACK_SFRAME)))
		snprintf(buf, size, "  => [unwind: %s%s]\n", method,
			 stack->flags & USTACK_STACK_FP ? ", frame pointers may be a guess" : "");
	return buf;
}

/* A stack as text, in a buffer of the right size; NULL on failure. */
static char *ksu_stack_text(const struct ustack_stack *stack)
{
	char small[1024], unwind[96], *buf;
	size_t more;
	int len;

	pthread_mutex_lock(&ksu_sym_lock);
	len = ustack_stack_format(stack, ksu_symbolizer(), small, sizeof(small));
	if (len < 0) {
		buf = NULL;
	} else if ((size_t)len < sizeof(small)) {
		buf = strdup(small);
	} else {
		buf = malloc(len + 1);
		if (buf)
			ustack_stack_format(stack, ksu_symbolizer(), buf, len + 1);
	}
	pthread_mutex_unlock(&ksu_sym_lock);
	more = strlen(ksu_unwind_line(stack, unwind, sizeof(unwind)));
	if (buf && more) {
		char *all = realloc(buf, len + more + 1);

		if (!all) {
			free(buf);
			return NULL;
		}
		memcpy(all + len, unwind, more + 1);
		buf = all;
	}
	return buf;
}

/**
 * ksu_info_text - what an event carries, as the lines to show under it
 * @info: the event's info (ksu_lookup())
 * @cpu: its CPU, named when the cookie is not known
 *
 * Return: the lines, each "  => ..." and a newline, to be freed; NULL for
 * an event without a user stack, or on failure.
 */
char *ksu_info_text(const struct ustack_info *info, int cpu)
{
	char *text = NULL;

	(void)cpu;
	if (!info)
		return NULL;
	switch (info->state) {
	case USTACK_STATE_STACK:
		return ksu_stack_text(info->stack);
	case USTACK_STATE_LOST:
	case USTACK_STATE_UNKNOWN:
		if (asprintf(&text, "  => [user stack lost: %s]\n", ksu_lost_why(info)) < 0)
			return NULL;
		return text;
	default:
		return NULL;
	}
}

/**
 * ksu_fold_text - a stack as one folded line "comm;outermost;...;innermost"
 * @stack: the stack
 * @comm: the first element (the task's name); NULL for none
 *
 * Return: the line, without a count or newline, to be freed; NULL on failure.
 */
char *ksu_fold_text(const struct ustack_stack *stack, const char *comm)
{
	char small[1024], *buf;
	int len;

	pthread_mutex_lock(&ksu_sym_lock);
	len = ustack_stack_fold(stack, ksu_symbolizer(), comm, small, sizeof(small));
	if (len < 0) {
		buf = NULL;
	} else if ((size_t)len < sizeof(small)) {
		buf = strdup(small);
	} else {
		buf = malloc(len + 1);
		if (buf)
			ustack_stack_fold(stack, ksu_symbolizer(), comm, buf, len + 1);
	}
	pthread_mutex_unlock(&ksu_sym_lock);
	return buf;
}

/**
 * ksu_get_info - the stream's Info, with the event's user stack under it
 * @stream: the stream
 * @entry: the entry of the row
 *
 * Return: the text, which KernelShark frees; what the stream's own get_info
 * returns for an event without a user stack.
 */
char *ksu_get_info(struct kshark_data_stream *stream, const struct kshark_entry *entry)
{
	struct ksu_stream *s = ksu_stream_get(stream->stream_id);
	const struct ustack_info *info;
	char *own, *lines = NULL, *all;
	size_t len;

	if (!s || !s->orig_get_info)
		return NULL;
	own = s->orig_get_info(stream, entry);
	if (entry->event_id < 0)
		return own;
	pthread_mutex_lock(&s->lock);
	info = ksu_stitcher_lookup(s, entry);
	lines = ksu_info_text(info, entry->cpu);
	pthread_mutex_unlock(&s->lock);
	if (!lines)
		return own;
	len = strlen(lines);
	if (len && lines[len - 1] == '\n')
		lines[len - 1] = '\0';
	if (asprintf(&all, "%s\n%s", own ? own : "", lines) < 0)
		all = NULL;
	free(lines);
	if (!all)
		return own;
	free(own);
	return all;
}
