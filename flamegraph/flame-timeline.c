// SPDX-License-Identifier: GPL-2.0
/*
 * Every sample of the traces kept, for a profile in time order (speedscope's
 * "Time Order" view): its time, its task, and its frames, each frame named
 * as in the folded line and with the file it is in, so that two functions
 * of one name in two files (two static functions, or two "[libfoo.so]" of
 * two directories) stay two frames. The folded counts lose all three.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <ustack.h>

#include "flame.h"

/* Between a frame's name and its file in a frame's key; no name holds it. */
#define FLAME_FILE_SEP	('\001')

/**
 * flame_frames_add - a frame's index, the frame added when new
 * @f: the frames (zeroed before the first use)
 * @name: its name; need not end with a NUL
 * @len: the length of @name
 * @file: the file it is in; NULL: none
 *
 * A folded name holds no control character (ustack_sample_fold() writes
 * them "_"), so the key "name\1file" is one frame; a name without a file
 * is its own key.
 *
 * Return: the index, in the order the frames were added; -1 with errno
 * ENOMEM or EINVAL (an empty name).
 */
long flame_frames_add(struct flame_frames *f, const char *name, size_t len, const char *file)
{
	size_t file_len = file ? strlen(file) : 0;
	size_t key_len = file ? len + 1 + file_len : len;
	struct flame_frame *order;
	struct flame_line *line;

	if (key_len + 1 > f->key_size) {
		free(f->key);
		f->key_size = 2 * (key_len + 1);
		f->key = malloc(f->key_size);
		if (!f->key) {
			f->key_size = 0;
			return -1;
		}
	}
	memcpy(f->key, name, len);
	if (file) {
		f->key[len] = FLAME_FILE_SEP;
		memcpy(f->key + len + 1, file, file_len);
	}
	f->key[key_len] = '\0';
	line = flame_counts_find(&f->keys, f->key, key_len);
	if (line)
		return line->count;
	if (f->nr == f->size) {
		f->size = f->size ? 2 * f->size : 64;
		order = realloc(f->order, f->size * sizeof(*order));
		if (!order)
			return -1;
		f->order = order;
	}
	/* the count is the index: added as 1, set right after */
	if (flame_counts_add(&f->keys, f->key, key_len, 1))
		return -1;
	line = flame_counts_find(&f->keys, f->key, key_len);
	line->count = f->nr;
	f->order[f->nr].key = line->text;
	f->order[f->nr].name_len = len;
	return f->nr++;
}

/**
 * flame_frames_free - free the frames
 * @f: zeroed, ready for use again
 */
void flame_frames_free(struct flame_frames *f)
{
	flame_counts_free(&f->keys);
	free(f->order);
	free(f->key);
	memset(f, 0, sizeof(*f));
}

/*
 * How many folded names a user frame has: one, and with --inlines one more
 * for each function inlined at it (as ustack_sample_fold() names them).
 */
static int flame_frame_names(struct ustack_symbolizer *sym, const struct ustack_frame *frame)
{
	unsigned int flags = frame->flags & USTACK_FRAME_RETURN ? USTACK_LOOKUP_RETURN : 0;
	const struct ustack_source *src;
	struct ustack_symbol symbol;
	int n;

	if (!sym || !frame->file_id || !frame->path ||
	    !(ustack_symbolizer_get_flags(sym) & USTACK_SYMBOLIZE_INLINES))
		return 1;
	if (ustack_symbolizer_lookup(sym, frame->path, frame->build_id, frame->build_id_size,
				     frame->offset, flags, &symbol) || !symbol.resolved)
		return 1;
	n = ustack_symbolizer_lookup_source(sym, frame->path, frame->build_id,
					    frame->build_id_size, frame->offset, flags, &src);
	return n > 1 ? n : 1;
}

/*
 * The file of each of the @nr user names of a sample's line, outermost
 * first, into @files; false when the names are not the stack's frames one
 * for one (nor with the inlined functions counted): then they get none.
 */
static bool flame_user_files(struct flame_timeline *tl, const struct ustack_stack *stack,
			     size_t nr, const char **files)
{
	const struct ustack_frame *f;
	size_t k = 0, n;
	unsigned int i;

	for (i = stack->nr; i-- > 0;) {
		f = ustack_stack_frame(stack, i);
		n = nr == stack->nr ? 1 : (size_t)flame_frame_names(tl->sym, f);
		if (n > nr - k)
			return false;
		while (n--)
			files[k++] = f->path;
	}
	return k == nr;
}

/* Room for @nr more frame indices of the samples. */
static int flame_timeline_room(struct flame_timeline *tl, size_t nr)
{
	unsigned int *frames;
	size_t size;

	if (tl->nr_stack + nr <= tl->size_stack)
		return 0;
	size = 2 * (tl->nr_stack + nr);
	frames = realloc(tl->stack, size * sizeof(*frames));
	if (!frames)
		return -1;
	tl->stack = frames;
	tl->size_stack = size;
	return 0;
}

/* A new event, its frames to come. */
static struct flame_event *flame_timeline_event(struct flame_timeline *tl)
{
	struct flame_event *events;
	size_t size;

	if (tl->nr_events == tl->size_events) {
		size = tl->size_events ? 2 * tl->size_events : 1024;
		events = realloc(tl->events, size * sizeof(*events));
		if (!events)
			return NULL;
		tl->events = events;
		tl->size_events = size;
	}
	return &tl->events[tl->nr_events];
}

/**
 * flame_timeline_sample - keep a sample, with its time, task and frames
 * @sample: the sample, with its folded line
 * @context: the struct flame_timeline
 *
 * The names of the frames are those of the folded line; a user frame's
 * file is the file it is in (struct ustack_frame's path), kernel frames
 * and marks ("[stack lost]", ...) have none.
 *
 * Return: 0; -1 with errno ENOMEM.
 */
int flame_timeline_sample(const struct flame_sample *sample, void *context)
{
	const struct ustack_stack *stack = sample->stack;
	const char *name = sample->line, *end = name + sample->len, *sep;
	struct flame_timeline *tl = context;
	size_t nr = 1, k, user, before;
	struct flame_event *ev;
	const char **files;
	long index;

	for (sep = name; (sep = memchr(sep, ';', end - sep)); sep++)
		nr++;
	ev = flame_timeline_event(tl);
	files = calloc(nr, sizeof(*files));
	if (!ev || !files || flame_timeline_room(tl, nr))
		goto fail;
	ev->ts = sample->sample->ts;
	ev->input = tl->input;
	ev->seq = tl->nr_events;
	ev->profile = 0;
	if (sample->task) {
		sep = memchr(name, ';', end - name);
		index = flame_frames_add(&tl->profiles, name, (sep ? sep : end) - name, NULL);
		if (index < 0)
			goto fail;
		ev->profile = index;
		name = sep ? sep + 1 : end;
		nr--;
	}
	/* the line: [unwind] [mark] user names... [lost mark] kernel names... */
	before = stack && (stack->flags & (USTACK_STACK_NO_STACK | USTACK_STACK_TRUNCATED |
					   USTACK_STACK_MALFORMED)) ? 1 : 0;
	before += sample->unwind ? 1 : 0;
	k = before + (sample->why ? 1 : 0) + sample->sample->nr_kernel;
	user = stack && nr >= k ? nr - k : 0;
	if (user && !flame_user_files(tl, stack, user, files + before))
		memset(files, 0, nr * sizeof(*files));
	ev->first = tl->nr_stack;
	ev->nr = 0;
	for (k = 0; name < end; k++, name = sep + 1) {
		sep = memchr(name, ';', end - name);
		if (!sep)
			sep = end;
		/* an empty name (a symbol's) is no frame, as in the folded writer */
		if (sep == name)
			continue;
		index = flame_frames_add(&tl->names, name, sep - name, files[k]);
		if (index < 0)
			goto fail;
		tl->stack[tl->nr_stack + ev->nr++] = index;
	}
	tl->nr_stack += ev->nr;
	tl->nr_events++;
	free(files);
	return 0;
fail:
	free(files);
	return -1;
}

/**
 * flame_timeline_free - free what the timeline kept
 * @tl: zeroed, ready for use again
 */
void flame_timeline_free(struct flame_timeline *tl)
{
	flame_frames_free(&tl->names);
	flame_frames_free(&tl->profiles);
	free(tl->events);
	free(tl->stack);
	memset(tl, 0, sizeof(*tl));
}
