// SPDX-License-Identifier: LGPL-2.1
/*
 * Whole reads at an offset of a file, for the parts of the plugin that read
 * a trace file's headers themselves (ustack-head.c, ustack-peek.c).
 */
#include <errno.h>
#include <unistd.h>

#include "ustack-plugin.h"

/**
 * up_pread_all - read @len bytes at @off of @fd, all of them
 * @fd: the file
 * @buf: where they go
 * @len: how many
 * @off: where in the file
 *
 * Returns 0, or -1 on an error or at the end of the file.
 */
int up_pread_all(int fd, void *buf, size_t len, off_t off)
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
