// SPDX-License-Identifier: GPL-2.0
/*
 * The files ustack-sframe writes (convert's OUT, convert-eh's -o OUT).
 *
 * An output is written to a temporary file next to it (".NAME.XXXXXX" in
 * its directory) and renamed over it only once complete: a command that
 * fails, or is killed by SIGINT, SIGTERM or SIGHUP, leaves the old output
 * as it was and no temporary file. An output that is the input (the same
 * device and inode, through any name or link) is refused before anything
 * is read or written. An output that exists and is not a regular file
 * (/dev/null, a terminal, a FIFO) is written to directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ustack-sframe.h"

/* The temporary file being written: removed when the command dies */
static char usf_out_pending[PATH_MAX + 16];

static const int usf_out_signals[] = { SIGINT, SIGTERM, SIGHUP };

/**
 * usf_out_cleanup - remove the temporary file of an output not committed
 *
 * usf_die() calls it; so does a signal that ends the command.
 */
void usf_out_cleanup(void)
{
	if (usf_out_pending[0])
		unlink(usf_out_pending);
	usf_out_pending[0] = '\0';
}

static void usf_out_signal(int sig)
{
	usf_out_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void usf_out_trap(bool on)
{
	size_t i;

	for (i = 0; i < sizeof(usf_out_signals) / sizeof(usf_out_signals[0]); i++)
		signal(usf_out_signals[i], on ? usf_out_signal : SIG_DFL);
}

/* Die when @out_st is the file @input names */
static void usf_out_not_input(const char *name, const struct stat *out_st, const char *input)
{
	struct stat in_st;

	if (!input || stat(input, &in_st))
		return;		/* reading the input reports it */
	if (in_st.st_dev == out_st->st_dev && in_st.st_ino == out_st->st_ino)
		usf_die("the output %s is the input %s: give another output file", name, input);
}

/**
 * usf_out_open - start writing an output file
 * @out: the output, set up here
 * @name: its name, as given
 * @input: the input it is made from (never written over), or NULL
 * @mode: permissions of a new file (less the umask); an existing file
 *	  keeps its own
 *
 * Dies when @name is @input, or when it cannot be written. Afterwards,
 * @out->fd is open for writing, and @out->tmp is the file to write when
 * it is not NULL (NULL: @name is not a regular file, written directly).
 */
void usf_out_open(struct usf_out *out, const char *name, const char *input, mode_t mode)
{
	char real[PATH_MAX], *slash;
	struct stat st;
	mode_t mask;
	int n;

	memset(out, 0, sizeof(*out));
	out->name = name;
	out->fd = -1;
	if (!stat(name, &st)) {
		usf_out_not_input(name, &st, input);
		if (!S_ISREG(st.st_mode)) {
			out->fd = open(name, O_WRONLY | O_CLOEXEC);
			if (out->fd < 0)
				usf_die("%s: %s", name, strerror(errno));
			return;
		}
		/* through symbolic links: the file they name gets the output */
		if (!realpath(name, real))
			usf_die("%s: %s", name, strerror(errno));
		mode = st.st_mode & 0777;
	} else if (errno != ENOENT) {
		usf_die("%s: %s", name, strerror(errno));
	} else if (!lstat(name, &st)) {
		usf_die("%s: a symbolic link to a file that does not exist", name);
	} else {
		if (snprintf(real, sizeof(real), "%s", name) >= (int)sizeof(real))
			usf_die("%s: %s", name, strerror(ENAMETOOLONG));
		mask = umask(0);
		umask(mask);
		mode &= ~mask;
	}
	out->path = strdup(real);
	if (!out->path)
		usf_die("out of memory");
	slash = strrchr(out->path, '/');
	n = slash ? (int)(slash - out->path) : 1;
	if (asprintf(&out->tmp, "%.*s/.%s.XXXXXX", n, slash ? out->path : ".",
		     slash ? slash + 1 : out->path) < 0)
		usf_die("out of memory");
	if (strlen(out->tmp) >= sizeof(usf_out_pending))
		usf_die("%s: %s", name, strerror(ENAMETOOLONG));
	out->fd = mkostemp(out->tmp, O_CLOEXEC);
	if (out->fd < 0)
		usf_die("%s: cannot create a file next to it: %s", name, strerror(errno));
	snprintf(usf_out_pending, sizeof(usf_out_pending), "%s", out->tmp);
	usf_out_trap(true);
	if (fchmod(out->fd, mode))
		usf_die("%s: %s", out->tmp, strerror(errno));
}

/**
 * usf_out_write - write all of @buf to an output
 * @out: the output
 * @buf: the bytes
 * @size: their number
 */
void usf_out_write(struct usf_out *out, const void *buf, size_t size)
{
	const char *p = buf;
	ssize_t n;

	while (size) {
		n = write(out->fd, p, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			usf_die("%s: %s", out->name, n ? strerror(errno) : "write failed");
		p += n;
		size -= n;
	}
}

/**
 * usf_out_commit - finish an output: the temporary file becomes it
 * @out: the output, freed here
 */
void usf_out_commit(struct usf_out *out)
{
	if (close(out->fd))
		usf_die("%s: %s", out->name, strerror(errno));
	out->fd = -1;
	if (out->tmp && rename(out->tmp, out->path))
		usf_die("%s: renaming %s to it: %s", out->name, out->tmp, strerror(errno));
	usf_out_pending[0] = '\0';
	usf_out_trap(false);
	free(out->tmp);
	free(out->path);
	out->tmp = NULL;
	out->path = NULL;
}
