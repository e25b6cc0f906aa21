// SPDX-License-Identifier: LGPL-2.1
/*
 * A stack as the lines trace-cmd report prints under an event, in the style
 * of its in-place user stacks, one line per frame, innermost first, each
 * after a newline (the event's own text has none at its end):
 *
 *	 => ustack_lib_inner+0x25 (/usr/lib/libustack-sample.so)
 *
 * The text is made once per stack, when the read-ahead meets it, and shared
 * by every event of the same kernel entry (the events of one entry usually
 * come close together); a small cache by cookie finds it again. It is made
 * of the lines of its frames, which are symbolized once and kept for the
 * stacks of later entries (ustack-lines.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-plugin.h"

/**
 * up_texts_init - set up the stack texts
 * @texts: the texts
 * @symbols: look the frames up in their files; else print them as file+offset
 * @debug_dir: where separate debug files are; NULL for the default
 *
 * Return: 0; -1 with errno when the symbolizer cannot be made.
 */
int up_texts_init(struct up_texts *texts, bool symbols, const char *debug_dir)
{
	memset(texts, 0, sizeof(*texts));
	trace_seq_init(&texts->seq);
	if (symbols) {
		texts->sym = ustack_symbolizer_alloc();
		if (!texts->sym)
			return -1;
		if (debug_dir && *debug_dir &&
		    ustack_symbolizer_set_debug_dir(texts->sym, debug_dir))
			return -1;
	}
	up_lines_init(&texts->lines, texts->sym);
	return 0;
}

/**
 * up_texts_clear - free the cache, the symbolizer and the work buffer
 * @texts: the texts; texts still referenced elsewhere stay valid
 */
void up_texts_clear(struct up_texts *texts)
{
	int i;

	for (i = 0; i < UP_TEXT_CACHE; i++)
		up_text_put(texts->cache[i]);
	up_lines_clear(&texts->lines);
	ustack_symbolizer_free(texts->sym);
	trace_seq_destroy(&texts->seq);
	memset(texts, 0, sizeof(*texts));
}

/* One frame, symbolized when there is a symbolizer. */
static void up_put_frame(struct up_texts *texts, const struct ustack_frame *frame)
{
	const char *line = up_line_get(&texts->lines, frame);

	if (!line)
		trace_seq_printf(&texts->seq, "\n => [frame not readable: %s]", strerror(errno));
	else
		trace_seq_puts(&texts->seq, line);
}

static struct up_text *up_text_make(struct up_texts *texts, const struct ustack_stack *stack)
{
	struct trace_seq *seq = &texts->seq;
	struct up_text *text;
	unsigned int i;

	trace_seq_reset(seq);
	if (stack->flags & USTACK_STACK_NO_STACK)
		trace_seq_puts(seq, "\n => [no user stack: it could not be walked]");
	for (i = 0; i < stack->nr; i++)
		up_put_frame(texts, &stack->frames[i]);
	if (stack->flags & USTACK_STACK_TRUNCATED)
		trace_seq_puts(seq, "\n => [more frames not recorded]");
	if (stack->flags & USTACK_STACK_MALFORMED)
		trace_seq_puts(seq, "\n => [malformed frame data]");
	if (seq->state != TRACE_SEQ__GOOD)
		return NULL;

	text = malloc(sizeof(*text) + seq->len + 1);
	if (!text)
		return NULL;
	text->refs = 1;
	text->cookie = stack->cookie;
	text->pid = stack->pid;
	text->len = seq->len;
	memcpy(text->text, seq->buffer, seq->len);
	text->text[seq->len] = '\0';
	return text;
}

/**
 * up_text_get - the text of a stack, from the cache or made now
 * @texts: the texts
 * @stack: the stack, as the stitcher hands it back
 *
 * Return: a reference to the text, to be dropped with up_text_put(); NULL
 * with errno ENOMEM.
 */
struct up_text *up_text_get(struct up_texts *texts, const struct ustack_stack *stack)
{
	unsigned long long h = stack->cookie ^ (stack->cookie >> 29) ^ (unsigned int)stack->pid;
	struct up_text **slot = &texts->cache[h % UP_TEXT_CACHE];
	struct up_text *text = *slot;

	if (text && text->cookie == stack->cookie && text->pid == stack->pid) {
		text->refs++;
		return text;
	}
	text = up_text_make(texts, stack);
	if (!text) {
		errno = ENOMEM;
		return NULL;
	}
	up_text_put(*slot);
	*slot = text;
	text->refs++;
	return text;
}

/**
 * up_text_put - drop a reference to a text
 * @text: the text; NULL is allowed
 */
void up_text_put(struct up_text *text)
{
	if (text && !--text->refs)
		free(text);
}
