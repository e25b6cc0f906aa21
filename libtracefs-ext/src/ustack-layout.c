// SPDX-License-Identifier: LGPL-2.1
/*
 * A stitcher for a tool with a ring buffer reader of its own (an importer
 * into another trace format), which knows where the fields of the three
 * entries are from their format files (events/ftrace/user_unwind_NAME/format
 * in tracefs, or the formats in a trace.dat file) but has no libtraceevent
 * tep handle: it names the event ids and the fields' offsets and sizes one
 * by one, and feeds records as bytes (ustack_stitcher_add_data()). What the
 * stitcher does with them is the same as with a tep handle.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-stitch-local.h"

struct ustack_layout {
	struct ustack_formats	fmt;
	unsigned int		have;		/* bit i: ustack_layout_fields[i] given */
	unsigned int		have_ids;	/* bit i: ustack_layout_events[i] given */
};

static const char * const ustack_layout_events[] = {
	"user_unwind_cookie", "user_unwind_stack", "user_unwind_file",
};

/*
 * The entries of the system ftrace that carry no cookie (those of
 * ustack-records.c), which a layout may name too: what an importer sees in
 * events/ftrace/. Other ftrace entries carry the cookie, as any event.
 */
static const char * const ustack_layout_nocookie[] = {
	"kernel_stack", "user_stack", "func_repeats", "hwlat", "osnoise", "timerlat",
	"mmiotrace_rw", "mmiotrace_map", "branch", "context_switch", "wakeup",
};

static bool ustack_layout_is_nocookie(const char *event)
{
	unsigned int i;

	for (i = 0; event && i < ARRAY_SIZE(ustack_layout_nocookie); i++) {
		if (!strcmp(event, ustack_layout_nocookie[i]))
			return true;
	}
	return false;
}

/* The size a field must have: its size, an array (any size), a number of 1 to 8 bytes. */
#define USTACK_SIZE_ARRAY	0
#define USTACK_SIZE_NUMBER	(-1)

static const struct {
	int		event;		/* in ustack_layout_events; -1: a common field */
	const char	*name;
	int		size;
	size_t		where;		/* in struct ustack_formats */
} ustack_layout_fields[] = {
	{ -1, "common_type", USTACK_SIZE_NUMBER, offsetof(struct ustack_formats, common_type) },
	{ -1, "common_pid", USTACK_SIZE_NUMBER, offsetof(struct ustack_formats, common_pid) },
	{ 0, "cookie", 8, offsetof(struct ustack_formats, cookie) },
	{ 1, "cookie", 8, offsetof(struct ustack_formats, stack_cookie) },
	{ 1, "next", 8, offsetof(struct ustack_formats, stack_next) },
	{ 1, "nr", 2, offsetof(struct ustack_formats, stack_nr) },
	{ 1, "flags", 2, offsetof(struct ustack_formats, stack_flags) },
	{ 1, "frames", USTACK_SIZE_ARRAY, offsetof(struct ustack_formats, stack_frames) },
	{ 2, "id", 4, offsetof(struct ustack_formats, file_id_field) },
	{ 2, "build_id_size", 4, offsetof(struct ustack_formats, file_build_id_size) },
	{ 2, "build_id", USTACK_SIZE_ARRAY, offsetof(struct ustack_formats, file_build_id) },
	{ 2, "path", USTACK_SIZE_ARRAY, offsetof(struct ustack_formats, file_path) },
};

#define USTACK_LAYOUT_NR	ARRAY_SIZE(ustack_layout_fields)

/* The index of an event name; -1 for NULL (the common fields); -2 for unknown. */
static int ustack_layout_event(const char *event)
{
	unsigned int i;

	if (!event)
		return -1;
	for (i = 0; i < ARRAY_SIZE(ustack_layout_events); i++) {
		if (!strcmp(event, ustack_layout_events[i]))
			return i;
	}
	return -2;
}

/**
 * ustack_layout_alloc - allocate an empty layout
 *
 * A layout says where the fields of the entries user_unwind_cookie,
 * user_unwind_stack and user_unwind_file are in their records, and the ids
 * of the three events: what a stitcher reads records with when it has no
 * tep handle (ustack_stitcher_alloc_layout()).
 *
 * Return: the layout, to be freed with ustack_layout_free(); NULL with
 * errno ENOMEM.
 */
struct ustack_layout *ustack_layout_alloc(void)
{
	struct ustack_layout *layout = calloc(1, sizeof(*layout));

	if (!layout)
		return NULL;
	layout->fmt.cookie_id = layout->fmt.stack_id = layout->fmt.file_id = -1;
	return layout;
}

/**
 * ustack_layout_free - free a layout
 * @layout: the layout; NULL is allowed. Stitchers made with it keep a copy.
 */
void ustack_layout_free(struct ustack_layout *layout)
{
	free(layout);
}

/**
 * ustack_layout_set_event - the id of one of the three events, or of an
 *	ftrace entry that carries no cookie
 * @layout: the layout
 * @event: "user_unwind_cookie", "user_unwind_stack" or "user_unwind_file";
 *	or one of the entries of the system ftrace that carry no cookie:
 *	"kernel_stack", "user_stack", "func_repeats", "hwlat", "osnoise",
 *	"timerlat", "mmiotrace_rw", "mmiotrace_map", "branch",
 *	"context_switch", "wakeup"
 * @id: its id (the "ID:" line of its format file), what common_type holds
 *
 * An entry that carries no cookie is handed back as USTACK_STATE_NONE
 * whatever its CPU's state, as with a tep (ustack_stitcher_add()).
 *
 * Return: 0; -1 with errno EINVAL (@layout or @event NULL, another event,
 * @id negative).
 */
int ustack_layout_set_event(struct ustack_layout *layout, const char *event, int id)
{
	int i = ustack_layout_event(event);

	if (layout && id >= 0 && ustack_layout_is_nocookie(event)) {
		ustack_formats_add_nocookie(&layout->fmt, id);
		return 0;
	}
	if (!layout || i < 0 || id < 0) {
		errno = EINVAL;
		return -1;
	}
	if (i == 0)
		layout->fmt.cookie_id = id;
	else if (i == 1)
		layout->fmt.stack_id = id;
	else
		layout->fmt.file_id = id;
	layout->have_ids |= 1U << i;
	return 0;
}

/**
 * ustack_layout_set_field - where a field of an event is
 * @layout: the layout
 * @event: one of the three events; NULL for the common fields (common_type,
 *	common_pid), which are where they are in every event
 * @field: the field's name in the format file: common_type, common_pid;
 *	cookie of user_unwind_cookie; cookie, next, nr, flags, frames of
 *	user_unwind_stack; id, build_id_size, build_id, path of user_unwind_file
 * @offset: its offset in the record ("offset:" in the format file)
 * @size: its size ("size:"); for an array (frames, build_id, path) the size
 *	of the array, 0 when it has none (frames[] runs to the end of the record)
 *
 * Return: 0; -1 with errno EINVAL (@layout or @field NULL, an unknown event
 * or field, a size other than the format's: 8 for cookie and next, 2 for nr
 * and flags, 4 for id and build_id_size, 1 to 8 for the common fields).
 */
int ustack_layout_set_field(struct ustack_layout *layout, const char *event, const char *field,
			    unsigned int offset, unsigned int size)
{
	int e = ustack_layout_event(event);
	struct ustack_field *f;
	unsigned int i;

	if (!layout || !field || e < -1) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < USTACK_LAYOUT_NR; i++) {
		if (ustack_layout_fields[i].event == e && !strcmp(ustack_layout_fields[i].name, field))
			break;
	}
	if (i == USTACK_LAYOUT_NR ||
	    (ustack_layout_fields[i].size > 0 && size != (unsigned int)ustack_layout_fields[i].size) ||
	    (ustack_layout_fields[i].size == USTACK_SIZE_NUMBER && (size < 1 || size > 8))) {
		errno = EINVAL;
		return -1;
	}
	f = (struct ustack_field *)((char *)&layout->fmt + ustack_layout_fields[i].where);
	f->offset = offset;
	f->size = size;
	layout->have |= 1U << i;
	return 0;
}

/**
 * ustack_layout_set_big_endian - the byte order of the records
 * @layout: the layout
 * @big_endian: the records are big endian (the traced machine's order;
 *	header_page or the trace.dat file says); the default is little endian
 *
 * Return: 0; -1 with errno EINVAL when @layout is NULL.
 */
int ustack_layout_set_big_endian(struct ustack_layout *layout, bool big_endian)
{
	if (!layout) {
		errno = EINVAL;
		return -1;
	}
	layout->fmt.swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	return 0;
}

/**
 * ustack_stitcher_alloc_layout - allocate a stitcher for records given as bytes
 * @layout: where the fields of the three entries are; the stitcher keeps a
 *	copy. A layout without any of the three events (and none of their
 *	fields) is a trace without the option: every event passes through.
 * @flags: as for ustack_stitcher_alloc()
 * @callback: as for ustack_stitcher_alloc(); its event is always NULL
 * @context: passed to @callback
 *
 * Records are fed with ustack_stitcher_add_data() (or ustack_stitcher_add());
 * everything else is as with a stitcher of ustack_stitcher_alloc(). With an
 * index and no callback (the usual use), the events are looked up with
 * ustack_stitcher_lookup(), and nothing of the libtraceevent API is needed.
 *
 * Return: the stitcher, to be freed with ustack_stitcher_free(); NULL with
 * errno EINVAL (@layout NULL or incomplete: some of the events or their
 * fields given, not all, or not the common fields; the flags and callback as
 * for ustack_stitcher_alloc()) or ENOMEM.
 */
struct ustack_stitcher *ustack_stitcher_alloc_layout(const struct ustack_layout *layout,
						     unsigned int flags,
						     ustack_stitch_func callback, void *context)
{
	unsigned int events = (1U << ARRAY_SIZE(ustack_layout_events)) - 1;
	/* common: the first two fields of ustack_layout_fields */
	unsigned int all = (1U << USTACK_LAYOUT_NR) - 1, common = 0x3;
	struct ustack_stitcher *st;
	unsigned int i;

	if (!layout) {
		errno = EINVAL;
		return NULL;
	}
	/* all or nothing of the option's events; the common fields in any case */
	if ((layout->have & common) != common ||
	    !((layout->have_ids == events && layout->have == all) ||
	      (!layout->have_ids && layout->have == common))) {
		errno = EINVAL;
		return NULL;
	}
	st = ustack_stitcher_new(flags, callback, context);
	if (!st)
		return NULL;
	st->fmt = layout->fmt;
	st->fmt.tep = NULL;
	st->fmt.have_common = true;
	for (i = 0; i < USTACK_TYPE_CACHE; i++)
		st->fmt.types[i].id = -1;
	if (!layout->have_ids)
		st->fmt.cookie_id = st->fmt.stack_id = st->fmt.file_id = -1;
	return st;
}
