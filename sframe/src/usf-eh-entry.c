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
 */
#include "usf-eh-local.h"

#define USF_EH_ENTRY_MAX	512

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
 * Nothing is added when e_entry is 0, an FDE covers it, or the gap around
 * it is larger than USF_EH_ENTRY_MAX or not inside one executable PT_LOAD.
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
