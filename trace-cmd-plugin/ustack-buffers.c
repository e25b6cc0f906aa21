// SPDX-License-Identifier: LGPL-2.1
/*
 * Every buffer of a trace file: the top-level one and each instance
 * (trace-cmd record -B, extract -B) has its own ring buffers, so its own
 * cookies and stacks, and gets a read-ahead of its own (ustack-ahead.c),
 * opened when report first prints one of its events.
 *
 * The buffers of a file share its event formats (one tep, one load of the
 * plugin), so an event handler is not told which buffer its record is in.
 * Report reads each buffer through a handle of its own, and libtracecmd
 * notes the handle it last read a record from in tracecmd_curr_thread_handle
 * (trace-cmd's function graph printer reads ahead through it): when report
 * prints a record, that is the record's handle. A handle is matched once,
 * at its first record printed, to a buffer of the file: the top-level one,
 * or the instance with the CPUs and first timestamp of the handle that has
 * that very record at its offset (offsets are those in the file, or, of
 * compressed data, in a space each handle of an instance lays out the same
 * way; instances may overlap there). Until matched, an instance is kept
 * open for that (a handle of the instance of the read-ahead's file).
 * Instances with the same records are taken in their order in the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>

#include "ustack-plugin.h"

/* A buffer of the file: its read-ahead, opened when first needed. */
struct up_buffer {
	struct up_ahead		*ahead;
	bool			tried;		/* opened, or failed to */
	char			*name;		/* NULL: the top-level buffer */
	/* an instance not matched yet to a handle of report: a handle of its own */
	struct tracecmd_input	*probe;
	int			cpus;
	unsigned long long	first_ts;
};

/* A handle of report, and the buffer it reads (-1: none of the file's). */
struct up_handle_map {
	struct tracecmd_input	*handle;
	int			buffer;
};

/* Is @record, of a handle of report, the record at its offset in the instance? */
static bool up_buffer_has(struct up_buffer *b, const struct tep_record *record)
{
	struct tep_record *rec;
	bool same;
	int cpu;

	rec = tracecmd_read_at(b->probe, record->offset, &cpu);
	if (!rec)
		return false;
	/* report's timestamps may be moved (--ts-offset, ...): not compared */
	same = cpu == record->cpu && rec->size == record->size &&
	       !memcmp(rec->data, record->data, record->size);
	tracecmd_free_record(rec);
	return same;
}

struct up_buffers {
	char			*file;
	struct up_ahead_opts	opts;
	struct tep_handle	*tep;		/* report's */
	struct up_buffer	*buffers;	/* [0]: the top-level one */
	int			nr_buffers;
	struct up_handle_map	*map;
	int			nr_map;
};

/**
 * up_buffers_open - the buffers of a trace file, the top-level one read ahead
 * @file: the file report reads
 * @tep: report's event formats of the file
 * @opts: how to read ahead
 *
 * Return: the buffers; NULL with errno when the top-level read-ahead cannot
 * be opened.
 */
struct up_buffers *up_buffers_open(const char *file, struct tep_handle *tep,
				   const struct up_ahead_opts *opts)
{
	struct tracecmd_input *top;
	struct up_buffer *buffers;
	struct up_buffers *bufs;
	const char *name;
	int i, n;

	bufs = calloc(1, sizeof(*bufs));
	if (!bufs)
		return NULL;
	bufs->tep = tep;
	bufs->opts = *opts;
	bufs->file = strdup(file);
	bufs->buffers = calloc(1, sizeof(*bufs->buffers));
	if (!bufs->file || !bufs->buffers)
		goto fail;
	bufs->nr_buffers = 1;
	bufs->buffers[0].tried = true;
	bufs->buffers[0].ahead = up_ahead_open(file, -1, opts);
	if (!bufs->buffers[0].ahead)
		goto fail;
	/* the instances, told apart by their CPUs and first timestamps */
	top = up_ahead_handle(bufs->buffers[0].ahead);
	n = tracecmd_buffer_instances(top);
	if (n <= 0)
		return bufs;
	buffers = realloc(bufs->buffers, (n + 1) * sizeof(*buffers));
	if (!buffers)
		goto fail;
	bufs->buffers = buffers;
	memset(bufs->buffers + 1, 0, n * sizeof(*bufs->buffers));
	for (i = 0; i < n; i++) {
		struct up_buffer *b = &bufs->buffers[i + 1];

		bufs->nr_buffers++;
		name = tracecmd_buffer_instance_name(top, i);
		b->name = strdup(name ? name : "?");
		if (!b->name)
			goto fail;
		/* it holds a reference on the file's handle: valid after a reopen */
		b->probe = tracecmd_buffer_instance_handle(top, i);
		if (!b->probe) {
			b->tried = true;	/* libtracecmd cannot read it: no stacks */
			continue;
		}
		b->cpus = tracecmd_cpus(b->probe);
		b->first_ts = tracecmd_get_first_ts(b->probe);
	}
	return bufs;
fail:
	up_buffers_close(bufs);
	return NULL;
}

/**
 * up_buffers_tep - the event formats of the read-ahead's own handle
 * @bufs: the buffers
 *
 * Return: the tep of the top-level read-ahead (the same events as report's).
 */
struct tep_handle *up_buffers_tep(struct up_buffers *bufs)
{
	return up_ahead_tep(bufs->buffers[0].ahead);
}

/* The instance a handle of report reads, @record one of its records; -1: none. */
static int up_buffers_match(struct up_buffers *bufs, struct tracecmd_input *handle,
			    const struct tep_record *record)
{
	unsigned long long first_ts = tracecmd_get_first_ts(handle);
	int i, cpus = tracecmd_cpus(handle);

	if (!tracecmd_is_buffer_instance(handle))
		return 0;
	for (i = 1; i < bufs->nr_buffers; i++) {
		struct up_buffer *b = &bufs->buffers[i];

		if (b->probe && b->cpus == cpus && b->first_ts == first_ts &&
		    up_buffer_has(b, record)) {
			tracecmd_close(b->probe);
			b->probe = NULL;
			return i;
		}
	}
	return -1;
}

/* The buffer of the record report prints now. */
static int up_buffers_which(struct up_buffers *bufs, const struct tep_record *record)
{
	struct tracecmd_input *handle = tracecmd_curr_thread_handle;
	struct up_handle_map *map;
	int i;

	/* not report's iteration of this file: as before, the top-level buffer */
	if (!handle || tracecmd_get_tep(handle) != bufs->tep)
		return 0;
	for (i = 0; i < bufs->nr_map; i++) {
		if (bufs->map[i].handle == handle)
			return bufs->map[i].buffer;
	}
	map = realloc(bufs->map, (bufs->nr_map + 1) * sizeof(*map));
	if (!map)
		return -1;
	bufs->map = map;
	map[bufs->nr_map].handle = handle;
	map[bufs->nr_map].buffer = up_buffers_match(bufs, handle, record);
	return map[bufs->nr_map++].buffer;
}

/**
 * up_buffers_lookup - what the read-ahead of its buffer knows of a record
 * @bufs: the buffers of the file
 * @record: the record report prints
 *
 * The read-ahead of the buffer is opened at its first record; one that
 * cannot be opened is said once on stderr.
 *
 * Return: as up_ahead_lookup(); NULL when the record is not known.
 */
const struct up_result *up_buffers_lookup(struct up_buffers *bufs,
					  const struct tep_record *record)
{
	struct up_buffer *b;
	int i = up_buffers_which(bufs, record);

	if (i < 0)
		return NULL;
	b = &bufs->buffers[i];
	if (!b->tried) {
		b->tried = true;
		b->ahead = up_ahead_open(bufs->file, i - 1, &bufs->opts);
		if (!b->ahead)
			fprintf(stderr, "plugin_ustack: cannot read buffer %s a second time (%m): "
				"no user stacks under its events\n", b->name);
	}
	return b->ahead ? up_ahead_lookup(b->ahead, record) : NULL;
}

/**
 * up_buffers_each - the read-aheads opened, for their statistics
 * @bufs: the buffers
 * @i: the index of the buffer, from 0
 * @name: its name; NULL for the top-level buffer
 *
 * Return: the read-ahead of buffer @i, or NULL when it was not opened;
 * iteration ends when @i is not below up_buffers_nr().
 */
struct up_ahead *up_buffers_each(struct up_buffers *bufs, int i, const char **name)
{
	*name = bufs->buffers[i].name;
	return bufs->buffers[i].ahead;
}

/**
 * up_buffers_nr - how many buffers the file has
 * @bufs: the buffers
 *
 * Return: the top-level buffer and the instances.
 */
int up_buffers_nr(struct up_buffers *bufs)
{
	return bufs->nr_buffers;
}

/**
 * up_buffers_close - close every read-ahead
 * @bufs: the buffers; NULL is allowed
 */
void up_buffers_close(struct up_buffers *bufs)
{
	int i;

	if (!bufs)
		return;
	for (i = 0; bufs->buffers && i < bufs->nr_buffers; i++) {
		up_ahead_close(bufs->buffers[i].ahead);
		if (bufs->buffers[i].probe)
			tracecmd_close(bufs->buffers[i].probe);
		free(bufs->buffers[i].name);
	}
	free(bufs->buffers);
	free(bufs->map);
	free(bufs->file);
	free(bufs);
}
