// SPDX-License-Identifier: LGPL-2.1
/*
 * The outermost frame at the ELF entry point.
 *
 * A process starts at e_entry with no caller. glibc's crt1.o says so in
 * its CFI (return address undefined), but ld.so's own _start has no FDE:
 * a walk that reaches a return address in it has no rule there, falls
 * back to frame pointers and meets the zero rbp _start gave itself, and a
 * whole stack looks cut. When no FDE covers e_entry, the gap between the
 * FDEs around it is taken for the entry code and becomes one function
 * whose only row says "outermost". The gap must lie in one executable
 * PT_LOAD and be at most USF_EH_ENTRY_MAX bytes: a larger one holds more
 * than an entry stub, and a stack cut there must not be called whole.
 *
 * Only where e_entry is where processes start: an executable (ET_EXEC, or
 * one with PT_INTERP) or the dynamic linker (its DT_SONAME). A shared
 * library's e_entry is no entry: Debian's point at the start of .text,
 * crtstuff's deregister_tm_clones, in a gap of 200 bytes with
 * __do_global_dtors_aux and frame_dummy, which exit and dlopen call.
 */
#include <string.h>

#include "usf-eh-local.h"

#define USF_EH_ENTRY_MAX	512

/* Does @elf name itself the dynamic linker (DT_SONAME ld-linux*, ld64.so*)? */
static bool usf_eh_entry_ldso(Elf *elf)
{
	Elf_Scn *scn = NULL;
	const char *name;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		data = elf_getdata(scn, NULL);
		/* gelf_getdyn() fails past the section's data */
		for (i = 0; data && gelf_getdyn(data, i, &dyn) && dyn.d_tag != DT_NULL; i++) {
			if (dyn.d_tag != DT_SONAME)
				continue;
			name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			return name && (!strncmp(name, "ld-linux", 8) || !strncmp(name, "ld64.so", 7));
		}
	}
	return false;
}

/**
 * usf_eh_entry_point - where processes start in @elf, if they do
 * @elf: the file
 * @eh: its ELF header
 *
 * Return: e_entry of an executable (ET_EXEC, or with PT_INTERP) or of the
 * dynamic linker; 0 for another file (a shared library's e_entry is none).
 */
uint64_t usf_eh_entry_point(Elf *elf, const GElf_Ehdr *eh)
{
	GElf_Phdr ph;
	size_t n, i;

	if (!eh->e_entry || eh->e_type == ET_EXEC)
		return eh->e_entry;
	if (!elf_getphdrnum(elf, &n))
		for (i = 0; i < n; i++)
			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_INTERP)
				return eh->e_entry;
	return usf_eh_entry_ldso(elf) ? eh->e_entry : 0;
}

/* The gap [*start, *end) between the FDEs around @pc; false when one covers it */
static bool usf_eh_entry_gap(const struct usf_eh_elf *ee, uint64_t pc, uint64_t *start,
			     uint64_t *end)
{
	uint64_t lo = 0, hi = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < ee->nr_fdes; i++) {
		const struct usf_eh_fde *fde = &ee->fdes[i];

		if (fde->start <= pc && pc < fde->end)
			return false;
		if (fde->end <= pc && fde->end > lo)
			lo = fde->end;
		if (fde->start > pc && fde->start < hi)
			hi = fde->start;
	}
	*start = lo;
	*end = hi;
	return true;
}

/* The executable PT_LOAD that holds [@start, @end), or NULL */
static const GElf_Phdr *usf_eh_entry_load(const struct usf_eh_elf *ee, uint64_t start,
					  uint64_t end)
{
	uint32_t i;

	for (i = 0; i < ee->nr_loads; i++) {
		const GElf_Phdr *ph = &ee->loads[i];

		if ((ph->p_flags & PF_X) && start >= ph->p_vaddr &&
		    end <= ph->p_vaddr + ph->p_filesz)
			return ph;
	}
	return NULL;
}

/**
 * usf_eh_entry - give the entry code no FDE covers an outermost row
 * @ee: the file's FDEs, PT_LOADs and entry point
 * @sec: the table (FILE OFFSETS), the function appended
 * @st: the counts (@st->entry_bytes: the bytes given the row)
 *
 * Nothing is added when there is no entry (usf_eh_entry_point()), an FDE
 * covers it, or the gap around it is larger than USF_EH_ENTRY_MAX or not
 * inside one executable PT_LOAD.
 *
 * Return: 0, or -1 (out of memory).
 */
int usf_eh_entry(const struct usf_eh_elf *ee, struct usf_section *sec,
		 struct usf_eh_stats *st)
{
	uint64_t start, end, off;
	struct usf_func *f;
	struct usf_row *r;

	if (!ee->entry || !usf_eh_entry_gap(ee, ee->entry, &start, &end))
		return 0;
	if (end - start > USF_EH_ENTRY_MAX || !usf_eh_entry_load(ee, start, end))
		return 0;
	if (usf_eh_elf_offset(ee, start, end, &off))
		return 0;
	f = usf_section_add_func(sec, off, end - start);
	r = f ? usf_func_add_row(f, 0) : NULL;
	if (!r)
		return -1;
	r->flags = USF_ROW_OUTERMOST;
	st->funcs++;
	st->rows++;
	st->entry_bytes = end - start;
	return 0;
}
