// SPDX-License-Identifier: LGPL-2.1
/*
 * The symbolizer: its settings, and the files it read.
 *
 * Each file is read once (ustack-module.c), the first time it is asked for,
 * and kept in a hash table (ustack-hash.c) keyed by path and build-id, with
 * its Dwfl and the answers given for it (ustack-hits.c). A file that could
 * not be read is cached too, as one without symbols. Nothing reads the
 * traced process, so lookups work after it has exited; only the files named
 * in its maps (or their debug files) must still be there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

#define USTACK_TABLE_MIN	64
#define USTACK_FLAGS_ALL	(USTACK_SYMBOLIZE_SRCLINE | USTACK_SYMBOLIZE_INLINES | \
				 USTACK_SYMBOLIZE_MANGLED)

/* FNV-1a over the path with its NUL, then over the build-id bytes */
static unsigned long long ustack_file_hash(const char *path, const unsigned char *build_id,
					   size_t build_id_size)
{
	unsigned long long h = ustack_hash_bytes(USTACK_HASH_START, path, strlen(path) + 1);

	h = ustack_hash_bytes(h, build_id, build_id_size);
	return h ^ (h >> 32);
}

/* Forget every file, and what was said of them. */
static void ustack_cache_flush(struct ustack_symbolizer *sym)
{
	struct ustack_hnode *n, *next;

	ustack_source_clear(sym);
	for (n = ustack_htable_take_all(&sym->files); n; n = next) {
		next = n->next;
		ustack_file_free(ustack_hnode_entry(n, struct ustack_file, node));
	}
}

static struct ustack_file *ustack_cache_find(struct ustack_symbolizer *sym,
					     unsigned long long hash, const char *path,
					     const unsigned char *build_id, size_t build_id_size)
{
	struct ustack_hnode *n;
	struct ustack_file *f;

	for (n = ustack_htable_chain(&sym->files, hash); n; n = n->next) {
		f = ustack_hnode_entry(n, struct ustack_file, node);
		if (n->hash == hash && f->build_id_size == build_id_size &&
		    (!build_id_size || !memcmp(f->build_id, build_id, build_id_size)) &&
		    !strcmp(f->path, path))
			return f;
	}
	return NULL;
}

static struct ustack_file *ustack_file_get(struct ustack_symbolizer *sym, const char *path,
					   const unsigned char *build_id, size_t build_id_size)
{
	unsigned long long hash = ustack_file_hash(path, build_id, build_id_size);
	struct ustack_file *f;

	f = ustack_cache_find(sym, hash, path, build_id, build_id_size);
	if (f)
		return f;

	f = ustack_file_read(&sym->conf, path, build_id, build_id_size);
	if (!f)
		return NULL;
	f->node.hash = hash;
	if (ustack_htable_add(&sym->files, &f->node)) {
		ustack_file_free(f);
		errno = ENOMEM;
		return NULL;
	}
	return f;
}

/**
 * ustack_symbolizer_place - the file of a lookup, and the address of its offset
 * @sym: the symbolizer
 * @path: the file as the trace names it
 * @build_id: its build-id, or NULL
 * @build_id_size: the size of @build_id; 0 when there is none
 * @offset: the offset in the file
 * @flags: USTACK_LOOKUP_RETURN: the byte before @offset is placed
 * @file: set to the file (read if it was not yet)
 * @seg: set to the segment holding the offset placed
 * @addr: set to the link-time address of the offset placed
 *
 * Return: 1 when the offset is in a segment of a file libdwfl reads; 0 when
 * not (only @file is set); -1 with errno EINVAL (bad arguments, as for
 * ustack_symbolizer_lookup()) or ENOMEM.
 */
int ustack_symbolizer_place(struct ustack_symbolizer *sym, const char *path,
			    const unsigned char *build_id, size_t build_id_size,
			    unsigned long long offset, unsigned int flags,
			    struct ustack_file **file, const struct ustack_segment **seg,
			    unsigned long long *addr)
{
	if (!sym || !path || (build_id_size && !build_id) ||
	    build_id_size > USTACK_BUILD_ID_MAX || (flags & ~USTACK_LOOKUP_RETURN)) {
		errno = EINVAL;
		return -1;
	}
	*file = ustack_file_get(sym, path, build_id, build_id_size);
	if (!*file)
		return -1;
	/* a return address of 0 follows no call */
	if ((flags & USTACK_LOOKUP_RETURN) && !offset)
		return 0;
	if (flags & USTACK_LOOKUP_RETURN)
		offset--;
	*seg = ustack_file_segment(*file, offset);
	if (!*seg || !(*file)->mod)
		return 0;
	*addr = offset - (*seg)->offset + (*seg)->vaddr;
	return 1;
}

/**
 * ustack_symbolizer_alloc - allocate a symbolizer
 *
 * The symbolizer looks up symbols in files by path and caches what it read.
 * Separate debug files are looked for under USTACK_DEBUG_DIR
 * ("/usr/lib/debug"), after the directories ustack_symbolizer_set_debug_dir()
 * adds (ustack_symbolizer_set_debug_path() can leave it out),
 * and on the debuginfod servers DEBUGINFOD_URLS names, if any. A symbolizer
 * is not thread safe: use one per thread.
 *
 * Return: the symbolizer, to be freed with ustack_symbolizer_free(); NULL with
 * errno ENOMEM (or ENOTSUP when libelf is unusable) on failure.
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
	sym->conf.debug_dir = strdup(USTACK_DEBUG_DIR);
	if (!sym->conf.debug_dir) {
		free(sym);
		errno = ENOMEM;
		return NULL;
	}
	ustack_htable_init(&sym->files, USTACK_TABLE_MIN);
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
	ustack_perfmaps_free(sym);
	ustack_dbgd_free(&sym->conf);
	ustack_htable_release(&sym->files);
	free(sym->conf.debug_dir);
	free(sym->conf.sysroot);
	free(sym);
}

/*
 * Replace a setting string: NULL copies to NULL. The cache is emptied, since
 * what was read depends on it. Return -1 with errno ENOMEM, keeping the old.
 */
static int ustack_conf_set(struct ustack_symbolizer *sym, char **field, const char *value)
{
	char *copy = NULL;

	if (value) {
		copy = strdup(value);
		if (!copy)
			return -1;
	}
	ustack_cache_flush(sym);
	ustack_perfmaps_free(sym);
	free(*field);
	*field = copy;
	return 0;
}

/* Is @dir one of the directories of the colon-separated @list? */
static bool ustack_dir_listed(const char *list, const char *dir)
{
	size_t len = strlen(dir), n;

	for (; *list; list += n + (list[n] == ':')) {
		n = strcspn(list, ":");
		if (n == len && !strncmp(list, dir, len))
			return true;
	}
	return false;
}

/**
 * ustack_symbolizer_set_debug_dir - add directories where separate debug files are
 * @sym: the symbolizer
 * @dirs: debug file roots, separated by ':' like libdwfl's debuginfo_path
 *	("mydebug" or "a:b"); NULL for USTACK_DEBUG_DIR alone
 *
 * Debug files are looked for as DIR/.build-id/xx/yyyy.debug and, for debug
 * links, as DIR/<directory of the file>/<link>, in each directory of @dirs
 * in order, then in USTACK_DEBUG_DIR ("/usr/lib/debug"): @dirs comes before
 * the default, it does not replace it. When @dirs names USTACK_DEBUG_DIR
 * itself, it is searched where @dirs puts it and not again. A call replaces
 * what an earlier one added. ustack_symbolizer_set_debug_path() sets the
 * whole list, without the default.
 *
 * The directories are of this machine, not under the sysroot (add
 * SYSROOT/usr/lib/debug for the debug files of the traced machine). The
 * cache is emptied, since what was read depends on them: the strings of
 * struct ustack_symbol filled in before become invalid.
 *
 * Return: 0 on success; -1 with errno EINVAL (@sym NULL or @dirs empty) or
 * ENOMEM, the old directories and cache being kept.
 */
int ustack_symbolizer_set_debug_dir(struct ustack_symbolizer *sym, const char *dirs)
{
	char *list;
	int ret;

	if (!dirs)
		dirs = USTACK_DEBUG_DIR;
	if (!sym || !*dirs) {
		errno = EINVAL;
		return -1;
	}
	if (ustack_dir_listed(dirs, USTACK_DEBUG_DIR))
		return ustack_conf_set(sym, &sym->conf.debug_dir, dirs);
	if (asprintf(&list, "%s:%s", dirs, USTACK_DEBUG_DIR) < 0)
		return -1;
	ret = ustack_conf_set(sym, &sym->conf.debug_dir, list);
	free(list);
	return ret;
}

/**
 * ustack_symbolizer_set_debug_path - set every directory where separate debug files are
 * @sym: the symbolizer
 * @path: debug file roots separated by ':', searched in order and nothing
 *	else: USTACK_DEBUG_DIR only if @path names it; "" for none (debuginfod
 *	servers only); NULL for USTACK_DEBUG_DIR alone
 *
 * As ustack_symbolizer_set_debug_dir(), but the default is not added.
 *
 * Return: 0 on success; -1 with errno EINVAL (@sym NULL) or ENOMEM, the old
 * directories and cache being kept.
 */
int ustack_symbolizer_set_debug_path(struct ustack_symbolizer *sym, const char *path)
{
	if (!sym) {
		errno = EINVAL;
		return -1;
	}
	return ustack_conf_set(sym, &sym->conf.debug_dir, path ? path : USTACK_DEBUG_DIR);
}

/**
 * ustack_symbolizer_set_fetch_callback - be told of each debuginfod request
 * @sym: the symbolizer
 * @fetch: called before the symbolizer asks the servers of DEBUGINFOD_URLS
 *	for a file, which can take long; NULL for none (the default)
 * @data: passed to @fetch
 *
 * The library itself never prints: a tool that wants to say what it waits
 * for ("fetching ... from debuginfod") does it in @fetch. A build-id the
 * servers failed on is not asked for again by @sym, so @fetch is called at
 * most once per build-id that is not found, and once per file that is.
 *
 * Return: 0 on success; -1 with errno EINVAL when @sym is NULL.
 */
int ustack_symbolizer_set_fetch_callback(struct ustack_symbolizer *sym, ustack_fetch_func fetch,
					 void *data)
{
	if (!sym) {
		errno = EINVAL;
		return -1;
	}
	sym->conf.fetch = fetch;
	sym->conf.fetch_data = data;
	return 0;
}

/**
 * ustack_symbolizer_get_debug_dir - where separate debug files are looked for
 * @sym: the symbolizer
 *
 * Return: the directories searched, in order, separated by ':' (valid until
 * they are changed or @sym is freed), USTACK_DEBUG_DIR included when it is;
 * NULL with errno EINVAL when @sym is NULL.
 */
const char *ustack_symbolizer_get_debug_dir(struct ustack_symbolizer *sym)
{
	if (!sym) {
		errno = EINVAL;
		return NULL;
	}
	return sym->conf.debug_dir;
}

/**
 * ustack_symbolizer_set_sysroot - look the files of a trace up under a directory
 * @sym: the symbolizer
 * @dir: the root of the traced machine's files (a copy, or a container's
 *	root); NULL or "/" for none
 *
 * Like perf's --symfs: a file the trace names as /usr/lib/libc.so.6 is read
 * as @dir/usr/lib/libc.so.6, and the perf maps of JIT code as
 * @dir/tmp/perf-PID.map. The cache is emptied, as by
 * ustack_symbolizer_set_debug_dir().
 *
 * Return: 0 on success; -1 with errno EINVAL (@sym NULL or @dir empty) or
 * ENOMEM, the old sysroot and cache being kept.
 */
int ustack_symbolizer_set_sysroot(struct ustack_symbolizer *sym, const char *dir)
{
	if (!sym || (dir && !*dir)) {
		errno = EINVAL;
		return -1;
	}
	if (dir && !strcmp(dir, "/"))
		dir = NULL;
	return ustack_conf_set(sym, &sym->conf.sysroot, dir);
}

/**
 * ustack_symbolizer_get_sysroot - the directory files are looked up under
 * @sym: the symbolizer
 *
 * Return: the sysroot (valid until it is changed or @sym is freed); NULL when
 * there is none, or with errno EINVAL when @sym is NULL.
 */
const char *ustack_symbolizer_get_sysroot(struct ustack_symbolizer *sym)
{
	if (!sym) {
		errno = EINVAL;
		return NULL;
	}
	return sym->conf.sysroot;
}

/**
 * ustack_symbolizer_set_flags - choose what lookups and formats give
 * @sym: the symbolizer
 * @flags: USTACK_SYMBOLIZE_* bits: SRCLINE, the source file and line of a
 *	frame; INLINES, the functions inlined at a frame as frames of their
 *	own; MANGLED, symbol names as in the symbol table (C++ and Rust names
 *	are demangled otherwise)
 *
 * The cache is emptied when MANGLED changes, as by
 * ustack_symbolizer_set_debug_dir().
 *
 * Return: 0 on success; -1 with errno EINVAL (@sym NULL or an unknown flag).
 */
int ustack_symbolizer_set_flags(struct ustack_symbolizer *sym, unsigned int flags)
{
	if (!sym || (flags & ~USTACK_FLAGS_ALL)) {
		errno = EINVAL;
		return -1;
	}
	if ((flags ^ sym->conf.flags) & USTACK_SYMBOLIZE_MANGLED)
		ustack_cache_flush(sym);
	sym->conf.flags = flags;
	return 0;
}

/**
 * ustack_symbolizer_get_flags - what lookups and formats give
 * @sym: the symbolizer
 *
 * Return: the USTACK_SYMBOLIZE_* flags; 0 when @sym is NULL.
 */
unsigned int ustack_symbolizer_get_flags(struct ustack_symbolizer *sym)
{
	return sym ? sym->conf.flags : 0;
}
