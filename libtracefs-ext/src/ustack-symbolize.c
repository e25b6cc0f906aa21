// SPDX-License-Identifier: LGPL-2.1
/*
 * The symbolizer: "file offset in a mapped file" to "symbol+offset".
 *
 * Each file is read once (ustack-file.c), the first time it is asked for, and
 * kept in a hash table keyed by path and build-id: its PT_LOAD segments turn
 * a file offset into a link-time address, its sorted code symbols give the
 * symbol. A file that could not be read is cached too, as one without
 * symbols. Nothing reads the traced process, so lookups work after it has
 * exited; only the files named in its maps (or their debug files) must still
 * be there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

#define USTACK_TABLE_MIN	64

struct ustack_symbolizer {
	char			*debug_dir;
	struct ustack_file	**table;	/* table_size chains, a power of two */
	size_t			table_size;
	size_t			nr_files;
};

/* FNV-1a over the path with its NUL, then over the build-id bytes */
static unsigned long ustack_file_hash(const char *path, const unsigned char *build_id,
				      size_t build_id_size)
{
	const unsigned char *p = (const unsigned char *)path;
	unsigned long long h = 0xcbf29ce484222325ULL;
	size_t i;

	do {
		h = (h ^ *p) * 0x100000001b3ULL;
	} while (*p++);
	for (i = 0; i < build_id_size; i++)
		h = (h ^ build_id[i]) * 0x100000001b3ULL;
	return h ^ (h >> 32);
}

static void ustack_cache_flush(struct ustack_symbolizer *sym)
{
	struct ustack_file *f, *next;
	size_t i;

	for (i = 0; i < sym->table_size; i++) {
		for (f = sym->table[i]; f; f = next) {
			next = f->next;
			ustack_file_free(f);
		}
		sym->table[i] = NULL;
	}
	sym->nr_files = 0;
}

static struct ustack_file *ustack_cache_find(struct ustack_symbolizer *sym, unsigned long hash,
					     const char *path, const unsigned char *build_id,
					     size_t build_id_size)
{
	struct ustack_file *f;

	for (f = sym->table[hash & (sym->table_size - 1)]; f; f = f->next) {
		if (f->hash == hash && f->build_id_size == build_id_size &&
		    (!build_id_size || !memcmp(f->build_id, build_id, build_id_size)) &&
		    !strcmp(f->path, path))
			return f;
	}
	return NULL;
}

/* Insert f; the table doubles when it holds as many files as chains. */
static void ustack_cache_add(struct ustack_symbolizer *sym, struct ustack_file *f)
{
	struct ustack_file **table, *g, *next;
	size_t i, size = sym->table_size * 2;

	if (sym->nr_files >= sym->table_size) {
		/* a failed resize only makes the chains longer */
		table = calloc(size, sizeof(*table));
		if (table) {
			for (i = 0; i < sym->table_size; i++) {
				for (g = sym->table[i]; g; g = next) {
					next = g->next;
					g->next = table[g->hash & (size - 1)];
					table[g->hash & (size - 1)] = g;
				}
			}
			free(sym->table);
			sym->table = table;
			sym->table_size = size;
		}
	}
	i = f->hash & (sym->table_size - 1);
	f->next = sym->table[i];
	sym->table[i] = f;
	sym->nr_files++;
}

static struct ustack_file *ustack_file_get(struct ustack_symbolizer *sym, const char *path,
					   const unsigned char *build_id, size_t build_id_size)
{
	unsigned long hash = ustack_file_hash(path, build_id, build_id_size);
	struct ustack_file *f;

	f = ustack_cache_find(sym, hash, path, build_id, build_id_size);
	if (f)
		return f;

	f = ustack_file_read(sym->debug_dir, path, build_id, build_id_size);
	if (!f)
		return NULL;
	f->hash = hash;
	ustack_cache_add(sym, f);
	return f;
}

/**
 * ustack_symbolizer_alloc - allocate a symbolizer
 *
 * The symbolizer looks up symbols in files by path and caches what it read.
 * Separate debug files are looked for under USTACK_DEBUG_DIR
 * ("/usr/lib/debug") until ustack_symbolizer_set_debug_dir() says otherwise.
 * A symbolizer is not thread safe: use one per thread.
 *
 * Return: the symbolizer, to be freed with ustack_symbolizer_free(); NULL with
 * errno ENOMEM on failure.
 */
struct ustack_symbolizer *ustack_symbolizer_alloc(void)
{
	struct ustack_symbolizer *sym;

	/* libelf wants to know the ELF version we speak before anything else */
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOTSUP;
		return NULL;
	}

	sym = calloc(1, sizeof(*sym));
	if (!sym)
		return NULL;
	sym->debug_dir = strdup(USTACK_DEBUG_DIR);
	sym->table = calloc(USTACK_TABLE_MIN, sizeof(*sym->table));
	if (!sym->debug_dir || !sym->table) {
		free(sym->debug_dir);
		free(sym->table);
		free(sym);
		errno = ENOMEM;
		return NULL;
	}
	sym->table_size = USTACK_TABLE_MIN;
	return sym;
}

/**
 * ustack_symbolizer_free - free a symbolizer and everything it cached
 * @sym: the symbolizer; NULL is allowed
 *
 * The strings of every struct ustack_symbol it filled in go with it.
 */
void ustack_symbolizer_free(struct ustack_symbolizer *sym)
{
	if (!sym)
		return;
	ustack_cache_flush(sym);
	free(sym->table);
	free(sym->debug_dir);
	free(sym);
}

/**
 * ustack_symbolizer_set_debug_dir - set where separate debug files are looked for
 * @sym: the symbolizer
 * @dir: the debug file root, like "/usr/lib/debug"; NULL for that default
 *
 * Debug files are looked for as @dir/.build-id/xx/yyyy.debug and, for debug
 * links, as @dir/<directory of the file>/<link>. The cache is emptied, since
 * what was read depends on @dir: the strings of struct ustack_symbol filled in
 * before become invalid.
 *
 * Return: 0 on success; -1 with errno EINVAL (@sym NULL or @dir empty) or
 * ENOMEM, the old directory and cache being kept.
 */
int ustack_symbolizer_set_debug_dir(struct ustack_symbolizer *sym, const char *dir)
{
	char *copy;

	if (!dir)
		dir = USTACK_DEBUG_DIR;
	if (!sym || !*dir) {
		errno = EINVAL;
		return -1;
	}
	copy = strdup(dir);
	if (!copy)
		return -1;

	ustack_cache_flush(sym);
	free(sym->debug_dir);
	sym->debug_dir = copy;
	return 0;
}

/**
 * ustack_symbolizer_get_debug_dir - where separate debug files are looked for
 * @sym: the symbolizer
 *
 * Return: the debug file root (valid until it is changed or @sym is freed);
 * NULL with errno EINVAL when @sym is NULL.
 */
const char *ustack_symbolizer_get_debug_dir(struct ustack_symbolizer *sym)
{
	if (!sym) {
		errno = EINVAL;
		return NULL;
	}
	return sym->debug_dir;
}

/**
 * ustack_symbolizer_lookup - find the symbol at an offset in a mapped file
 * @sym: the symbolizer
 * @path: the file as /proc/PID/maps shows it (a " (deleted)" suffix is
 *	dropped when the name with it does not exist)
 * @build_id: the file's build-id, or NULL when not known
 * @build_id_size: the number of bytes in @build_id; 0 when not known
 * @offset: the offset in the file: ip - vma_start + vm_pgoff * page_size, as
 *	the kernel records for a user stack frame
 * @flags: 0, or USTACK_LOOKUP_RETURN when @offset is a return address (any
 *	frame of a stack but the innermost)
 * @symbol: filled in with the result
 *
 * The offset is turned into a link-time address through the file's PT_LOAD
 * program headers and looked up in its .symtab; when the file has none (it
 * was stripped), in the .symtab of its separate debug file (see
 * ustack_symbolizer_set_debug_dir()); else in its .dynsym. The containing
 * symbol is taken, or the nearest one below for symbols without a size.
 *
 * With USTACK_LOOKUP_RETURN the segment and the symbol are those of @offset
 * - 1, the last byte of the call (as debuggers do): a call to a function that
 * never returns can end its function, and its return address is then the
 * first byte of the next function, or padding. @symbol->addr and
 * @symbol->sym_offset are still those of @offset itself, so that name +
 * sym_offset is the address recorded.
 *
 * When @build_id is given and the file on disk does not carry it (it was
 * replaced, or is gone), the file is not trusted: only the debug file with
 * that build-id is used, and only when it has the segment contents of the
 * original (an unstripped copy). A debug file from objcopy --only-keep-debug
 * lost the file layout, so offsets in such a file stay unresolved.
 *
 * A file is read once; later lookups in it are a binary search. A missing,
 * unreadable or corrupt file, an offset in no segment and an address in no
 * symbol are not errors: @symbol->resolved is then false, and @symbol->path
 * and @symbol->file_offset say what to print instead.
 *
 * Return: 0 on success (resolved or not); -1 with errno EINVAL (@sym, @path
 * or @symbol NULL, @build_id NULL with a size, a size above
 * USTACK_BUILD_ID_MAX, or an unknown flag) or ENOMEM.
 */
int ustack_symbolizer_lookup(struct ustack_symbolizer *sym, const char *path,
			     const unsigned char *build_id, size_t build_id_size,
			     unsigned long long offset, unsigned int flags,
			     struct ustack_symbol *symbol)
{
	const struct ustack_segment *seg;
	unsigned long long look, addr;
	const struct ustack_sym *s;
	struct ustack_file *f;

	if (!sym || !path || !symbol || (build_id_size && !build_id) ||
	    build_id_size > USTACK_BUILD_ID_MAX || (flags & ~USTACK_LOOKUP_RETURN)) {
		errno = EINVAL;
		return -1;
	}

	f = ustack_file_get(sym, path, build_id, build_id_size);
	if (!f)
		return -1;

	memset(symbol, 0, sizeof(*symbol));
	symbol->path = f->path;
	symbol->file_offset = offset;

	/* a return address of 0 follows no call */
	if ((flags & USTACK_LOOKUP_RETURN) && !offset)
		return 0;
	look = flags & USTACK_LOOKUP_RETURN ? offset - 1 : offset;
	seg = ustack_file_segment(f, look);
	if (!seg)
		return 0;
	addr = look - seg->offset + seg->vaddr;
	symbol->addr = addr + (offset - look);

	/* a symbol never reaches into the next segment, whatever its section says */
	s = ustack_symtab_find(&f->symtab, addr);
	if (!s || s->addr < seg->vaddr)
		return 0;
	symbol->file = f->sym_file;
	symbol->name = f->symtab.names + s->name;
	symbol->sym_offset = symbol->addr - s->addr;
	symbol->resolved = true;
	return 0;
}

/**
 * ustack_symbol_format - print a looked up frame as text
 * @symbol: filled in by ustack_symbolizer_lookup()
 * @buf: where to print; may be NULL when @size is 0
 * @size: the size of @buf
 *
 * A resolved frame prints as "name+0x1a (/path/to/file)", an unresolved one
 * as "[unknown] (/path/to/file+0x1234)" with the file offset. Like
 * snprintf(), the output is cut to fit @size (and ends with a NUL when @size
 * is not 0); a return value of @size or more means it was cut.
 *
 * Return: the length of the whole text, without the NUL; -1 with errno EINVAL
 * when @symbol or its path is NULL, or @buf is NULL with a @size.
 */
int ustack_symbol_format(const struct ustack_symbol *symbol, char *buf, size_t size)
{
	if (!symbol || !symbol->path || (!buf && size)) {
		errno = EINVAL;
		return -1;
	}
	if (symbol->resolved)
		return snprintf(buf, size, "%s+0x%llx (%s)", symbol->name, symbol->sym_offset,
				symbol->path);
	return snprintf(buf, size, "[unknown] (%s+0x%llx)", symbol->path, symbol->file_offset);
}
