// SPDX-License-Identifier: LGPL-2.1
/*
 * The read-ahead's own reader of the trace file: the records of each CPU of
 * one buffer (the top-level one or an instance), in file order.
 *
 * With libtracecmd before 1.5.1 (trace-cmd 3.1.6 of Debian 12) the memory
 * libtracecmd keeps for a handle grows with what it read; the reader then
 * opens the file again now and then and drops pages it left from memory
 * (ustack-reopen.c, ustack-drop.c, built only for those libraries).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>

#include "ustack-plugin.h"

/**
 * up_reader_open_handle - open the file for reading the records of its buffer
 * @rd: the reader: its file and buffer
 *
 * Return: 0 with @rd->top and @rd->handle set; -1 with errno.
 */
int up_reader_open_handle(struct up_reader *rd)
{
	/*
	 * tracecmd_open() in two steps, the headers read without the kernel's
	 * symbols (ustack-head.c): when tracecmd_init_data() fails (a
	 * damaged file), libtracecmd 3.1.6's tracecmd_close() of the handle
	 * crashes (a CPU's list of page maps is not set up yet). The handle is
	 * then left open.
	 */
	rd->top = up_head_open(rd->file);
	if (!rd->top || tracecmd_init_data(rd->top) < 0) {
		rd->top = NULL;
		errno = EIO;	/* libtracecmd's errno is not meaningful here */
		return -1;
	}
	if (rd->buffer < 0) {
		rd->handle = rd->top;
		return 0;
	}
	/* an instance's handle holds a reference on the file's */
	rd->handle = tracecmd_buffer_instance_handle(rd->top, rd->buffer);
	if (!rd->handle) {
		up_reader_close_handle(rd);
		errno = EIO;
		return -1;
	}
	return 0;
}

/**
 * up_reader_close_handle - close the reader's handles of the file
 * @rd: the reader
 */
void up_reader_close_handle(struct up_reader *rd)
{
	if (rd->handle && rd->handle != rd->top)
		tracecmd_close(rd->handle);
	if (rd->top)
		tracecmd_close(rd->top);
	rd->handle = NULL;
	rd->top = NULL;
}

static void up_reader_read(struct up_reader *rd, int cpu)
{
	rd->next[cpu] = tracecmd_read_data(rd->handle, cpu);
#ifdef UP_ZPAGE_WORKAROUND
	if (rd->next[cpu])
		up_reopen_note(rd->reopen, cpu, rd->next[cpu]);
#endif
}

/**
 * up_reader_open - a reader of a buffer of a trace file
 * @file: the file
 * @buffer: -1 for the top-level buffer, else the index of the instance
 * @reopen_bytes: open the file again after this many bytes of pages that
 *	libtracecmd keeps in its own memory; 0 for never
 *
 * Return: the reader, with the first record of each CPU read; NULL with errno.
 */
struct up_reader *up_reader_open(const char *file, int buffer, unsigned long long reopen_bytes)
{
	struct up_reader *rd;
	int cpu;

	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return NULL;
	rd->buffer = buffer;
	rd->file = strdup(file);
	if (!rd->file || up_reader_open_handle(rd))
		goto fail;
	rd->tep = tracecmd_get_tep(rd->handle);
	tep_ref(rd->tep);
	/*
	 * libtracecmd keeps the file's page size to itself, and the stitcher
	 * made on this tep bounds a record by it: a damaged length (kbuffer
	 * does not check it against the page) is then left out, counted,
	 * rather than copied from past the page and the file's mapping.
	 */
	if (tep_get_page_size(rd->tep) <= 0)
		tep_set_page_size(rd->tep, tracecmd_page_size(rd->handle));
	rd->nr_cpus = tracecmd_cpus(rd->handle);
	if (rd->nr_cpus < 0)
		rd->nr_cpus = 0;
	rd->next = calloc(rd->nr_cpus ? rd->nr_cpus : 1, sizeof(*rd->next));
	if (!rd->next)
		goto fail;
#ifdef UP_ZPAGE_WORKAROUND
	rd->reopen = up_reopen_alloc(file, tep_get_page_size(rd->tep), rd->nr_cpus, reopen_bytes);
	if (!rd->reopen)
		goto fail;
#else
	(void)reopen_bytes;
#endif
	for (cpu = 0; cpu < rd->nr_cpus; cpu++)
		up_reader_read(rd, cpu);
	return rd;
fail:
	up_reader_close(rd);
	return NULL;
}

/**
 * up_reader_close - close a reader
 * @rd: the reader; NULL is allowed
 */
void up_reader_close(struct up_reader *rd)
{
	int cpu;

	if (!rd)
		return;
	for (cpu = 0; rd->next && cpu < rd->nr_cpus; cpu++)
		tracecmd_free_record(rd->next[cpu]);
	free(rd->next);
#ifdef UP_ZPAGE_WORKAROUND
	up_reopen_free(rd->reopen);
#endif
	up_reader_close_handle(rd);
	if (rd->tep)
		tep_unref(rd->tep);
	free(rd->file);
	free(rd);
}

/**
 * up_reader_tep - the event formats of the file
 * @rd: the reader
 *
 * Return: the tep of the first handle; it stays valid across reopens.
 */
struct tep_handle *up_reader_tep(struct up_reader *rd)
{
	return rd->tep;
}

/**
 * up_reader_cpus - how many CPUs the buffer has
 * @rd: the reader
 *
 * Return: the number of CPUs.
 */
int up_reader_cpus(struct up_reader *rd)
{
	return rd->nr_cpus;
}

/**
 * up_reader_peek - the next record of a CPU
 * @rd: the reader
 * @cpu: the CPU
 *
 * Return: the record, still the reader's; NULL when the CPU has no more.
 */
const struct tep_record *up_reader_peek(struct up_reader *rd, int cpu)
{
	return rd->next[cpu];
}

/**
 * up_reader_take - take the next record of a CPU
 * @rd: the reader
 * @cpu: the CPU, one whose up_reader_peek() is not NULL
 *
 * The record is the caller's, to be freed with tracecmd_free_record()
 * before the next call: the handle may be closed then.
 *
 * Return: the record; NULL with errno when the file could not be opened
 * again (the reader has no more records then).
 */
struct tep_record *up_reader_take(struct up_reader *rd, int cpu)
{
	struct tep_record *rec;

#ifdef UP_ZPAGE_WORKAROUND
	if (up_reopen_due(rd->reopen) && up_reader_reopen(rd))
		return NULL;
#endif
	rec = rd->next[cpu];
	if (rec)
		up_reader_read(rd, cpu);
	return rec;
}

/**
 * up_reader_stats - what the reader did to keep its memory bounded
 * @rd: the reader
 * @reopens: how many times the file was opened again
 * @dropped: how many pages of mappings of the file were dropped
 *
 * Both are 0 with a libtracecmd that frees what it read (ustack-reopen.c
 * not built).
 */
void up_reader_stats(struct up_reader *rd, unsigned long long *reopens,
		     unsigned long long *dropped)
{
#ifdef UP_ZPAGE_WORKAROUND
	up_reopen_stats(rd->reopen, reopens, dropped);
#else
	(void)rd;
	*reopens = 0;
	*dropped = 0;
#endif
}
