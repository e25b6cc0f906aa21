// SPDX-License-Identifier: LGPL-2.1
/*
 * The read-ahead's own reader of the trace file: the records of each CPU of
 * the top-level buffer, in file order, with memory that does not grow with
 * the trace.
 *
 * libtracecmd 3.1.6 keeps what it read of a file until the handle is closed:
 *
 *   compressed CPU data (trace files of version 7 by default): every chunk
 *	it decompresses stays in memory (free_zpage() never finds the chunk
 *	of a page it frees: its range test is inverted);
 *   uncompressed data (version 6, or 7 without compression): the file is
 *	mapped in pieces of several megabytes that are only unmapped when no
 *	page of them is in use, and every page read stays resident in them
 *	(the last pieces are not even unmapped when the handle is closed).
 *
 * Report's own reader grows like that; the read-ahead must not add a second
 * such growth. So:
 *
 *   a page in a mapping of the file is dropped from memory (MADV_DONTNEED)
 *	once the read-ahead has left it: the mapping is private and read-only,
 *	a later access reads the page from the file again;
 *   for pages that are not (decompressed ones), the handle is closed and
 *	the file opened again after reopen_bytes of them were read: closing
 *	frees the chunks. Each CPU is then put back where it was: its next
 *	record is read again at its offset (tracecmd_read_at(), which reads
 *	the page from its start, so the timestamp and the missed events of
 *	the record come out as before), and checked to be the same.
 *
 * Opening costs what parsing the headers costs (~20 ms for a file with a
 * small kernel's symbols), so the reopen interval is in megabytes. The
 * event formats (tep) stay those of the first handle: the stitcher keeps
 * pointers into them, and they describe the same events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <trace-cmd.h>

#include "ustack-plugin.h"

enum up_page_kind {
	UP_PAGE_UNKNOWN,
	UP_PAGE_MAPPED,		/* in a mapping of the file: dropped when left */
	UP_PAGE_OWN,		/* in libtracecmd's memory: counted for a reopen */
};

struct up_rcpu {
	struct tep_record	*next;		/* read, not taken yet; NULL: no more */
	unsigned long long	page;		/* file offset of the page of the last read */
	uintptr_t		page_addr;	/* where that page is in memory */
	bool			have_page;
	enum up_page_kind	kind;
};

struct up_reader {
	char			*file;
	struct tracecmd_input	*handle;
	struct tep_handle	*tep;		/* the first handle's, referenced */
	struct up_drop		drop;
	int			nr_cpus;
	unsigned long		page_size;	/* of the trace */
	unsigned long		os_page_size;
	unsigned long long	reopen_bytes;	/* 0: never */
	unsigned long long	own_bytes;	/* own pages read since the open */
	unsigned long long	reopens;
	struct up_rcpu		*cpus;
};

static struct tracecmd_input *up_reader_open_handle(const char *file)
{
	struct tracecmd_input *handle;

	/*
	 * tracecmd_open() in two steps: when tracecmd_init_data() fails (a
	 * damaged file), libtracecmd 3.1.6's tracecmd_close() of the handle
	 * crashes (a CPU's list of page maps is not set up yet). The handle is
	 * then left open.
	 */
	handle = tracecmd_open_head(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle || tracecmd_init_data(handle) < 0) {
		errno = EIO;	/* libtracecmd's errno is not meaningful here */
		return NULL;
	}
	return handle;
}

/* What kind of memory the pages of a CPU are in, from its first record. */
static enum up_page_kind up_reader_kind(struct up_reader *rd, uintptr_t page_addr)
{
	if (rd->page_size % rd->os_page_size || page_addr % rd->os_page_size)
		return UP_PAGE_OWN;
	return up_drop_is_mapped(&rd->drop, page_addr) ? UP_PAGE_MAPPED : UP_PAGE_OWN;
}

/* Note the page of a record just read; let the page before it go. */
static void up_reader_note_page(struct up_reader *rd, int cpu, const struct tep_record *rec)
{
	struct up_rcpu *c = &rd->cpus[cpu];
	unsigned long long page = rec->offset & ~(unsigned long long)(rd->page_size - 1);
	uintptr_t addr = (uintptr_t)rec->data & ~(uintptr_t)(rd->page_size - 1);

	if (c->have_page && c->page == page)
		return;
	if (c->kind == UP_PAGE_UNKNOWN)
		c->kind = up_reader_kind(rd, addr);
	if (c->kind == UP_PAGE_MAPPED && c->have_page)
		up_drop_left(&rd->drop, cpu, c->page_addr);
	if (c->kind == UP_PAGE_OWN)
		rd->own_bytes += rd->page_size;
	c->page = page;
	c->page_addr = addr;
	c->have_page = true;
}

static void up_reader_read(struct up_reader *rd, int cpu)
{
	struct up_rcpu *c = &rd->cpus[cpu];

	c->next = tracecmd_read_data(rd->handle, cpu);
	if (c->next)
		up_reader_note_page(rd, cpu, c->next);
}

/*
 * Close the handle and open the file again, every CPU at the record it was
 * at. On failure the reader has no handle and no records: it ends.
 */
static int up_reader_reopen(struct up_reader *rd)
{
	unsigned long long *offset, *ts;
	struct tep_record *rec;
	int cpu, got, ret = -1;

	offset = calloc(rd->nr_cpus, sizeof(*offset));
	ts = calloc(rd->nr_cpus, sizeof(*ts));
	if (!offset || !ts)
		goto out;
	for (cpu = 0; cpu < rd->nr_cpus; cpu++) {
		rec = rd->cpus[cpu].next;
		if (!rec)
			continue;
		offset[cpu] = rec->offset;
		ts[cpu] = rec->ts;
		tracecmd_free_record(rec);
		rd->cpus[cpu].next = NULL;
	}
	/* the addresses of the pages left mean nothing once the handle is closed */
	up_drop_flush(&rd->drop);
	if (rd->handle)
		tracecmd_close(rd->handle);
	rd->handle = up_reader_open_handle(rd->file);
	if (!rd->handle)
		goto out;
	rd->reopens++;
	for (cpu = 0; cpu < rd->nr_cpus; cpu++) {
		rd->cpus[cpu].have_page = false;
		if (!offset[cpu])	/* no record: none is at offset 0 */
			continue;
		rec = tracecmd_read_at(rd->handle, offset[cpu], &got);
		if (!rec || got != cpu || rec->offset != offset[cpu] || rec->ts != ts[cpu]) {
			tracecmd_free_record(rec);
			errno = EIO;
			goto out;
		}
		rd->cpus[cpu].next = rec;
		up_reader_note_page(rd, cpu, rec);
	}
	/* the pages read again count from here: the next reopen is a page away at least */
	rd->own_bytes = 0;
	ret = 0;
out:
	if (ret) {
		for (cpu = 0; cpu < rd->nr_cpus; cpu++) {
			tracecmd_free_record(rd->cpus[cpu].next);
			rd->cpus[cpu].next = NULL;
		}
	}
	free(offset);
	free(ts);
	return ret;
}

/**
 * up_reader_open - a reader of the top-level buffer of a trace file
 * @file: the file
 * @reopen_bytes: open the file again after this many bytes of pages that
 *	libtracecmd keeps in its own memory; 0 for never
 *
 * Return: the reader, with the first record of each CPU read; NULL with errno.
 */
struct up_reader *up_reader_open(const char *file, unsigned long long reopen_bytes)
{
	struct up_reader *rd;
	struct stat st;
	int cpu;

	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return NULL;
	rd->reopen_bytes = reopen_bytes;
	rd->os_page_size = sysconf(_SC_PAGESIZE);
	rd->file = strdup(file);
	if (!rd->file || stat(file, &st))
		goto fail;
	rd->handle = up_reader_open_handle(file);
	if (!rd->handle)
		goto fail;
	rd->tep = tracecmd_get_tep(rd->handle);
	tep_ref(rd->tep);
	rd->page_size = tep_get_page_size(rd->tep);
	if (!rd->page_size || (rd->page_size & (rd->page_size - 1)))
		rd->page_size = rd->os_page_size;
	rd->nr_cpus = tep_get_cpus(rd->tep);
	if (rd->nr_cpus < 0)
		rd->nr_cpus = 0;
	rd->cpus = calloc(rd->nr_cpus ? rd->nr_cpus : 1, sizeof(*rd->cpus));
	if (!rd->cpus || up_drop_init(&rd->drop, &st, rd->page_size, rd->nr_cpus))
		goto fail;
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
	for (cpu = 0; rd->cpus && cpu < rd->nr_cpus; cpu++)
		tracecmd_free_record(rd->cpus[cpu].next);
	free(rd->cpus);
	up_drop_clear(&rd->drop);
	if (rd->handle)
		tracecmd_close(rd->handle);
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
 * up_reader_cpus - how many CPUs the top-level buffer has
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
	return rd->cpus[cpu].next;
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

	if (rd->reopen_bytes && rd->own_bytes >= rd->reopen_bytes && up_reader_reopen(rd))
		return NULL;
	rec = rd->cpus[cpu].next;
	if (rec)
		up_reader_read(rd, cpu);
	return rec;
}

/**
 * up_reader_stats - what the reader did to keep its memory bounded
 * @rd: the reader
 * @reopens: how many times the file was opened again
 * @dropped: how many pages of mappings of the file were dropped
 */
void up_reader_stats(struct up_reader *rd, unsigned long long *reopens,
		     unsigned long long *dropped)
{
	*reopens = rd->reopens;
	*dropped = rd->drop.dropped;
}
