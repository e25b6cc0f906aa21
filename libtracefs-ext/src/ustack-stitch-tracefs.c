// SPDX-License-Identifier: LGPL-2.1
/*
 * Stitching what a tracefs instance holds now: its trace_pipe_raw files,
 * read by libtracefs in time order across the CPUs.
 */
#include <errno.h>
#include <tracefs.h>

#include "ustack-stitch-local.h"

static int ustack_tracefs_record(struct tep_event *event, struct tep_record *record, int cpu,
				 void *context)
{
	(void)event;
	return ustack_run_record(context, record, cpu);
}

/**
 * ustack_stitch_instance - hand back the events of an instance with their stacks
 * @tep: the event formats of the instance's tracing directory; NULL to have
 *	them read with tracefs_local_events() (and freed afterwards)
 * @instance: the instance; NULL for the top level
 * @flags: as for ustack_stitcher_alloc()
 * @callback: called for every event, as for ustack_stitcher_alloc()
 * @context: passed to @callback
 *
 * Reads the events in the instance's buffers with
 * tracefs_iterate_raw_events(), which consumes them (trace_pipe_raw), feeds
 * them to a stitcher of its own, and flushes it at the end: stacks still
 * awaited then are lost (USTACK_LOST_END). Reading a live instance again
 * later starts a new stitcher: call ustack_stitcher_add() from your own
 * iteration to keep one across reads.
 *
 * Return: 0 when every event was handed back; 1 when @callback asked to stop
 * (the events after it are dropped); -1 with errno: EINVAL (@callback NULL),
 * the errors of ustack_stitcher_alloc() and ustack_stitcher_add(), or of
 * reading the instance (EIO when libtracefs did not say).
 */
int ustack_stitch_instance(struct tep_handle *tep, struct tracefs_instance *instance,
			   unsigned int flags, ustack_stitch_func callback, void *context)
{
	struct tep_handle *local = NULL;
	struct ustack_run run;
	int ret, err;

	if (!callback) {
		errno = EINVAL;
		return -1;
	}
	if (!tep) {
		errno = 0;
		local = tracefs_local_events(tracefs_instance_get_trace_dir(instance));
		if (!local) {
			if (!errno)
				errno = ENOENT;
			return -1;
		}
		tep = local;
	}
	if (ustack_run_start(&run, tep, flags, callback, context)) {
		err = errno;
		tep_free(local);
		errno = err;
		return -1;
	}
	errno = 0;
	ret = tracefs_iterate_raw_events(tep, instance, NULL, 0, ustack_tracefs_record, &run);
	ret = ustack_run_finish(&run, ret);
	err = errno;
	tep_free(local);
	errno = err;
	return ret;
}

/**
 * ustack_stitcher_feed_instance - feed what an instance holds now to a stitcher
 * @st: the stitcher, allocated with the event formats of the instance's
 *	tracing directory (tracefs_local_events())
 * @instance: the instance; NULL for the top level
 *
 * Like ustack_stitch_instance(), but into the caller's stitcher, which is
 * not flushed: call it again while the instance is tracing, and the stacks
 * of events read by one call can come with the records of the next (the
 * file table, the tasks and the held events stay). Events whose stack came
 * are handed back (and indexed) by each call. Call ustack_stitcher_flush()
 * once tracing is over and the last records were fed.
 *
 * Return: 0 when every record there was fed; 1 when the callback asked to
 * stop (the records after it stay in the buffers only if libtracefs had not
 * read them yet); -1 with errno: EINVAL (@st NULL, or a stitcher without a
 * tep: ustack_stitcher_alloc_layout()), the errors of ustack_stitcher_add(),
 * or of reading the instance (EIO when libtracefs did not say).
 */
int ustack_stitcher_feed_instance(struct ustack_stitcher *st, struct tracefs_instance *instance)
{
	struct ustack_run run = { .st = st };
	int ret;

	if (!st || !st->fmt.tep) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	ret = tracefs_iterate_raw_events(st->fmt.tep, instance, NULL, 0, ustack_tracefs_record,
					 &run);
	return ustack_run_end(&run, ret);
}
