// SPDX-License-Identifier: GPL-2.0
/*
 * The output file. A graph is written to a temporary file in the output's
 * directory, which is renamed over the output only once all of it was
 * written: a failure leaves an older output as it was, and removes nothing
 * but the temporary file. An output that is one of the inputs is refused
 * before anything is opened for writing. Errors are said here. Also the
 * words of messages about files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flame.h"

/* The temporary file's name, in the directory of @target. */
#define FLAME_OUT_TEMP	".ustack-flame-XXXXXX"

/**
 * flame_strerror - strerror() of an errno a library may have left negative
 * @err: the errno
 *
 * Return: the text of @err; "unknown error" when it is not above 0.
 */
const char *flame_strerror(int err)
{
	return err > 0 ? strerror(err) : "unknown error";
}

/**
 * flame_write_error - why writing to a stream failed
 * @out: the stream, its error flag set by a failed write
 *
 * The flag says that a write failed, not why: the errno of that write may
 * have been changed since. What was not written is still in the stream's
 * buffer, so flushing it again fails the same way and sets errno again
 * (ENOSPC on a full disk, EPIPE, ...).
 *
 * Return: -1, with errno the error of the write; EIO when flushing again
 * worked.
 */
int flame_write_error(FILE *out)
{
	clearerr(out);
	errno = 0;
	if (!fflush(out) || errno <= 0)
		errno = EIO;
	return -1;
}

/**
 * flame_file_type - what a file that is not a regular file is, for a message
 * @mode: its st_mode
 *
 * Return: "a directory", "a character device", ...
 */
const char *flame_file_type(unsigned int mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFIFO:
		return "a FIFO";
	}
	return "not a regular file";
}

/* Whether @st, the output (@what, for the message), is one of @inputs; said if so. */
static bool flame_out_is_input(const char *what, const struct stat *st,
			       const char * const *inputs, size_t nr)
{
	struct stat in;
	size_t i;
	int ret;

	for (i = 0; i < nr; i++) {
		if (!strcmp(inputs[i], "-"))
			ret = fstat(STDIN_FILENO, &in);
		else
			ret = stat(inputs[i], &in);
		/* an input that is not there is said when it is read */
		if (ret || in.st_dev != st->st_dev || in.st_ino != st->st_ino)
			continue;
		fprintf(stderr, "ustack-flame: %s is the same file as the input %s: not written\n",
			what, strcmp(inputs[i], "-") ? inputs[i] : "(standard input)");
		return true;
	}
	return false;
}

/* The temporary file beside @o->target, with the mode the output has or would get. */
static int flame_out_temp(struct flame_out *o, const struct stat *st)
{
	const char *slash = strrchr(o->target, '/');
	int dir_len = slash ? (int)(slash - o->target + 1) : 0;
	mode_t mode, mask;
	int fd;

	if (asprintf(&o->temp, "%.*s%s", dir_len, o->target, FLAME_OUT_TEMP) < 0) {
		o->temp = NULL;
		return -1;
	}
	fd = mkstemp(o->temp);
	if (fd < 0) {
		free(o->temp);
		o->temp = NULL;
		return -1;
	}
	if (st) {
		mode = st->st_mode & 07777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	o->file = fchmod(fd, mode) ? NULL : fdopen(fd, "w");
	if (!o->file) {
		close(fd);
		unlink(o->temp);
		free(o->temp);
		o->temp = NULL;
		return -1;
	}
	return 0;
}

/**
 * flame_out_open - open the output
 * @o: set up here
 * @path: the output; NULL or "-": standard output
 * @inputs: the input files ("-": standard input), none of which may be the output
 * @nr: how many
 *
 * A regular file (or a name not yet taken) is written through a temporary
 * file in its directory; a symbolic link is followed, and the file it names
 * is replaced. A file that is there and is not a regular file (a FIFO, a
 * device) is written as it is.
 *
 * Return: 0; -1 when the output is an input or cannot be opened (said on
 * standard error).
 */
int flame_out_open(struct flame_out *o, const char *path, const char * const *inputs,
		   size_t nr)
{
	char *what = NULL;
	struct stat st;
	bool exists;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->name = "standard output";
		/* an input redirected to it with >> would grow while read */
		if (!fstat(STDOUT_FILENO, &st) && S_ISREG(st.st_mode) &&
		    flame_out_is_input("standard output", &st, inputs, nr))
			return -1;
		o->file = stdout;
		return 0;
	}
	o->name = path;
	exists = !stat(path, &st);
	if (!exists && errno != ENOENT)
		goto fail;
	if (exists && asprintf(&what, "-o %s", path) < 0)
		goto fail;
	if (exists && flame_out_is_input(what, &st, inputs, nr)) {
		free(what);
		return -1;
	}
	free(what);
	if (exists && !S_ISREG(st.st_mode)) {
		o->file = fopen(path, "w");
		if (!o->file)
			goto fail;
		return 0;
	}
	o->target = exists ? realpath(path, NULL) : strdup(path);
	if (!o->target)
		goto fail;
	if (flame_out_temp(o, exists ? &st : NULL)) {
		fprintf(stderr, "ustack-flame: %s: cannot create a temporary file beside it: %s\n",
			path, flame_strerror(errno));
		free(o->target);
		o->target = NULL;
		return -1;
	}
	return 0;
fail:
	fprintf(stderr, "ustack-flame: %s: %s\n", path, flame_strerror(errno));
	return -1;
}

/**
 * flame_out_close - close the output, keeping what was written or not
 * @o: opened by flame_out_open() (or not: then nothing is done)
 * @ok: everything was written: the temporary file becomes the output; else
 *	it is removed, and an older output stays as it was
 *
 * Return: 0; -1 when @ok is false or writing failed (said on standard error).
 */
int flame_out_close(struct flame_out *o, bool ok)
{
	int ret = ok ? 0 : -1;

	if (!o->file)
		return ret;
	if (fflush(o->file) && !ret) {
		fprintf(stderr, "ustack-flame: %s: %s\n", o->name, flame_strerror(errno));
		ret = -1;
	}
	/* on the disk before it replaces the older output */
	if (o->temp && !ret && fsync(fileno(o->file))) {
		fprintf(stderr, "ustack-flame: %s: %s\n", o->name, flame_strerror(errno));
		ret = -1;
	}
	if (o->file != stdout && fclose(o->file) && !ret) {
		fprintf(stderr, "ustack-flame: %s: %s\n", o->name, flame_strerror(errno));
		ret = -1;
	}
	o->file = NULL;
	if (o->temp && !ret && rename(o->temp, o->target)) {
		fprintf(stderr, "ustack-flame: %s: cannot replace it with %s: %s\n", o->target,
			o->temp, flame_strerror(errno));
		ret = -1;
	}
	if (o->temp && ret)
		unlink(o->temp);
	free(o->temp);
	free(o->target);
	o->temp = NULL;
	o->target = NULL;
	return ret;
}
