/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Internals of the symbolizer shared between its source files. Nothing here
 * is exported from the shared library: every global helper is __hidden.
 *
 * libdwfl (elfutils) reads the files: one Dwfl with one module per mapped
 * file, reported with the file the symbolizer opened itself (ustack-open.c),
 * and a debug file search of its own (ustack-debug-file.c), so that no path
 * a trace names is ever opened unless it is a regular file.
 */
#ifndef _USTACK_LOCAL_H
#define _USTACK_LOCAL_H

#include <stdint.h>
#include <sys/stat.h>
#include <elfutils/libdwfl.h>
#include "ustack.h"
#include "ustack-hash.h"

#define __hidden __attribute__((visibility("hidden")))

/* What every file of a symbolizer is read with; owned by the symbolizer. */
struct ustack_conf {
	char			*debug_dir;
	char			*sysroot;	/* NULL: paths are this machine's */
	unsigned int		flags;		/* USTACK_SYMBOLIZE_* */
	struct ustack_dbgd	*dbgd;		/* debuginfod, opened on first need */
	bool			dbgd_tried;
	ustack_fetch_func	fetch;		/* told of each debuginfod request */
	void			*fetch_data;
};

/* One PT_LOAD segment with file contents: [offset, offset + filesz) at vaddr. */
struct ustack_segment {
	unsigned long long	offset;
	unsigned long long	filesz;
	unsigned long long	vaddr;
	bool			exec;
};

/* A symbol found at an address: name NULL when there is none. */
struct ustack_sym_info {
	unsigned long long	start;
	const char		*name;		/* demangled, or in the symbol table */
	const char		*file;		/* the file the symbol came from */
};

/* A looked up address of a file, kept for the next lookup of it. */
struct ustack_hit {
	struct ustack_hnode	node;		/* in its file's hits */
	unsigned long long	addr;		/* the address looked up */
	struct ustack_sym_info	sym;		/* owned by the file's symtab */
};

#define USTACK_SYMTAB_ELVES	4

struct ustack_sym;
struct ustack_span;

/*
 * The code symbols of a module, sorted by address (ustack-symtab.c): built
 * on the first lookup; sized ones flattened into disjoint spans, sizeless
 * ones (labels) apart.
 */
struct ustack_symtab {
	struct ustack_sym	*syms;
	size_t			nr_syms;
	struct ustack_span	*spans;
	size_t			nr_spans;
	uint32_t		*labels;	/* indexes into syms */
	size_t			nr_labels;
	struct {
		Elf		*elf;		/* the main file, the debug file, ... */
		GElf_Addr	bias;
		const char	*file;		/* its name, for ustack_symbol.file */
	} elves[USTACK_SYMTAB_ELVES];
	unsigned int		nr_elves;
	bool			built;
};

/*
 * One mapped file as the symbolizer knows it: keyed by path and build-id (as
 * asked for). dwfl is NULL when nothing could be read; segs place file offsets;
 * symtab answers lookups in O(log n), hits keeps each answer by address.
 */
struct ustack_file {
	struct ustack_hnode	node;		/* in the symbolizer's files */
	size_t			build_id_size;
	unsigned char		build_id[USTACK_BUILD_ID_MAX];
	struct ustack_conf	*conf;
	Dwfl			*dwfl;
	Dwfl_Module		*mod;
	char			*opened;	/* the file reported (or its stand-in) */
	struct stat		st;		/* of opened: never its own debug file */
	bool			trusted;	/* opened is the file asked for */
	struct ustack_segment	*segs;
	size_t			nr_segs;
	struct ustack_htable	hits;		/* struct ustack_hit by address */
	struct ustack_symtab	symtab;		/* the code symbols, sorted */
	char			path[];
};

struct ustack_perfmap;

/* The symbolizer: its settings, the files read (a hash table), the perf maps read. */
struct ustack_symbolizer {
	struct ustack_conf	conf;
	struct ustack_htable	files;		/* by path and build-id */
	struct ustack_perfmap	*maps;
	struct ustack_source	*src;		/* what lookup_source() said last */
	size_t			nr_src;
	char			**src_names;	/* its demangled names, nr_src of them */
};

/* ustack-symbolize.c: a file offset as a module address */
int ustack_symbolizer_place(struct ustack_symbolizer *sym, const char *path,
			    const unsigned char *build_id, size_t build_id_size,
			    unsigned long long offset, unsigned int flags,
			    struct ustack_file **file, const struct ustack_segment **seg,
			    unsigned long long *addr) __hidden;

/* ustack-jit.c, ustack-source.c: what they keep in the symbolizer */
void ustack_perfmaps_free(struct ustack_symbolizer *sym) __hidden;
void ustack_source_clear(struct ustack_symbolizer *sym) __hidden;

/* ustack-open.c: opening files a trace names, and the ELF files among them */
int ustack_open_regular(const char *path) __hidden;
Elf *ustack_elf_open(const char *path, int *fd) __hidden;
void ustack_elf_close(Elf *elf, int fd) __hidden;
bool ustack_elf_has_build_id(Elf *elf, const unsigned char *build_id, size_t size) __hidden;
bool ustack_elf_loadable(Elf *elf) __hidden;
char *ustack_sysroot_path(const struct ustack_conf *conf, const char *path) __hidden;

/* ustack-debug-file.c: the find_debuginfo callback of libdwfl; stand-ins */
int ustack_debug_find(Dwfl_Module *mod, void **userdata, const char *modname,
		      Dwarf_Addr base, const char *file_name, const char *link,
		      GElf_Word crc, char **debug_name) __hidden;
Elf *ustack_debug_stand_in(struct ustack_conf *conf, const unsigned char *build_id,
			   size_t size, int *fd, char **name) __hidden;

/* ustack-debuginfod.c: files by build-id from debuginfod servers */
int ustack_dbgd_find(struct ustack_conf *conf, const unsigned char *build_id, size_t size,
		     bool executable, const char *path, char **name) __hidden;
void ustack_dbgd_free(struct ustack_conf *conf) __hidden;

/* ustack-module.c: one mapped file as a Dwfl */
struct ustack_file *ustack_file_read(struct ustack_conf *conf, const char *path,
				     const unsigned char *build_id, size_t build_id_size) __hidden;
void ustack_file_free(struct ustack_file *f) __hidden;
const struct ustack_segment *ustack_file_segment(const struct ustack_file *f,
						 unsigned long long offset) __hidden;
int ustack_file_report(struct ustack_file *f, Elf *elf, int fd, char *name) __hidden;

/* ustack-symtab.c: the code symbols of a file's module, sorted once */
int ustack_symtab_find(struct ustack_file *f, unsigned long long addr,
		       struct ustack_sym_info *found) __hidden;
void ustack_symtab_clear(struct ustack_file *f) __hidden;
bool ustack_sym_is_code(const GElf_Sym *sym, Elf *elf, GElf_Word shndx,
			const char *name) __hidden;

/* ustack-hits.c: symbols of a file by address, kept */
const struct ustack_hit *ustack_file_symbol(struct ustack_file *f,
					    unsigned long long addr) __hidden;
void ustack_hits_init(struct ustack_file *f) __hidden;
void ustack_hits_free(struct ustack_file *f) __hidden;

/* ustack-demangle.c */
char *ustack_demangle(const char *name) __hidden;

/* ustack-vdso.c: the vDSO image a "[vdso]" file entry names */
int ustack_vdso_read(struct ustack_file *f) __hidden;

#endif /* _USTACK_LOCAL_H */
