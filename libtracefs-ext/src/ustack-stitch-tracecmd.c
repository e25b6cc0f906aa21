// SPDX-License-Identifier: LGPL-2.1
/*
 * Stitching a trace.dat file, read by libtracecmd in time order across the
 * CPUs. With ustack-trace-open.c, the only users of libtracecmd.
 */
#include <errno.h>
#include <trace-cmd.h>

#include "ustack-stitch-local.h"

/**
 * ustack_stitcher_bound_tracecmd - bound a stitcher's records by a file's pages
 * @st: the stitcher
 * @handle: the file it is fed from
 *
 * libtracecmd does not give its tep the page size of the file (ustack_trace_open()
 * does), so a stitcher of a handle from tracecmd_open() would have no bound.
 */
void ustack_stitcher_bound_tracecmd(struct ustack_stitcher *st, struct tracecmd_input *handle)
{
	if (!st->fmt.max_size && st->fmt.tep)
		st->fmt.max_size = ustack_page_room(st->fmt.tep, tracecmd_page_size(handle));
}

static int ustack_tracecmd_record(struct tracecmd_input *handle, struct tep_record *record,
				  int cpu, void *context)
{
	(void)handle;
	(void)cpu;
	/* the CPU of the file, whatever order tracecmd numbers its iteration in */
	return ustack_run_record(context, record, record->cpu);
}

/**
 * ustack_stitch_tracecmd - hand back the events of a trace file with their stacks
 * @handle: the trace file, from ustack_trace_open() (or tracecmd_open()); for
 *	another buffer (instance) of the file, the handle of
 *	tracecmd_buffer_instance_handle()
 * @flags: as for ustack_stitcher_alloc()
 * @callback: called for every event, as for ustack_stitcher_alloc()
 * @context: passed to @callback
 *
 * Reads every event of @handle with tracecmd_iterate_events(), feeds them to
 * a stitcher of its own with the event formats of the file
 * (tracecmd_get_tep()), and flushes it at the end: stacks still awaited then
 * are lost (USTACK_LOST_END). Records longer than a page of the file are
 * left out (ustack_stitcher_add()).
 *
 * Return: 0 when every event was handed back; 1 when @callback asked to stop
 * (the events after it are dropped); -1 with errno: EINVAL (@handle or
 * @callback NULL), the errors of ustack_stitcher_alloc() and
 * ustack_stitcher_add(), or EIO when libtracecmd failed.
 */
int ustack_stitch_tracecmd(struct tracecmd_input *handle, unsigned int flags,
			   ustack_stitch_func callback, void *context)
{
	struct ustack_run run;
	struct tep_handle *tep;
	int ret;

	if (!handle || !callback) {
		errno = EINVAL;
		return -1;
	}
	tep = tracecmd_get_tep(handle);
	if (!tep) {
		errno = EINVAL;
		return -1;
	}
	if (ustack_run_start(&run, tep, flags, callback, context))
		return -1;
	ustack_stitcher_bound_tracecmd(run.st, handle);
	errno = 0;
	ret = tracecmd_iterate_events(handle, NULL, 0, ustack_tracecmd_record, &run);
	return ustack_run_finish(&run, ret);
}

/**
 * ustack_stitcher_feed_tracecmd - feed the events of a trace file to a stitcher
 * @st: the stitcher, allocated with the event formats of the file
 *	(tracecmd_get_tep() of @handle)
 * @handle: the trace file, or a buffer of it
 *	(tracecmd_buffer_instance_handle())
 *
 * Like ustack_stitch_tracecmd(), but into the caller's stitcher, which is
 * not flushed (and gets the page size of the file as its bound, when its tep
 * had none): events whose stack came are handed back (and indexed), the
 * others stay held (or pending in the index) for what is fed next. Call
 * ustack_stitcher_flush() at the end of the input. So a stitcher can be
 * given the file with an index and no callback, for ustack_stitcher_lookup()
 * by record offset (USTACK_STITCH_INDEX_OFFSET), which is what a viewer that
 * reads its rows with tracecmd_read_at() has for each row.
 *
 * The records are read from where the handle's CPUs are, to the end: a
 * handle is read once (libtracecmd 1.3 has no public way back), so a viewer
 * reads its rows through a handle of its own.
 *
 * Return: 0 when every record was fed; 1 when the callback asked to stop
 * (the records after it were not read); -1 with errno: EINVAL (@st or
 * @handle NULL, @st not of the file's formats), the errors of
 * ustack_stitcher_add(), or EIO when libtracecmd failed.
 */
int ustack_stitcher_feed_tracecmd(struct ustack_stitcher *st, struct tracecmd_input *handle)
{
	struct ustack_run run = { .st = st };
	int ret;

	if (!st || !handle || tracecmd_get_tep(handle) != st->fmt.tep) {
		errno = EINVAL;
		return -1;
	}
	ustack_stitcher_bound_tracecmd(st, handle);
	errno = 0;
	ret = tracecmd_iterate_events(handle, NULL, 0, ustack_tracecmd_record, &run);
	return ustack_run_end(&run, ret);
}
