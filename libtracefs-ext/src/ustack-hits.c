// SPDX-License-Identifier: LGPL-2.1
/*
 * The symbol at an address of a file: dwfl_module_addrinfo(), then kept.
 *
 * libdwfl picks the symbol (a sized symbol containing the address, global
 * over weak over local, the first in the table among equals; else the
 * nearest sizeless one below in the same section, if no symbol ends in
 * between) from the .symtab of the file or of its debug file, else from
 * .dynsym and MiniDebugInfo. Kept from it are code symbols only: FUNC,
 * IFUNC or NOTYPE (assembly labels often have no type) in an executable
 * section; "$x"-style names are ARM mapping symbols.
 *
 * libdwfl searches the symbol table linearly on every call, while a trace
 * asks for the same few addresses again and again: every address asked for
 * is kept in an open-addressing table with its answer (and the demangled
 * name, made once).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

#define USTACK_HITS_MIN		64

static size_t ustack_hit_slot(unsigned long long addr, size_t size)
{
	unsigned long long h = addr * 0x9e3779b97f4a7c15ULL;

	return (h ^ (h >> 29)) & (size - 1);
}

static struct ustack_hit *ustack_hit_find(struct ustack_file *f, unsigned long long addr)
{
	size_t i = ustack_hit_slot(addr, f->hits_size);

	while (f->hits[i].used) {
		if (f->hits[i].addr == addr)
			return &f->hits[i];
		i = (i + 1) & (f->hits_size - 1);
	}
	return &f->hits[i];
}

/* Double the table when it is half full. Return -1 with errno ENOMEM. */
static int ustack_hits_grow(struct ustack_file *f)
{
	size_t i, size = f->hits_size ? f->hits_size * 2 : USTACK_HITS_MIN;
	struct ustack_hit *old = f->hits, *slot;
	size_t old_size = f->hits_size;

	if (f->nr_hits < f->hits_size / 2)
		return 0;
	f->hits = calloc(size, sizeof(*f->hits));
	if (!f->hits) {
		f->hits = old;
		return -1;
	}
	f->hits_size = size;
	for (i = 0; i < old_size; i++) {
		if (!old[i].used)
			continue;
		slot = ustack_hit_find(f, old[i].addr);
		*slot = old[i];
	}
	free(old);
	return 0;
}

/* A symbol of code: its type, and the flags of its section when there are sections. */
static bool ustack_is_code(const GElf_Sym *sym, Elf *elf, GElf_Word shndx, const char *name)
{
	unsigned char type = GELF_ST_TYPE(sym->st_info);
	GElf_Shdr shdr;
	Elf_Scn *scn;
	size_t n;

	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return false;
	if (!*name || *name == '$')
		return false;
	if (!elf || elf_getshdrnum(elf, &n) || !n)
		return true;
	scn = elf_getscn(elf, shndx);
	return scn && gelf_getshdr(scn, &shdr) &&
	       (shdr.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR);
}

/* Ask libdwfl; the name and its file into hit. Return -1 with errno ENOMEM. */
static int ustack_hit_fill(struct ustack_file *f, struct ustack_hit *hit)
{
	const char *name, *debug_file = NULL;
	Elf *elf = NULL, *main_elf;
	GElf_Addr bias;
	GElf_Word shndx;
	GElf_Off off;
	GElf_Sym sym;
	char *nice;

	name = dwfl_module_addrinfo(f->mod, hit->addr, &off, &sym, &shndx, &elf, &bias);
	if (!name || !ustack_is_code(&sym, elf, shndx, name))
		return 0;
	hit->start = hit->addr - off;
	hit->name = name;
	main_elf = dwfl_module_getelf(f->mod, &bias);
	dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug_file);
	/* MiniDebugInfo is inside the main file: only the debug file is another */
	hit->file = elf != main_elf && debug_file ? debug_file : f->opened;
	if (f->conf->flags & USTACK_SYMBOLIZE_MANGLED)
		return 0;
	nice = ustack_demangle(name);
	if (!nice)
		return errno == ENOMEM ? -1 : 0;
	hit->name = nice;
	hit->owned = true;
	return 0;
}

/**
 * ustack_file_symbol - the code symbol at a link-time address of a file
 * @f: the file, with a module
 * @addr: the address
 *
 * Return: the answer, kept until @f is freed: its name is NULL when no code
 * symbol contains @addr; NULL with errno ENOMEM.
 */
const struct ustack_hit *ustack_file_symbol(struct ustack_file *f, unsigned long long addr)
{
	struct ustack_hit *hit;

	if (ustack_hits_grow(f))
		return NULL;
	hit = ustack_hit_find(f, addr);
	if (hit->used)
		return hit;
	memset(hit, 0, sizeof(*hit));
	hit->addr = addr;
	if (ustack_hit_fill(f, hit)) {
		if (hit->owned)
			free((char *)hit->name);
		return NULL;
	}
	hit->used = true;
	f->nr_hits++;
	return hit;
}

/**
 * ustack_hits_free - forget every answer kept for a file
 * @f: the file
 */
void ustack_hits_free(struct ustack_file *f)
{
	size_t i;

	for (i = 0; i < f->hits_size; i++) {
		if (f->hits[i].used && f->hits[i].owned)
			free((char *)f->hits[i].name);
	}
	free(f->hits);
	f->hits = NULL;
	f->hits_size = 0;
	f->nr_hits = 0;
}
