// SPDX-License-Identifier: LGPL-2.1
/*
 * plugin-ustack.so: deferred user stacks in KernelShark 2.2.1.
 *
 * The data interface. For each ftrace stream (a buffer of a trace.dat file)
 * whose formats have the kernel's user_unwind_* entries, the initializer
 *
 *   - registers handlers for the three entries, which copy their records as
 *     KernelShark reads them, CPU by CPU (ks-collect.c);
 *   - wraps the stream's load_entries: once KernelShark has the entries,
 *     they are stitched with the copies by a stitcher of libtracefs-ext
 *     with an index by record offset, in time order, as far as lookups
 *     need, and the copies freed as they are read (ks-stitch.c);
 *   - wraps the stream's get_info: the Info of an event with a user stack
 *     gets the stack under it, symbolized, or why it was lost (ks-info.c);
 *   - registers the draw handler of the graphs (ks-draw.cpp).
 *
 * The deinitializer undoes all of it and frees the stream's state, so the
 * stream is as it was without the plugin.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libkshark-tepdata.h>
#include <event-parse.h>

#include "ks-ustack.h"

/* ks-draw.cpp */
void ksu_draw(struct kshark_cpp_argv *argv, int sd, int val, int draw_action);

static struct ksu_stream **ksu_streams;
static int ksu_nr_streams;
static pthread_mutex_t ksu_streams_lock = PTHREAD_MUTEX_INITIALIZER;

static const char * const ksu_event_names[KSU_KIND_NR] = {
	[KSU_COOKIE]	= "ftrace/user_unwind_cookie",
	[KSU_STACK]	= "ftrace/user_unwind_stack",
	[KSU_FILE]	= "ftrace/user_unwind_file",
};

/**
 * ksu_log - a line for the tests, when USTACK_KSHARK_LOG names a file
 * @fmt: printf format of the line, without its newline
 */
void ksu_log(const char *fmt, ...)
{
	const char *path = getenv("USTACK_KSHARK_LOG");
	va_list ap;
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/**
 * ksu_stream_get - the plugin's state of a stream
 * @sd: the stream id
 *
 * Return: the state; NULL when the plugin is not initialized on @sd.
 */
struct ksu_stream *ksu_stream_get(int sd)
{
	struct ksu_stream *s = NULL;

	pthread_mutex_lock(&ksu_streams_lock);
	if (sd >= 0 && sd < ksu_nr_streams)
		s = ksu_streams[sd];
	pthread_mutex_unlock(&ksu_streams_lock);
	return s;
}

static int ksu_stream_set(int sd, struct ksu_stream *s)
{
	struct ksu_stream **n;
	int nr;

	pthread_mutex_lock(&ksu_streams_lock);
	if (sd >= ksu_nr_streams) {
		nr = ksu_nr_streams ? ksu_nr_streams : 16;
		while (nr <= sd)
			nr *= 2;
		n = realloc(ksu_streams, nr * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&ksu_streams_lock);
			return -1;
		}
		memset(n + ksu_nr_streams, 0, (nr - ksu_nr_streams) * sizeof(*n));
		ksu_streams = n;
		ksu_nr_streams = nr;
	}
	ksu_streams[sd] = s;
	pthread_mutex_unlock(&ksu_streams_lock);
	return 0;
}

/* Where the id of a user_unwind_file record is (4 bytes); -1 when not so. */
static int ksu_file_id_offset(struct kshark_data_stream *stream)
{
	struct tep_handle *tep = kshark_get_tep(stream);
	struct tep_format_field *field;
	struct tep_event *event;

	event = tep ? tep_find_event_by_name(tep, "ftrace", "user_unwind_file") : NULL;
	field = event ? tep_find_field(event, "id") : NULL;
	return field && field->size == 4 ? field->offset : -1;
}

/* Where the frames of a user_unwind_stack record start (to its end); -1 when not so. */
static int ksu_frames_offset(struct kshark_data_stream *stream)
{
	struct tep_handle *tep = kshark_get_tep(stream);
	struct tep_format_field *field;
	struct tep_event *event;

	event = tep ? tep_find_event_by_name(tep, "ftrace", "user_unwind_stack") : NULL;
	field = event ? tep_find_field(event, "frames") : NULL;
	if (!field || (field->flags & TEP_FIELD_IS_DYNAMIC) || field->offset <= 0 ||
	    field->offset > 4096)
		return -1;
	return field->offset;
}

/*
 * The bytes a record needs to hold common_type and common_pid where the
 * formats say (libtraceevent reads both before any handler); 0 when the
 * formats have them nowhere sane: no stacks for such a stream.
 */
static uint32_t ksu_common_end(struct kshark_data_stream *stream, int event_id)
{
	struct tep_handle *tep = kshark_get_tep(stream);
	struct tep_format_field *type, *pid;
	struct tep_event *event;

	event = tep ? tep_find_event(tep, event_id) : NULL;
	type = event ? tep_find_common_field(event, "common_type") : NULL;
	pid = event ? tep_find_common_field(event, "common_pid") : NULL;
	if (!type || !pid || type->offset < 0 || pid->offset < 0 ||
	    (type->size != 1 && type->size != 2 && type->size != 4) || pid->size != 4 ||
	    type->offset > 64 || pid->offset > 64)
		return 0;
	return type->offset + type->size > pid->offset + pid->size ?
	       type->offset + type->size : pid->offset + pid->size;
}

static void ksu_stream_free(struct ksu_stream *s)
{
	if (!s)
		return;
	ksu_walk_free(s);
	ustack_stitcher_free(s->st);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/*
 * Is the plugin's wrapper on this stream's interface? Another plugin could
 * have wrapped ours since; then the interface is left alone on close.
 */
static struct kshark_generic_stream_interface *ksu_interface(struct kshark_data_stream *stream)
{
	struct kshark_generic_stream_interface *in = stream->interface;

	if (!in || in->type != KS_GENERIC_DATA_INTERFACE)
		return NULL;
	return in;
}

/* A buffer of its own (an instance), not the top one of its file. */
static bool ksu_named(const struct kshark_data_stream *stream)
{
	return stream->name && strcmp(stream->name, KS_UNNAMED);
}

/**
 * kshark_data_plugin_initializer - attach the plugin to a stream
 * @stream: a data stream KernelShark opened
 *
 * Return: the number of handlers registered (0: the stream has no deferred
 * user stacks, or no memory; KernelShark then says the plugin failed on it).
 */
KSU_EXPORT int kshark_data_plugin_initializer(struct kshark_data_stream *stream)
{
	struct kshark_generic_stream_interface *in;
	struct ksu_stream *s;
	int i, n;

	if (!kshark_is_tep(stream) || !(in = ksu_interface(stream)))
		return 0;
	if (ksu_stream_get(stream->stream_id))
		return 0;	/* initialized twice: keep the first */
	s = calloc(1, sizeof(*s));
	if (!s)
		return 0;
	s->stream = stream;
	pthread_mutex_init(&s->lock, NULL);
	for (i = 0; i < KSU_KIND_NR; i++) {
		s->ids[i] = kshark_find_event_id(stream, ksu_event_names[i]);
		if (s->ids[i] < 0)
			goto none;
	}
	s->file_id_off = ksu_file_id_offset(stream);
	s->frames_off = ksu_frames_offset(stream);
	s->common_end = ksu_common_end(stream, s->ids[KSU_COOKIE]);
	if (!s->common_end)
		goto none;
	if (ksu_stream_set(stream->stream_id, s))
		goto none;
	n = ksu_collect_register(s);
	if (n < KSU_KIND_NR) {
		ksu_collect_unregister(s);
		ksu_stream_set(stream->stream_id, NULL);
		goto none;
	}
	s->orig_get_info = in->get_info;
	s->orig_load_entries = in->load_entries;
	in->get_info = ksu_get_info;
	in->load_entries = ksu_load_entries;
	kshark_register_draw_handler(stream, ksu_draw);
	ksu_log("init stream %d %s%s%s", stream->stream_id, stream->file,
		ksu_named(stream) ? ":" : "", ksu_named(stream) ? stream->name : "");
	return n + 1;
none:
	ksu_log("no user stacks in stream %d %s", stream->stream_id, stream->file);
	ksu_stream_free(s);
	return 0;
}

/**
 * kshark_data_plugin_deinitializer - detach the plugin from a stream
 * @stream: the stream
 *
 * Undoes everything the initializer did and frees the stream's state.
 * kshark_free() calls it once more, after closing every stream, with a
 * stream that has nothing but the id KS_PLUGIN_CONTEXT_FREE: nothing is
 * left to free then, and nothing else of that stream may be read.
 *
 * Return: the number of handlers unregistered.
 */
KSU_EXPORT int kshark_data_plugin_deinitializer(struct kshark_data_stream *stream)
{
	struct kshark_generic_stream_interface *in;
	struct ksu_stream *s;
	int n = 0;

	if (stream->stream_id == KS_PLUGIN_CONTEXT_FREE)
		return 0;
	in = ksu_interface(stream);
	s = ksu_stream_get(stream->stream_id);
	if (!s || s->stream != stream)
		return 0;
	ksu_collect_unregister(s);
	kshark_unregister_draw_handler(stream, ksu_draw);
	if (in && in->get_info == ksu_get_info)
		in->get_info = s->orig_get_info;
	if (in && in->load_entries == ksu_load_entries)
		in->load_entries = s->orig_load_entries;
	n = KSU_KIND_NR + 1;
	ksu_stream_set(stream->stream_id, NULL);
	ksu_log("close stream %d", stream->stream_id);
	ksu_stream_free(s);

	/* the last stream gone: nothing of the plugin is left allocated */
	pthread_mutex_lock(&ksu_streams_lock);
	for (int i = 0; i < ksu_nr_streams; i++) {
		if (ksu_streams[i]) {
			pthread_mutex_unlock(&ksu_streams_lock);
			return n;
		}
	}
	free(ksu_streams);
	ksu_streams = NULL;
	ksu_nr_streams = 0;
	pthread_mutex_unlock(&ksu_streams_lock);
	ksu_symbolizer_free();
	return n;
}
