/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The unwind table blob root loads into the kernel: one per ELF file, for
 * the very inode it is loaded with (a descriptor given in the header at the
 * load), shared by every process that maps that file. The build-id names
 * it. The kernel side mirrors this layout; change both together.
 *
 * Layout, little-endian, no padding:
 *
 *   offset size
 *        0    8  magic "USTKSFT1" (a later layout gets a new magic)
 *        8    4  header_size: 56, where the section starts
 *       12    4  flags: 0 as stored; USF_TABLE_F_FILE when written to
 *                the kernel (readers of stored tables reject others)
 *       16    4  build_id_size: 1 to 20
 *       20   20  build_id, zero padded
 *       40    8  sframe_offset: the address the section is encoded for,
 *                in the file-offset address space of the table (the file
 *                size rounded up to 4 KiB, so it never overlaps text);
 *                a multiple of 4096
 *       48    4  sframe_size: bytes of the section, the rest of the blob
 *       52    4  fd: 0 as stored; when written to the kernel, the
 *                writer's descriptor of the file the table is for
 *       56       SFrame V3 section, AMD64, flags FDE_SORTED | PCREL:
 *                function addresses are FILE OFFSETS of the ELF file
 *                (pc - vma start + vma pgoff), every function below
 *                sframe_offset
 *
 * The kernel checks the header, then the section with the rules of its
 * SFrame reader (issue 17) before it uses the table.
 */
#ifndef _USF_TABLE_H
#define _USF_TABLE_H

#include <stdint.h>
#include <sys/types.h>

#include "usf-eh.h"

#ifdef __cplusplus
extern "C" {
#endif

#define USF_TABLE_MAGIC		"USTKSFT1"
#define USF_TABLE_MAGIC_SIZE	8
#define USF_TABLE_BUILD_ID_MAX	20
#define USF_TABLE_ALIGN		4096
/* flags: @fd is the loader's descriptor of the table's file */
#define USF_TABLE_F_FILE	1

/**
 * struct usf_table_header - the blob's header, as stored (little-endian)
 * @magic: USF_TABLE_MAGIC, not NUL terminated
 * @header_size: sizeof(struct usf_table_header)
 * @flags: 0, or USF_TABLE_F_FILE in what is written to the kernel
 * @build_id_size: bytes of @build_id used
 * @build_id: the ELF file's NT_GNU_BUILD_ID, zero padded
 * @sframe_offset: address the section is encoded for
 * @sframe_size: bytes of the section after the header
 * @fd: 0, or with USF_TABLE_F_FILE, a descriptor of the table's file
 */
struct usf_table_header {
	char		magic[USF_TABLE_MAGIC_SIZE];
	uint32_t	header_size;
	uint32_t	flags;
	uint32_t	build_id_size;
	uint8_t		build_id[USF_TABLE_BUILD_ID_MAX];
	uint64_t	sframe_offset;
	uint32_t	sframe_size;
	uint32_t	fd;
};

_Static_assert(sizeof(struct usf_table_header) == 56, "usf_table_header layout");

/**
 * struct usf_table_info - a decoded blob's header fields
 * @build_id: the build-id
 * @build_id_size: its bytes
 * @sframe_offset: where the section is encoded for
 * @sframe_size: bytes of the section
 */
struct usf_table_info {
	uint8_t		build_id[USF_TABLE_BUILD_ID_MAX];
	uint32_t	build_id_size;
	uint64_t	sframe_offset;
	uint32_t	sframe_size;
};

ssize_t usf_table_encode(const struct usf_section *sec, const void *build_id,
			 size_t build_id_size, uint64_t sframe_offset, void *buf, size_t size);
int usf_table_decode(const void *buf, size_t size, struct usf_table_info *info,
		     struct usf_section *sec);
int usf_table_set_file(void *buf, size_t size, int fd);
int usf_table_from_elf(const char *path, unsigned int eh_flags, void **blob, size_t *size,
		       struct usf_eh_stats *stats);
int usf_table_from_fd(const char *name, int fd, unsigned int eh_flags, void **blob,
		      size_t *size, struct usf_eh_stats *stats);
int usf_elf_build_id(const char *path, void *id, size_t size);
int usf_elf_build_id_fd(const char *name, int fd, void *id, size_t size);

/* Who may have written a file a system-wide table is made from (trust.c) */
struct stat;
int usf_table_file_trusted(const struct stat *st, unsigned long fs_type);
int usf_table_id_format(const void *id, size_t size, char *buf, size_t buf_size);

#ifdef __cplusplus
}
#endif

#endif /* _USF_TABLE_H */
