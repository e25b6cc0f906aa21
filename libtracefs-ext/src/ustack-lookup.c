// SPDX-License-Identifier: LGPL-2.1
/*
 * Looking up one frame: file offset to link-time address (the file's PT_LOAD
 * segments), address to symbol (ustack-hits.c, ustack-symtab.c), and the result as
 * text.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ustack-local.h"

/**
 * ustack_symbolizer_lookup - find the symbol at an offset in a mapped file
 * @sym: the symbolizer
 * @path: the file as /proc/PID/maps shows it (a " (deleted)" suffix is
 *	dropped when the name with it does not exist); "[vdso]" for the vDSO
 * @build_id: the file's build-id, or NULL when not known
 * @build_id_size: the number of bytes in @build_id; 0 when not known
 * @offset: the offset in the file: ip - vma_start + vm_pgoff * page_size, as
 *	the kernel records for a user stack frame
 * @flags: 0, or USTACK_LOOKUP_RETURN when @offset is a return address (any
 *	frame of a stack but the innermost)
 * @symbol: filled in with the result
 *
 * The file is read under the sysroot (ustack_symbolizer_set_sysroot()), if
 * one is set, through libdwfl. The offset is turned into a link-time
 * address through the file's PT_LOAD program headers and looked up in its
 * .symtab; when the file has none (it was stripped), in the .symtab of its
 * separate debug file (see ustack_symbolizer_set_debug_dir(); then on the
 * debuginfod servers of DEBUGINFOD_URLS); else in its .dynsym and its
 * MiniDebugInfo (.gnu_debugdata). The containing code symbol is taken, or
 * the nearest one below for symbols without a size. C++ and Rust names are
 * demangled unless the symbolizer has USTACK_SYMBOLIZE_MANGLED.
 *
 * With USTACK_LOOKUP_RETURN the segment and the symbol are those of @offset
 * - 1, the last byte of the call (as debuggers do): a call to a function that
 * never returns can end its function, and its return address is then the
 * first byte of the next function, or padding. @symbol->addr and
 * @symbol->sym_offset are still those of @offset itself, so that name +
 * sym_offset is the address recorded.
 *
 * When @build_id is given and the file on disk does not carry it (it was
 * replaced, or is gone), the file is not trusted: only a file with that
 * build-id stands in for it (the debug directory's, or a debuginfod server's
 * executable), and only when it has the segment contents of the original
 * (an unstripped copy). A debug file from objcopy --only-keep-debug lost the
 * file layout, so offsets in such a file stay unresolved. "[vdso]" is read
 * from the vDSO image of the same build-id (see the man page).
 *
 * A file is read once, an address looked up once. A missing, unreadable or
 * corrupt file, an offset in no segment and an address in no symbol are not
 * errors: @symbol->resolved is then false, and @symbol->path and
 * @symbol->file_offset say what to print instead.
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
	const struct ustack_hit *hit;
	unsigned long long addr;
	struct ustack_file *f;
	int placed;

	if (!symbol) {
		errno = EINVAL;
		return -1;
	}
	placed = ustack_symbolizer_place(sym, path, build_id, build_id_size, offset, flags, &f,
					 &seg, &addr);
	if (placed < 0)
		return -1;
	memset(symbol, 0, sizeof(*symbol));
	symbol->path = f->path;
	symbol->file_offset = offset;
	if (!placed)
		return 0;
	symbol->addr = addr + (flags & USTACK_LOOKUP_RETURN ? 1 : 0);

	hit = ustack_file_symbol(f, addr);
	if (!hit)
		return -1;
	/* a symbol never reaches into the next segment, whatever its section says */
	if (!hit->sym.name || hit->sym.start < seg->vaddr)
		return 0;
	symbol->file = hit->sym.file;
	symbol->name = hit->sym.name;
	symbol->sym_offset = symbol->addr - hit->sym.start;
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
