/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Internals of the trace-cmd plugin for deferred user stacks (plugin_ustack.so),
 * shared between its source files. Nothing here is exported from the plugin:
 * the only global symbols are the tep_plugin_* hooks of libtraceevent.
 */
#ifndef _USTACK_PLUGIN_H
#define _USTACK_PLUGIN_H

#include <stdbool.h>
#include <event-parse.h>
#include <trace-seq.h>

#include "ustack.h"

#define __hidden __attribute__((visibility("hidden")))

/* Default of the option ustack_window: events held while a stack is awaited. */
#define UP_WINDOW_DEFAULT	16384

/* ---- ustack-input.c: which trace.dat this process reads ---- */

/*
 * The input of this load of the plugin in "trace-cmd report": the trace file
 * being loaded, found among the open files (valid while report has it open),
 * and the first option of report that changes timestamps (the read-ahead
 * compares timestamps, so it then stays off).
 */
struct up_input {
	char		file[64];
	bool		have_file;
	const char	*ts_option;
};

int up_input_parse(struct up_input *in, const char *cmdline, size_t len) __hidden;
int up_input_read(struct up_input *in) __hidden;
void up_input_claim_open(void) __hidden;
void up_input_release(void) __hidden;

/* ---- ustack-lines.c: the line of a frame, kept for the next stack ---- */

#define UP_LINES	4096

struct up_line;

struct up_lines {
	struct ustack_symbolizer	*sym;	/* NULL: frames as file+offset */
	struct up_line			*slot[UP_LINES];
	unsigned long long		made;	/* lines made (not found again) */
};

void up_lines_init(struct up_lines *lines, struct ustack_symbolizer *sym) __hidden;
void up_lines_clear(struct up_lines *lines) __hidden;
const char *up_line_get(struct up_lines *lines, const struct ustack_frame *frame) __hidden;

/* ---- ustack-text.c: stacks as the lines printed under an event ---- */

/*
 * The frames of one stack as the text printed under an event: a line
 * "\n => frame" per frame; shared by reference.
 */
struct up_text {
	unsigned int		refs;
	unsigned long long	cookie;
	int			pid;
	size_t			len;
	char			text[];
};

#define UP_TEXT_CACHE	64

struct up_texts {
	struct ustack_symbolizer	*sym;	/* NULL: frames as file+offset */
	struct up_lines			lines;
	struct up_text			*cache[UP_TEXT_CACHE];
	struct trace_seq		seq;	/* the text being made */
};

int up_texts_init(struct up_texts *texts, bool symbols, const char *debug_dir) __hidden;
void up_texts_clear(struct up_texts *texts) __hidden;
struct up_text *up_text_get(struct up_texts *texts, const struct ustack_stack *stack) __hidden;
void up_text_put(struct up_text *text) __hidden;

/* ---- ustack-ahead.c: the second reader of the trace file ---- */

/* What the read-ahead knows of one record of the trace. */
struct up_result {
	unsigned long long	ts;
	unsigned long long	offset;
	int			cpu;
	enum ustack_state	state;
	enum ustack_lost	lost;
	struct up_text		*text;
};

struct up_ahead;

struct up_ahead *up_ahead_open(const char *file, bool raw, size_t window, bool symbols,
			       const char *debug_dir) __hidden;
void up_ahead_close(struct up_ahead *ahead) __hidden;
struct tep_handle *up_ahead_tep(struct up_ahead *ahead) __hidden;
const struct up_result *up_ahead_lookup(struct up_ahead *ahead,
					const struct tep_record *record) __hidden;
void up_ahead_stats(struct up_ahead *ahead, struct ustack_stitch_stats *stats,
		    size_t *peak_queue) __hidden;

#endif /* _USTACK_PLUGIN_H */
