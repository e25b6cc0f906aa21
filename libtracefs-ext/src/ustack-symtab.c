// SPDX-License-Identifier: LGPL-2.1
/*
 * The code symbols of one symbol table (.symtab or .dynsym), sorted once so
 * that every lookup is a binary search.
 *
 * Kept: defined FUNC, IFUNC and NOTYPE symbols (assembly labels often have no
 * type) in executable sections. A symbol with st_size 0 covers the rest of
 * its section; the next symbol cuts it short, since a lookup takes the last
 * symbol at or below the address. Where several symbols share an address,
 * one is kept: a function over a label, a sized symbol over an unsized one,
 * global over weak over local, then the plainer name (fewer leading '_',
 * shorter), so aliases resolve the same way every time.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

/* What a symbol needs from its section, read once per section. */
struct ustack_sec {
	unsigned long long	addr;
	unsigned long long	end;
	bool			code;
};

static unsigned int ustack_sym_rank(const GElf_Sym *gsym, bool sized)
{
	unsigned int rank = 0;

	if (GELF_ST_TYPE(gsym->st_info) != STT_NOTYPE)
		rank |= 8;
	if (sized)
		rank |= 4;
	if (GELF_ST_BIND(gsym->st_info) == STB_GLOBAL)
		rank |= 2;
	else if (GELF_ST_BIND(gsym->st_info) == STB_WEAK)
		rank |= 1;
	return rank;
}

static size_t ustack_leading_underscores(const char *name)
{
	return strspn(name, "_");
}

/* Address first, then the symbol to keep first among those at one address. */
static int ustack_sym_cmp(const void *a, const void *b, void *names)
{
	const struct ustack_sym *sa = a, *sb = b;
	const char *na = (char *)names + sa->name;
	const char *nb = (char *)names + sb->name;
	size_t ua, ub, la, lb;

	if (sa->addr != sb->addr)
		return sa->addr < sb->addr ? -1 : 1;
	if (sa->rank != sb->rank)
		return sa->rank > sb->rank ? -1 : 1;
	ua = ustack_leading_underscores(na);
	ub = ustack_leading_underscores(nb);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(na, nb);
}

/*
 * Address and extent of every section; code marks executable allocated ones.
 * Returns NULL with *nr 0 when there are no sections, with *nr set on ENOMEM.
 */
static struct ustack_sec *ustack_symtab_sections(struct ustack_elf *e, size_t *nr)
{
	struct ustack_sec *secs;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t i, n;

	/* libelf checked that the section header table fits in the file */
	*nr = 0;
	if (elf_getshdrnum(e->elf, &n) || !n)
		return NULL;
	*nr = n;
	secs = calloc(n, sizeof(*secs));
	if (!secs)
		return NULL;

	while ((scn = elf_nextscn(e->elf, scn))) {
		i = elf_ndxscn(scn);
		if (i >= *nr || !gelf_getshdr(scn, &shdr))
			continue;
		secs[i].addr = shdr.sh_addr;
		secs[i].end = shdr.sh_addr + shdr.sh_size;
		if (secs[i].end < secs[i].addr)
			secs[i].end = ULLONG_MAX;
		secs[i].code = (shdr.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
			       (SHF_ALLOC | SHF_EXECINSTR);
	}
	return secs;
}

/*
 * Turn one ELF symbol into a struct ustack_sym. Return false for symbols that
 * are not code, are undefined, or whose name or address makes no sense.
 */
static bool ustack_symtab_take(struct ustack_sym *sym, const GElf_Sym *gsym,
			       const struct ustack_sec *secs, size_t nr_secs,
			       const Elf_Data *strs, bool thumb)
{
	unsigned char type = GELF_ST_TYPE(gsym->st_info);
	unsigned long long addr = gsym->st_value;
	const struct ustack_sec *sec;
	const char *name;

	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return false;
	/* also leaves out SHN_ABS, SHN_COMMON and SHN_XINDEX (only in objects) */
	if (gsym->st_shndx == SHN_UNDEF || gsym->st_shndx >= SHN_LORESERVE ||
	    gsym->st_shndx >= nr_secs)
		return false;
	sec = &secs[gsym->st_shndx];
	if (!sec->code)
		return false;

	if (gsym->st_name >= strs->d_size || gsym->st_name > UINT_MAX)
		return false;
	name = (const char *)strs->d_buf + gsym->st_name;
	/* the name must end inside the table; "$x"-style names are ARM mapping symbols */
	if (!*name || *name == '$' || !memchr(name, 0, strs->d_size - gsym->st_name))
		return false;

	/* the low bit of an ARM Thumb function address only says "Thumb" */
	if (thumb && type == STT_FUNC)
		addr &= ~1ULL;
	if (addr < sec->addr || addr >= sec->end)
		return false;

	sym->addr = addr;
	sym->name = gsym->st_name;
	if (gsym->st_size) {
		sym->size = gsym->st_size;
		if (addr + sym->size < addr)
			sym->size = ULLONG_MAX - addr;
	} else {
		sym->size = sec->end - addr;
	}
	sym->rank = ustack_sym_rank(gsym, gsym->st_size);
	return true;
}

/* Keep the first symbol at each address and copy their names into one block. */
static int ustack_symtab_pack(struct ustack_symtab *tab, const Elf_Data *strs)
{
	size_t i, n = 0, len, total = 0;
	struct ustack_sym *syms;
	char *names;

	for (i = 0; i < tab->nr; i++) {
		if (n && tab->syms[n - 1].addr == tab->syms[i].addr)
			continue;
		tab->syms[n++] = tab->syms[i];
		total += strlen((const char *)strs->d_buf + tab->syms[i].name) + 1;
	}
	if (total > UINT_MAX) {
		errno = EFBIG;
		return -1;
	}

	names = malloc(total);
	if (!names)
		return -1;
	total = 0;
	for (i = 0; i < n; i++) {
		len = strlen((const char *)strs->d_buf + tab->syms[i].name) + 1;
		memcpy(names + total, (const char *)strs->d_buf + tab->syms[i].name, len);
		tab->syms[i].name = total;
		total += len;
	}
	tab->names = names;
	tab->nr = n;

	/* give back what the left out and duplicate symbols took */
	syms = realloc(tab->syms, n * sizeof(*syms));
	if (syms)
		tab->syms = syms;
	return 0;
}

/**
 * ustack_symtab_load - read the code symbols of a symbol table
 * @tab: filled in; empty when the file has no such table or no code symbols
 * @e: the file
 * @type: SHT_SYMTAB or SHT_DYNSYM
 *
 * A table libelf cannot read (bad offsets or sizes, a bad string table link)
 * counts as no table.
 *
 * Return: 0 on success, -1 with errno ENOMEM (or EFBIG for names too large to
 * index), leaving @tab empty.
 */
int ustack_symtab_load(struct ustack_symtab *tab, struct ustack_elf *e, Elf64_Word type)
{
	size_t i, ent, nsyms, nr_secs;
	GElf_Shdr shdr, strshdr;
	Elf_Scn *scn, *strscn;
	Elf_Data *data, *strs;
	struct ustack_sec *secs;
	GElf_Ehdr ehdr;
	GElf_Sym gsym;
	bool thumb;

	memset(tab, 0, sizeof(*tab));
	scn = ustack_elf_find_section(e, type, NULL);
	if (!scn || !gelf_getshdr(scn, &shdr) || !gelf_getehdr(e->elf, &ehdr))
		return 0;
	thumb = ehdr.e_machine == EM_ARM;

	data = elf_getdata(scn, NULL);
	strscn = elf_getscn(e->elf, shdr.sh_link);
	if (!strscn || !gelf_getshdr(strscn, &strshdr) || strshdr.sh_type != SHT_STRTAB)
		return 0;
	strs = elf_getdata(strscn, NULL);
	ent = gelf_fsize(e->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!data || data->d_type != ELF_T_SYM || !data->d_buf || !ent ||
	    !strs || !strs->d_buf || !strs->d_size)
		return 0;
	nsyms = data->d_size / ent;
	if (!nsyms)
		return 0;

	secs = ustack_symtab_sections(e, &nr_secs);
	if (!secs)
		return nr_secs ? -1 : 0;

	tab->syms = calloc(nsyms, sizeof(*tab->syms));
	if (!tab->syms)
		goto fail;
	/* entry 0 is the reserved null symbol */
	for (i = 1; i < nsyms; i++) {
		if (!gelf_getsym(data, i, &gsym))
			break;
		if (ustack_symtab_take(&tab->syms[tab->nr], &gsym, secs, nr_secs, strs, thumb))
			tab->nr++;
	}
	free(secs);
	secs = NULL;

	if (!tab->nr) {
		ustack_symtab_free(tab);
		return 0;
	}
	qsort_r(tab->syms, tab->nr, sizeof(*tab->syms), ustack_sym_cmp, strs->d_buf);
	if (ustack_symtab_pack(tab, strs))
		goto fail;
	return 0;

fail:
	free(secs);
	ustack_symtab_free(tab);
	return -1;
}

/**
 * ustack_symtab_free - free what ustack_symtab_load() allocated
 * @tab: the table, left empty
 */
void ustack_symtab_free(struct ustack_symtab *tab)
{
	free(tab->syms);
	free(tab->names);
	memset(tab, 0, sizeof(*tab));
}

/**
 * ustack_symtab_find - the symbol containing an address
 * @tab: the table
 * @addr: a link-time virtual address
 *
 * Return: the last symbol starting at or below @addr when @addr is inside it,
 * else NULL.
 */
const struct ustack_sym *ustack_symtab_find(const struct ustack_symtab *tab,
					    unsigned long long addr)
{
	size_t lo = 0, hi = tab->nr, mid;
	const struct ustack_sym *s;

	/* find the first symbol above addr; the one before it is the candidate */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tab->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &tab->syms[lo - 1];
	return addr - s->addr < s->size ? s : NULL;
}
