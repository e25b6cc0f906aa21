/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libtracefs-ext: user-space stack helpers for ftrace.
 *
 * The symbolizer turns "offset into a mapped file" (what the kernel records
 * for a deferred user stack frame) into "symbol+offset" by reading the file,
 * or its separate debug file, by path. Every function is documented where it
 * is defined; Documentation/ustack-symbolizer.3 is the man page.
 */
#ifndef _USTACK_H
#define _USTACK_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest build-id a lookup accepts (GNU build-ids are 20 bytes). */
#define USTACK_BUILD_ID_MAX	64

/* Debug file root used until ustack_symbolizer_set_debug_dir() changes it. */
#define USTACK_DEBUG_DIR	"/usr/lib/debug"

struct ustack_symbolizer;

/**
 * struct ustack_symbol - what one file offset resolved to
 * @path: the mapped file as asked for (the symbolizer's copy)
 * @file: the file the symbol was read from: @path, or its separate debug file;
 *	NULL when unresolved
 * @name: the symbol containing the offset; NULL when unresolved
 * @file_offset: the offset asked for
 * @addr: the link-time virtual address of @file_offset; 0 when the offset is in
 *	no loadable segment
 * @sym_offset: @addr minus the start of @name
 * @resolved: true when @name and @file are set
 *
 * The strings belong to the symbolizer and stay valid until it is freed or
 * its debug directory is changed.
 */
struct ustack_symbol {
	const char		*path;
	const char		*file;
	const char		*name;
	unsigned long long	file_offset;
	unsigned long long	addr;
	unsigned long long	sym_offset;
	bool			resolved;
};

/* ustack-symbolize.c */
struct ustack_symbolizer *ustack_symbolizer_alloc(void);
void ustack_symbolizer_free(struct ustack_symbolizer *sym);
int ustack_symbolizer_set_debug_dir(struct ustack_symbolizer *sym, const char *dir);
const char *ustack_symbolizer_get_debug_dir(struct ustack_symbolizer *sym);
int ustack_symbolizer_lookup(struct ustack_symbolizer *sym, const char *path,
			     const unsigned char *build_id, size_t build_id_size,
			     unsigned long long offset, struct ustack_symbol *symbol);
int ustack_symbol_format(const struct ustack_symbol *symbol, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* _USTACK_H */
