// SPDX-License-Identifier: LGPL-2.1
/*
 * The line of one frame, "\n => sym+0x1a (/path/to/file)", kept for the
 * next stack with the same frame.
 *
 * Every kernel entry has a stack of its own, but the frames of those stacks
 * repeat: a program calls the kernel from a few places. Looking a frame up
 * in its file and printing it costs far more than finding the line again, so
 * the lines are kept in a table of UP_LINES slots, one line per slot (a new
 * line in a taken slot replaces the one there): the memory stays bounded
 * whatever the trace. A cache, not libtracefs-ext's hash table, which keeps
 * all it is given; the slot is found with its hash of numbers.
 *
 * A line is found again by what made it: the file id, the offset, the
 * frame's flags (a return address is looked up as the call before it), and
 * the path and build-id of the file (a file id can name another file later
 * in the trace, when the kernel numbers its files again). A frame in no file
 * (file id 0: JIT code, an anonymous mapping) is named from the perf map of
 * its process (/tmp/perf-PID.map): its line is found again by the pid too.
 *
 * With the symbolizer's USTACK_SYMBOLIZE_INLINES, a frame can print as
 * several lines (the functions inlined at it first): each gets its " => ".
 * Names and paths are the traced files' and the trace's: a control
 * character in them prints as "_", a byte that is not UTF-8 as U+FFFD
 * (ustack-escape.c); a newline too, but for the one between inlined calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ustack-hash.h>

#include "ustack-plugin.h"

struct up_line {
	int			pid;		/* frames in no file; -1 for the others */
	unsigned int		file_id;
	unsigned int		flags;
	unsigned long long	offset;
	size_t			build_id_size;
	bool			has_path;
	size_t			len;		/* of text */
	char			*path;		/* in data, after the text */
	unsigned char		*build_id;	/* in data, after the path */
	char			text[];
};

_Static_assert(!(UP_LINES & (UP_LINES - 1)), "UP_LINES is a power of two");

/* The slot of a frame: by its file id and offset, hashed as libtracefs-ext hashes numbers. */
static size_t up_line_hash(const struct ustack_frame *frame)
{
	return ustack_hash_int(ustack_hash_int(frame->file_id) ^ frame->offset) & (UP_LINES - 1);
}

static bool up_line_same(const struct up_line *line, const struct ustack_frame *frame, int pid)
{
	size_t bid_size = frame->build_id ? frame->build_id_size : 0;

	if (line->file_id != frame->file_id || line->offset != frame->offset ||
	    line->flags != frame->flags || line->build_id_size != bid_size || line->pid != pid)
		return false;
	if (!frame->path != !line->has_path)
		return false;
	if (frame->path && strcmp(frame->path, line->path))
		return false;
	return !bid_size || !memcmp(line->build_id, frame->build_id, bid_size);
}

/*
 * The text of a frame: with the symbolizer and a process, a frame in no file
 * is named from the process's perf map (ustack_symbolizer_lookup_addr()), as
 * ustack_stack_format() names it in a stack; ustack_frame_format() knows no
 * process. Not found there, or a name longer than @size: the frame as
 * ustack_frame_format() prints it (its address). Return: its length; -1
 * with errno (the lookup failed).
 */
static int up_line_format(struct up_lines *lines, const struct ustack_frame *frame, int pid,
			  char *buf, size_t size)
{
	unsigned int flags = frame->flags & USTACK_FRAME_RETURN ? USTACK_LOOKUP_RETURN : 0;
	struct ustack_symbol symbol;
	int len;

	if (frame->file_id || pid < 0 || !lines->sym)
		return ustack_frame_format(frame, lines->sym, buf, size);
	if (ustack_symbolizer_lookup_addr(lines->sym, pid, frame->offset, flags, &symbol))
		return -1;
	if (!symbol.resolved)
		return ustack_frame_format(frame, lines->sym, buf, size);
	len = ustack_symbol_format(&symbol, buf, size);
	if (len >= 0 && (size_t)len >= size)
		return ustack_frame_format(frame, lines->sym, buf, size);
	return len;
}

/*
 * "\n => " before the text, and before each further line of it when
 * @inlines (the symbolizer's newline between inlined calls), the rest
 * escaped; @dst NULL: only its length. Return: the length, without the NUL.
 */
static size_t up_line_put_text(char *dst, const char *text, size_t len, bool inlines)
{
	const char *end = text + len, *nl;
	size_t n = 0;

	for (;;) {
		nl = inlines ? memchr(text, '\n', end - text) : NULL;
		if (dst)
			memcpy(dst + n, "\n => ", 5);
		n += 5;
		n += up_escape(dst ? dst + n : NULL, text, (nl ? nl : end) - text);
		if (!nl)
			break;
		text = nl + 1;
	}
	if (dst)
		dst[n] = '\0';
	return n;
}

/* Make the line of a frame: NULL with errno when it cannot be printed. */
static struct up_line *up_line_make(struct up_lines *lines, const struct ustack_frame *frame,
				    int pid)
{
	size_t bid_size = frame->build_id ? frame->build_id_size : 0;
	size_t path_len = frame->path ? strlen(frame->path) : 0;
	struct up_line *line;
	size_t text_size;
	bool inlines;
	char buf[1024];
	int len;

	len = up_line_format(lines, frame, pid, buf, sizeof(buf));
	if (len < 0)
		return NULL;
	if ((size_t)len >= sizeof(buf))
		len = sizeof(buf) - 1;
	inlines = lines->sym &&
		  (ustack_symbolizer_get_flags(lines->sym) & USTACK_SYMBOLIZE_INLINES);
	text_size = up_line_put_text(NULL, buf, len, inlines) + 1;
	line = malloc(sizeof(*line) + text_size + path_len + 1 + bid_size);
	if (!line)
		return NULL;
	line->pid = pid;
	line->file_id = frame->file_id;
	line->flags = frame->flags;
	line->offset = frame->offset;
	line->build_id_size = bid_size;
	line->has_path = frame->path;
	line->len = up_line_put_text(line->text, buf, len, inlines);
	line->path = line->text + text_size;
	memcpy(line->path, frame->path ? frame->path : "", path_len + 1);
	line->build_id = (unsigned char *)line->path + path_len + 1;
	if (bid_size)
		memcpy(line->build_id, frame->build_id, bid_size);
	return line;
}

/**
 * up_lines_init - set up the table of frame lines
 * @lines: the table
 * @sym: the symbolizer to make lines with; NULL for file+offset
 */
void up_lines_init(struct up_lines *lines, struct ustack_symbolizer *sym)
{
	memset(lines, 0, sizeof(*lines));
	lines->sym = sym;
}

/**
 * up_lines_clear - free every line of the table
 * @lines: the table, empty afterwards
 */
void up_lines_clear(struct up_lines *lines)
{
	size_t i;

	for (i = 0; i < UP_LINES; i++) {
		free(lines->slot[i]);
		lines->slot[i] = NULL;
	}
}

/**
 * up_line_get - the line of a frame, "\n => " and the frame as text
 * @lines: the table
 * @frame: the frame
 * @pid: its process; -1 when not known
 * @len: the length of the line
 *
 * Return: the line, valid until the next call; NULL with errno when the
 * frame cannot be printed (ENOMEM, or the symbolizer's error).
 */
const char *up_line_get(struct up_lines *lines, const struct ustack_frame *frame, int pid,
			size_t *len)
{
	struct up_line **slot = &lines->slot[up_line_hash(frame)];
	struct up_line *line = *slot;

	/* only a frame in no file is looked up by its process */
	if (frame->file_id || !lines->sym)
		pid = -1;
	if (!line || !up_line_same(line, frame, pid)) {
		line = up_line_make(lines, frame, pid);
		if (!line)
			return NULL;
		free(*slot);
		*slot = line;
		lines->made++;
	}
	*len = line->len;
	return line->text;
}
