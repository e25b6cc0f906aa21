// SPDX-License-Identifier: LGPL-2.1
/*
 * Opening a trace.dat file as trace-cmd report does, with errors a tool can
 * turn into a message.
 *
 * tracecmd_open() makes a handle, reads the headers (tracecmd_read_headers())
 * and the CPU data (tracecmd_init_data()), and closes the handle when a step
 * fails. After a failed tracecmd_init_data() that close crashes, in
 * libtracecmd 3.1.6 and still in 3.4: the CPU array is allocated zeroed but a
 * CPU's lists are set up only once its data was read, and tracecmd_close()
 * walks them (and closes fd 0, taken for a CPU's compression file). trace-cmd
 * report takes the same three steps and exits when one fails. A library
 * cannot exit: the handle of a file whose CPU data cannot be read is left as
 * it is, its memory kept, its file closed.
 *
 * libtracecmd says little of why it failed, so the file is looked at first
 * (a regular file that starts with trace-cmd's magic), and a step that failed
 * with the file read to its end failed because the file is cut short. Two
 * more bugs of libtracecmd are kept away there: a file cut in the offset of
 * its first options section (freed twice), and sections that send it back
 * for ever.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <trace-cmd.h>

#include "ustack-stitch-local.h"

/* A trace-cmd file starts with these 10 bytes (then its version, as text). */
static const char ustack_trace_magic[] = "\027\010\104tracing";
#define USTACK_TRACE_MAGIC_LEN	(sizeof(ustack_trace_magic) - 1)
/* From this version on, the compression and the first options section are named. */
#define USTACK_TRACE_VERSION_SECTIONS	7
/* The start of a file read to check it; its strings are short. */
#define USTACK_TRACE_HEAD	4096

/* Sections of version 7 (trace-cmd's TRACECMD_OPTION_STRINGS, TRACECMD_SEC_FL_COMPRESS) */
#define USTACK_TRACE_SEC_STRINGS	15
#define USTACK_TRACE_SEC_COMPRESS	0x1
#define USTACK_TRACE_SEC_HEAD		16

/* A number of @size bytes of the file, in its byte order. */
static unsigned long long ustack_trace_num(const unsigned char *p, unsigned int size, bool big)
{
	unsigned long long v = 0;
	unsigned int i;

	for (i = 0; i < size; i++)
		v |= (unsigned long long)p[big ? size - 1 - i : i] << (8 * i);
	return v;
}

/*
 * tracecmd_alloc_fd() of a version 7 file walks every section after the
 * header, looking for the strings (read_metadata_strings()): a section whose
 * size is negative as an off_t sends it back, and it walks for ever
 * (libtracecmd 3.1.6, still in 3.4; trace-cmd report hangs). The same walk,
 * from @pos: a section head (id, flags, string, size), then its size
 * skipped, or for compressed strings the block (its size, the size
 * uncompressed, the bytes), until the end of the file.
 *
 * Return: 0; -1 with errno EBADMSG when the walk would go back.
 */
static int ustack_trace_sections(int fd, const struct stat *st, unsigned long long pos, bool big)
{
	unsigned long long end = st->st_size, size;
	unsigned char sec[USTACK_TRACE_SEC_HEAD];
	unsigned int id, flags;

	while (pos + sizeof(sec) <= end) {
		if (pread(fd, sec, sizeof(sec), pos) != sizeof(sec))
			return 0;
		id = ustack_trace_num(sec, 2, big);
		flags = ustack_trace_num(sec + 2, 2, big);
		size = ustack_trace_num(sec + 8, 8, big);
		pos += sizeof(sec);
		if (id == USTACK_TRACE_SEC_STRINGS && (flags & USTACK_TRACE_SEC_COMPRESS)) {
			if (pos + 4 > end || pread(fd, sec, 4, pos) != 4)
				return 0;
			size = 8 + ustack_trace_num(sec, 4, big);
		} else if ((long long)size < 0) {
			errno = EBADMSG;
			return -1;
		}
		/* past the end, the next read fails: the walk ends */
		if (size > end - pos)
			return 0;
		pos += size;
	}
	return 0;
}

/* The end of the string at @pos of @head (@n bytes), or 0 when it is not there. */
static size_t ustack_trace_string(const char *head, size_t n, size_t pos)
{
	const char *nul = pos < n ? memchr(head + pos, '\0', n - pos) : NULL;

	return nul ? (size_t)(nul - head) + 1 : 0;
}

/*
 * What tracecmd_alloc_fd() reads is all there: the magic, the version as
 * text, the byte order, long size and page size; from version 7 on, the
 * compression's name and version as text and the offset of the first
 * options section. A file cut in that offset makes libtracecmd 3.1.6 (and
 * 3.4) free the compression strings twice. Strings longer than the start
 * read here are left to libtracecmd. Then the sections it walks.
 *
 * Return: 0; -1 with errno EMEDIUMTYPE (not trace-cmd's magic), ENODATA or
 * EBADMSG.
 */
static int ustack_trace_head(int fd, const struct stat *st)
{
	char head[USTACK_TRACE_HEAD];
	size_t pos, n;
	ssize_t got;
	bool big;

	got = pread(fd, head, sizeof(head), 0);
	if (got < 0)
		return -1;
	n = got;
	if (!n || memcmp(head, ustack_trace_magic, n < USTACK_TRACE_MAGIC_LEN ? n :
			 USTACK_TRACE_MAGIC_LEN)) {
		errno = EMEDIUMTYPE;
		return -1;
	}
	pos = ustack_trace_string(head, n, USTACK_TRACE_MAGIC_LEN);
	if (pos && strtol(head + USTACK_TRACE_MAGIC_LEN, NULL, 10) <
		   USTACK_TRACE_VERSION_SECTIONS)
		return 0;
	big = pos && pos < n && head[pos];
	/* byte order, long size, page size; the compression's name and version */
	if (pos)
		pos = ustack_trace_string(head, n, pos + 1 + 1 + 4);
	if (pos)
		pos = ustack_trace_string(head, n, pos);
	if (pos && pos + 8 <= (size_t)st->st_size)
		return ustack_trace_sections(fd, st, pos + 8, big);
	if (!pos && n < (size_t)st->st_size && n == sizeof(head))
		return 0;
	errno = ENODATA;
	return -1;
}

/* The file is a regular one that starts as a trace-cmd file: 0, or -1 with errno. */
static int ustack_trace_check(int fd, const struct stat *st)
{
	if (S_ISDIR(st->st_mode)) {
		errno = EISDIR;
		return -1;
	}
	/* libtracecmd seeks in the file and maps it */
	if (!S_ISREG(st->st_mode)) {
		errno = ESPIPE;
		return -1;
	}
	return ustack_trace_head(fd, st);
}

/* Why a step of libtracecmd failed, when it does not say: cut short, or @other. */
static int ustack_trace_why(int fd, const struct stat *st, int other)
{
	off_t pos;

	if (errno == ENOMEM)
		return ENOMEM;
	pos = lseek(fd, 0, SEEK_CUR);
	return pos >= st->st_size ? ENODATA : other;
}

/* A stream's writes, dropped. */
static ssize_t ustack_trace_drop(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	(void)buf;
	return size;
}

/*
 * tracecmd_init_data() of libtracecmd (3.1.6) says "File possibly truncated.
 * Need at least N, but file size is M." with printf(): on the program's
 * standard output, in the middle of what a tool writes there (ustack-flame's
 * folded lines to a pipe). Its failure is ENODATA here, which the caller says
 * as it likes. For that call, stdout (a variable glibc lets a program set) is
 * a stream that drops what it is given; the program's own stream, with what
 * it holds unflushed, is put back untouched. A thread printing on stdout
 * during the call loses that text: the man page says so.
 */
static int ustack_trace_init_data(struct tracecmd_input *handle)
{
	static const cookie_io_functions_t drop = { .write = ustack_trace_drop };
	FILE *sink = fopencookie(NULL, "w", drop);
	FILE *saved = stdout;
	int ret, err;

	if (sink)
		stdout = sink;
	ret = tracecmd_init_data(handle);
	err = errno;
	if (sink) {
		stdout = saved;
		fclose(sink);
	}
	errno = err;
	return ret;
}

/**
 * ustack_trace_open - open a trace.dat file for reading its events
 * @file: the file's path
 * @flags: for libtracecmd: enum tracecmd_open_flags (TRACECMD_FL_LOAD_NO_PLUGINS, ...);
 *	and USTACK_TRACE_NO_KALLSYMS: the handle's tep gets no kernel functions
 *	(the saved /proc/kallsyms is not parsed, which is most of what opening a
 *	small trace costs: for a reader that never names a kernel address)
 *
 * What tracecmd_open() does, in the steps trace-cmd report takes, without
 * its crash on a file whose CPU data cannot be read (the handle is then left
 * unclosed, see above) and with an errno for each way a file can be wrong.
 * With USTACK_TRACE_NO_KALLSYMS, a file whose headers are not laid out as
 * expected is read whole, as without it (ustack-trace-head.c).
 *
 * Return: the handle, to be closed with tracecmd_close(); NULL with errno:
 * EINVAL (@file NULL), the errors of open() and fstat() (ENOENT, EACCES...),
 * EISDIR (a directory), ESPIPE (not a regular file: a pipe or a device),
 * EMEDIUMTYPE (not a trace-cmd file: empty, or without trace-cmd's magic),
 * ENODATA (cut short: the file ends before its headers do, or before the CPU
 * data they name), EPROTONOSUPPORT (a trace-cmd file of a version or
 * compression this libtracecmd does not read), EBADMSG (damaged: the
 * headers or CPU data cannot be read, or a section's size would make
 * libtracecmd read for ever) or ENOMEM.
 */
struct tracecmd_input *ustack_trace_open(const char *file, int flags)
{
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	struct stat st;
	int fd, err, head;

	if (!file) {
		errno = EINVAL;
		return NULL;
	}
	/* no writer on a FIFO would block the open() */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || ustack_trace_check(fd, &st))
		goto fail;

	errno = 0;
	handle = tracecmd_alloc_fd(fd, flags & ~USTACK_TRACE_NO_KALLSYMS);
	if (!handle) {
		errno = ustack_trace_why(fd, &st, EPROTONOSUPPORT);
		goto fail;
	}
	/* the handle's file from here: tracecmd_close() closes it */
	head = flags & USTACK_TRACE_NO_KALLSYMS ? ustack_trace_read_head(handle, fd) : 1;
	if (head < 0) {
		/* read again, whole: libtracecmd's errors are the ones to give */
		tracecmd_close(handle);
		return ustack_trace_open(file, flags & ~USTACK_TRACE_NO_KALLSYMS);
	}
	errno = 0;
	if (head && tracecmd_read_headers(handle, 0) < 0) {
		err = ustack_trace_why(fd, &st, EBADMSG);
		tracecmd_close(handle);
		errno = err;
		return NULL;
	}
	errno = 0;
	if (ustack_trace_init_data(handle) < 0) {
		/* its "File possibly truncated" check sets EINVAL */
		err = errno == EINVAL ? ENODATA : ustack_trace_why(fd, &st, EBADMSG);
		/* the handle cannot be closed: only its file is */
		close(fd);
		errno = err;
		return NULL;
	}
	/* libtracecmd keeps the page size to itself; the stitcher bounds records by it */
	tep = tracecmd_get_tep(handle);
	if (tep && tep_get_page_size(tep) <= 0)
		tep_set_page_size(tep, tracecmd_page_size(handle));
	return handle;

fail:
	err = errno;
	close(fd);
	errno = err;
	return NULL;
}

/**
 * ustack_trace_strerror - what an errno of ustack_trace_open() says
 * @err: the errno
 *
 * Return: words for the errors ustack_trace_open() gives of the file
 * itself (not a trace-cmd file, truncated, damaged, ...), for a tool to
 * print after the file's name; NULL for any other errno (strerror()'s).
 */
const char *ustack_trace_strerror(int err)
{
	switch (err) {
	case EMEDIUMTYPE:
		return "not a trace-cmd file";
	case ENODATA:
		return "a trace-cmd file possibly truncated: its headers or CPU data end early";
	case EPROTONOSUPPORT:
		return "a trace-cmd file of a version or compression libtracecmd cannot read";
	case EBADMSG:
		return "a damaged trace-cmd file: its headers or CPU data cannot be read";
	case EISDIR:
		return "a directory, not a trace file (a regular file)";
	case ESPIPE:
		return "not a trace file (a regular file)";
	default:
		return NULL;
	}
}
