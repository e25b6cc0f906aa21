// SPDX-License-Identifier: LGPL-2.1
/*
 * Opening and reading the files libusf is given: a name may be anything
 * (a FIFO, /dev/zero, a directory), so a file is opened without blocking,
 * checked with fstat() to be a regular file, and never read past the size
 * fstat() gave, nor past a bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usf-local.h"

/* What a file that is not a regular file is, for messages */
static const char *usf_file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a regular file";
	}
}

/**
 * usf_file_check - is an open file one libusf reads?
 * @path: its name, for the message
 * @st: what fstat() says of it
 *
 * Return: 0 for a regular file; else -1 with errno (EISDIR for a
 * directory, EINVAL otherwise) and usf_last_error() naming @path and what
 * it is ("x: a FIFO, not a regular file").
 */
int usf_file_check(const char *path, const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 0;
	return usf_error(S_ISDIR(st->st_mode) ? EISDIR : EINVAL, "%s: %s, not a regular file",
			 path, usf_file_kind(st->st_mode));
}

/**
 * usf_file_open - open a regular file without blocking
 * @path: the file
 * @flags: O_RDONLY or O_RDWR (O_NONBLOCK and O_CLOEXEC are added)
 * @st: set to what fstat() says of the file, or NULL
 *
 * The file is opened with O_NONBLOCK, so that a FIFO without a writer or a
 * device does not block, then checked with fstat(): it is the file opened
 * that is checked, whatever the name pointed to before.
 *
 * Return: a file descriptor (close() it), or -1 with errno and
 * usf_last_error(): the error of open(), or see usf_file_check().
 */
int usf_file_open(const char *path, int flags, struct stat *st)
{
	struct stat local, *s = st ? st : &local;
	int fd, err;

	fd = open(path, flags | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return usf_error(errno, "%s: %m", path);
	if (fstat(fd, s)) {
		err = errno;
		close(fd);
		errno = err;
		return usf_error(err, "%s: fstat: %m", path);
	}
	if (usf_file_check(path, s)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/**
 * usf_file_read - read a whole regular file
 * @path: the file
 * @max: the most bytes it may have (USF_FILE_MAX: the tool's bound)
 * @size: set to the bytes read
 *
 * Reads no more than the size fstat() gives when the file is opened (a
 * file growing meanwhile is cut there; one shrinking gives fewer bytes).
 * Files such as those of /proc, which say they have 0 bytes, give 0.
 *
 * Return: the bytes, malloc()ed (free() them), or NULL with errno and
 * usf_last_error(): see usf_file_open(); EFBIG when the file is larger
 * than @max; the error of read().
 */
void *usf_file_read(const char *path, size_t max, size_t *size)
{
	size_t n = 0, want;
	struct stat st;
	ssize_t got;
	char *buf;
	int fd;

	fd = usf_file_open(path, O_RDONLY, &st);
	if (fd < 0)
		return NULL;
	if (st.st_size < 0 || (unsigned long long)st.st_size > max) {
		usf_error(EFBIG, "%s: %lld bytes, larger than the limit of %zu bytes", path,
			  (long long)st.st_size, max);
		close(fd);
		return NULL;
	}
	want = st.st_size;
	buf = malloc(want ? want : 1);
	if (!buf) {
		usf_error(ENOMEM, "%s: out of memory for %zu bytes", path, want);
		close(fd);
		return NULL;
	}
	while (n < want) {
		got = read(fd, buf + n, want - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			usf_error(errno, "%s: read: %m", path);
			free(buf);
			close(fd);
			return NULL;
		}
		if (!got)
			break;
		n += got;
	}
	close(fd);
	*size = n;
	return buf;
}
