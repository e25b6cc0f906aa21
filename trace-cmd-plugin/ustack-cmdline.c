// SPDX-License-Identifier: LGPL-2.1
/*
 * What the command line of this process (/proc/self/cmdline) says to the
 * plugin: the program's name and its first argument (is this "trace-cmd
 * report"? ustack-gate.c decides what follows from that), the files it may
 * name (ustack-input.c prefers them), and the first option of report that
 * changes the timestamps report gives its records (the read-ahead compares
 * timestamps, so it then stays off).
 *
 * Note that report splits "-O name=value" at the '=' in place, so the words
 * seen there can differ from those typed; only whole option words are
 * looked at.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ustack-plugin.h"

static char *up_read_all(const char *path, size_t *len)
{
	size_t size = 4096;
	char *buf = NULL, *nbuf;
	ssize_t r;
	int fd;

	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (*len == size || !buf) {
			size = buf ? 2 * size : size;
			nbuf = realloc(buf, size);
			if (!nbuf)
				goto fail;
			buf = nbuf;
		}
		r = read(fd, buf + *len, size - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (!r)
			break;
		*len += r;
	}
	close(fd);
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

/**
 * up_cmdline_parse - what a command line says to the plugin
 * @cmd: filled in; refers to @words
 * @words: the words of the command line, each ending with a NUL (as
 *	/proc/PID/cmdline has them)
 * @len: the bytes in @words
 *
 * @cmd->prog is the first word without its directory, @cmd->sub the second
 * ("" when there is none).
 */
void up_cmdline_parse(struct up_cmdline *cmd, const char *words, size_t len)
{
	const char *end = words + len, *p, *slash;
	int argn = 0;

	memset(cmd, 0, sizeof(*cmd));
	cmd->words = words;
	cmd->len = len;
	cmd->prog = "";
	cmd->sub = "";
	for (p = words; p < end; p += strnlen(p, end - p) + 1, argn++) {
		if (argn == 0) {
			slash = memrchr(p, '/', strnlen(p, end - p));
			cmd->prog = slash ? slash + 1 : p;
			continue;
		}
		cmd->sub = p;
		break;
	}
}

/**
 * up_cmdline_read - the command line of this process
 * @cmd: filled in as by up_cmdline_parse(); up_cmdline_free() frees it
 *
 * Return: 0; -1 with errno when /proc/self/cmdline cannot be read.
 */
int up_cmdline_read(struct up_cmdline *cmd)
{
	size_t len;
	char *buf;

	memset(cmd, 0, sizeof(*cmd));
	buf = up_read_all("/proc/self/cmdline", &len);
	if (!buf)
		return -1;
	/* a last word without its NUL gets one: there is room, or the read stopped */
	if (len && buf[len - 1]) {
		char *nbuf = realloc(buf, len + 1);

		if (!nbuf) {
			free(buf);
			return -1;
		}
		buf = nbuf;
		buf[len++] = '\0';
	}
	up_cmdline_parse(cmd, buf, len);
	cmd->buf = buf;
	return 0;
}

/**
 * up_cmdline_free - free what up_cmdline_read() read
 * @cmd: the command line
 */
void up_cmdline_free(struct up_cmdline *cmd)
{
	free(cmd->buf);
	memset(cmd, 0, sizeof(*cmd));
}
