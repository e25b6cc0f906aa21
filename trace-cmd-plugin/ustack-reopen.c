// SPDX-License-Identifier: LGPL-2.1
/*
 * Bounded memory for the read-ahead's reader with libtracecmd before 1.5.1
 * (built only for those: see the Makefile, ZPAGE_WORKAROUND).
 *
 * libtracecmd 3.1.6 (libtracecmd 1.3.1) keeps what it read of a file until
 * the handle is closed:
 *
 *   compressed CPU data (trace files of version 7 by default): every chunk
 *	it decompresses stays in memory (free_zpage() never finds the chunk
 *	of a page it frees: its range test is inverted; fixed in libtracecmd
 *	1.5.1 by trace-cmd commits 5274db32 and 1571b67c);
 *   uncompressed data (version 6, or 7 without compression): the file is
 *	mapped in pieces of several megabytes that are only unmapped when no
 *	page of them is in use, and every page read stays resident in them
 *	(the last pieces are not even unmapped when the handle is closed).
 *
 * Report's own reader grows like that; the read-ahead must not add a second
 * such growth. So:
 *
 *   a page in a mapping of the file is dropped from memory (MADV_DONTNEED,
 *	ustack-drop.c) once the read-ahead has left it: the mapping is
 *	private and read-only, a later access reads the page from the file;
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
	unsigned long long	page;		/* file offset of the page of the last read */
	uintptr_t		page_addr;	/* where that page is in memory */
	bool			have_page;
	enum up_page_kind	kind;
};

struct up_reopen {
	struct up_drop		drop;
	int			nr_cpus;
	unsigned long		page_size;	/* of the trace */
	unsigned long		os_page_size;
	unsigned long long	reopen_bytes;	/* 0: never */
	unsigned long long	own_bytes;	/* own pages read since the open */
	unsigned long long	reopens;
	struct up_rcpu		*cpus;
};

/**
 * up_reopen_alloc - the state of the workaround for a reader
 * @file: the trace file (its mappings are found by its device and inode)
 * @page_size: the trace's page size
 * @nr_cpus: the CPUs of the buffer read
 * @reopen_bytes: open the file again after this many bytes of pages that
 *	libtracecmd keeps in its own memory; 0 for never
 *
 * Return: the state; NULL with errno.
 */
struct up_reopen *up_reopen_alloc(const char *file, int page_size, int nr_cpus,
				  unsigned long long reopen_bytes)
{
	struct up_reopen *ro;
	struct stat st;

	if (stat(file, &st))
		return NULL;
	ro = calloc(1, sizeof(*ro));
	if (!ro)
		return NULL;
	ro->os_page_size = sysconf(_SC_PAGESIZE);
	ro->page_size = page_size;
	if (page_size <= 0 || (page_size & (page_size - 1)))
		ro->page_size = ro->os_page_size;
	ro->nr_cpus = nr_cpus;
	ro->reopen_bytes = reopen_bytes;
	ro->cpus = calloc(nr_cpus ? nr_cpus : 1, sizeof(*ro->cpus));
	if (!ro->cpus || up_drop_init(&ro->drop, &st, ro->page_size, nr_cpus)) {
		up_reopen_free(ro);
		return NULL;
	}
	return ro;
}

/**
 * up_reopen_free - free the state
 * @ro: the state; NULL is allowed
 */
void up_reopen_free(struct up_reopen *ro)
{
	if (!ro)
		return;
	up_drop_clear(&ro->drop);
	free(ro->cpus);
	free(ro);
}

/* What kind of memory the pages of a CPU are in, from its first record. */
static enum up_page_kind up_reopen_kind(struct up_reopen *ro, uintptr_t page_addr)
{
	if (ro->page_size % ro->os_page_size || page_addr % ro->os_page_size)
		return UP_PAGE_OWN;
	return up_drop_is_mapped(&ro->drop, page_addr) ? UP_PAGE_MAPPED : UP_PAGE_OWN;
}

/**
 * up_reopen_note - the reader read a record: let the page before it go
 * @ro: the state
 * @cpu: the CPU of the record
 * @rec: the record
 */
void up_reopen_note(struct up_reopen *ro, int cpu, const struct tep_record *rec)
{
	struct up_rcpu *c = &ro->cpus[cpu];
	unsigned long long page = rec->offset & ~(unsigned long long)(ro->page_size - 1);
	uintptr_t addr = (uintptr_t)rec->data & ~(uintptr_t)(ro->page_size - 1);

	if (c->have_page && c->page == page)
		return;
	if (c->kind == UP_PAGE_UNKNOWN)
		c->kind = up_reopen_kind(ro, addr);
	if (c->kind == UP_PAGE_MAPPED && c->have_page)
		up_drop_left(&ro->drop, cpu, c->page_addr);
	if (c->kind == UP_PAGE_OWN)
		ro->own_bytes += ro->page_size;
	c->page = page;
	c->page_addr = addr;
	c->have_page = true;
}

/**
 * up_reopen_due - is it time to open the file again?
 * @ro: the state
 *
 * Return: true once reopen_bytes of libtracecmd's own pages were read.
 */
bool up_reopen_due(const struct up_reopen *ro)
{
	return ro->reopen_bytes && ro->own_bytes >= ro->reopen_bytes;
}

/**
 * up_reader_reopen - close the reader's handle and open the file again
 * @rd: the reader
 *
 * Every CPU is put back at the record it was at. On failure the reader has
 * no handle and no records: it ends.
 *
 * Return: 0; -1 with errno.
 */
int up_reader_reopen(struct up_reader *rd)
{
	struct up_reopen *ro = rd->reopen;
	unsigned long long *offset, *ts;
	struct tep_record *rec;
	int cpu, got, ret = -1;

	offset = calloc(rd->nr_cpus ? rd->nr_cpus : 1, sizeof(*offset));
	ts = calloc(rd->nr_cpus ? rd->nr_cpus : 1, sizeof(*ts));
	if (!offset || !ts)
		goto out;
	for (cpu = 0; cpu < rd->nr_cpus; cpu++) {
		rec = rd->next[cpu];
		if (!rec)
			continue;
		offset[cpu] = rec->offset;
		ts[cpu] = rec->ts;
		tracecmd_free_record(rec);
		rd->next[cpu] = NULL;
	}
	/* the addresses of the pages left mean nothing once the handle is closed */
	up_drop_flush(&ro->drop);
	up_reader_close_handle(rd);
	if (up_reader_open_handle(rd))
		goto out;
	ro->reopens++;
	for (cpu = 0; cpu < rd->nr_cpus; cpu++) {
		ro->cpus[cpu].have_page = false;
		if (!offset[cpu])	/* no record: none is at offset 0 */
			continue;
		rec = tracecmd_read_at(rd->handle, offset[cpu], &got);
		if (!rec || got != cpu || rec->offset != offset[cpu] || rec->ts != ts[cpu]) {
			tracecmd_free_record(rec);
			errno = EIO;
			goto out;
		}
		rd->next[cpu] = rec;
		up_reopen_note(ro, cpu, rec);
	}
	/* the pages read again count from here: the next reopen is a page away at least */
	ro->own_bytes = 0;
	ret = 0;
out:
	if (ret) {
		for (cpu = 0; cpu < rd->nr_cpus; cpu++) {
			tracecmd_free_record(rd->next[cpu]);
			rd->next[cpu] = NULL;
		}
	}
	free(offset);
	free(ts);
	return ret;
}

/**
 * up_reopen_stats - what the workaround did
 * @ro: the state
 * @reopens: how many times the file was opened again
 * @dropped: how many pages of mappings of the file were dropped
 */
void up_reopen_stats(const struct up_reopen *ro, unsigned long long *reopens,
		     unsigned long long *dropped)
{
	*reopens = ro->reopens;
	*dropped = ro->drop.dropped;
}
