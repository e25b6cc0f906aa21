/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Internals of libtracefs-ext shared between its source files. Nothing here
 * is exported from the shared library: every global helper is __hidden.
 */
#ifndef _USTACK_LOCAL_H
#define _USTACK_LOCAL_H

#include <gelf.h>
#include "ustack.h"

#define __hidden __attribute__((visibility("hidden")))

/* One PT_LOAD segment with file contents: [offset, offset + filesz) at vaddr. */
struct ustack_segment {
	unsigned long long	offset;
	unsigned long long	filesz;
	unsigned long long	vaddr;
	bool			exec;
};

/* An ELF file opened for reading; the fd and Elf handle live until close. */
struct ustack_elf {
	Elf			*elf;
	int			fd;
	size_t			build_id_size;
	unsigned char		build_id[USTACK_BUILD_ID_MAX];
};

/*
 * A code symbol: [addr, addr + size) where size is st_size, or the rest of its
 * section for symbols that have no size. name is an offset in the names of its
 * table; rank only orders symbols that share an address while loading.
 */
struct ustack_sym {
	unsigned long long	addr;
	unsigned long long	size;
	unsigned int		name;
	unsigned int		rank;
};

/* Code symbols sorted by address, one per address. */
struct ustack_symtab {
	struct ustack_sym	*syms;
	size_t			nr;
	char			*names;
};

/*
 * One mapped file as the symbolizer knows it: keyed by path and build-id (as
 * asked for), where its symbols came from, its segments and its symbols.
 * next and hash belong to the symbolizer's cache.
 */
struct ustack_file {
	struct ustack_file	*next;
	unsigned long		hash;
	size_t			build_id_size;
	unsigned char		build_id[USTACK_BUILD_ID_MAX];
	char			*sym_file;	/* NULL when there are no symbols */
	struct ustack_segment	*segs;
	size_t			nr_segs;
	struct ustack_symtab	symtab;
	char			path[];
};

/* ustack-elf.c: reading one ELF file, never trusting its contents */
int ustack_elf_open(struct ustack_elf *e, const char *path) __hidden;
void ustack_elf_close(struct ustack_elf *e) __hidden;
bool ustack_elf_same_build_id(const struct ustack_elf *e, const unsigned char *build_id,
			      size_t build_id_size) __hidden;
int ustack_elf_segments(struct ustack_elf *e, struct ustack_segment **segs, size_t *nr) __hidden;
Elf_Scn *ustack_elf_find_section(struct ustack_elf *e, Elf64_Word type, const char *name) __hidden;
const char *ustack_elf_debuglink(struct ustack_elf *e, unsigned int *crc) __hidden;

/* ustack-symtab.c: code symbols of one symbol table section */
int ustack_symtab_load(struct ustack_symtab *tab, struct ustack_elf *e, Elf64_Word type) __hidden;
void ustack_symtab_free(struct ustack_symtab *tab) __hidden;
const struct ustack_sym *ustack_symtab_find(const struct ustack_symtab *tab,
					    unsigned long long addr) __hidden;

/* ustack-debug-file.c: finding the separate debug file of an ELF file */
int ustack_debug_file_open(const char *debug_dir, const char *path, struct ustack_elf *orig,
			   const unsigned char *build_id, size_t build_id_size,
			   struct ustack_elf *dbg, struct ustack_symtab *tab,
			   char **dbg_path) __hidden;

/* ustack-file.c: reading one mapped file for the symbolizer */
struct ustack_file *ustack_file_read(const char *debug_dir, const char *path,
				     const unsigned char *build_id, size_t build_id_size) __hidden;
void ustack_file_free(struct ustack_file *f) __hidden;
const struct ustack_segment *ustack_file_segment(const struct ustack_file *f,
						 unsigned long long offset) __hidden;

#endif /* _USTACK_LOCAL_H */
