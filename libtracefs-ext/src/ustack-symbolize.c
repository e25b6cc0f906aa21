// SPDX-License-Identifier: LGPL-2.1
/*
 * The symbolizer: "file offset in a mapped file" to "symbol+offset".
 *
 * Each file is read once, the first time it is asked for, and kept in a cache
 * keyed by path and build-id: its PT_LOAD segments (to turn a file offset into
 * a link-time address) and its sorted code symbols (to find the symbol). A
 * file that could not be read is cached too, as one with no symbols. Nothing
 * reads the traced process, so lookups work after it has exited; only the
 * files named in its maps must still be there (or their debug files).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

#define USTACK_DELETED		" (deleted)"
#define USTACK_TABLE_MIN	64

/* One cached file. */
struct ustack_file {
	struct ustack_file	*next;		/* hash chain */
	unsigned long		hash;
	size_t			build_id_size;
	unsigned char		build_id[USTACK_BUILD_ID_MAX];
	char			*sym_file;	/* where the symbols came from; NULL if none */
	struct ustack_segment	*segs;
	size_t			nr_segs;
	struct ustack_symtab	symtab;
	char			path[];
};

struct ustack_symbolizer {
	char			*debug_dir;
	struct ustack_file	**table;	/* table_size chains, a power of two */
	size_t			table_size;
	size_t			nr_files;
};

/* FNV-1a over the path, its NUL and the build-id: absent and empty differ from none */
static unsigned long ustack_file_hash(const char *path, const unsigned char *build_id,
				      size_t build_id_size)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	const unsigned char *p = (const unsigned char *)path;
	size_t i;

	do {
		h = (h ^ *p) * 0x100000001b3ULL;
	} while (*p++);
	for (i = 0; i < build_id_size; i++)
		h = (h ^ build_id[i]) * 0x100000001b3ULL;
	return h ^ (h >> 32);
}

static void ustack_file_free(struct ustack_file *f)
{
	ustack_symtab_free(&f->symtab);
	free(f->segs);
	free(f->sym_file);
	free(f);
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
		    !memcmp(f->build_id, build_id, build_id_size) && !strcmp(f->path, path))
			return f;
	}
	return NULL;
}

/* Insert f; the table doubles when it holds as many files as chains. */
static void ustack_cache_add(struct ustack_symbolizer *sym, struct ustack_file *f)
{
	size_t i, size = sym->table_size * 2;
	struct ustack_file **table, *g, *next;

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

/*
 * Open the file a maps line names. A file deleted while mapped shows as
 * "path (deleted)": when that name does not exist, try the path without the
 * suffix (a build-id, when given, tells whether it is still the same file).
 */
static int ustack_file_open(struct ustack_elf *e, const char *path, char **opened)
{
	size_t len = strlen(path), slen = strlen(USTACK_DELETED);
	char *name;

	if (!ustack_elf_open(e, path)) {
		*opened = strdup(path);
		goto out;
	}
	if (errno != ENOENT || len <= slen || strcmp(path + len - slen, USTACK_DELETED))
		return -1;

	name = strndup(path, len - slen);
	if (!name)
		return -1;
	if (ustack_elf_open(e, name)) {
		free(name);
		return -1;
	}
	*opened = name;
out:
	if (!*opened) {
		ustack_elf_close(e);
		return -1;
	}
	return 0;
}

/*
 * Symbols of a file that is there and trusted: its own .symtab, else the
 * separate debug file's, else its .dynsym. Segments always come from the file.
 */
static int ustack_file_load_trusted(struct ustack_symbolizer *sym, struct ustack_file *f,
				    struct ustack_elf *e, char *opened)
{
	const unsigned char *build_id = f->build_id;
	size_t build_id_size = f->build_id_size;
	struct ustack_elf dbg;

	if (ustack_elf_segments(e, &f->segs, &f->nr_segs))
		return -1;

	if (ustack_symtab_load(&f->symtab, e, SHT_SYMTAB))
		return -1;
	if (f->symtab.nr)
		goto found;

	if (!build_id_size) {
		build_id = e->build_id;
		build_id_size = e->build_id_size;
	}
	if (!ustack_debug_file_open(sym->debug_dir, opened, e, build_id, build_id_size,
				    &dbg, &f->symtab, &f->sym_file)) {
		ustack_elf_close(&dbg);
		return 0;
	}
	if (errno == ENOMEM)
		return -1;

	if (ustack_symtab_load(&f->symtab, e, SHT_DYNSYM))
		return -1;
	if (!f->symtab.nr)
		return 0;
found:
	f->sym_file = strdup(opened);
	return f->sym_file ? 0 : -1;
}

/*
 * The file is missing, not ELF, or has another build-id than the one asked
 * for: only the debug file with that build-id can stand in for it, and only
 * when it has the original's segments with their contents (an unstripped
 * copy). A debug file from objcopy --only-keep-debug has no segment contents,
 * so the file offsets cannot be placed and stay unresolved.
 */
static int ustack_file_load_untrusted(struct ustack_symbolizer *sym, struct ustack_file *f)
{
	struct ustack_elf dbg;
	int ret;

	if (!f->build_id_size)
		return 0;
	if (ustack_debug_file_open(sym->debug_dir, f->path, NULL, f->build_id,
				   f->build_id_size, &dbg, &f->symtab, &f->sym_file))
		return errno == ENOMEM ? -1 : 0;

	ret = ustack_elf_segments(&dbg, &f->segs, &f->nr_segs);
	ustack_elf_close(&dbg);
	return ret;
}

/* Read the file of a new cache entry. Return -1 only when memory ran out. */
static int ustack_file_load(struct ustack_symbolizer *sym, struct ustack_file *f)
{
	char *opened = NULL;
	struct ustack_elf e;
	int ret;

	if (ustack_file_open(&e, f->path, &opened))
		return errno == ENOMEM ? -1 : ustack_file_load_untrusted(sym, f);

	if (f->build_id_size && !ustack_elf_same_build_id(&e, f->build_id, f->build_id_size)) {
		ustack_elf_close(&e);
		free(opened);
		return ustack_file_load_untrusted(sym, f);
	}

	ret = ustack_file_load_trusted(sym, f, &e, opened);
	ustack_elf_close(&e);
	free(opened);
	return ret;
}

static struct ustack_file *ustack_file_get(struct ustack_symbolizer *sym, const char *path,
					   const unsigned char *build_id, size_t build_id_size)
{
	unsigned long hash = ustack_file_hash(path, build_id, build_id_size);
	size_t len = strlen(path);
	struct ustack_file *f;

	f = ustack_cache_find(sym, hash, path, build_id, build_id_size);
	if (f)
		return f;

	f = calloc(1, sizeof(*f) + len + 1);
	if (!f)
		return NULL;
	memcpy(f->path, path, len + 1);
	memcpy(f->build_id, build_id, build_id_size);
	f->build_id_size = build_id_size;
	f->hash = hash;

	if (ustack_file_load(sym, f)) {
		ustack_file_free(f);
		errno = ENOMEM;
		return NULL;
	}
	ustack_cache_add(sym, f);
	return f;
}

/* The segment holding a file offset; code segments first, should two overlap. */
static const struct ustack_segment *ustack_file_segment(const struct ustack_file *f,
							unsigned long long offset)
{
	const struct ustack_segment *found = NULL;
	size_t i;

	for (i = 0; i < f->nr_segs; i++) {
		const struct ustack_segment *s = &f->segs[i];

		if (offset < s->offset || offset - s->offset >= s->filesz)
			continue;
		if (s->exec)
			return s;
		if (!found)
			found = s;
	}
	return found;
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
		errno = ENOSYS;
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
 * @symbol: filled in with the result
 *
 * The offset is turned into a link-time address through the file's PT_LOAD
 * program headers and looked up in its .symtab; when the file has none (it
 * was stripped), in the .symtab of its separate debug file (see
 * ustack_symbolizer_set_debug_dir()); else in its .dynsym. The containing
 * symbol is taken, or the nearest one below for symbols without a size.
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
 * or @symbol NULL, @build_id NULL with a size, or a size above
 * USTACK_BUILD_ID_MAX) or ENOMEM.
 */
int ustack_symbolizer_lookup(struct ustack_symbolizer *sym, const char *path,
			     const unsigned char *build_id, size_t build_id_size,
			     unsigned long long offset, struct ustack_symbol *symbol)
{
	const struct ustack_segment *seg;
	const struct ustack_sym *s;
	struct ustack_file *f;

	if (!sym || !path || !symbol || (build_id_size && !build_id) ||
	    build_id_size > USTACK_BUILD_ID_MAX) {
		errno = EINVAL;
		return -1;
	}

	f = ustack_file_get(sym, path, build_id, build_id_size);
	if (!f)
		return -1;

	memset(symbol, 0, sizeof(*symbol));
	symbol->path = f->path;
	symbol->file_offset = offset;

	seg = ustack_file_segment(f, offset);
	if (!seg)
		return 0;
	symbol->addr = offset - seg->offset + seg->vaddr;

	s = ustack_symtab_find(&f->symtab, symbol->addr);
	if (!s)
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
