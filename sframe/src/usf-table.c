// SPDX-License-Identifier: LGPL-2.1
/*
 * The unwind table blob of the kernel (layout in usf-table.h): a header
 * with the build-id, then an SFrame V3 section of the file's functions at
 * their file offsets. Writing it, reading it back with the checks the
 * kernel makes, and making it from an ELF file's CFI.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usf-local.h"
#include "usf-table.h"

#define USF_TABLE_SFRAME_FLAGS	(USF_F_FDE_SORTED | USF_F_PCREL)

/**
 * usf_table_encode - write a table blob
 * @sec: the functions, at file offsets below @sframe_offset
 * @build_id: the ELF file's build-id
 * @build_id_size: its size, 1 to USF_TABLE_BUILD_ID_MAX
 * @sframe_offset: the address the section is encoded for: a multiple of
 *	USF_TABLE_ALIGN at or above the file size
 * @buf: where to write, or NULL to get the size
 * @size: bytes at @buf
 *
 * Return: the size of the blob (written when it fits in @size), or -1
 * with errno and usf_last_error().
 */
ssize_t usf_table_encode(const struct usf_section *sec, const void *build_id,
			 size_t build_id_size, uint64_t sframe_offset, void *buf, size_t size)
{
	struct usf_table_header h = { .header_size = sizeof(h) };
	ssize_t n;
	uint32_t i;

	if (!build_id_size || build_id_size > USF_TABLE_BUILD_ID_MAX)
		return usf_error(EINVAL, "build-id of %zu bytes (1 to %d)", build_id_size,
				 USF_TABLE_BUILD_ID_MAX);
	if (!sframe_offset || sframe_offset % USF_TABLE_ALIGN)
		return usf_error(EINVAL, "section offset %#llx is not a multiple of %d",
				 (unsigned long long)sframe_offset, USF_TABLE_ALIGN);
	if (sec->abi != USF_ABI_AMD64_LE || sec->big_endian)
		return usf_error(EINVAL, "tables are AMD64 little-endian");
	for (i = 0; i < sec->nr_funcs; i++)
		if (sec->funcs[i].start + sec->funcs[i].size > sframe_offset)
			return usf_error(EINVAL, "function %u at %#llx reaches the section at "
					 "%#llx", i, (unsigned long long)sec->funcs[i].start,
					 (unsigned long long)sframe_offset);
	n = usf_section_encode(sec, 3, USF_TABLE_SFRAME_FLAGS, sframe_offset, NULL, 0);
	if (n < 0)
		return -1;
	if (n > UINT32_MAX - (ssize_t)sizeof(h))
		return usf_error(EOVERFLOW, "section of %zd bytes", n);
	if (!buf || size < sizeof(h) + n)
		return sizeof(h) + n;
	memcpy(h.magic, USF_TABLE_MAGIC, USF_TABLE_MAGIC_SIZE);
	h.build_id_size = build_id_size;
	memcpy(h.build_id, build_id, build_id_size);
	h.sframe_offset = sframe_offset;
	h.sframe_size = n;
	/* the fields are stored little-endian: this machine's order (AMD64 only) */
	if (usf_host_big_endian())
		return usf_error(ENOTSUP, "writing tables on a big-endian host");
	memcpy(buf, &h, sizeof(h));
	if (usf_section_encode(sec, 3, USF_TABLE_SFRAME_FLAGS, sframe_offset,
			       (uint8_t *)buf + sizeof(h), n) != n)
		return -1;
	return sizeof(h) + n;
}

static int usf_table_check_section(const uint8_t *raw, const struct usf_section *sec,
				   uint64_t sframe_offset)
{
	uint64_t rows = 0;
	uint32_t i;

	if (sec->version != 3 || sec->flags != USF_TABLE_SFRAME_FLAGS)
		return usf_error(EINVAL, "section: SFrame V%u flags %#x, the kernel wants V3 "
				 "with FDE_SORTED|PCREL (%#x)", sec->version, sec->flags,
				 USF_TABLE_SFRAME_FLAGS);
	if (sec->abi != USF_ABI_AMD64_LE || sec->big_endian)
		return usf_error(EINVAL, "section: ABI %u, not AMD64 little-endian", sec->abi);
	if (raw[USF_H_AUXHDR_LEN])
		return usf_error(EINVAL, "section: auxiliary header of %u bytes",
				 raw[USF_H_AUXHDR_LEN]);
	for (i = 0; i < sec->nr_funcs; i++) {
		const struct usf_func *f = &sec->funcs[i];

		if (f->start + f->size > sframe_offset)
			return usf_error(EINVAL, "section: function %u at %#llx (%u bytes) reaches "
					 "the section at %#llx", i, (unsigned long long)f->start,
					 f->size, (unsigned long long)sframe_offset);
		rows += f->nr_rows;
	}
	if (!sec->nr_funcs || !rows)
		return usf_error(EINVAL, "section: %u functions, %llu rows: nothing to use",
				 sec->nr_funcs, (unsigned long long)rows);
	return 0;
}

/**
 * usf_table_set_file - name the table's file for the kernel
 * @buf: a table blob (its header at least; nothing else is checked)
 * @size: its size
 * @fd: a descriptor of the file the table is for, open in the process
 *	that writes the blob to user_unwind_tables/load
 *
 * The kernel gives the table to mappings of that inode only.
 *
 * Return: 0, or -1 with errno EINVAL when @buf is shorter than a header
 * or @fd is negative.
 */
int usf_table_set_file(void *buf, size_t size, int fd)
{
	struct usf_table_header h;

	if (size < sizeof(h) || fd < 0)
		return usf_error(EINVAL, "%zu bytes, descriptor %d: no table header to set", size,
				 fd);
	memcpy(&h, buf, sizeof(h));
	h.flags = USF_TABLE_F_FILE;
	h.fd = fd;
	memcpy(buf, &h, sizeof(h));
	return 0;
}

/**
 * usf_table_decode - read a table blob with every check the kernel makes
 * @buf: the blob
 * @size: its size
 * @info: its header fields
 * @sec: its section, decoded (usf_section_release() frees it); may be
 *	NULL when only the checks matter
 *
 * Return: 0, or -1 with errno EINVAL and usf_last_error() saying what is
 * wrong.
 */
int usf_table_decode(const void *buf, size_t size, struct usf_table_info *info,
		     struct usf_section *sec)
{
	struct usf_section local, *s = sec ? sec : &local;
	struct usf_table_header h;
	uint32_t i;

	if (size < sizeof(h))
		return usf_error(EINVAL, "%zu bytes: shorter than the %zu-byte header", size,
				 sizeof(h));
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, USF_TABLE_MAGIC, USF_TABLE_MAGIC_SIZE))
		return usf_error(EINVAL, "bad magic (not \"%s\")", USF_TABLE_MAGIC);
	if (h.header_size != sizeof(h))
		return usf_error(EINVAL, "header size %u, not %zu", h.header_size, sizeof(h));
	if (h.flags || h.fd)
		return usf_error(EINVAL, "flags %#x or fd %u in a stored table (both are 0)",
				 h.flags, h.fd);
	if (!h.build_id_size || h.build_id_size > USF_TABLE_BUILD_ID_MAX)
		return usf_error(EINVAL, "build-id size %u (1 to %d)", h.build_id_size,
				 USF_TABLE_BUILD_ID_MAX);
	for (i = h.build_id_size; i < USF_TABLE_BUILD_ID_MAX; i++)
		if (h.build_id[i])
			return usf_error(EINVAL, "build-id padding is not zero");
	if (h.sframe_size != size - sizeof(h))
		return usf_error(EINVAL, "section size %u, but %zu bytes follow the header",
				 h.sframe_size, size - sizeof(h));
	if (!h.sframe_offset || h.sframe_offset % USF_TABLE_ALIGN)
		return usf_error(EINVAL, "section offset %#llx is not a non-zero multiple of %d",
				 (unsigned long long)h.sframe_offset, USF_TABLE_ALIGN);
	if (usf_section_decode((const uint8_t *)buf + sizeof(h), h.sframe_size,
			       h.sframe_offset, s)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", usf_last_error());
		return usf_error(EINVAL, "section: %s", msg);
	}
	if (usf_table_check_section((const uint8_t *)buf + sizeof(h), s, h.sframe_offset)) {
		usf_section_release(s);
		return -1;
	}
	if (!sec)
		usf_section_release(s);
	memcpy(info->build_id, h.build_id, sizeof(h.build_id));
	info->build_id_size = h.build_id_size;
	info->sframe_offset = h.sframe_offset;
	info->sframe_size = h.sframe_size;
	return 0;
}

/**
 * usf_elf_build_id_fd - the NT_GNU_BUILD_ID of an open ELF file
 * @name: the file's name, for messages
 * @fd: the file, open for reading
 * @id: where to copy it
 * @size: bytes at @id
 *
 * Return: the size of the build-id (copied up to @size bytes), 0 when the
 * file has none, or -1 with errno and usf_last_error().
 */
int usf_elf_build_id_fd(const char *name, int fd, void *id, size_t size)
{
	const void *p;
	ssize_t n = -1;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return usf_error(EINVAL, "libelf: %s", elf_errmsg(-1));
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		n = dwelf_elf_gnu_build_id(elf, &p);
	if (n > 0)
		memcpy(id, p, (size_t)n < size ? (size_t)n : size);
	if (elf)
		elf_end(elf);
	if (n < 0)
		return usf_error(EINVAL, "%s: not an ELF file, or a malformed note", name);
	return n;
}

/**
 * usf_elf_build_id - the NT_GNU_BUILD_ID of an ELF file
 * @path: the file (a regular file, see usf_file_open())
 * @id: where to copy it
 * @size: bytes at @id
 *
 * Return: as usf_elf_build_id_fd().
 */
int usf_elf_build_id(const char *path, void *id, size_t size)
{
	int fd, n;

	fd = usf_file_open(path, O_RDONLY, NULL);
	if (fd < 0)
		return -1;
	n = usf_elf_build_id_fd(path, fd, id, size);
	close(fd);
	return n;
}

/**
 * usf_table_from_fd - convert an open ELF file's CFI into a table blob
 * @name: the file's name, for messages
 * @fd: the file, open for reading (a regular file)
 * @eh_flags: usf_eh_convert() flags
 * @blob: the blob, malloc()ed
 * @size: its size
 * @stats: the conversion's statistics, or NULL (see usf_eh_convert())
 *
 * The build-id and the CFI are read from @fd, the file itself, whatever
 * its name points to now. The section is encoded for the file size
 * rounded up to USF_TABLE_ALIGN.
 *
 * Return: 0, or -1 with errno and usf_last_error(): the conversion
 * failed, the file has no build-id (ENOENT) or nothing could be converted.
 */
int usf_table_from_fd(const char *name, int fd, unsigned int eh_flags, void **blob,
		      size_t *size, struct usf_eh_stats *stats)
{
	uint8_t id[USF_TABLE_BUILD_ID_MAX];
	struct usf_eh_stats local, *st = stats ? stats : &local;
	struct usf_section sec;
	uint64_t where;
	ssize_t n;
	int id_size;

	*blob = NULL;
	id_size = usf_elf_build_id_fd(name, fd, id, sizeof(id));
	if (id_size <= 0)
		return id_size ? -1 : usf_error(ENOENT, "%s: no build-id note", name);
	if (id_size > USF_TABLE_BUILD_ID_MAX)
		return usf_error(EINVAL, "%s: build-id of %d bytes", name, id_size);
	if (usf_eh_convert(name, fd, eh_flags, &sec, st))
		return -1;
	if (!stats)
		usf_eh_stats_release(&local);
	where = (st->file_size + USF_TABLE_ALIGN - 1) / USF_TABLE_ALIGN * USF_TABLE_ALIGN;
	if (!where)
		where = USF_TABLE_ALIGN;
	if (!sec.nr_funcs) {
		usf_section_release(&sec);
		return usf_error(ENODATA, "%s: no function could be converted", name);
	}
	n = usf_table_encode(&sec, id, id_size, where, NULL, 0);
	*blob = n > 0 ? malloc(n) : NULL;
	if (n > 0 && (!*blob || usf_table_encode(&sec, id, id_size, where, *blob, n) != n)) {
		if (!*blob)
			usf_error(ENOMEM, "out of memory for %zd bytes", n);
		free(*blob);
		*blob = NULL;
		n = -1;
	}
	usf_section_release(&sec);
	if (n < 0)
		return -1;
	*size = n;
	return 0;
}

/**
 * usf_table_from_elf - convert an ELF file's CFI into a table blob
 * @path: the ELF file (a regular file, see usf_file_open())
 * @eh_flags: usf_eh_convert() flags
 * @blob: the blob, malloc()ed
 * @size: its size
 * @stats: the conversion's statistics, or NULL (see usf_eh_convert())
 *
 * Return: as usf_table_from_fd().
 */
int usf_table_from_elf(const char *path, unsigned int eh_flags, void **blob, size_t *size,
		       struct usf_eh_stats *stats)
{
	int fd, ret;

	*blob = NULL;
	fd = usf_file_open(path, O_RDONLY, NULL);
	if (fd < 0)
		return -1;
	ret = usf_table_from_fd(path, fd, eh_flags, blob, size, stats);
	close(fd);
	return ret;
}

/**
 * usf_table_id_format - a build-id in lower-case hex
 * @id: the build-id
 * @size: its bytes
 * @buf: where to write, NUL terminated
 * @buf_size: bytes at @buf (2 * @size + 1 needed)
 *
 * Return: 0, or -1 with errno ENOSPC.
 */
int usf_table_id_format(const void *id, size_t size, char *buf, size_t buf_size)
{
	const uint8_t *p = id;
	size_t i;

	if (buf_size < 2 * size + 1)
		return usf_error(ENOSPC, "no room for a %zu-byte build-id", size);
	for (i = 0; i < size; i++)
		snprintf(buf + 2 * i, 3, "%02x", p[i]);
	buf[2 * size] = 0;
	return 0;
}
