// SPDX-License-Identifier: LGPL-2.1
/*
 * What the plugin prints: an event's user stack under it, the
 * user_unwind_* entries as their print formats have them (with ustack_raw
 * their frames and build-ids too), and the statistics of ustack_stats.
 */
#include <stdio.h>
#include <string.h>

#include "ustack-plugin.h"

static const char * const up_field_names[UP_NR_FIELDS] = {
	[UP_F_BUILD_ID]		= "build_id",
	[UP_F_BUILD_ID_SIZE]	= "build_id_size",
};

static int up_cookie_handler(struct trace_seq *s, struct tep_record *record,
			     struct tep_event *event, void *context);
static int up_stack_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context);
static int up_file_handler(struct trace_seq *s, struct tep_record *record,
			   struct tep_event *event, void *context);

static const struct {
	const char		*name;
	tep_event_handler_func	func;
} up_entries[UP_NR_ENTRIES] = {
	[UP_E_COOKIE]	= { "user_unwind_cookie",	up_cookie_handler },
	[UP_E_STACK]	= { "user_unwind_stack",	up_stack_handler },
	[UP_E_FILE]	= { "user_unwind_file",		up_file_handler },
};

/* The event as it printed without this plugin: its own handler, or its print format. */
void up_print_info(struct trace_seq *s, struct tep_record *record, struct tep_event *event,
		   tep_event_handler_func prev, void *prev_context)
{
	int flags = event->flags;

	if (prev && !prev(s, record, event, prev_context))
		return;
	/* the print format alone: libtraceevent skips handlers of NOHANDLE events */
	event->flags |= TEP_EVENT_FL_NOHANDLE;
	tep_print_event(event->tep, s, record, "%s", TEP_PRINT_INFO);
	event->flags = flags;
}

/* The lines of a stack, under the text printed so far. */
static void up_print_text(struct trace_seq *s, const struct up_text *text)
{
	if (text && text->len)
		trace_seq_puts(s, text->text);
}

/* The event's user stack under it, as the read-ahead knows it. */
void up_print_stack(struct up_plugin *plugin, struct trace_seq *s,
		    struct tep_record *record)
{
	const struct up_result *res = up_buffers_lookup(plugin->bufs, record);

	if (!res)
		return;
	switch (res->state) {
	case USTACK_STATE_STACK:
		up_print_text(s, res->text);
		break;
	case USTACK_STATE_LOST:
		trace_seq_printf(s, "\n => [user stack lost: %s]", res->lost == USTACK_LOST_LIMIT ?
				 "more events pending than ustack_window" :
				 ustack_lost_name(res->lost));
		break;
	case USTACK_STATE_UNKNOWN:
		trace_seq_printf(s, "\n => [user stack lost: events were dropped on CPU %d, "
				 "its cookie is not known]", record->cpu);
		break;
	case USTACK_STATE_NONE:
	case USTACK_STATE_RAW:
	case USTACK_STATE_PENDING:	/* of lookups only */
		break;
	}
}

/* The fields of an entry of the plugin; looked up again only if its event changed. */
static struct up_fields *up_entry_fields(struct up_plugin *plugin, unsigned int entry,
					 struct tep_event *event)
{
	struct up_fields *fields = &plugin->fields[entry];
	unsigned int i;

	if (fields->event != event) {
		for (i = 0; i < UP_NR_FIELDS; i++)
			fields->field[i] = tep_find_field(event, up_field_names[i]);
		fields->event = event;
	}
	return fields;
}

/*
 * Are the @len bytes at @field's offset inside @record? The formats are the
 * trace file's own: an offset or size can be anything libtraceevent parsed
 * into an int, negative too.
 */
static bool up_field_fits(const struct tep_format_field *field, long long len,
			  const struct tep_record *record)
{
	return field && field->offset >= 0 && len >= 0 && record->size >= 0 &&
	       field->offset + len <= record->size;
}

/* A number field of a record; 0 when the entry has no such field or the record is short. */
static unsigned long long up_num(const struct up_fields *fields, unsigned int i,
				 const struct tep_record *record)
{
	const struct tep_format_field *field = fields->field[i];
	unsigned long long val = 0;

	if (!up_field_fits(field, field ? field->size : 0, record))
		return 0;
	tep_read_number_field((struct tep_format_field *)field, record->data, &val);
	return val;
}

/*
 * An entry's line: what its print format makes of it, as report prints it
 * without the plugin (a script reading report's output sees the same text
 * either way), escaped as the plugin's other text: a file entry's path is
 * whatever bytes the trace holds. Made in the plugin's own trace_seq first,
 * as libtraceevent prints into @s in one go.
 */
static void up_print_entry(struct up_plugin *plugin, struct trace_seq *s,
			   struct tep_record *record, struct tep_event *event)
{
	struct trace_seq *line = &plugin->line;
	int flags = event->flags;

	up_gate_say(plugin->why);
	trace_seq_reset(line);
	/* the print format alone: libtraceevent skips handlers of NOHANDLE events */
	event->flags |= TEP_EVENT_FL_NOHANDLE;
	tep_print_event(event->tep, line, record, "%s", TEP_PRINT_INFO);
	event->flags = flags;
	if (line->state == TRACE_SEQ__GOOD)
		up_escape_seq(s, line->buffer, line->len);
}

static int up_cookie_handler(struct trace_seq *s, struct tep_record *record,
			     struct tep_event *event, void *context)
{
	up_wrap_all(context);
	up_print_entry(context, s, record, event);
	return 0;
}

static int up_stack_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct up_plugin *plugin = context;
	const struct up_result *res;

	up_wrap_all(plugin);
	up_print_entry(plugin, s, record, event);
	if (!plugin->raw || !plugin->bufs)
		return 0;
	res = up_buffers_lookup(plugin->bufs, record);
	if (res)
		up_print_text(s, res->text);
	return 0;
}

static int up_file_handler(struct trace_seq *s, struct tep_record *record,
			   struct tep_event *event, void *context)
{
	struct up_fields *f = up_entry_fields(context, UP_E_FILE, event);
	struct tep_format_field *bid = f->field[UP_F_BUILD_ID];
	unsigned int bid_size = up_num(f, UP_F_BUILD_ID_SIZE, record);
	struct up_plugin *plugin = context;
	const unsigned char *data = record->data;
	unsigned int i;

	up_wrap_all(plugin);
	up_print_entry(plugin, s, record, event);
	/* the build-id, which the print format leaves out, on a line of its own */
	if (!plugin->raw || !bid || bid->size < 0 || bid_size > (unsigned int)bid->size ||
	    !bid_size || !up_field_fits(bid, bid_size, record))
		return 0;
	trace_seq_puts(s, "\n build_id=");
	for (i = 0; i < bid_size; i++)
		trace_seq_printf(s, "%02x", data[bid->offset + i]);
	return 0;
}

void up_print_stats(struct up_plugin *plugin)
{
	unsigned long long reopens, dropped;
	struct up_stats st;
	struct up_ahead *ahead;
	const char *name;
	size_t queue;
	int i;

	for (i = 0; i < up_buffers_nr(plugin->bufs); i++) {
		ahead = up_buffers_each(plugin->bufs, i, &name);
		if (!ahead)
			continue;
		up_ahead_stats(ahead, &st, &queue, &reopens, &dropped);
		fprintf(stderr, "plugin_ustack: %s%s%llu events, %llu with a stack, %llu lost, "
			"%llu unknown; held at most %llu events (%llu bytes), queued at most %zu; "
			"file opened again %llu times, %llu pages dropped; "
			"%llu damaged records left out\n",
			name ? name : "", name ? ": " : "", st.events,
			st.stack, st.lost, st.unknown, st.peak_held, st.peak_held_bytes, queue,
			reopens, dropped, st.damaged);
	}
}


/* Is @func the printer of an entry? */
bool up_entries_has(tep_event_handler_func func)
{
	unsigned int i;

	for (i = 0; i < UP_NR_ENTRIES; i++) {
		if (func == up_entries[i].func)
			return true;
	}
	return false;
}

/* Make the plugin's printers the handlers of the user_unwind_* entries. */
void up_entries_register(struct up_plugin *plugin)
{
	unsigned int i;

	for (i = 0; i < UP_NR_ENTRIES; i++)
		tep_register_event_handler(plugin->tep, -1, "ftrace", up_entries[i].name,
					   up_entries[i].func, plugin);
}

/* Take the printers off the entries again. */
void up_entries_unregister(struct up_plugin *plugin)
{
	unsigned int i;

	for (i = 0; i < UP_NR_ENTRIES; i++)
		tep_unregister_event_handler(plugin->tep, -1, "ftrace", up_entries[i].name,
					     up_entries[i].func, plugin);
}

/* Does the trace of @tep have user_unwind_* entries? */
bool up_entries_in(struct tep_handle *tep)
{
	unsigned int i;

	for (i = 0; i < UP_NR_ENTRIES; i++) {
		if (tep_find_event_by_name(tep, "ftrace", up_entries[i].name))
			return true;
	}
	return false;
}
