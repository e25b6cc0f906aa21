// SPDX-License-Identifier: LGPL-2.1
/*
 * Where a code address is in its source, and which functions were inlined
 * there, from the DWARF of the file or of its debug file (libdw).
 *
 * The line table gives the file and line of the address itself, in the
 * innermost function; dwarf_getscopes() gives the scopes around it, innermost
 * first: each DW_TAG_inlined_subroutine is a function inlined there, whose
 * DW_AT_call_file and DW_AT_call_line are where it was called from, in the
 * next function out (found among dwarf_getscopes_die() of the instance); the
 * DW_TAG_subprogram ends the chain. This is what addr2line -i prints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "ustack-local.h"

/* The most functions of one chain: deeper inlining is cut there. */
#define USTACK_INLINE_MAX	32

/**
 * ustack_source_clear - forget what lookup_source() said last
 * @sym: the symbolizer
 */
void ustack_source_clear(struct ustack_symbolizer *sym)
{
	size_t i;

	for (i = 0; i < sym->nr_src; i++)
		free(sym->src_names[i]);
	free(sym->src_names);
	free(sym->src);
	sym->src_names = NULL;
	sym->src = NULL;
	sym->nr_src = 0;
}

/* A function's name: its linkage name demangled, else its DW_AT_name. */
static int ustack_source_name(struct ustack_symbolizer *sym, Dwarf_Die *die, size_t i)
{
	struct ustack_source *src = &sym->src[i];
	Dwarf_Attribute attr;
	const char *name;

	src->function = dwarf_diename(die);
	if (sym->conf.flags & USTACK_SYMBOLIZE_MANGLED)
		return 0;
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (!name)
		return 0;
	sym->src_names[i] = ustack_demangle(name);
	if (sym->src_names[i])
		src->function = sym->src_names[i];
	return errno == ENOMEM ? -1 : 0;
}

static unsigned int ustack_die_num(Dwarf_Die *die, unsigned int at)
{
	Dwarf_Attribute attr;
	Dwarf_Word val;

	if (dwarf_formudata(dwarf_attr(die, at, &attr), &val) || val > __INT_MAX__)
		return 0;
	return val;
}

/* Where an inlined function was called from, in the next function out. */
static void ustack_call_site(Dwarf_Die *cu, Dwarf_Die *die, struct ustack_source *next)
{
	unsigned int idx = ustack_die_num(die, DW_AT_call_file);
	Dwarf_Files *files;
	size_t nfiles;

	next->file = NULL;
	if (idx && !dwarf_getsrcfiles(cu, &files, &nfiles) && idx < nfiles)
		next->file = dwarf_filesrc(files, idx, NULL, NULL);
	next->line = ustack_die_num(die, DW_AT_call_line);
	next->column = ustack_die_num(die, DW_AT_call_column);
}

/* The chain of functions at addr, from its scopes. Return -1 with errno ENOMEM. */
static int ustack_source_chain(struct ustack_symbolizer *sym, struct ustack_file *f,
			       unsigned long long addr)
{
	Dwarf_Die *cu, *scopes = NULL, *outer;
	Dwfl_Line *line;
	Dwarf_Addr bias;
	int i, n = 0, tag, line_no = 0, col = 0;
	const char *file = NULL;

	line = dwfl_module_getsrc(f->mod, addr);
	if (line)
		file = dwfl_lineinfo(line, NULL, &line_no, &col, NULL, NULL);
	cu = dwfl_module_addrdie(f->mod, addr, &bias);
	if (cu)
		n = dwarf_getscopes(cu, addr - bias, &scopes);
	if (n < 0)
		n = 0;
	sym->src = calloc(USTACK_INLINE_MAX + 1, sizeof(*sym->src));
	sym->src_names = calloc(USTACK_INLINE_MAX + 1, sizeof(*sym->src_names));
	if (!sym->src || !sym->src_names)
		goto nomem;
	sym->src[0].file = file;
	sym->src[0].line = line_no > 0 ? line_no : 0;
	sym->src[0].column = col > 0 ? col : 0;
	for (i = 0; i < n && sym->nr_src < USTACK_INLINE_MAX; i++) {
		tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		if (ustack_source_name(sym, &scopes[i], sym->nr_src))
			goto nomem;
		sym->nr_src++;
		if (tag == DW_TAG_subprogram)
			break;
		sym->src[sym->nr_src - 1].inlined = true;
		ustack_call_site(cu, &scopes[i], &sym->src[sym->nr_src]);
		/*
		 * After an inlined instance come the scopes of its abstract
		 * definition: the function it was inlined into is among the
		 * scopes around the instance itself ([0] is the instance).
		 */
		n = dwarf_getscopes_die(&scopes[i], &outer);
		if (n <= 0)
			break;
		free(scopes);
		scopes = outer;
		i = 0;
	}
	/* no function in the DWARF: the line alone, if there is one */
	if (!sym->nr_src && file)
		sym->nr_src = 1;
	free(scopes);
	return 0;
nomem:
	free(scopes);
	ustack_source_clear(sym);
	errno = ENOMEM;
	return -1;
}

/**
 * ustack_symbolizer_lookup_source - the source location of an offset in a mapped file
 * @sym: the symbolizer
 * @path: the file, as for ustack_symbolizer_lookup()
 * @build_id: its build-id, or NULL
 * @build_id_size: the size of @build_id; 0 when not known
 * @offset: the offset in the file
 * @flags: 0, or USTACK_LOOKUP_RETURN when @offset is a return address: the
 *	call before it is looked up
 * @source: set to the functions at @offset, innermost first: every one but
 *	the last was inlined into the next (its @inlined is true), and the
 *	last is the function the code is in. The first has the source line of
 *	@offset itself; each other one the line its inlined callee was called
 *	from. Valid until the next call, a change of the symbolizer's settings,
 *	or ustack_symbolizer_free(); NULL when there are none.
 *
 * Reads the DWARF of the file, or of its separate debug file (found as
 * ustack_symbolizer_lookup() finds it). A file without DWARF gives nothing.
 *
 * Return: the number of entries in @source (0 when the DWARF does not cover
 * @offset); -1 with errno EINVAL (bad arguments, as for
 * ustack_symbolizer_lookup(), or @source NULL) or ENOMEM.
 */
int ustack_symbolizer_lookup_source(struct ustack_symbolizer *sym, const char *path,
				    const unsigned char *build_id, size_t build_id_size,
				    unsigned long long offset, unsigned int flags,
				    const struct ustack_source **source)
{
	const struct ustack_segment *seg;
	unsigned long long addr;
	struct ustack_file *f;
	int placed;

	if (!source || !sym) {
		errno = EINVAL;
		return -1;
	}
	*source = NULL;
	ustack_source_clear(sym);
	placed = ustack_symbolizer_place(sym, path, build_id, build_id_size, offset, flags, &f,
					 &seg, &addr);
	if (placed <= 0)
		return placed;
	if (ustack_source_chain(sym, f, addr))
		return -1;
	*source = sym->nr_src ? sym->src : NULL;
	return sym->nr_src;
}
