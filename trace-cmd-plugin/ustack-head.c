// SPDX-License-Identifier: LGPL-2.1
/*
 * The read-ahead's own open of the trace file, without the kernel's symbols.
 *
 * tracecmd_open_head() reads every header of the file, the saved
 * /proc/kallsyms too: libtraceevent parses it line by line with sscanf()
 * (2 MiB, about 190 M instructions on a Debian kernel's), which is most of
 * what report without the plugin costs. The read-ahead never names a kernel
 * address (report's own handle prints the events and kernel stacks), so its
 * handle is opened with the same public calls of libtracecmd 1.3 (trace-cmd
 * 3.1) as tracecmd_open_head() makes, while libtracecmd reads an empty
 * kallsyms: the descriptor it reads through is ours, and for the reading of
 * the headers it is pointed (dup2()) at a copy in memory where the kallsyms
 * are empty, then back at the file before any record is read.
 *
 *   version 6: the headers follow one another: libtracecmd reads them up to
 *	the event formats from the file, the kallsyms' size (0) from a sparse
 *	memfd at the same offset, and the rest from the file past them.
 *   version 7: the options sections name the header sections by offset;
 *	the memfd (sparse, the file's size) gets a copy of the options
 *	sections and of every header section at its own offset, but the
 *	kallsyms section, which is written there as an empty one.
 *
 * The file is not trusted: every read is bounded by the file's size; a file
 * not laid out as expected (an unknown version, compressed or unbounded
 * options, sections over the kallsyms), or whose headers libtracecmd cannot
 * read this way, is opened with tracecmd_open_head() as before (libtracecmd
 * says of it what it says without this). trace-cmd.dat.v6(5), .v7(5).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <trace-cmd.h>

#include "ustack-plugin.h"

#define UP_HEAD_FLAGS		TRACECMD_FL_LOAD_NO_PLUGINS
#define UP_HEAD_SEC_HDR		16		/* id 2, flags 2, description 4, size 8 */
#define UP_HEAD_MAX_OPTIONS	64		/* options sections followed at most */
#define UP_HEAD_MAX_OPT_SIZE	(16ULL << 20)	/* an options section larger: not believed */
#define UP_HEAD_MAX_RANGES	(UP_HEAD_MAX_OPTIONS + UP_HEAD_NR_SECTIONS)
#define UP_HEAD_COMPRESSED	1		/* a section's flag */

/* The options of version 7 that give a header section's offset (trace-cmd's ids). */
enum {
	UP_HEAD_OPT_DONE	= 0,
	UP_HEAD_OPT_FIRST	= 16,		/* header_page and header_event */
	UP_HEAD_OPT_KALLSYMS	= 19,
	UP_HEAD_NR_SECTIONS	= 6,		/* 16 to 21: up to the saved command lines */
};

struct up_head {
	int			fd;		/* the file, read with pread() */
	int			copy;		/* the memfd libtracecmd reads the headers from */
	unsigned long long	size;		/* the file's size */
	bool			big_endian;
	unsigned long long	range[UP_HEAD_MAX_RANGES][2];	/* copied: start, end */
	int			nr_ranges;
};

/* @len bytes at @off, all inside the file; -1 otherwise. */
static int up_head_read(struct up_head *h, unsigned long long off, void *buf, size_t len)
{
	if (off > h->size || len > h->size - off)
		return -1;
	return up_pread_all(h->fd, buf, len, off);
}

/* A number of @size bytes in the file's byte order. */
static unsigned long long up_head_num(const struct up_head *h, const void *p, size_t size)
{
	const unsigned char *b = p;
	unsigned long long val = 0;
	size_t i;

	for (i = 0; i < size; i++)
		val |= (unsigned long long)b[h->big_endian ? size - 1 - i : i] << (8 * i);
	return val;
}

/* A NUL-terminated string at *@off, of at most @size - 1 characters: past it. */
static int up_head_skip_str(struct up_head *h, unsigned long long *off, size_t size)
{
	char buf[64];
	size_t len = size < sizeof(buf) ? size : sizeof(buf);
	char *nul;

	if (*off >= h->size)
		return -1;
	if (len > h->size - *off)
		len = h->size - *off;
	if (up_head_read(h, *off, buf, len))
		return -1;
	nul = memchr(buf, '\0', len);
	if (!nul)
		return -1;
	*off += nul - buf + 1;
	return 0;
}

/* Bytes [@off, @off + @len) of the file, cut at its end, into the copy at the same offset. */
static int up_head_copy(struct up_head *h, unsigned long long off, unsigned long long len)
{
	char buf[65536];
	size_t n;

	if (h->nr_ranges == UP_HEAD_MAX_RANGES)
		return -1;
	if (off >= h->size)
		return 0;
	if (len > h->size - off)
		len = h->size - off;
	h->range[h->nr_ranges][0] = off;
	h->range[h->nr_ranges++][1] = off + len;
	while (len) {
		n = len < sizeof(buf) ? len : sizeof(buf);
		if (up_head_read(h, off, buf, n) || pwrite(h->copy, buf, n, off) != (ssize_t)n)
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * The extent of the section of @id at @off: its header and its data, or,
 * when compressed, its block (libtracecmd reads the block's own size).
 */
static int up_head_extent(struct up_head *h, unsigned long long off, unsigned int id,
			  unsigned long long *len)
{
	unsigned char hdr[UP_HEAD_SEC_HDR], blk[4];
	unsigned long long size, block;

	if (up_head_read(h, off, hdr, sizeof(hdr)) || up_head_num(h, hdr, 2) != id)
		return -1;
	size = up_head_num(h, hdr + 8, 8);
	if (size > h->size)
		return -1;
	if (up_head_num(h, hdr + 2, 2) & UP_HEAD_COMPRESSED) {
		if (up_head_read(h, off + UP_HEAD_SEC_HDR, blk, sizeof(blk)))
			return -1;
		block = 8 + up_head_num(h, blk, 4);
		if (block > size)
			size = block;
	}
	*len = UP_HEAD_SEC_HDR + size;
	return 0;
}

/*
 * The options sections from @off on, copied; @sections[i] the offset of the
 * section of id UP_HEAD_OPT_FIRST + i that libtracecmd will read (0: none).
 */
static int up_head_options(struct up_head *h, unsigned long long off,
			   unsigned long long *sections)
{
	unsigned long long id, size, val;
	unsigned char hdr[UP_HEAD_SEC_HDR];
	unsigned char *data;
	size_t len, pos;
	bool done;
	int n;

	for (n = 0; off; n++) {
		if (n == UP_HEAD_MAX_OPTIONS || up_head_read(h, off, hdr, sizeof(hdr)) ||
		    up_head_num(h, hdr, 2) != UP_HEAD_OPT_DONE ||
		    (up_head_num(h, hdr + 2, 2) & UP_HEAD_COMPRESSED))
			return -1;
		size = up_head_num(h, hdr + 8, 8);
		if (size > UP_HEAD_MAX_OPT_SIZE)
			return -1;
		len = size;
		data = malloc(len ? len : 1);
		if (!data || up_head_read(h, off + UP_HEAD_SEC_HDR, data, len) ||
		    up_head_copy(h, off, UP_HEAD_SEC_HDR + len)) {
			free(data);
			return -1;
		}
		/* libtracecmd reads options until the one that ends them: it must be here */
		done = false;
		for (pos = 0; !done && len - pos >= 6; pos += size) {
			id = up_head_num(h, data + pos, 2);
			size = up_head_num(h, data + pos + 2, 4);
			pos += 6;
			if (size > len - pos)
				break;
			if (size < 8)
				continue;
			val = up_head_num(h, data + pos, 8);
			if (id >= UP_HEAD_OPT_FIRST && id < UP_HEAD_OPT_FIRST + UP_HEAD_NR_SECTIONS &&
			    val)
				sections[id - UP_HEAD_OPT_FIRST] = val;
			if (id == UP_HEAD_OPT_DONE) {
				off = val;
				done = true;
			}
		}
		free(data);
		if (!done)
			return -1;
	}
	return 0;
}

static bool up_head_overlaps(const struct up_head *h, unsigned long long start,
			     unsigned long long end)
{
	int i;

	for (i = 0; i < h->nr_ranges; i++) {
		if (start < h->range[i][1] && h->range[i][0] < end)
			return true;
	}
	return false;
}

/*
 * Version 7: the copy made from the header after the file's version at
 * @off. Return: 0 when made, 1 when the file has no kallsyms to leave out,
 * -1 when it is not laid out as expected.
 */
static int up_head_copy_v7(struct up_head *h, unsigned long long off)
{
	unsigned long long sections[UP_HEAD_NR_SECTIONS] = { 0 };
	unsigned char buf[UP_HEAD_SEC_HDR + 4] = { 0 };
	unsigned long long kallsyms, len;
	uint64_t size;
	int i;

	/* the endian byte, the size of a long, the page size, the compression */
	off += 1 + 1 + 4;
	if (up_head_skip_str(h, &off, 64) || up_head_skip_str(h, &off, 64) ||
	    up_head_read(h, off, buf, 8))
		return -1;
	if (up_head_options(h, up_head_num(h, buf, 8), sections))
		return -1;
	kallsyms = sections[UP_HEAD_OPT_KALLSYMS - UP_HEAD_OPT_FIRST];
	if (!kallsyms)
		return 1;
	for (i = 0; i < UP_HEAD_NR_SECTIONS; i++) {
		if (!sections[i] || sections[i] == kallsyms)
			continue;
		if (up_head_extent(h, sections[i], UP_HEAD_OPT_FIRST + i, &len) ||
		    up_head_copy(h, sections[i], len))
			return -1;
	}
	/* an uncompressed kallsyms section of 4 bytes: a size of 0 */
	if (up_head_overlaps(h, kallsyms, kallsyms + sizeof(buf)) ||
	    up_head_read(h, kallsyms, buf, UP_HEAD_SEC_HDR) ||
	    up_head_num(h, buf, 2) != UP_HEAD_OPT_KALLSYMS)
		return -1;
	size = h->big_endian ? htobe64(4) : htole64(4);
	memset(buf + 2, 0, 2);
	memcpy(buf + 8, &size, 8);
	memset(buf + UP_HEAD_SEC_HDR, 0, 4);
	if (pwrite(h->copy, buf, sizeof(buf), kallsyms) != (ssize_t)sizeof(buf))
		return -1;
	return 0;
}

/* The handle's descriptor pointed at the copy while libtracecmd reads up to @state. */
static int up_head_read_copy(struct up_head *h, struct tracecmd_input *handle, int state)
{
	int file, ret;

	file = fcntl(h->fd, F_DUPFD_CLOEXEC, 0);
	if (file < 0)
		return -1;
	if (dup2(h->copy, h->fd) < 0) {
		close(file);
		return -1;
	}
	ret = tracecmd_read_headers(handle, state);
	/* back to the file: it cannot fail (both descriptors are open), but if it did */
	if (dup2(file, h->fd) < 0)
		ret = -1;
	close(file);
	return ret;
}

/*
 * Version 6: the headers up to the event formats from the file, the size of
 * the kallsyms as 0 from the copy, the rest from the file after the kallsyms.
 * Return: the handle with its headers read; NULL when that failed (the
 * handle closed, with its descriptor), *@again set when the file should be
 * read again as libtracecmd does (a failure in what it reads differently).
 */
static struct tracecmd_input *up_head_open_v6(struct up_head *h, struct tracecmd_input *handle,
					      bool *again)
{
	unsigned char buf[4];
	unsigned long long pos, end;
	off_t cur;

	/* read from the file as tracecmd_open_head() reads it: a failure is its */
	if (tracecmd_read_headers(handle, UP_FILE_ALL_EVENTS) < 0)
		goto fail;
	*again = true;
	cur = lseek(h->fd, 0, SEEK_CUR);
	if (tracecmd_get_file_state(handle) != UP_FILE_ALL_EVENTS || cur < 0 ||
	    up_head_read(h, cur, buf, sizeof(buf)))
		goto fail;
	pos = cur;
	end = pos + sizeof(buf) + up_head_num(h, buf, 4);
	if (end > h->size || ftruncate(h->copy, pos + sizeof(buf)) ||
	    lseek(h->copy, pos, SEEK_SET) != cur ||
	    up_head_read_copy(h, handle, UP_FILE_KALLSYMS) < 0 ||
	    tracecmd_get_file_state(handle) != UP_FILE_KALLSYMS ||
	    lseek(h->fd, end, SEEK_SET) != (off_t)end)
		goto fail;
	*again = false;
	if (tracecmd_read_headers(handle, 0) < 0)
		goto fail;
	return handle;
fail:
	tracecmd_close(handle);
	return NULL;
}

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
	static const char magic[10] = "\027\010\104tracing";
	struct tracecmd_input *handle = NULL;
	struct up_head h = { .fd = -1, .copy = -1 };
	char head[sizeof(magic) + 3];
	struct stat st;
	bool again;
	int version;

	h.fd = open(file, O_RDONLY | O_CLOEXEC);
	if (h.fd < 0)
		return NULL;
	if (fstat(h.fd, &st) || !S_ISREG(st.st_mode))
		goto plain;
	h.size = st.st_size;
	/* the version, "6" or "7", and then the endian byte */
	if (up_head_read(&h, 0, head, sizeof(head)) || memcmp(head, magic, sizeof(magic)) ||
	    (head[10] != '6' && head[10] != '7') || head[11])
		goto plain;
	version = head[10] - '0';
	h.big_endian = head[12];
	h.copy = memfd_create("ustack-head", MFD_CLOEXEC);
	if (h.copy < 0 || ftruncate(h.copy, version == 7 ? h.size : 0) ||
	    (version == 7 && up_head_copy_v7(&h, sizeof(magic) + 2)))
		goto plain;
	handle = tracecmd_alloc_fd(h.fd, UP_HEAD_FLAGS);
	if (!handle)
		goto out;	/* not a trace file libtracecmd reads: as tracecmd_open_head() */
	/* the handle owns the descriptor now */
	again = true;
	if (version == 6) {
		handle = up_head_open_v6(&h, handle, &again);
	} else if (up_head_read_copy(&h, handle, 0) < 0) {
		tracecmd_close(handle);
		handle = NULL;
	}
	close(h.copy);
	/* a damaged header, or one not as expected: read again as libtracecmd does */
	if (!handle && again)
		return tracecmd_open_head(file, UP_HEAD_FLAGS);
	return handle;
plain:
	if (h.copy >= 0)
		close(h.copy);
	close(h.fd);
	return tracecmd_open_head(file, UP_HEAD_FLAGS);
out:
	close(h.copy);
	close(h.fd);
	return NULL;
}
