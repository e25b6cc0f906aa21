// SPDX-License-Identifier: LGPL-2.1
/*
 * SFrame in ELF files (libelf): the .sframe section (or, with no section
 * headers, the PT_GNU_SFRAME segment) and an ELF copy with that section's
 * bytes replaced.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>

#include "usf-local.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif
#ifndef SHT_GNU_SFRAME
#define SHT_GNU_SFRAME	0x6ffffff4
#endif

static Elf *usf_elf_open(const char *path, int flags, int *fd)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		usf_error(EINVAL, "libelf: %s", elf_errmsg(-1));
		return NULL;
	}
	*fd = usf_file_open(path, flags, NULL);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, flags == O_RDWR ? ELF_C_RDWR : ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		usf_error(EINVAL, "%s: not an ELF file", path);
		if (elf)
			elf_end(elf);
		close(*fd);
		return NULL;
	}
	return elf;
}

/* The .sframe section (by type, or by name for toolchains before the type) */
static Elf_Scn *usf_elf_scn(Elf *elf, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (shdr->sh_type == SHT_GNU_SFRAME || (name && !strcmp(name, ".sframe")))
			return scn;
	}
	return NULL;
}

static int usf_elf_copy_out(const void *src, size_t size, void **buf, size_t *out_size)
{
	*buf = malloc(size ? size : 1);
	if (!*buf)
		return usf_error(ENOMEM, "out of memory for %zu bytes", size);
	memcpy(*buf, src, size);
	*out_size = size;
	return 0;
}

static int usf_elf_segment(Elf *elf, const char *path, void **buf, size_t *size,
			   uint64_t *vaddr)
{
	size_t n, i, raw_size;
	GElf_Phdr ph;
	char *raw;

	if (elf_getphdrnum(elf, &n))
		n = 0;
	raw = elf_rawfile(elf, &raw_size);
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_GNU_SFRAME)
			continue;
		if (!raw || ph.p_offset > raw_size || ph.p_filesz > raw_size - ph.p_offset)
			return usf_error(EINVAL, "%s: PT_GNU_SFRAME runs past the file", path);
		*vaddr = ph.p_vaddr;
		return usf_elf_copy_out(raw + ph.p_offset, ph.p_filesz, buf, size);
	}
	return usf_error(ENOENT, "%s: no .sframe section and no PT_GNU_SFRAME segment", path);
}

/**
 * usf_elf_find_sframe - the SFrame section of an ELF file
 * @path: the file
 * @buf: set to a copy of the section's bytes (free() it)
 * @size: set to their number
 * @vaddr: set to the section's link-time address
 *
 * The section named .sframe or of type SHT_GNU_SFRAME; with no such
 * section, the PT_GNU_SFRAME segment (which may hold padding after the
 * section: the decoder ignores bytes past the header's end).
 *
 * Return: 0, or -1 with errno (ENOENT: the file has no SFrame; EINVAL: not
 * ELF; the error of open()) and usf_last_error().
 */
int usf_elf_find_sframe(const char *path, void **buf, size_t *size, uint64_t *vaddr)
{
	GElf_Shdr shdr;
	Elf_Data *data;
	Elf_Scn *scn;
	int fd, ret;
	Elf *elf;

	elf = usf_elf_open(path, O_RDONLY, &fd);
	if (!elf)
		return -1;
	scn = usf_elf_scn(elf, &shdr);
	data = scn && shdr.sh_type != SHT_NOBITS ? elf_rawdata(scn, NULL) : NULL;
	if (!scn) {
		ret = usf_elf_segment(elf, path, buf, size, vaddr);
	} else if (!data) {
		ret = usf_error(EINVAL, "%s: .sframe has no bytes in the file", path);
	} else {
		*vaddr = shdr.sh_addr;
		ret = usf_elf_copy_out(data->d_buf, data->d_size, buf, size);
	}
	elf_end(elf);
	close(fd);
	return ret;
}

static int usf_copy_file(const char *in, const char *out)
{
	int ifd, ofd, ret = 0;
	char chunk[65536];
	ssize_t n;

	ifd = usf_file_open(in, O_RDONLY, NULL);
	if (ifd < 0)
		return -1;
	ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (ofd < 0) {
		ret = usf_error(errno, "%s: %m", out);
		close(ifd);
		return ret;
	}
	while ((n = read(ifd, chunk, sizeof(chunk))) > 0) {
		if (write(ofd, chunk, n) != n) {
			ret = usf_error(errno ? errno : EIO, "%s: write: %m", out);
			break;
		}
	}
	if (n < 0)
		ret = usf_error(errno, "%s: read: %m", in);
	if (close(ofd) && !ret)
		ret = usf_error(errno, "%s: %m", out);
	close(ifd);
	return ret;
}

/**
 * usf_elf_replace_sframe - copy an ELF file with new .sframe bytes
 * @in: the ELF file
 * @out: the copy to write
 * @buf: the new section (encoded for the section's address, sh_addr)
 * @size: its size
 *
 * The section keeps its place and size: the new bytes must fit, and the
 * rest of the old section is zeroed.
 *
 * Return: 0, or -1 with errno (ENOSPC: @size is larger than the section;
 * ENOENT: @in has no .sframe section) and usf_last_error().
 */
int usf_elf_replace_sframe(const char *in, const char *out, const void *buf, size_t size)
{
	GElf_Shdr shdr;
	Elf_Data *data;
	Elf_Scn *scn;
	int fd, ret = 0;
	Elf *elf;

	if (usf_copy_file(in, out))
		return -1;
	elf = usf_elf_open(out, O_RDWR, &fd);
	if (!elf)
		return -1;
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	scn = usf_elf_scn(elf, &shdr);
	data = scn && shdr.sh_type != SHT_NOBITS ? elf_getdata(scn, NULL) : NULL;
	if (!data) {
		ret = usf_error(ENOENT, "%s: no .sframe section with bytes to replace", in);
	} else if (size > data->d_size) {
		ret = usf_error(ENOSPC, "%zu bytes do not fit the %zu-byte .sframe of %s", size,
				data->d_size, in);
	} else {
		memcpy(data->d_buf, buf, size);
		memset((char *)data->d_buf + size, 0, data->d_size - size);
		elf_flagdata(data, ELF_C_SET, ELF_F_DIRTY);
		if (elf_update(elf, ELF_C_WRITE) < 0)
			ret = usf_error(EIO, "%s: libelf: %s", out, elf_errmsg(-1));
	}
	elf_end(elf);
	close(fd);
	if (ret)
		unlink(out);
	return ret;
}
