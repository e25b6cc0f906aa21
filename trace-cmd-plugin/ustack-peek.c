// SPDX-License-Identifier: LGPL-2.1
/*
 * Does a trace file have deferred user stacks at all? Asked by the loader
 * before it does anything else: on a trace without them (a kernel without
 * the series, or any trace made elsewhere) the plugin must cost nothing, so
 * the file is not opened or parsed a second time to find out.
 *
 * The answer is in the file's headers: a kernel with deferred stacks has
 * the ftrace events user_unwind_cookie, user_unwind_stack and
 * user_unwind_file, and trace-cmd saves the formats of every ftrace event.
 * The loader runs while report reads the first bytes of the file, so the
 * headers are read here from report's own descriptor with pread() (its
 * offset stays where report has it), up to the ftrace formats only:
 *
 *   version 6: header_page, header_event, then the ftrace formats;
 *   version 7: the options sections (from the offset after the compression
 *	header) name the offset of the ftrace formats section. Sections may
 *	be compressed with the file's algorithm: zstd or zlib, whose
 *	libraries are loaded only then (libtracecmd already has them loaded).
 *
 * See trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5).
 */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-plugin.h"

#define UP_PEEK_MAX_SECTION	(64U << 20)	/* larger: not believed */
#define UP_PEEK_MAX_OPTIONS	64		/* options sections followed at most */

#define UP_OPTION_DONE		0
#define UP_OPTION_FTRACE_EVENTS	17
#define UP_SECTION_COMPRESSED	1

struct up_peek {
	int		fd;
	bool		big_endian;
	char		compression[32];
};

static int up_peek_read(struct up_peek *pk, off_t off, void *buf, size_t len)
{
	return ustack_pread_all(pk->fd, buf, len, off);
}

static unsigned long long up_peek_num(const struct up_peek *pk, const void *p, size_t size)
{
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;

	switch (size) {
	case 2:
		memcpy(&v16, p, 2);
		return pk->big_endian ? be16toh(v16) : le16toh(v16);
	case 4:
		memcpy(&v32, p, 4);
		return pk->big_endian ? be32toh(v32) : le32toh(v32);
	default:
		memcpy(&v64, p, 8);
		return pk->big_endian ? be64toh(v64) : le64toh(v64);
	}
}

static int up_peek_read_num(struct up_peek *pk, off_t *off, size_t size, unsigned long long *val)
{
	unsigned char buf[8];

	if (up_peek_read(pk, *off, buf, size))
		return -1;
	*off += size;
	*val = up_peek_num(pk, buf, size);
	return 0;
}

/* A NUL-terminated string of at most @size - 1 characters. */
static int up_peek_read_str(struct up_peek *pk, off_t *off, char *str, size_t size)
{
	ssize_t r;
	char *nul;

	do {
		r = pread(pk->fd, str, size, *off);
	} while (r < 0 && errno == EINTR);
	nul = r > 0 ? memchr(str, '\0', r) : NULL;
	if (!nul)
		return -1;
	*off += nul - str + 1;
	return 0;
}

/* Decompress with the library of the file's algorithm, loaded for the call. */
static int up_peek_uncompress(struct up_peek *pk, const void *in, size_t in_len, void *out,
			      size_t out_len)
{
	unsigned long dlen = out_len;
	void *lib;
	int ret = -1;

	if (!strcmp(pk->compression, "zstd")) {
		size_t (*dec)(void *, size_t, const void *, size_t);
		unsigned int (*is_error)(size_t);
		size_t n;

		lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!lib)
			return -1;
		*(void **)&dec = dlsym(lib, "ZSTD_decompress");
		*(void **)&is_error = dlsym(lib, "ZSTD_isError");
		if (dec && is_error) {
			n = dec(out, out_len, in, in_len);
			ret = !is_error(n) && n == out_len ? 0 : -1;
		}
	} else if (!strcmp(pk->compression, "zlib")) {
		int (*unz)(unsigned char *, unsigned long *, const unsigned char *, unsigned long);

		lib = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!lib)
			return -1;
		*(void **)&unz = dlsym(lib, "uncompress");
		if (unz && !unz(out, &dlen, in, in_len) && dlen == out_len)
			ret = 0;
	} else {
		return -1;
	}
	dlclose(lib);
	return ret;
}

/*
 * The data of a version 7 section at @off: its header checked to be of
 * @id, decompressed if it is compressed. Freed by the caller.
 */
static void *up_peek_section(struct up_peek *pk, off_t off, unsigned int id, size_t *len)
{
	unsigned long long sec_id, flags, size, clen, ulen;
	void *data = NULL, *zdata = NULL;

	if (up_peek_read_num(pk, &off, 2, &sec_id) || sec_id != id ||
	    up_peek_read_num(pk, &off, 2, &flags) || up_peek_read_num(pk, &off, 4, &size) ||
	    up_peek_read_num(pk, &off, 8, &size) || size > UP_PEEK_MAX_SECTION)
		return NULL;
	if (!(flags & UP_SECTION_COMPRESSED)) {
		data = malloc(size ? size : 1);
		if (data && up_peek_read(pk, off, data, size)) {
			free(data);
			return NULL;
		}
		*len = size;
		return data;
	}
	if (up_peek_read_num(pk, &off, 4, &clen) || up_peek_read_num(pk, &off, 4, &ulen) ||
	    clen > UP_PEEK_MAX_SECTION || ulen > UP_PEEK_MAX_SECTION)
		return NULL;
	zdata = malloc(clen ? clen : 1);
	data = malloc(ulen ? ulen : 1);
	if (!zdata || !data || up_peek_read(pk, off, zdata, clen) ||
	    up_peek_uncompress(pk, zdata, clen, data, ulen)) {
		free(zdata);
		free(data);
		return NULL;
	}
	free(zdata);
	*len = ulen;
	return data;
}

/* Is one of the formats a user_unwind_* event? */
static bool up_peek_is_ustack(const char *fmt, size_t len)
{
	static const char name[] = "name: user_unwind_";
	const char *p = fmt, *end = fmt + len;

	while ((p = memmem(p, end - p, name, sizeof(name) - 1))) {
		if (p == fmt || p[-1] == '\n')
			return true;
		p++;
	}
	return false;
}

/* The ftrace formats, in memory (version 7): 1 when one is a user_unwind_* event. */
static int up_peek_formats_mem(struct up_peek *pk, const unsigned char *data, size_t len)
{
	unsigned long long count, size;
	size_t pos = 4;

	if (len < 4)
		return -1;
	count = up_peek_num(pk, data, 4);
	while (count--) {
		if (len - pos < 8)
			return -1;
		size = up_peek_num(pk, data + pos, 8);
		pos += 8;
		if (size > len - pos)
			return -1;
		if (up_peek_is_ustack((const char *)data + pos, size))
			return 1;
		pos += size;
	}
	return 0;
}

/* The ftrace formats from @off in the file (version 6). */
static int up_peek_formats_file(struct up_peek *pk, off_t off)
{
	unsigned long long count, size;
	char *fmt;
	int found;

	if (up_peek_read_num(pk, &off, 4, &count))
		return -1;
	while (count--) {
		if (up_peek_read_num(pk, &off, 8, &size) || size > UP_PEEK_MAX_SECTION)
			return -1;
		fmt = malloc(size ? size : 1);
		if (!fmt || up_peek_read(pk, off, fmt, size)) {
			free(fmt);
			return -1;
		}
		found = up_peek_is_ustack(fmt, size);
		free(fmt);
		if (found)
			return 1;
		off += size;
	}
	return 0;
}

static int up_peek_v6(struct up_peek *pk, off_t off)
{
	static const char * const names[] = { "header_page", "header_event" };
	unsigned long long size;
	char name[16];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (up_peek_read_str(pk, &off, name, sizeof(name)) || strcmp(name, names[i]) ||
		    up_peek_read_num(pk, &off, 8, &size))
			return -1;
		off += size;
	}
	return up_peek_formats_file(pk, off);
}

/* Version 7: the offset of the ftrace formats section, from the options sections. */
static int up_peek_v7(struct up_peek *pk, off_t off)
{
	unsigned long long opt_off, id, size, where = 0;
	unsigned char *data;
	size_t len, pos;
	int n, ret;
	char ver[32];

	if (up_peek_read_str(pk, &off, pk->compression, sizeof(pk->compression)) ||
	    up_peek_read_str(pk, &off, ver, sizeof(ver)) ||
	    up_peek_read_num(pk, &off, 8, &opt_off))
		return -1;
	for (n = 0; opt_off && !where && n < UP_PEEK_MAX_OPTIONS; n++) {
		data = up_peek_section(pk, opt_off, UP_OPTION_DONE, &len);
		if (!data)
			return -1;
		opt_off = 0;
		for (pos = 0; len - pos >= 6; pos += size) {
			id = up_peek_num(pk, data + pos, 2);
			size = up_peek_num(pk, data + pos + 2, 4);
			pos += 6;
			if (size > len - pos)
				break;
			if (size >= 8 && id == UP_OPTION_FTRACE_EVENTS)
				where = up_peek_num(pk, data + pos, 8);
			if (size >= 8 && id == UP_OPTION_DONE) {
				opt_off = up_peek_num(pk, data + pos, 8);
				break;
			}
		}
		free(data);
	}
	if (!where)
		return opt_off ? -1 : 0;	/* no ftrace formats: no events */
	data = up_peek_section(pk, where, UP_OPTION_FTRACE_EVENTS, &len);
	if (!data)
		return -1;
	ret = up_peek_formats_mem(pk, data, len);
	free(data);
	return ret;
}

/**
 * up_peek_has_ustack - does a trace file have the user_unwind_* events?
 * @fd: a descriptor of the file; read with pread(), its offset is kept
 *
 * Return: 1 when its ftrace formats have a user_unwind_* event, 0 when
 * they have none, -1 when that cannot be told (an unknown file version or
 * compression, a short or damaged file).
 */
int up_peek_has_ustack(int fd)
{
	struct up_peek pk = { .fd = fd };
	unsigned char endian;
	char version[8];
	off_t off = 10;

	if (up_peek_read_str(&pk, &off, version, sizeof(version)) ||
	    up_peek_read(&pk, off, &endian, 1))
		return -1;
	pk.big_endian = endian;
	/* the endian byte, the size of a long, the page size */
	off += 1 + 1 + 4;
	if (!strcmp(version, "6"))
		return up_peek_v6(&pk, off);
	if (!strcmp(version, "7"))
		return up_peek_v7(&pk, off);
	return -1;
}
