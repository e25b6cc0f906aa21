// SPDX-License-Identifier: LGPL-2.1
/*
 * Which files a system-wide unwind table may be made from.
 *
 * The kernel keeps one table per build-id, for every process that maps a
 * file with that build-id, and the first table loaded for a build-id
 * stays (a second one is refused with EEXIST). The build-id is what the
 * file says it is: anyone who can write a file can give it libc's. A
 * loader that finds files by itself (the mapped files of every process)
 * must therefore make tables only of files nobody but root can have
 * written, or any user could choose libc's table for every process.
 */
#include <errno.h>
#include <sys/stat.h>

#include "usf-local.h"
#include "usf-table.h"

/* FUSE's statfs f_type (linux/magic.h): its daemon reports owners and modes */
#define USF_FUSE_SUPER_MAGIC	0x65735546UL

/**
 * usf_table_file_trusted - may a system-wide table be made from this file?
 * @st: what fstat() says of the file, open (not of a name: a name may
 *	point to another file by the time it is opened)
 * @fs_type: the f_type fstatfs() gives for it
 *
 * Trusted: a regular file owned by root (uid 0), writable neither by its
 * group nor by others, on a file system other than FUSE, and linked in a
 * directory (not deleted, not a memfd: whoever holds its descriptor may
 * write it, and nobody can look at it again). The mode's group
 * bits include the mask of an access control list, so a file an ACL lets
 * another user write is not trusted. The directories of its path are not
 * looked at: the file is judged by its inode, which the caller holds open,
 * and which only root can have written. A file made by root in a directory
 * users can write (/tmp) is trusted: root made it.
 *
 * Return: 0 when trusted; -1 with errno EPERM and usf_last_error() saying
 * why not, without the file's name ("owned by uid 1000, not root").
 */
int usf_table_file_trusted(const struct stat *st, unsigned long fs_type)
{
	if (!S_ISREG(st->st_mode))
		return usf_error(EPERM, "not a regular file");
	if (st->st_uid != 0)
		return usf_error(EPERM, "owned by uid %u, not root", (unsigned int)st->st_uid);
	if (st->st_mode & S_IWOTH)
		return usf_error(EPERM, "writable by others (mode %04o)",
				 (unsigned int)(st->st_mode & 07777));
	if (st->st_mode & S_IWGRP)
		return usf_error(EPERM, "writable by its group, gid %u (mode %04o)",
				 (unsigned int)st->st_gid, (unsigned int)(st->st_mode & 07777));
	if (!st->st_nlink)
		return usf_error(EPERM, "in no directory (deleted, or a memfd)");
	if (fs_type == USF_FUSE_SUPER_MAGIC)
		return usf_error(EPERM, "on a FUSE file system, whose owners and modes its "
				 "daemon reports");
	return 0;
}
