// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading one mapped file for the symbolizer: which file to trust, where its
 * segments and its symbols come from.
 *
 *   the file is there, and has the build-id asked for (or none was asked for):
 *	segments from the file; symbols from its .symtab, else from its separate
 *	debug file, else from its .dynsym;
 *   the file is missing, not ELF, or has another build-id: it is not trusted;
 *	only the debug file with the build-id asked for can stand in for it, for
 *	segments and symbols both.
 *
 * Anything that cannot be read leaves the file without segments or symbols:
 * its offsets are then unresolved. Only running out of memory is an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

#define USTACK_DELETED		" (deleted)"

/*
 * Open the file a maps line names. A file deleted while mapped shows as
 * "path (deleted)": when that name does not exist, try the path without the
 * suffix (a build-id, when given, tells whether it is still the same file).
 */
static int ustack_file_open(struct ustack_elf *e, const char *path, char **opened)
{
	size_t len = strlen(path), slen = strlen(USTACK_DELETED);
	int err;

	if (!ustack_elf_open(e, path)) {
		*opened = strdup(path);
		if (*opened)
			return 0;
		ustack_elf_close(e);
		errno = ENOMEM;
		return -1;
	}
	if (errno != ENOENT || len <= slen || strcmp(path + len - slen, USTACK_DELETED))
		return -1;

	*opened = strndup(path, len - slen);
	if (!*opened)
		return -1;
	if (!ustack_elf_open(e, *opened))
		return 0;
	err = errno;
	free(*opened);
	*opened = NULL;
	errno = err;
	return -1;
}

/*
 * Symbols of a file that is there and trusted: its own .symtab, else the
 * separate debug file's, else its .dynsym. Segments always come from the file.
 */
static int ustack_file_load_trusted(const char *debug_dir, struct ustack_file *f,
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
	if (!ustack_debug_file_open(debug_dir, opened, e, build_id, build_id_size,
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
static int ustack_file_load_untrusted(const char *debug_dir, struct ustack_file *f)
{
	struct ustack_elf dbg;
	int ret;

	if (!f->build_id_size)
		return 0;
	if (ustack_debug_file_open(debug_dir, f->path, NULL, f->build_id,
				   f->build_id_size, &dbg, &f->symtab, &f->sym_file))
		return errno == ENOMEM ? -1 : 0;

	ret = ustack_elf_segments(&dbg, &f->segs, &f->nr_segs);
	ustack_elf_close(&dbg);
	return ret;
}

/* Read the file of a new cache entry. Return -1 only when memory ran out. */
static int ustack_file_load(const char *debug_dir, struct ustack_file *f)
{
	char *opened = NULL;
	struct ustack_elf e;
	int ret;

	if (ustack_file_open(&e, f->path, &opened))
		return errno == ENOMEM ? -1 : ustack_file_load_untrusted(debug_dir, f);

	if (f->build_id_size && !ustack_elf_same_build_id(&e, f->build_id, f->build_id_size)) {
		ustack_elf_close(&e);
		free(opened);
		return ustack_file_load_untrusted(debug_dir, f);
	}

	ret = ustack_file_load_trusted(debug_dir, f, &e, opened);
	ustack_elf_close(&e);
	free(opened);
	return ret;
}

/**
 * ustack_file_read - read what the symbolizer needs of one mapped file
 * @debug_dir: the root of separate debug files
 * @path: the file as the maps show it
 * @build_id: the build-id asked for, or NULL
 * @build_id_size: its size; 0 when there is none
 *
 * Return: the file, to be freed with ustack_file_free(), possibly without
 * segments or symbols; NULL with errno ENOMEM.
 */
struct ustack_file *ustack_file_read(const char *debug_dir, const char *path,
				     const unsigned char *build_id, size_t build_id_size)
{
	size_t len = strlen(path);
	struct ustack_file *f;

	f = calloc(1, sizeof(*f) + len + 1);
	if (!f)
		return NULL;
	memcpy(f->path, path, len + 1);
	if (build_id_size)
		memcpy(f->build_id, build_id, build_id_size);
	f->build_id_size = build_id_size;

	if (ustack_file_load(debug_dir, f)) {
		ustack_file_free(f);
		errno = ENOMEM;
		return NULL;
	}
	return f;
}

/**
 * ustack_file_free - free a file read by ustack_file_read()
 * @f: the file
 */
void ustack_file_free(struct ustack_file *f)
{
	ustack_symtab_free(&f->symtab);
	free(f->segs);
	free(f->sym_file);
	free(f);
}


/**
 * ustack_file_segment - the segment holding a file offset
 * @f: the file
 * @offset: the offset in the file
 *
 * Return: the segment, a code segment first should two hold the offset; NULL
 * when none does.
 */
const struct ustack_segment *ustack_file_segment(const struct ustack_file *f,
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
