// SPDX-License-Identifier: LGPL-2.1
/*
 * The read-ahead's own open of the trace file, without the kernel's symbols.
 *
 * The read-ahead never names a kernel address (report's own handle prints
 * the events and kernel stacks), so its handle reads the headers with
 * libtracefs-ext's ustack_trace_read_head(): libtraceevent does not parse
 * the saved /proc/kallsyms a second time (ustack-trace-head.c says how).
 * A file that cannot be read so is opened with tracecmd_open_head(), and
 * libtracecmd says of it what it says without the plugin.
 */
#include <fcntl.h>
#include <unistd.h>
#include <trace-cmd.h>

#include "ustack-plugin.h"

#define UP_HEAD_FLAGS		TRACECMD_FL_LOAD_NO_PLUGINS

/**
 * up_head_open - open a trace file and read its headers, all but the kallsyms
 * @file: the trace file
 *
 * As tracecmd_open_head(@file, TRACECMD_FL_LOAD_NO_PLUGINS), but the handle's
 * tep has no kernel functions (when the file is laid out as expected; else
 * it is exactly that call's).
 *
 * Return: the handle, to be closed with tracecmd_close(); NULL on failure.
 */
struct tracecmd_input *up_head_open(const char *file)
{
	struct tracecmd_input *handle;
	int fd, ret;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	handle = tracecmd_alloc_fd(fd, UP_HEAD_FLAGS);
	if (!handle) {
		/* not a trace file libtracecmd reads: as tracecmd_open_head() */
		close(fd);
		return NULL;
	}
	/* the handle owns the descriptor now */
	ret = ustack_trace_read_head(handle, fd);
	if (ret > 0)
		ret = tracecmd_read_headers(handle, 0) < 0 ? -1 : 0;
	if (!ret)
		return handle;
	tracecmd_close(handle);
	return tracecmd_open_head(file, UP_HEAD_FLAGS);
}
