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
