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
 * libdwfl searches the symbol table linearly on every call (some 100 ns
 * per symbol), while a trace asks for the same few addresses again and
 * again: every address asked for is kept in an open-addressing table with
 * its answer (and the demangled name, made once), and every sized symbol
 * found answers for the other addresses inside it (a sorted array of
 * ranges), so that libdwfl is asked once per function. (A symbol nested
 * inside another, which libdwfl would prefer for the addresses it covers,
 * is then only found when asked for first.)
 */
#include <errno.h>
#include <stdint.h>
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

/* The index of the first range that starts above addr. */
static size_t ustack_range_after(const struct ustack_file *f, unsigned long long addr)
{
	size_t lo = 0, hi = f->nr_ranges, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->ranges[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct ustack_range *ustack_range_find(const struct ustack_file *f,
						    unsigned long long addr)
{
	size_t i = ustack_range_after(f, addr);

	if (!i || addr >= f->ranges[i - 1].end)
		return NULL;
	return &f->ranges[i - 1];
}

/* Keep the range of a sized symbol; a failed allocation only costs speed. */
static void ustack_range_add(struct ustack_file *f, const struct ustack_hit *hit,
			     unsigned long long size)
{
	size_t i = ustack_range_after(f, hit->start), n = f->ranges_size ? 2 * f->ranges_size : 64;
	struct ustack_range *r;

	if (hit->start + size < hit->start)
		return;
	if (f->nr_ranges == f->ranges_size) {
		r = realloc(f->ranges, n * sizeof(*r));
		if (!r)
			return;
		f->ranges = r;
		f->ranges_size = n;
	}
	memmove(&f->ranges[i + 1], &f->ranges[i], (f->nr_ranges - i) * sizeof(*r));
	f->ranges[i] = (struct ustack_range){ hit->start, hit->start + size, hit->name,
					      hit->file };
	f->nr_ranges++;
}

/*
 * Does @name end inside a string table of @elf? libdwfl hands out pointers
 * into the file's string tables as they are, and a hostile file's table
 * need not end with a NUL. A name in no section's data (a file without
 * section headers, whose symbols libdwfl finds through PT_DYNAMIC) cannot
 * be bounded and is not used.
 */
static bool ustack_name_bounded(Elf *elf, const char *name)
{
	uintptr_t p = (uintptr_t)name, start;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_STRTAB)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		start = (uintptr_t)data->d_buf;
		if (p >= start && p < start + data->d_size)
			return memchr(name, 0, start + data->d_size - p);
	}
	return false;
}

/* Ask libdwfl; the name and its file into hit. Return -1 with errno ENOMEM. */
static int ustack_hit_fill(struct ustack_file *f, struct ustack_hit *hit)
{
	const struct ustack_range *range = ustack_range_find(f, hit->addr);
	const char *name, *debug_file = NULL;
	Elf *elf = NULL, *main_elf;
	GElf_Addr bias;
	GElf_Word shndx;
	GElf_Off off;
	GElf_Sym sym;
	char *nice;

	if (range) {
		hit->start = range->start;
		hit->name = range->name;
		hit->file = range->file;
		return 0;
	}
	name = dwfl_module_addrinfo(f->mod, hit->addr, &off, &sym, &shndx, &elf, &bias);
	if (!name || !elf || !ustack_name_bounded(elf, name) ||
	    !ustack_is_code(&sym, elf, shndx, name))
		return 0;
	hit->start = hit->addr - off;
	hit->name = name;
	main_elf = dwfl_module_getelf(f->mod, &bias);
	dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug_file);
	/* MiniDebugInfo is inside the main file: only the debug file is another */
	hit->file = elf != main_elf && debug_file ? debug_file : f->opened;
	if (!(f->conf->flags & USTACK_SYMBOLIZE_MANGLED)) {
		nice = ustack_demangle(name);
		if (!nice && errno == ENOMEM)
			return -1;
		if (nice) {
			hit->name = nice;
			hit->owned = true;
		}
	}
	if (sym.st_size && off < sym.st_size)
		ustack_range_add(f, hit, sym.st_size);
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
	free(f->ranges);
	f->hits = NULL;
	f->ranges = NULL;
	f->hits_size = 0;
	f->nr_hits = 0;
	f->nr_ranges = 0;
	f->ranges_size = 0;
}
