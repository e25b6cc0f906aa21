// SPDX-License-Identifier: LGPL-2.1
/*
 * Opening the files a trace names: the mapped files, their debug file
 * candidates, under the sysroot when one is set.
 *
 * A trace can be written by anyone and can name any path: a device, whose
 * open has effects of its own (/dev/watchdog arms the watchdog, a tape
 * rewinds, a serial line raises DTR), or a FIFO, whose open blocks. So a path
 * is first opened with O_PATH, which opens nothing underneath, and only when
 * fstat() says it is a regular file is that same file opened for reading,
 * through /proc/self/fd (a name that changes in between cannot swap another
 * file in). Without /proc nothing is opened. libdwfl never opens a path of
 * its own: it is handed the descriptors opened here.
 *
 * The ELF files are read with ELF_C_READ (pread, not mmap): a file that
 * shrinks under us gives a libelf error instead of SIGBUS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>

#include "ustack-local.h"

/**
 * ustack_open_regular - open a path for reading when it is a regular file
 * @path: the file
 *
 * Return: the file descriptor (O_RDONLY, O_CLOEXEC); -1 with errno: the
 * open() error, or ENOEXEC when @path is not a regular file.
 */
int ustack_open_regular(const char *path)
{
	char proc[sizeof("/proc/self/fd/") + 12];
	struct stat st;
	int pfd, fd, err;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) || !S_ISREG(st.st_mode)) {
		close(pfd);
		errno = ENOEXEC;
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	err = errno;
	close(pfd);
	errno = err;
	return fd;
}

/**
 * ustack_elf_open - open a regular ELF file for reading
 * @path: the file
 * @fd: set to its descriptor on success
 *
 * Return: the ELF handle, to be closed with ustack_elf_close(); NULL with
 * errno: the open() error, ENOEXEC when the file is not a regular, readable
 * ELF file.
 */
Elf *ustack_elf_open(const char *path, int *fd)
{
	Elf *elf;

	*fd = ustack_open_regular(path);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getclass(elf) != ELFCLASSNONE)
		return elf;
	ustack_elf_close(elf, *fd);
	*fd = -1;
	errno = ENOEXEC;
	return NULL;
}

/**
 * ustack_elf_close - close what ustack_elf_open() opened
 * @elf: the ELF handle, or NULL
 * @fd: its descriptor, or -1
 */
void ustack_elf_close(Elf *elf, int fd)
{
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/**
 * ustack_elf_has_build_id - does an ELF file carry this build-id?
 * @elf: the file
 * @build_id: the build-id bytes
 * @size: their number
 *
 * The note is looked for in the note sections, else (no section headers, as
 * after sstrip) in the PT_NOTE segments. A file without one is not the same.
 *
 * Return: true when the file's GNU build-id note equals @build_id.
 */
bool ustack_elf_has_build_id(Elf *elf, const unsigned char *build_id, size_t size)
{
	const void *id;
	ssize_t len;

	len = dwelf_elf_gnu_build_id(elf, &id);
	return len > 0 && (size_t)len == size && !memcmp(id, build_id, size);
}

/**
 * ustack_elf_loadable - is an ELF file an executable or a shared object?
 * @elf: the file
 *
 * Return: true for ET_EXEC and ET_DYN, the files that are mapped as they are.
 */
bool ustack_elf_loadable(Elf *elf)
{
	GElf_Ehdr ehdr;

	return gelf_getehdr(elf, &ehdr) && (ehdr.e_type == ET_EXEC || ehdr.e_type == ET_DYN);
}

/**
 * ustack_sysroot_path - a path of the traced machine, as seen on this one
 * @conf: the symbolizer's settings
 * @path: the path as the trace names it
 *
 * Return: @path under the sysroot, or a copy of @path without one
 * (malloc()ed); NULL with errno ENOMEM.
 */
char *ustack_sysroot_path(const struct ustack_conf *conf, const char *path)
{
	char *full;

	if (!conf->sysroot)
		return strdup(path);
	if (asprintf(&full, "%s%s%s", conf->sysroot, *path == '/' ? "" : "/", path) < 0)
		return NULL;
	return full;
}
