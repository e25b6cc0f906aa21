// SPDX-License-Identifier: LGPL-2.1
/*
 * A stack as the lines trace-cmd report prints under an event, in the style
 * of its in-place user stacks, one line per frame, innermost first, each
 * after a newline (the event's own text has none at its end):
 *
 *	 => ustack_lib_inner+0x25 (/usr/lib/libustack-sample.so)
 *
 * A stack that rests on frame pointers ends with a line that says so, as the
 * kernel's text output names the method: through code that does not keep
 * frame pointers the walk guesses, and a frame can be wrong or missing.
 *
 * The text of a stack is shared by every event of its kernel entry, and by
 * the later entries with the same frames (a program calls the kernel from a
 * few places): a small cache finds it by the frames. Each cached text keeps
 * the stack it was made for (ustack_stack_get()), so the files of its frames
 * stay: a frame of a later stack is the same as a cached one when the file
 * id, the offset, and the path and build-id pointers (the file entry of the
 * stitcher) are equal, with no string compared. A text not found is made of
 * the lines of its frames, which are symbolized once and kept for the
 * stacks of later entries (ustack-lines.c). The cache has a slot per hash
 * and forgets a text when another takes its slot: its memory is bounded,
 * which libtracefs-ext's hash table (ustack-hash.c) is not; the hash is
 * the library's (ustack_hash_int()).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ustack-hash.h>

#include "ustack-plugin.h"

/**
 * up_texts_init - set up the stack texts
 * @texts: the texts
 * @symbols: look the frames up in their files; else print them as file+offset
 * @sym_flags: the symbolizer's USTACK_SYMBOLIZE_* flags (source lines, inlined calls)
 * @debug_dir: where separate debug files are; NULL for the default
 * @sysroot: where the traced machine's files are; NULL for this machine's
 *
 * Return: 0; -1 with errno when the symbolizer cannot be made.
 */
int up_texts_init(struct up_texts *texts, bool symbols, unsigned int sym_flags,
		  const char *debug_dir, const char *sysroot)
{
	memset(texts, 0, sizeof(*texts));
	if (symbols) {
		texts->sym = ustack_symbolizer_alloc();
		if (!texts->sym)
			return -1;
		if (debug_dir && *debug_dir &&
		    ustack_symbolizer_set_debug_dir(texts->sym, debug_dir))
			return -1;
		if (sysroot && *sysroot && ustack_symbolizer_set_sysroot(texts->sym, sysroot))
			return -1;
		if (sym_flags && ustack_symbolizer_set_flags(texts->sym, sym_flags))
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
	free(texts->buf);
	memset(texts, 0, sizeof(*texts));
}

/* Append to the text being made (its own buffer: libtraceevent's trace_seq is slower). */
static void up_put(struct up_texts *texts, const char *str, size_t len)
{
	size_t size;
	char *buf;

	if (texts->failed)
		return;
	if (texts->len + len >= texts->size) {
		size = texts->size ? texts->size : 1024;
		while (texts->len + len >= size)
			size *= 2;
		buf = realloc(texts->buf, size);
		if (!buf) {
			texts->failed = true;
			return;
		}
		texts->buf = buf;
		texts->size = size;
	}
	memcpy(texts->buf + texts->len, str, len);
	texts->len += len;
}

static void up_put_str(struct up_texts *texts, const char *str)
{
	up_put(texts, str, strlen(str));
}

/* One frame of a process, symbolized when there is a symbolizer. */
static void up_put_frame(struct up_texts *texts, const struct ustack_frame *frame, int pid)
{
	char why[128];
	const char *line;
	size_t len;

	line = up_line_get(&texts->lines, frame, pid, &len);
	if (line) {
		up_put(texts, line, len);
		return;
	}
	snprintf(why, sizeof(why), "\n => [frame not readable: %s]", strerror(errno));
	up_put_str(texts, why);
	texts->unread = true;
}

static struct up_text *up_text_make(struct up_texts *texts, const struct ustack_stack *stack)
{
	struct up_text *text;
	unsigned int i;

	texts->len = 0;
	texts->failed = false;
	texts->unread = false;
	if (stack->flags & USTACK_STACK_NO_STACK)
		up_put_str(texts, "\n => [no user stack: it could not be walked]");
	for (i = 0; i < stack->nr; i++)
		up_put_frame(texts, ustack_stack_frame(stack, i), stack->pid);
	if (stack->flags & USTACK_STACK_TRUNCATED)
		up_put_str(texts, "\n => [more frames not recorded]");
	if (stack->flags & USTACK_STACK_MALFORMED)
		up_put_str(texts, "\n => [malformed frame data]");
	if (stack->flags & USTACK_STACK_FP) {
		up_put_str(texts, "\n => [unwind=");
		up_put_str(texts, ustack_stack_method(stack));
		up_put_str(texts, ": frames found by frame pointers may be a guess]");
	}
	if (texts->failed)
		return NULL;

	text = malloc(sizeof(*text) + texts->len + 1);
	if (!text)
		return NULL;
	text->refs = 1;
	text->stack = ustack_stack_get(stack);
	text->len = texts->len;
	if (texts->len)
		memcpy(text->text, texts->buf, texts->len);
	text->text[texts->len] = '\0';
	return text;
}

_Static_assert(!(UP_TEXT_CACHE & (UP_TEXT_CACHE - 1)), "UP_TEXT_CACHE is a power of two");

/*
 * Where a stack's text is in the cache: by its frames and their files, each
 * frame mixed in with libtracefs-ext's hash of numbers.
 */
static unsigned int up_text_slot(const struct ustack_stack *stack)
{
	unsigned long long h = ustack_hash_int(stack->nr ^ ((unsigned long long)stack->flags << 32));
	const struct ustack_frame *f;
	unsigned int i;

	for (i = 0; i < stack->nr; i++) {
		f = ustack_stack_frame(stack, i);
		h = ustack_hash_int(h ^ f->offset ^ ((unsigned long long)f->file_id << 48) ^
				    (uintptr_t)f->path);
	}
	return h & (UP_TEXT_CACHE - 1);
}

/*
 * The same frames, of the same file entries (a kept stack's entries are not
 * reused); of the same process when a frame is in no file (named from the
 * process's perf map).
 */
static bool up_text_same(const struct ustack_stack *a, const struct ustack_stack *b)
{
	const struct ustack_frame *fa, *fb;
	unsigned int i;

	if (a->nr != b->nr || a->flags != b->flags)
		return false;
	for (i = 0; i < a->nr; i++) {
		fa = ustack_stack_frame(a, i);
		fb = ustack_stack_frame(b, i);
		if (fa->offset != fb->offset || fa->file_id != fb->file_id ||
		    fa->path != fb->path || fa->build_id != fb->build_id ||
		    fa->build_id_size != fb->build_id_size)
			return false;
		if (!fa->file_id && a->pid != b->pid)
			return false;
	}
	return true;
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
	struct up_text **slot = &texts->cache[up_text_slot(stack)];
	struct up_text *text = *slot;

	if (text && up_text_same(text->stack, stack)) {
		text->refs++;
		return text;
	}
	text = up_text_make(texts, stack);
	if (!text) {
		errno = ENOMEM;
		return NULL;
	}
	/* the next stack with its frames tries to read them again */
	if (texts->unread)
		return text;
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
	if (!text || --text->refs)
		return;
	ustack_stack_put(text->stack);
	free(text);
}
