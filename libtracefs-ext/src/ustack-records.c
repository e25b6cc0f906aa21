// SPDX-License-Identifier: LGPL-2.1
/*
 * The three entries of options/user_stacktrace_deferred in a trace, read
 * from records through their formats (the format files of events/ftrace/),
 * which the tep handle has: the stitcher finds the event ids and the fields
 * by name once, then reads records by offset, in the trace's byte order.
 *
 * Every read is checked against the record's size: a record too short for
 * its fields, a path without its NUL, or a build-id size larger than its
 * field is malformed, never read past.
 *
 * Every record of a trace passes here, so a record costs little: numbers in
 * the machine's byte order are read directly, and the event of a type id is
 * kept in a small table (tep_find_event() searches once types alternate).
 */
#include <errno.h>
#include <string.h>

#include "ustack-stitch-local.h"

/* Where the field is, if it is there, is not dynamic and has the size asked for. */
static int ustack_field_find(struct tep_event *event, const char *name, unsigned int size,
			     bool array, struct ustack_field *field)
{
	struct tep_format_field *f = tep_find_field(event, name);

	if (!f || f->offset < 0 || (f->flags & TEP_FIELD_IS_DYNAMIC) ||
	    !(f->flags & TEP_FIELD_IS_ARRAY) != !array ||
	    (!array && (unsigned int)f->size != size) || (array && f->size < 0))
		return -1;
	field->offset = f->offset;
	field->size = array ? (unsigned int)f->size : size;
	return 0;
}

static int ustack_common_find(struct tep_event *event, const char *name,
			      struct ustack_field *field)
{
	struct tep_format_field *f = tep_find_common_field(event, name);

	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8)
		return -1;
	field->offset = f->offset;
	field->size = f->size;
	return 0;
}

/* The events of the option, when the tep has all three: 1; 0 when it has none. */
static int ustack_formats_events(struct ustack_formats *fmt)
{
	struct tep_event *cookie, *stack, *file;
	int err = 0;

	cookie = tep_find_event_by_name(fmt->tep, "ftrace", "user_unwind_cookie");
	stack = tep_find_event_by_name(fmt->tep, "ftrace", "user_unwind_stack");
	file = tep_find_event_by_name(fmt->tep, "ftrace", "user_unwind_file");
	if (!cookie && !stack && !file)
		return 0;
	if (!cookie || !stack || !file)
		return -1;

	err |= ustack_field_find(cookie, "cookie", 8, false, &fmt->cookie);
	err |= ustack_field_find(stack, "cookie", 8, false, &fmt->stack_cookie);
	err |= ustack_field_find(stack, "next", 8, false, &fmt->stack_next);
	err |= ustack_field_find(stack, "nr", 2, false, &fmt->stack_nr);
	err |= ustack_field_find(stack, "flags", 2, false, &fmt->stack_flags);
	err |= ustack_field_find(stack, "frames", 0, true, &fmt->stack_frames);
	err |= ustack_field_find(file, "id", 4, false, &fmt->file_id_field);
	err |= ustack_field_find(file, "build_id_size", 4, false, &fmt->file_build_id_size);
	err |= ustack_field_find(file, "build_id", 0, true, &fmt->file_build_id);
	err |= ustack_field_find(file, "path", 0, true, &fmt->file_path);
	if (err)
		return -1;
	fmt->cookie_id = cookie->id;
	fmt->stack_id = stack->id;
	fmt->file_id = file->id;
	return 1;
}

/*
 * The entries of the system "ftrace" the kernel writes the cookie entry for,
 * as for every event under events/; the others (kernel_stack, user_stack,
 * func_repeats, hwlat, osnoise, timerlat, wakeup, ...) carry no cookie.
 */
static const char * const ustack_cookie_entries[] = {
	"function", "funcgraph_entry", "funcgraph_exit", "print", "raw_data", "bprint", "bputs",
	"user_unwind_cookie", "user_unwind_stack", "user_unwind_file",
};

static bool ustack_carries_cookie(const struct tep_event *event)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ustack_cookie_entries); i++) {
		if (!strcmp(event->name, ustack_cookie_entries[i]))
			return true;
	}
	return false;
}

/* The type is an ftrace entry that carries no cookie. */
static bool ustack_is_nocookie(const struct ustack_formats *fmt, int type)
{
	unsigned int lo = 0, hi = fmt->nr_nocookie, mid;

	/* most events are tracepoints, with ids above every ftrace entry's */
	if (!hi || type < fmt->nocookie[0] || type > fmt->nocookie[hi - 1])
		return false;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (fmt->nocookie[mid] == type)
			return true;
		if (fmt->nocookie[mid] < type)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/**
 * ustack_formats_add_nocookie - an id of an ftrace entry that carries no cookie
 * @fmt: the formats
 * @id: the entry's id
 *
 * The ids are kept sorted: whatever cookie the state of their CPU says is not
 * theirs. Should a kernel have more than USTACK_NOCOOKIE_MAX of them, the
 * rest read as other events.
 */
void ustack_formats_add_nocookie(struct ustack_formats *fmt, int id)
{
	unsigned int i;

	if (fmt->nr_nocookie == USTACK_NOCOOKIE_MAX || ustack_is_nocookie(fmt, id))
		return;
	/* insertion: a few ids, once */
	for (i = fmt->nr_nocookie; i > 0 && fmt->nocookie[i - 1] > id; i--)
		fmt->nocookie[i] = fmt->nocookie[i - 1];
	fmt->nocookie[i] = id;
	fmt->nr_nocookie++;
}

/**
 * ustack_stitcher_event_has_cookie - whether the events of an id carry a cookie
 * @st: the stitcher
 * @id: the event's id (its common_type: tep_event.id, a KernelShark entry's
 *	event_id, the "ID:" line of its format file)
 *
 * The rule ustack_stitcher_add() applies to the records it is given, for a
 * caller that feeds events by their parts (ustack_stitcher_add_event(),
 * which takes no id) and must leave out those that carry none. Every event
 * carries the cookie its CPU's cookie entry names for its task, but the
 * entries of the system ftrace other than function, funcgraph_entry,
 * funcgraph_exit, print, raw_data, bprint and bputs (kernel_stack,
 * func_repeats, hwlat, ...), and the three user_unwind_* entries, which are
 * the cookies and stacks themselves.
 *
 * It is the rule of the event, not of the trace: in a trace of a kernel
 * without the option no event has a cookie entry to take one from. A
 * stitcher of a tep knows the ftrace entries by their formats; one of a
 * layout only those the layout named (ustack_layout_set_event()). An id it
 * does not know is an event that carries a cookie, as ustack_stitcher_add()
 * takes it. Nothing of the stitcher changes: a call between feeds is fine.
 *
 * Return: 1 when the events of @id carry a cookie, 0 when they carry none;
 * -1 with errno EINVAL (@st NULL, @id negative).
 */
int ustack_stitcher_event_has_cookie(const struct ustack_stitcher *st, int id)
{
	const struct ustack_formats *fmt;

	if (!st || id < 0) {
		errno = EINVAL;
		return -1;
	}
	fmt = &st->fmt;
	/* -1 when the stitcher has none of the three: never an id */
	if (id == fmt->cookie_id || id == fmt->stack_id || id == fmt->file_id)
		return 0;
	return !ustack_is_nocookie(fmt, id);
}

/* The ftrace entries of the tep that carry no cookie. */
static void ustack_formats_nocookie(struct ustack_formats *fmt)
{
	int i, nr = tep_get_events_count(fmt->tep);
	struct tep_event *event;

	for (i = 0; i < nr; i++) {
		event = tep_get_event(fmt->tep, i);
		if (event && event->system && event->name && !strcmp(event->system, "ftrace") &&
		    !ustack_carries_cookie(event))
			ustack_formats_add_nocookie(fmt, event->id);
	}
}

/**
 * ustack_page_room - the most data a record of a trace can have
 * @tep: the event formats of the trace
 * @page: the size of its ring buffer pages; 0 or less when not known
 *
 * A page less its header (timestamp and commit, as header_page says) and
 * the event's own header, 4 bytes at least. libtracecmd 3.1.6 (its kbuffer)
 * does not check an event's length against its page, so a damaged length
 * gives a record whose data runs up to 4 GiB past it.
 *
 * Return: the bytes; 0 when @page is not known (no bound).
 */
size_t ustack_page_room(struct tep_handle *tep, int page)
{
	int commit = tep_get_header_page_size(tep);
	int ts = tep_get_header_timestamp_size(tep);
	int head = 4;

	if (page <= 0)
		return 0;
	if (ts > 0 && ts <= 8 && commit > 0 && commit <= 8)
		head += ts + commit;
	return page > head ? (size_t)(page - head) : (size_t)page;
}

/**
 * ustack_formats_init - find the stitcher's events and fields in a tep handle
 * @fmt: filled in
 * @tep: the event formats of the trace
 *
 * A tep without the three events (a trace from a kernel without the option)
 * is fine: the ids are then -1 and every record reads as another event.
 * The ids of the ftrace entries that carry no cookie are kept in any case.
 *
 * Return: 0; -1 with errno EPROTO when the tep has the events, but not all
 * three, or not with the fields the stitcher reads.
 */
int ustack_formats_init(struct ustack_formats *fmt, struct tep_handle *tep)
{
	struct tep_event *any;

	unsigned int i;

	memset(fmt, 0, sizeof(*fmt));
	fmt->tep = tep;
	fmt->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	/* tracefs_local_events() and libtracecmd leave it 0: see ustack_stitcher_bound_tracecmd() */
	fmt->max_size = ustack_page_room(tep, tep_get_page_size(tep));
	for (i = 0; i < USTACK_TYPE_CACHE; i++)
		fmt->types[i].id = -1;
	fmt->cookie_id = fmt->stack_id = fmt->file_id = -1;

	/* every event has the common fields; the first one tells where they are */
	any = tep_get_events_count(tep) > 0 ? tep_get_first_event(tep) : NULL;
	fmt->have_common = any && !ustack_common_find(any, "common_type", &fmt->common_type) &&
			   !ustack_common_find(any, "common_pid", &fmt->common_pid);

	if (ustack_formats_events(fmt) < 0 || (fmt->cookie_id >= 0 && !fmt->have_common)) {
		fmt->cookie_id = fmt->stack_id = fmt->file_id = -1;
		errno = EPROTO;
		return -1;
	}
	/* a trace without the option too: ustack_stitcher_event_has_cookie() tells the rule */
	ustack_formats_nocookie(fmt);
	return 0;
}

/* The field is inside the record. */
static bool ustack_fits(const struct ustack_field *field, size_t size)
{
	return field->offset <= size && field->size <= size - field->offset;
}

/* A number of another byte order, or of an odd size: byte by byte. */
static unsigned long long ustack_read_bytes(const struct ustack_formats *fmt,
					    const unsigned char *ptr, unsigned int size)
{
	bool big = (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) != fmt->swap;
	unsigned long long v = 0;
	unsigned int i;

	for (i = 0; i < size; i++)
		v |= (unsigned long long)ptr[big ? size - 1 - i : i] << (8 * i);
	return v;
}

static unsigned long long ustack_read(const struct ustack_formats *fmt, const void *data,
				      const struct ustack_field *field)
{
	const char *ptr = (const char *)data + field->offset;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	if (fmt->swap)
		return ustack_read_bytes(fmt, (const unsigned char *)ptr, field->size);
	switch (field->size) {
	case 1:
		return *(const uint8_t *)ptr;
	case 2:
		memcpy(&u16, ptr, 2);
		return u16;
	case 4:
		memcpy(&u32, ptr, 4);
		return u32;
	case 8:
		memcpy(&u64, ptr, 8);
		return u64;
	default:
		return ustack_read_bytes(fmt, (const unsigned char *)ptr, field->size);
	}
}

/* The event of a type id; a miss is looked up and kept (an unknown id is not). */
static struct tep_event *ustack_type_event(struct ustack_formats *fmt, int type)
{
	struct ustack_type_slot *slot = &fmt->types[(unsigned int)type % USTACK_TYPE_CACHE];
	struct tep_event *event;

	if (!fmt->tep)
		return NULL;
	if (slot->id == type)
		return slot->event;
	event = tep_find_event(fmt->tep, type);
	if (event) {
		slot->id = type;
		slot->event = event;
	}
	return event;
}

static void ustack_rec_stack(const struct ustack_formats *fmt, const unsigned char *data,
			     size_t size, struct ustack_rec *rec)
{
	const struct ustack_field *frames = &fmt->stack_frames;

	if (!ustack_fits(&fmt->stack_cookie, size) || !ustack_fits(&fmt->stack_next, size) ||
	    !ustack_fits(&fmt->stack_nr, size) ||
	    !ustack_fits(&fmt->stack_flags, size) || frames->offset > size) {
		rec->malformed = true;
		return;
	}
	rec->cookie = ustack_read(fmt, data, &fmt->stack_cookie);
	rec->next = ustack_read(fmt, data, &fmt->stack_next);
	rec->nr = ustack_read(fmt, data, &fmt->stack_nr);
	rec->flags = ustack_read(fmt, data, &fmt->stack_flags);
	/* the frames run to the end of the record: padding included */
	rec->data = data + frames->offset;
	rec->size = size - frames->offset;
}

static void ustack_rec_file(const struct ustack_formats *fmt, const unsigned char *data,
			    size_t size, struct ustack_rec *rec)
{
	const struct ustack_field *path = &fmt->file_path;
	const unsigned char *nul;

	if (!ustack_fits(&fmt->file_id_field, size)) {
		rec->malformed = true;
		return;
	}
	rec->id = ustack_read(fmt, data, &fmt->file_id_field);
	if (!ustack_fits(&fmt->file_build_id_size, size) || !ustack_fits(&fmt->file_build_id, size) ||
	    path->offset > size) {
		rec->malformed = true;
		return;
	}
	rec->build_id_size = ustack_read(fmt, data, &fmt->file_build_id_size);
	rec->build_id = data + fmt->file_build_id.offset;
	rec->data = data + path->offset;
	nul = memchr(rec->data, '\0', size - path->offset);
	if (rec->build_id_size > fmt->file_build_id.size || !nul || nul == rec->data) {
		rec->malformed = true;
		return;
	}
	rec->size = nul - rec->data;
}

/**
 * ustack_rec_read - what a record is, for the stitcher
 * @fmt: from ustack_formats_init()
 * @record: the record
 * @rec: filled in; its pointers point into @record's data
 *
 * A record too short for the common fields reads as an event without a
 * tep_event (and pid -1).
 */
void ustack_rec_read(struct ustack_formats *fmt, struct tep_record *record,
		     struct ustack_rec *rec)
{
	size_t size = record->size > 0 ? (size_t)record->size : 0;
	const unsigned char *data = record->data;
	int type;

	memset(rec, 0, sizeof(*rec));
	rec->kind = USTACK_KIND_EVENT;
	rec->pid = -1;
	if (!fmt->have_common || !data || !ustack_fits(&fmt->common_type, size) ||
	    !ustack_fits(&fmt->common_pid, size))
		return;

	type = ustack_read(fmt, data, &fmt->common_type);
	rec->pid = (int)ustack_read(fmt, data, &fmt->common_pid);
	rec->event = ustack_type_event(fmt, type);

	if (fmt->cookie_id < 0)
		return;
	if (type == fmt->cookie_id) {
		rec->kind = USTACK_KIND_COOKIE;
		if (ustack_fits(&fmt->cookie, size))
			rec->cookie = ustack_read(fmt, data, &fmt->cookie);
		else
			rec->malformed = true;
	} else if (type == fmt->stack_id) {
		rec->kind = USTACK_KIND_STACK;
		ustack_rec_stack(fmt, data, size, rec);
	} else if (type == fmt->file_id) {
		rec->kind = USTACK_KIND_FILE;
		ustack_rec_file(fmt, data, size, rec);
	} else {
		rec->nocookie = ustack_is_nocookie(fmt, type);
	}
}
