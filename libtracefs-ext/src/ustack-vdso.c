// SPDX-License-Identifier: LGPL-2.1
/*
 * The vDSO, which the kernel maps into every process from its own image: a
 * trace names it as the file "[vdso]", with offsets from the start of its
 * mapping and the image's build-id. Its symbols are read from, in order:
 *
 *   1. this process's own vDSO (getauxval(AT_SYSINFO_EHDR)), when its
 *      build-id is the trace's; without a build-id in the trace, when no
 *      sysroot is set (the trace is then taken to be of this machine);
 *   2. the image the kernel build installs, SYSROOT/lib/modules/$(uname
 *      -r)/vdso/vdso64.so (or vdso32.so), with the trace's build-id;
 *   3. the file of that build-id in the debug directory, or on a debuginfod
 *      server (as for any file that is not there).
 *
 * The running image is copied into a memfd, so that libdwfl reads it as a
 * file like any other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include "ustack-local.h"

#define USTACK_VDSO		"[vdso]"

/* The ELF headers of this process's word size, as the vDSO has them */
#define ustack_ehdr		ElfW(Ehdr)
#define ustack_phdr		ElfW(Phdr)

/* The size of an ELF image in memory: the end of its headers and of its segments. */
static size_t ustack_image_size(const ustack_ehdr *ehdr)
{
	const ustack_phdr *phdr = (const void *)((const char *)ehdr + ehdr->e_phoff);
	size_t size = ehdr->e_shoff + (size_t)ehdr->e_shnum * ehdr->e_shentsize;
	unsigned int i;

	for (i = 0; i < ehdr->e_phnum; i++) {
		if (phdr[i].p_offset + phdr[i].p_filesz > size)
			size = phdr[i].p_offset + phdr[i].p_filesz;
	}
	return size;
}

/* This process's vDSO as an ELF file in a memfd; NULL when there is none. */
static Elf *ustack_vdso_own(int *fd)
{
	const ustack_ehdr *ehdr = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	Elf *elf;

	*fd = -1;
	if (!ehdr || memcmp(ehdr->e_ident, ELFMAG, SELFMAG))
		return NULL;
	size = ustack_image_size(ehdr);
	*fd = memfd_create("ustack-vdso", MFD_CLOEXEC);
	if (*fd < 0)
		return NULL;
	if (write(*fd, ehdr, size) != (ssize_t)size) {
		close(*fd);
		*fd = -1;
		return NULL;
	}
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		return elf;
	ustack_elf_close(elf, *fd);
	*fd = -1;
	return NULL;
}

/* The image the kernel build installed, with the build-id asked for. */
static Elf *ustack_vdso_installed(struct ustack_file *f, int *fd, char **name)
{
	static const char * const images[] = { "vdso64.so", "vdso32.so" };
	struct utsname uts;
	char path[512];
	unsigned int i;
	Elf *elf;

	*name = NULL;
	if (uname(&uts))
		return NULL;
	for (i = 0; i < sizeof(images) / sizeof(images[0]); i++) {
		snprintf(path, sizeof(path), "/lib/modules/%s/vdso/%s", uts.release, images[i]);
		*name = ustack_sysroot_path(f->conf, path);
		if (!*name)
			return NULL;
		elf = ustack_elf_open(*name, fd);
		if (elf && ustack_elf_has_build_id(elf, f->build_id, f->build_id_size))
			return elf;
		ustack_elf_close(elf, *fd);
		free(*name);
		*name = NULL;
	}
	return NULL;
}

/**
 * ustack_vdso_read - read the vDSO image a "[vdso]" file entry names
 * @f: the file, "[vdso]", with the build-id of the trace if it had one
 *
 * Return: 0 (the file is left without a Dwfl when no image fits); -1 with
 * errno ENOMEM.
 */
int ustack_vdso_read(struct ustack_file *f)
{
	char *name;
	Elf *elf;
	int fd;

	elf = ustack_vdso_own(&fd);
	if (elf && (f->build_id_size ? ustack_elf_has_build_id(elf, f->build_id,
							       f->build_id_size) :
					!f->conf->sysroot)) {
		f->trusted = true;
		name = strdup(USTACK_VDSO);
		if (name)
			return ustack_file_report(f, elf, fd, name);
	}
	ustack_elf_close(elf, fd);
	if (!f->build_id_size)
		return 0;

	elf = ustack_vdso_installed(f, &fd, &name);
	if (!elf)
		elf = ustack_debug_stand_in(f->conf, f->build_id, f->build_id_size, &fd, &name);
	if (!elf)
		return errno == ENOMEM ? -1 : 0;
	return ustack_file_report(f, elf, fd, name);
}
