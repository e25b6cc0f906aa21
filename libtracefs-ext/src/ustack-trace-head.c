// SPDX-License-Identifier: LGPL-2.1
/*
 * A trace file's headers read without the kernel's symbols.
 *
 * libtracecmd reads every header of the file, the saved /proc/kallsyms
 * too: libtraceevent parses it line by line with sscanf() (2 MiB, about
 * 190 M instructions on a Debian kernel's), most of what opening a small
 * trace costs. A reader that never names a kernel address (the trace-cmd
 * plugin's read-ahead, ustack-flame --no-kernel) has its handle read the
 * headers with the same public calls, while libtracecmd reads an empty
 * kallsyms: the descriptor it reads through is the caller's, and for the
 * reading of the headers it is pointed (dup2()) at a copy in memory where
 * the kallsyms are empty, then back at the file before any record is read.
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
 * options, sections over the kallsyms) is left to libtracecmd's own reading.
 * trace-cmd.dat.v6(5), .v7(5).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <trace-cmd.h>

#include "ustack-stitch-local.h"

#define USTACK_HEAD_SEC_HDR		16		/* id 2, flags 2, description 4, size 8 */
#define USTACK_HEAD_MAX_OPTIONS		64		/* options sections followed at most */
#define USTACK_HEAD_MAX_OPT_SIZE	(16ULL << 20)	/* an options section larger: not believed */
#define USTACK_HEAD_MAX_RANGES		(USTACK_HEAD_MAX_OPTIONS + USTACK_HEAD_NR_SECTIONS)
#define USTACK_HEAD_COMPRESSED		1		/* a section's flag */

/* The options of version 7 that give a header section's offset (trace-cmd's ids). */
enum {
	USTACK_HEAD_OPT_DONE		= 0,
	USTACK_HEAD_OPT_FIRST		= 16,	/* header_page and header_event */
	USTACK_HEAD_OPT_KALLSYMS	= 19,
	USTACK_HEAD_NR_SECTIONS		= 6,	/* 16 to 21: up to the saved command lines */
};

/* Values of libtracecmd's enum tracecmd_file_states: the headers read up to */
#define USTACK_FILE_ALL_EVENTS		4	/* the event formats */
#define USTACK_FILE_KALLSYMS		5	/* the kernel's symbols */

/**
 * ustack_pread_all - read @len bytes at @off of @fd, all of them
 * @fd: the file
 * @buf: where they go
 * @len: how many
 * @off: where in the file
 *
 * Return: 0, or -1 on an error or at the end of the file.
 */
int ustack_pread_all(int fd, void *buf, size_t len, off_t off)
{
	ssize_t r;

	while (len) {
		r = pread(fd, buf, len, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		buf = (char *)buf + r;
		off += r;
		len -= r;
	}
	return 0;
}

struct ustack_head {
	int			fd;		/* the file, read with pread() */
	int			copy;		/* the memfd libtracecmd reads the headers from */
	unsigned long long	size;		/* the file's size */
	bool			big_endian;
	unsigned long long	range[USTACK_HEAD_MAX_RANGES][2];	/* copied: start, end */
	int			nr_ranges;
};

/* @len bytes at @off, all inside the file; -1 otherwise. */
static int ustack_head_pread(struct ustack_head *h, unsigned long long off, void *buf, size_t len)
{
	if (off > h->size || len > h->size - off)
		return -1;
	return ustack_pread_all(h->fd, buf, len, off);
}

/* A number of @size bytes in the file's byte order. */
static unsigned long long ustack_head_num(const struct ustack_head *h, const void *p, size_t size)
{
	const unsigned char *b = p;
	unsigned long long val = 0;
	size_t i;

	for (i = 0; i < size; i++)
		val |= (unsigned long long)b[h->big_endian ? size - 1 - i : i] << (8 * i);
	return val;
}

/* A NUL-terminated string at *@off, of at most @size - 1 characters: past it. */
static int ustack_head_skip_str(struct ustack_head *h, unsigned long long *off, size_t size)
{
	char buf[64];
	size_t len = size < sizeof(buf) ? size : sizeof(buf);
	char *nul;

	if (*off >= h->size)
		return -1;
	if (len > h->size - *off)
		len = h->size - *off;
	if (ustack_head_pread(h, *off, buf, len))
		return -1;
	nul = memchr(buf, '\0', len);
	if (!nul)
		return -1;
	*off += nul - buf + 1;
	return 0;
}

/* Bytes [@off, @off + @len) of the file, cut at its end, into the copy at the same offset. */
static int ustack_head_copy(struct ustack_head *h, unsigned long long off, unsigned long long len)
{
	char buf[65536];
	size_t n;

	if (h->nr_ranges == USTACK_HEAD_MAX_RANGES)
		return -1;
	if (off >= h->size)
		return 0;
	if (len > h->size - off)
		len = h->size - off;
	h->range[h->nr_ranges][0] = off;
	h->range[h->nr_ranges++][1] = off + len;
	while (len) {
		n = len < sizeof(buf) ? len : sizeof(buf);
		if (ustack_head_pread(h, off, buf, n) || pwrite(h->copy, buf, n, off) != (ssize_t)n)
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
static int ustack_head_extent(struct ustack_head *h, unsigned long long off, unsigned int id,
			  unsigned long long *len)
{
	unsigned char hdr[USTACK_HEAD_SEC_HDR], blk[4];
	unsigned long long size, block;

	if (ustack_head_pread(h, off, hdr, sizeof(hdr)) || ustack_head_num(h, hdr, 2) != id)
		return -1;
	size = ustack_head_num(h, hdr + 8, 8);
	if (size > h->size)
		return -1;
	if (ustack_head_num(h, hdr + 2, 2) & USTACK_HEAD_COMPRESSED) {
		if (ustack_head_pread(h, off + USTACK_HEAD_SEC_HDR, blk, sizeof(blk)))
			return -1;
		block = 8 + ustack_head_num(h, blk, 4);
		if (block > size)
			size = block;
	}
	*len = USTACK_HEAD_SEC_HDR + size;
	return 0;
}

/*
 * The options sections from @off on, copied; @sections[i] the offset of the
 * section of id USTACK_HEAD_OPT_FIRST + i that libtracecmd will read (0: none).
 */
static int ustack_head_options(struct ustack_head *h, unsigned long long off,
			   unsigned long long *sections)
{
	unsigned long long id, size, val;
	unsigned char hdr[USTACK_HEAD_SEC_HDR];
	unsigned char *data;
	size_t len, pos;
	bool done;
	int n;

	for (n = 0; off; n++) {
		if (n == USTACK_HEAD_MAX_OPTIONS || ustack_head_pread(h, off, hdr, sizeof(hdr)) ||
		    ustack_head_num(h, hdr, 2) != USTACK_HEAD_OPT_DONE ||
		    (ustack_head_num(h, hdr + 2, 2) & USTACK_HEAD_COMPRESSED))
			return -1;
		size = ustack_head_num(h, hdr + 8, 8);
		if (size > USTACK_HEAD_MAX_OPT_SIZE)
			return -1;
		len = size;
		data = malloc(len ? len : 1);
		if (!data || ustack_head_pread(h, off + USTACK_HEAD_SEC_HDR, data, len) ||
		    ustack_head_copy(h, off, USTACK_HEAD_SEC_HDR + len)) {
			free(data);
			return -1;
		}
		/* libtracecmd reads options until the one that ends them: it must be here */
		done = false;
		for (pos = 0; !done && len - pos >= 6; pos += size) {
			id = ustack_head_num(h, data + pos, 2);
			size = ustack_head_num(h, data + pos + 2, 4);
			pos += 6;
			if (size > len - pos)
				break;
			if (size < 8)
				continue;
			val = ustack_head_num(h, data + pos, 8);
			if (id >= USTACK_HEAD_OPT_FIRST && id < USTACK_HEAD_OPT_FIRST + USTACK_HEAD_NR_SECTIONS &&
			    val)
				sections[id - USTACK_HEAD_OPT_FIRST] = val;
			if (id == USTACK_HEAD_OPT_DONE) {
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

static bool ustack_head_overlaps(const struct ustack_head *h, unsigned long long start,
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
static int ustack_head_copy_v7(struct ustack_head *h, unsigned long long off)
{
	unsigned long long sections[USTACK_HEAD_NR_SECTIONS] = { 0 };
	unsigned char buf[USTACK_HEAD_SEC_HDR + 4] = { 0 };
	unsigned long long kallsyms, len;
	uint64_t size;
	int i;

	/* the endian byte, the size of a long, the page size, the compression */
	off += 1 + 1 + 4;
	if (ustack_head_skip_str(h, &off, 64) || ustack_head_skip_str(h, &off, 64) ||
	    ustack_head_pread(h, off, buf, 8))
		return -1;
	if (ustack_head_options(h, ustack_head_num(h, buf, 8), sections))
		return -1;
	kallsyms = sections[USTACK_HEAD_OPT_KALLSYMS - USTACK_HEAD_OPT_FIRST];
	if (!kallsyms)
		return 1;
	for (i = 0; i < USTACK_HEAD_NR_SECTIONS; i++) {
		if (!sections[i] || sections[i] == kallsyms)
			continue;
		if (ustack_head_extent(h, sections[i], USTACK_HEAD_OPT_FIRST + i, &len) ||
		    ustack_head_copy(h, sections[i], len))
			return -1;
	}
	/* an uncompressed kallsyms section of 4 bytes: a size of 0 */
	if (ustack_head_overlaps(h, kallsyms, kallsyms + sizeof(buf)) ||
	    ustack_head_pread(h, kallsyms, buf, USTACK_HEAD_SEC_HDR) ||
	    ustack_head_num(h, buf, 2) != USTACK_HEAD_OPT_KALLSYMS)
		return -1;
	size = h->big_endian ? htobe64(4) : htole64(4);
	memset(buf + 2, 0, 2);
	memcpy(buf + 8, &size, 8);
	memset(buf + USTACK_HEAD_SEC_HDR, 0, 4);
	if (pwrite(h->copy, buf, sizeof(buf), kallsyms) != (ssize_t)sizeof(buf))
		return -1;
	return 0;
}

/* The handle's descriptor pointed at the copy while libtracecmd reads up to @state. */
static int ustack_head_read_copy(struct ustack_head *h, struct tracecmd_input *handle, int state)
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
 */
static int ustack_head_read_v6(struct ustack_head *h, struct tracecmd_input *handle)
{
	unsigned long long pos, end;
	unsigned char buf[4];
	off_t cur;

	if (tracecmd_read_headers(handle, USTACK_FILE_ALL_EVENTS) < 0)
		return -1;
	cur = lseek(h->fd, 0, SEEK_CUR);
	if (tracecmd_get_file_state(handle) != USTACK_FILE_ALL_EVENTS || cur < 0 ||
	    ustack_head_pread(h, cur, buf, sizeof(buf)))
		return -1;
	pos = cur;
	end = pos + sizeof(buf) + ustack_head_num(h, buf, 4);
	if (end > h->size || ftruncate(h->copy, pos + sizeof(buf)) ||
	    lseek(h->copy, pos, SEEK_SET) != cur ||
	    ustack_head_read_copy(h, handle, USTACK_FILE_KALLSYMS) < 0 ||
	    tracecmd_get_file_state(handle) != USTACK_FILE_KALLSYMS ||
	    lseek(h->fd, end, SEEK_SET) != (off_t)end)
		return -1;
	return tracecmd_read_headers(handle, 0) < 0 ? -1 : 0;
}

/**
 * ustack_trace_read_head - read a handle's headers, all but the kallsyms
 * @handle: from tracecmd_alloc_fd(@fd), no header read yet
 * @fd: its descriptor: a regular file, read by offset (pread()) here
 *
 * As tracecmd_read_headers(@handle, 0), but the handle's tep has no kernel
 * functions.
 *
 * Return: 0 when the headers were read so; 1 when the file is not laid out
 * as expected and nothing was read (tracecmd_read_headers() reads it as it
 * would); -1 when a read failed: the handle is spent, to be closed, and the
 * file read again by libtracecmd alone, which says what is wrong with it.
 */
int ustack_trace_read_head(struct tracecmd_input *handle, int fd)
{
	static const char magic[10] = "\027\010\104tracing";
	struct ustack_head h = { .fd = fd, .copy = -1 };
	char head[sizeof(magic) + 3];
	struct stat st;
	int version, ret;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 1;
	h.size = st.st_size;
	/* the version, "6" or "7", and then the endian byte */
	if (ustack_head_pread(&h, 0, head, sizeof(head)) || memcmp(head, magic, sizeof(magic)) ||
	    (head[10] != '6' && head[10] != '7') || head[11])
		return 1;
	version = head[10] - '0';
	h.big_endian = head[12];
	h.copy = memfd_create("ustack-head", MFD_CLOEXEC);
	if (h.copy < 0)
		return 1;
	if (version == 7) {
		ret = ftruncate(h.copy, h.size) ? -1 : ustack_head_copy_v7(&h, sizeof(magic) + 2);
		if (ret) {
			close(h.copy);
			return 1;
		}
		ret = ustack_head_read_copy(&h, handle, 0) < 0 ? -1 : 0;
	} else {
		ret = ustack_head_read_v6(&h, handle);
	}
	close(h.copy);
	return ret;
}
